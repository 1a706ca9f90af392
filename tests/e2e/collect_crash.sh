#!/bin/sh
# A program that crashes (#15 item 6): under the valgrind backend, as under
# ptrace, the trace ends with the SIGNAL record of the fatal signal (same
# signal, si_code, si_addr, and pc at the same place in the executable)
# after the program's last instructions, which are the same in both; a
# crash in a fork-free shell too.  --ring N keeps exactly the last N
# branches, the SIGNAL besides.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
NORM="$ITRACE_ROOT/tests/helper/normalize.awk"
PROG="$DATA/collect_crash"

# signal_line TRACE: the SIGNAL record, its pc as FILE+offset from the
# file's first mapping (the backends load libraries at other addresses).
signal_line() {
	"$DUMP" "$1" | awk '
		function hex(s, n, i) { n = 0; sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n }
		$2 == "MMAP" { split($4, r, "-"); f = $NF; gsub(/.*\//, "", f); sub(/\x27$/, "", f)
			lo[n] = hex(r[1]); hi[n] = hex(r[2]); file[n++] = f
			if (!(f in base) || hex(r[1]) < base[f]) base[f] = hex(r[1]) }
		$2 == "SIGNAL" { pc = $6; sub(/^pc=/, "", pc); a = hex(pc); w = "other"
			for (i = 0; i < n; i++) if (a >= lo[i] && a < hi[i]) w = sprintf("%s+%x", file[i], a - base[file[i]])
			$6 = "pc=" w; $1 = ""; print }'
}
# last_insns TRACE: the last 40 instructions in the executable, relative.
last_insns() {
	"$DUMP" "$1" | awk -v EXE="$PROG" -v MODE=dynamic -f "$NORM" | grep '^INSN' | tail -40
}

for mode in segv abort; do
	arg=""
	[ "$mode" = abort ] && arg=abort
	# shellcheck disable=SC2086
	"$PROG" $arg >"$TMP/native.out" 2>/dev/null
	native_rc=$?
	for be in ptrace valgrind; do
		# shellcheck disable=SC2086
		"$COLLECT" -q --backend $be -o "$TMP/$be.itr" -- "$PROG" $arg >"$TMP/$be.out" 2>"$TMP/$be.err"
		check_eq "$mode/$be: exit status as without the collector" "$native_rc" $?
		check_files_eq "$mode/$be: output as without the collector" "$TMP/native.out" "$TMP/$be.out"
		signal_line "$TMP/$be.itr" >"$TMP/$mode.$be.sig"
		last_insns "$TMP/$be.itr" >"$TMP/$mode.$be.last"
		check "$mode/$be: the trace ends crashed, complete" sh -c \
			"'$DUMP' --summary '$TMP/$be.itr' | grep -q '^complete: yes' &&
			 '$DUMP' --summary '$TMP/$be.itr' | grep -q '^how: the program was killed by signal $((native_rc - 128))$'"
	done
	check_eq "$mode: one SIGNAL record under ptrace" 1 "$(wc -l <"$TMP/$mode.ptrace.sig")"
	check_files_eq "$mode: valgrind's SIGNAL record equals ptrace's" "$TMP/$mode.ptrace.sig" "$TMP/$mode.valgrind.sig"
	check_files_eq "$mode: the last instructions before it are the same" "$TMP/$mode.ptrace.last" "$TMP/$mode.valgrind.last"
done
crash_here=$(nm "$PROG" | awk '$3 == "crash_here" { print $1 }')
off=$(sed -n 's/^ SIGNAL signo=11 code=1 addr=0x0 pc=collect_crash+\([0-9a-f]*\) handler=0x0$/\1/p' "$TMP/segv.ptrace.sig")
check "segv: SIGNAL 11, SEGV_MAPERR at address 0, in crash_here" \
	test -n "$off" -a $((0x${off:-0} - 0x$crash_here)) -ge 0 -a $((0x${off:-0} - 0x$crash_here)) -lt 32
check "abort: SIGNAL 6 with SI_TKILL (-6)" grep -q '^ SIGNAL signo=6 code=-6 ' "$TMP/abort.valgrind.sig"

# The last instruction before the SIGNAL is the one before the fault
# (the faulting load did not execute), at insn level in both backends.
for be in ptrace valgrind; do
	"$COLLECT" -q --backend $be -o "$TMP/l.itr" -- "$PROG" >/dev/null 2>&1
	"$DUMP" "$TMP/l.itr" | awk '$2 == "INSN" { last = $3 } $2 == "SIGNAL" { sub(/^pc=/, "", $6); print last, $6; exit }' >"$TMP/l.txt"
	check "$be: the faulting instruction is not recorded as executed" sh -c \
		"read a b <'$TMP/l.txt' && test \"\$a\" != \"\$b\""
done

# --ring N: exactly the last N branches, and the SIGNAL after them.
for n in 1 5 50; do
	"$COLLECT" -q --ring $n -o "$TMP/r.itr" -- "$PROG" >/dev/null 2>&1
	check_eq "--ring $n: $n branches kept, then the SIGNAL" "$n SIGNAL" \
		"$("$DUMP" "$TMP/r.itr" | awk '$2 == "BRANCH" { n++ } $2 == "SIGNAL" { print n, $2 }')"
done
done_testing
