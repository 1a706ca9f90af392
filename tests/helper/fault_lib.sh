# tests/helper/fault_lib.sh - helpers of the fault-injection tests
# (tests/e2e/fault_*.sh, sourced after tests/lib.sh).

# flip_payload FILE N: invert one byte in the payload of chunk N (0-based)
# of an itrace file: the chunk's CRC no longer holds.
flip_payload() {
	off=$(grep -obUaP 'ICHK' "$1" | sed -n "$(($2 + 1))p" | cut -d: -f1)
	off=$((off + 72 + 5))
	b=$(od -An -tu1 -j "$off" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$off" conv=notrunc status=none
}

# peak_kb CMD...: run CMD (output discarded), print its peak RSS in KB.
peak_kb() {
	/usr/bin/time -f '%M' -o "$TMP/peak" "$@" >/dev/null 2>&1
	cat "$TMP/peak" | tail -1
}

# Sanitizer builds use several times the memory: limits scale with this.
case "$ITRACE_BUILD" in
*san*) MEM_SCALE=4 ;;
*) MEM_SCALE=1 ;;
esac

# temporaries DIR: the output temporaries left in DIR ("" when none).
temporaries() {
	ls -A "$1" | grep -e '\.itrace-tmp\.' || true
}

# random_below N: a number in [0, N), different in each run (the test
# names show it, so that a failure can be reproduced).
# Shell arithmetic on 32 random bits, not awk: mawk's srand() takes every
# seed of 2^31 or more as the same one, so half the runs drew one number.
random_below() {
	echo $(($(od -An -tu4 -N4 /dev/urandom) % $1))
}
