#!/bin/sh
# The decoder against binutils' objdump: for every executable section of
# installed libraries and programs, decoding linearly from each symbol
# start must give objdump's instruction boundaries and direct branch
# targets, with no instruction objdump decodes left undecodable
# (tests/helper/decode_oracle.c).  x86-64 through Zydis; ppc64le (the cross
# toolchain's glibc) through capstone and libitrace's ISA 3.0/3.1 table.
. tests/lib.sh
ORACLE="$ITRACE_ROOT/$ITRACE_BUILD/tests/decode-oracle"

# oracle OBJDUMP FILE: one TAP line for FILE.
oracle() {
	objdump_cmd="$1" file="$2"
	if [ ! -r "$file" ]; then
		fail "$file: not found (make deps installs it)"
		return
	fi
	if ! command -v "$objdump_cmd" >/dev/null; then
		fail "$file: $objdump_cmd not installed (make deps)"
		return
	fi
	"$objdump_cmd" -d -w "$file" >"$TMP/dis" 2>"$TMP/objdump.err"
	if "$ORACLE" "$file" <"$TMP/dis" >"$TMP/out" 2>&1; then
		ok "$(tail -n 1 "$TMP/out")"
	else
		fail "decoder = objdump on $file" "$(cat "$TMP/out" "$TMP/objdump.err")"
	fi
}

# The host's libraries as the dynamic linker resolves them, and the
# distribution's own python3 and gzip (not a wrapper found first on PATH).
lib() {
	ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n && /x86-64/ { print $NF; exit }'
}
if [ "$(uname -m)" = x86_64 ]; then
	for name in libc.so.6 libm.so.6 libstdc++.so.6 ld-linux-x86-64.so.2; do
		path=$(lib "$name")
		oracle objdump "$(readlink -f "${path:-/lib/x86_64-linux-gnu/$name}")"
	done
	oracle objdump "$(readlink -f /usr/bin/python3)"
	oracle objdump "$(readlink -f /usr/bin/gzip)"
fi
oracle powerpc64le-linux-gnu-objdump /usr/powerpc64le-linux-gnu/lib/libc.so.6
done_testing
