#!/bin/sh
# What the tools say when a trace cannot be opened (issue 37): a directory
# is "Is a directory", as every Unix tool says, not "bad magic"; the
# library's message for a refused header reaches the user.
. "$ITRACE_ROOT/tests/lib.sh"

mkdir -p "$TMP/adir"
for tool in itrace-dump itrace-xml itrace-fill; do
	"$BIN/$tool" "$TMP/adir" >"$TMP/out" 2>"$TMP/err"
	check_eq "$tool on a directory exits 1" 1 $?
	check_eq "$tool on a directory: Is a directory" \
		"$tool: cannot open '$TMP/adir': Is a directory" "$(cat "$TMP/err")"
done
"$BIN/itrace-dump" - <"$TMP/adir" >"$TMP/out" 2>"$TMP/err"
check_eq "a directory as standard input exits 1" 1 $?
check_eq "a directory as standard input: Is a directory" \
	"itrace-dump: cannot open '-': Is a directory" "$(cat "$TMP/err")"

# A file of a draft before 1.0, through a second tool.
"$BIN/itrace-xml" "$SRCDATA/format_v1.itr" >"$TMP/out" 2>"$TMP/err"
check_eq "itrace-xml refuses a pre-1.0 draft file (exit 1)" 1 $?
check "itrace-xml says it is a pre-1.0 draft and its read version" \
	grep -q "^itrace-xml: cannot read '.*format_v1.itr': offset 8: pre-1.0 draft format (read version 1), written by itrace before format 1.0; re-record the trace$" "$TMP/err"
done_testing
