#!/bin/sh
# itrace-dump: golden listing, summary, stdin, damaged and missing input.
. "$ITRACE_ROOT/tests/lib.sh"
DUMP="$BIN/itrace-dump"
GOLD="$SRCDATA/format_golden.itr"

"$DUMP" "$GOLD" >"$TMP/out.txt" 2>"$TMP/err.txt"
check_eq "dump of the golden trace exits 0" 0 $?
check_files_eq "dump listing equals the golden listing" "$SRCDATA/format_golden.dump" "$TMP/out.txt"
"$DUMP" "$SRCDATA/format_v1.itr" >"$TMP/v1.txt" 2>"$TMP/v1.err"
check_eq "a pre-1.0 draft file is refused (exit 1)" 1 $?
check_eq "a pre-1.0 draft file: one message naming its read version" \
	"itrace-dump: cannot read '$SRCDATA/format_v1.itr': offset 8: pre-1.0 draft format (read version 1), written by itrace before format 1.0; re-record the trace" \
	"$(cat "$TMP/v1.err")"
check_eq "a pre-1.0 draft file: no records" 0 "$(wc -c <"$TMP/v1.txt")"

"$DUMP" - <"$GOLD" >"$TMP/stdin.txt"
check_files_eq "dump reads standard input with '-'" "$SRCDATA/format_golden.dump" "$TMP/stdin.txt"

"$DUMP" --summary "$GOLD" >"$TMP/sum.txt"
check "summary names the end reason" grep -q '^ended: complete, status 3$' "$TMP/sum.txt"
check "summary counts INSN records" grep -qE '^  INSN +904$' "$TMP/sum.txt"
check "summary shows metadata" grep -q '^meta: cmdline=prog a b$' "$TMP/sum.txt"
check "summary reports bytes per insn" grep -q '^bytes per insn: ' "$TMP/sum.txt"
check "summary names the format version" grep -qx 'format: itrace 1.1' "$TMP/sum.txt"
check "summary names the features (none here)" grep -qx 'features: none' "$TMP/sum.txt"
check "summary names the MEM table's size" grep -qx 'mem table: 128 entries' "$TMP/sum.txt"

head -c 2000 "$GOLD" >"$TMP/cut.itr"
"$DUMP" "$TMP/cut.itr" >"$TMP/cut.txt" 2>"$TMP/cut.err"
check_eq "truncated trace exits 1" 1 $?
check "truncated trace: error names the offset" grep -q "^itrace-dump: '.*cut.itr': trace is truncated: offset [0-9]*: " "$TMP/cut.err"
check_eq "truncated trace: one error line" 1 "$(wc -l <"$TMP/cut.err")"
n=$(wc -l <"$TMP/cut.txt")
head -n "$n" "$SRCDATA/format_golden.dump" >"$TMP/cut.want"
check_files_eq "truncated trace: records before the damage are printed" "$TMP/cut.want" "$TMP/cut.txt"
check "truncated trace: some records were delivered" test "$n" -gt 100

"$DUMP" "$TMP/nonexistent.itr" 2>"$TMP/missing.err"
check_eq "missing file exits 1" 1 $?
check "missing file error is git-style" grep -q "^itrace-dump: cannot open '.*nonexistent.itr': No such file or directory$" "$TMP/missing.err"

echo "not a trace" >"$TMP/text.itr"
"$DUMP" "$TMP/text.itr" 2>"$TMP/text.err"
check_eq "non-itrace file exits 1" 1 $?
check "non-itrace file says so" grep -q "not an itrace file" "$TMP/text.err"

"$DUMP" 2>/dev/null
check_eq "no arguments is a usage error (exit 2)" 2 $?
"$DUMP" --bogus "$GOLD" 2>/dev/null >/dev/null
check_eq "unknown option is a usage error (exit 2)" 2 $?
done_testing
