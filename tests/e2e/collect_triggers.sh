#!/bin/sh
# itrace-collect --start/--stop/--start-addr/--stop-addr/--only: each
# window holds exactly the instructions a full trace shows inside it.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/collect_lib.sh"

basic="$DATA/collect_basic"
"$COLLECT" --backend ptrace -q --insn-bytes -o "$TMP/full.itr" -- "$basic" >/dev/null 2>&1
insn_addrs "$TMP/full.itr" >"$TMP/full.txt"

# slice FROM_ADDR END_ADDR: the full trace from the first FROM_ADDR up to
# (not including) the first END_ADDR after it.
slice() {
	awk -v from="$1" -v end="$2" '
		!on && $1 == from { on = 1 }
		on && $1 == end { exit }
		on { print }' "$TMP/full.txt"
}
sym() {
	printf '0x%x\n' "0x$(nm "$basic" | awk -v s="$1" '$3 == s { print $1 }')"
}

# --start fact: from fact's entry until the outermost fact returns.
"$COLLECT" --backend ptrace -q --insn-bytes --start fact -o "$TMP/fact.itr" -- "$basic" >/dev/null 2>&1
check_eq "--start fact: exit status kept" 7 "$?"
insn_addrs "$TMP/fact.itr" >"$TMP/fact.txt"
slice "$(sym fact)" 0x401042 >"$TMP/fact.want"
check_files_eq "--start fact: exactly fact's instructions (recursion included)" \
	"$TMP/fact.want" "$TMP/fact.txt"
check_eq "--start fact: one window" "1 1" \
	"$("$DUMP" "$TMP/fact.itr" | grep -c 'TRACE_ON trigger') $("$DUMP" "$TMP/fact.itr" | grep -c 'TRACE_OFF trigger')"
check_eq "--start fact: no syscall outside the window" 0 \
	"$("$DUMP" "$TMP/fact.itr" | grep -c ' SYSCALL ')"

# --start fact --stop pick: from fact's entry to pick's entry (excluded).
"$COLLECT" --backend ptrace -q --insn-bytes --start fact --stop pick -o "$TMP/fp.itr" -- "$basic" >/dev/null 2>&1
insn_addrs "$TMP/fp.itr" >"$TMP/fp.txt"
slice "$(sym fact)" "$(sym pick)" >"$TMP/fp.want"
check_files_eq "--start fact --stop pick: exactly the instructions between" "$TMP/fp.want" "$TMP/fp.txt"

# Addresses instead of names, branch level.
"$COLLECT" --backend ptrace -q --insn-bytes -l branch --start-addr "$(sym triple)" -o "$TMP/tr.itr" -- "$basic" >/dev/null 2>&1
check_eq "--start-addr triple (branch): its one return" \
	"BRANCH $(printf '0x%x' $(($(sym triple) + 4))) -> 0x401050 return taken" \
	"$("$DUMP" "$TMP/tr.itr" | awk '$2 == "BRANCH" { $1 = ""; sub(/^ /, ""); print }')"

"$COLLECT" --backend ptrace -q --insn-bytes --start no_such_function -o "$TMP/nf.itr" -- "$basic" >"$TMP/nf.out" 2>&1
check_eq "unknown function: exit status 1" 1 "$?"
check "unknown function: the message names it" grep -q "no function 'no_such_function'" "$TMP/nf.out"

# Dynamic program: --start helper fires once per call.
"$COLLECT" --backend ptrace -q --insn-bytes --start helper -o "$TMP/helper.itr" -- "$PROG" calls >"$TMP/helper.out" 2>&1
check_eq "--start helper: exit status kept" 5 "$?"
check_eq "--start helper: three windows" 3 "$("$DUMP" "$TMP/helper.itr" | grep -c 'TRACE_ON trigger')"
check_eq "--start helper: every window ends with its ret" 3 \
	"$("$DUMP" "$TMP/helper.itr" | awk '$2 == "INSN" { last = $NF } / TRACE_OFF / && last == "bytes=c3" { n++ } END { print n + 0 }')"

# Breakpoints across fork: a followed child keeps them (its helper call
# opens a window), an unfollowed one loses them (no stray SIGTRAP).
"$COLLECT" --backend ptrace -q --insn-bytes --follow-fork --start helper -o "$TMP/ff.itr" -- "$PROG" fork >"$TMP/ff.out" 2>&1
check_eq "follow-fork --start helper: exit status kept" 5 "$?"
check_eq "follow-fork --start helper: the child's window" 1 "$("$DUMP" "$TMP/ff.itr" | grep -c 'TRACE_ON trigger')"
"$COLLECT" --backend ptrace -q --insn-bytes --start helper -o "$TMP/nf.itr" -- "$PROG" fork >"$TMP/nf.out" 2>&1
check "no follow-fork: the child runs without our int3s" grep -q "child exit 13" "$TMP/nf.out"

# --only main: main's instructions are those of a --start main trace
# that lie in the executable, in the same order.
"$COLLECT" --backend ptrace -q --insn-bytes --start main -o "$TMP/main.itr" -- "$PROG" calls >/dev/null 2>&1
"$COLLECT" --backend ptrace -q --insn-bytes --only main -o "$TMP/only.itr" -- "$PROG" calls >"$TMP/only.out" 2>&1
check_eq "--only main: exit status kept" 5 "$?"
check "--only main: output kept" grep -q EXIT-SUCCESS "$TMP/only.out"
main_addr=$("$DUMP" "$TMP/main.itr" | awk '/TRACE_ON trigger/ { print $4; exit }')
exe_lo=$("$DUMP" "$TMP/only.itr" | awk '$2 == "MMAP" && /collect_prog/ { split($4, r, "-"); print r[1]; exit }')
prefix=$(printf '%s' "$exe_lo" | cut -c1-9)
insn_addrs "$TMP/main.itr" | grep "^$prefix" >"$TMP/main.txt"
insn_addrs "$TMP/only.itr" | awk -v m="$main_addr" '$1 == m { on = 1 } on' |
	head -n "$(wc -l <"$TMP/main.txt")" >"$TMP/only.txt"
check_files_eq "--only main: the executable's instructions, nothing skipped" "$TMP/main.txt" "$TMP/only.txt"
check_eq "--only main: no instruction outside the executable" 0 \
	"$(insn_addrs "$TMP/only.itr" | grep -vc "^$prefix")"
check "--only main: scope changes recorded" sh -c "'$DUMP' '$TMP/only.itr' | grep -q 'TRACE_OFF scope'"

# --start main --only main: exactly the executable's part of --start main.
"$COLLECT" --backend ptrace -q --insn-bytes --start main --only main -o "$TMP/so.itr" -- "$PROG" calls >/dev/null 2>&1
check_eq "--start main --only main: exit status kept" 5 "$?"
insn_addrs "$TMP/so.itr" >"$TMP/so.txt"
check_files_eq "--start main --only main: main's window, executable only" "$TMP/main.txt" "$TMP/so.txt"
done_testing
