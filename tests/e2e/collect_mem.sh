#!/bin/sh
# itrace-collect's MEM records against accesses known by construction
# (tests/data/collect_mem.S, expected list written by hand): explicit
# operands, scaled index, gs base, 32-bit addresses, push/pop/call/ret,
# enter/leave, xchg, backwards rep movsb, and no access for lea, nop and
# a zero-count rep.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/collect_lib.sh"

prog="$DATA/collect_mem"
"$COLLECT" --backend ptrace -q --insn-bytes -o "$TMP/mem.itr" -- "$prog" >/dev/null 2>&1
check_eq "exit status kept" 0 "$?"

# Resolve "sym+off" / "sym-off" of the expected list through nm.
while read -r kind expr size; do
	sym=${expr%%[+-]*}
	off=${expr#"$sym"}
	base=$(nm "$prog" | awk -v s="$sym" '$3 == s { print $1 }')
	printf '%s 0x%x size=%s\n' "$kind" "$((0x$base $off))" "$size"
done <"$SRCDATA/collect_mem.expected" >"$TMP/want"
"$DUMP" "$TMP/mem.itr" | awk '$2 == "MEM" { print $3, $4, $5 }' >"$TMP/got"
check_files_eq "MEM records equal the hand-written list" "$TMP/want" "$TMP/got"
check_eq "lea, nop and zero-count rep: no access" 0 \
	"$("$DUMP" "$TMP/mem.itr" | awk '$2 == "INSN" { last = $NF } $2 == "MEM" && (last == "bytes=488d442410" || last == "bytes=f348ab" || last ~ /^bytes=660f1f/) { n++ } END { print n + 0 }')"
done_testing
