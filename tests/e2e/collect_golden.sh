#!/bin/sh
# itrace-collect on -nostdlib -static programs: whole traces compared with
# golden files, insn/branch agreement, exit status and output as untraced.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/collect_lib.sh"

basic="$DATA/collect_basic"

"$basic" >"$TMP/plain.out" 2>&1
plain_rc=$?
"$COLLECT" --backend ptrace -q --insn-bytes -o "$TMP/insn.itr" -- "$basic" >"$TMP/insn.out" 2>&1
insn_rc=$?
"$COLLECT" --backend ptrace -q --insn-bytes --level branch -o "$TMP/branch.itr" -- "$basic" >"$TMP/branch.out" 2>&1
branch_rc=$?

check_eq "exit status as untraced (insn)" "$plain_rc" "$insn_rc"
check_eq "exit status as untraced (branch)" "$plain_rc" "$branch_rc"
check_files_eq "output as untraced (insn)" "$TMP/plain.out" "$TMP/insn.out"
check_files_eq "output as untraced (branch)" "$TMP/plain.out" "$TMP/branch.out"

normalize "$TMP/insn.itr" >"$TMP/insn.txt"
normalize "$TMP/branch.itr" >"$TMP/branch.txt"
check_files_eq "insn trace equals the golden trace" "$SRCDATA/collect_basic_insn.golden" "$TMP/insn.txt"
check_files_eq "branch trace equals the golden trace" "$SRCDATA/collect_basic_branch.golden" "$TMP/branch.txt"
check "insn and branch traces agree" "$TRACECHECK" agree "$TMP/insn.itr" "$TMP/branch.itr"

# The PTRACE_SINGLEBLOCK path (forced: where the CPU ignores it, each
# block is one instruction) gives the same branch trace.
ITRACE_COLLECT_BLOCKSTEP=1 "$COLLECT" --backend ptrace -q --insn-bytes --level branch -o "$TMP/block.itr" -- "$basic" >/dev/null 2>&1
normalize "$TMP/block.itr" >"$TMP/block.txt"
check_files_eq "block-step branch trace equals the golden trace" \
	"$SRCDATA/collect_basic_branch.golden" "$TMP/block.txt"
check_eq "footer: complete with the exit status" "complete, status 7" "$(ended "$TMP/insn.itr")"

# Two runs trace the same addresses: ASLR is off.
"$COLLECT" --backend ptrace -q --insn-bytes -o "$TMP/again.itr" -- "$basic" >/dev/null 2>&1
normalize "$TMP/again.itr" >"$TMP/again.txt"
check_files_eq "second run gives the same trace" "$TMP/insn.txt" "$TMP/again.txt"

# Metadata every trace carries.
meta=$("$DUMP" -H -n 0 "$TMP/insn.itr" | sed -n 's/^meta: \([a-z_]*\)=.*/\1/p' | tr '\n' ' ')
for k in cmdline pid host kernel collector backend version start_time level aslr; do
	case " $meta" in
	*" $k "*) ok "metadata has $k" ;;
	*) fail "metadata has $k" "$meta" ;;
	esac
done

# Every mapping of the program has its build-id; the vDSO travels as CODE.
check "MMAP of the program carries its build-id" sh -c \
	"'$DUMP' '$TMP/insn.itr' | grep ' MMAP .*buildid=[0-9a-f]\{40\} .*collect_basic'"
check "CODE record with the vDSO bytes" sh -c "'$DUMP' '$TMP/insn.itr' | grep -q ' CODE '"

# A program that cannot be started: the shell's 127 and a clear message.
"$COLLECT" --backend ptrace -q --insn-bytes -o "$TMP/none.itr" -- "$TMP/no-such-program" >"$TMP/none.out" 2>&1
check_eq "missing program: exit status 127" 127 "$?"
check "missing program: message names it" grep -q "cannot run '$TMP/no-such-program'" "$TMP/none.out"

# An output that cannot be written: exit 1, the program does not run on.
"$COLLECT" --backend ptrace -q --insn-bytes -o /dev/full -- "$basic" >"$TMP/full.out" 2>&1
check_eq "unwritable output: exit status 1" 1 "$?"
check "unwritable output: message names the file" grep -q "'/dev/full': No space left" "$TMP/full.out"

"$COLLECT" --backend ptrace --level foo -- "$basic" >/dev/null 2>&1
check_eq "bad usage: exit status 2" 2 "$?"
done_testing
