#!/bin/sh
# examples/count_records, built by make check against the staged install
# with pkg-config only (examples/module.mk), run with the staged shared
# library: its counts are itrace-dump's, damage and a missing file are
# reported as the tools report them.
. "$ITRACE_ROOT/tests/lib.sh"
STAGE="$ITRACE_ROOT/$ITRACE_BUILD/stage"
LIBDIR="$STAGE/usr/local/lib"
EX="$ITRACE_ROOT/$ITRACE_BUILD/examples/count_records"
GOLD="$SRCDATA/format_golden.itr"
run() { LD_LIBRARY_PATH="$LIBDIR" "$EX" "$@"; }

check "the example is built" test -x "$EX"
needs=$(readelf -d "$EX" | sed -n 's/.*(NEEDED).*\[\(libitrace[^]]*\)\]$/\1/p' | tr '\n' ' ')
check_eq "the example links the core shared library only" "libitrace.so.0 " "$needs"
resolved=$(LD_LIBRARY_PATH="$LIBDIR" ldd "$EX" | sed -n 's/.*libitrace.so.0 => \([^ ]*\) .*/\1/p')
check_eq "it runs with the staged library" "$LIBDIR/libitrace.so.0" "$resolved"

run "$GOLD" >"$TMP/count.txt" 2>"$TMP/count.err"
check_eq "the golden trace: exit 0" 0 $?
check_eq "the golden trace: no message" "" "$(cat "$TMP/count.err")"
# itrace-dump --summary counts the same records by type: "  INSN  904".
"$BIN/itrace-dump" --summary "$GOLD" | sed -n 's/^  \([A-Z_]*\) *\([0-9]*\)$/\1 \2/p' >"$TMP/dump.counts"
awk 'NF == 2 && $2 ~ /^[0-9]+$/ {print $1, $2}' "$TMP/count.txt" >"$TMP/ex.counts"
check "itrace-dump counts some record types" test "$(wc -l <"$TMP/dump.counts")" -gt 5
check_files_eq "counts by type equal itrace-dump's" "$TMP/dump.counts" "$TMP/ex.counts"
check "the end of the trace is described" grep -q '^ended: the program exited with status 3' "$TMP/count.txt"
check "runtime and build versions agree" grep -qE '^library ([0-9.]+), built with \1$' "$TMP/count.txt"

# File flags (ITRACE_FF_*, from the installed itrace_format.h), as
# itrace-dump shows them: sim_gen writes MEM records and instruction bytes.
"$ITRACE_ROOT/$ITRACE_BUILD/bench/sim_gen" mix 1000 "$TMP/mix.itr"
check_eq "itrace-dump sees flags 0x3 (MEM, INSN_BYTES)" "flags: 0x3" \
	"$("$BIN/itrace-dump" --summary "$TMP/mix.itr" | grep '^flags:')"
check_eq "the example names the same flags" "flags: mem insn-bytes" \
	"$(run "$TMP/mix.itr" | grep '^flags:')"
check_eq "the golden trace has none" "flags:" "$(grep '^flags:' "$TMP/count.txt")"

run - <"$GOLD" >"$TMP/stdin.txt"
check_files_eq "'-' reads standard input" "$TMP/count.txt" "$TMP/stdin.txt"

head -c 2000 "$GOLD" >"$TMP/cut.itr"
run "$TMP/cut.itr" >"$TMP/cut.txt" 2>"$TMP/cut.err"
check_eq "a truncated trace: exit 1" 1 $?
check "a truncated trace: the error says so" grep -q "^count_records: '.*cut.itr': trace is truncated: " "$TMP/cut.err"
check "a truncated trace: records before the damage are counted" grep -qE '^INSN +[1-9]' "$TMP/cut.txt"

# The installed tools run from the staging root, valgrind backend included
# (it finds its tool in PREFIX/lib/itrace), and the example reads their trace.
SBIN="$STAGE/usr/local/bin"
check "the installed itrace-collect traces with the installed valgrind tool" \
	"$SBIN/itrace-collect" -q --backend valgrind -o "$TMP/true.itr" -- /bin/true
insns=$("$SBIN/itrace-dump" --summary "$TMP/true.itr" | sed -n 's/^  INSN *//p')
check "the installed itrace-dump counts its instructions" test "${insns:-0}" -gt 0
check_eq "so does the example" "$insns" "$(run "$TMP/true.itr" | sed -n 's/^INSN *//p')"

run "$TMP/missing.itr" >/dev/null 2>"$TMP/missing.err"
check_eq "a missing file: exit 1" 1 $?
check_eq "a missing file: one line with the errno" \
	"count_records: cannot open '$TMP/missing.itr': No such file or directory" "$(cat "$TMP/missing.err")"

done_testing
