#!/bin/sh
# The gdb backend on an x86-64 program under qemu-x86_64 gives the same
# instruction sequence as the ptrace backend on the real CPU, and the same
# accesses to the program's own data (stack addresses differ: qemu-user
# places the stack elsewhere).
. tests/lib.sh
PROG="$DATA/qtrace_gdb_x86"
if ! command -v qemu-x86_64 >/dev/null; then
	ok "gdb backend on x86-64 # SKIP qemu-x86_64 not installed (make deps)"
	done_testing
	exit
fi
"$BIN/itrace-collect" --backend gdb -q -o "$TMP/gdb.itr" -- "$PROG"
check_eq "gdb backend: exit status 3" "3" "$?"
"$BIN/itrace-collect" --backend ptrace --insn-bytes -q -o "$TMP/pt.itr" -- "$PROG"
check_eq "ptrace backend: exit status 3" "3" "$?"
for b in gdb pt; do
	"$BIN/itrace-dump" "$TMP/$b.itr" >"$TMP/$b.dump"
	# address and length (the ptrace backend stores no bytes by default)
	awk '$2 == "INSN" {print $3, $4}' "$TMP/$b.dump" >"$TMP/$b.insn"
	# the program's .bss buffer lies below 0x1000000; the stack far above
	awk '$2 == "MEM" && length($4) <= 9' "$TMP/$b.dump" | cut -d' ' -f2- >"$TMP/$b.mem"
done
check_eq "a real trace (more than 50 instructions)" "yes" "$([ "$(wc -l <"$TMP/gdb.insn")" -gt 50 ] && echo yes)"
check_files_eq "same instructions (addresses and lengths)" "$TMP/pt.insn" "$TMP/gdb.insn"
check_files_eq "same data accesses to the program's buffer" "$TMP/pt.mem" "$TMP/gdb.mem"
check_eq "same number of stack accesses" "$(grep -c ' MEM ' "$TMP/pt.dump")" "$(grep -c ' MEM ' "$TMP/gdb.dump")"
check "x86-64 header" sh -c "'$BIN/itrace-dump' -H '$TMP/gdb.itr' | grep -q '^arch: x86-64'"
out=$("$BIN/qtrace-conv" "$TMP/gdb.itr" -o "$TMP/x.qt" 2>&1); rc=$?
check_eq "qtrace-conv refuses the x86-64 trace" "1" "$rc"
printf '%s\n' "$out" >"$TMP/err"
check "and points to pipeline-sim" grep -q 'run pipeline-sim on the itrace file directly' "$TMP/err"
done_testing
