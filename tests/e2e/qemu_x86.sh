#!/bin/sh
# itrace-collect --backend qemu on x86-64 programs (qemu-x86_64), against
# the ptrace backend on the same deterministic programs: for code in the
# main executable the instruction addresses and the loads and stores
# (kind, size; addresses relative to the executable, the stack relative
# to its first access: QEMU lays the program out elsewhere), whole
# program and main; --start/--stop windows; output and exit status
# unchanged; branch level + itrace-fill = instruction level.
. tests/lib.sh
if ! command -v qemu-x86_64 >/dev/null; then
	ok "qemu backend on x86-64 # SKIP qemu-x86_64 not installed (make deps)"
	done_testing
	exit
fi
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
NORM="$ITRACE_ROOT/tests/helper/normalize.awk"
MEMP="$DATA/vg_mem"
PROG="$DATA/vg_prog"
normalized() { "$DUMP" "$3" | awk -v EXE="$2" -v MODE="$1" -f "$NORM"; }
per_thread() {
	"$DUMP" "$1" | awk '$2 == "INSN" { if (!($1 in id)) id[$1] = n++; print id[$1], $3 }' |
		sort -s -k1,1n
}

# --- vg_mem: static assembly, every kind of access ------------------------------
"$MEMP" >"$TMP/native.out"
native_rc=$?
"$COLLECT" -q --backend qemu -o "$TMP/qi.itr" -- "$MEMP" >"$TMP/q.out"
check_eq "vg_mem: exit status unchanged" "$native_rc" "$?"
check_files_eq "vg_mem: output unchanged" "$TMP/native.out" "$TMP/q.out"
"$COLLECT" -q --backend ptrace -o "$TMP/pi.itr" -- "$MEMP" >/dev/null
normalized static "$MEMP" "$TMP/qi.itr" >"$TMP/qi.txt"
normalized static "$MEMP" "$TMP/pi.itr" >"$TMP/pi.txt"
check "vg_mem: the trace has 16-byte accesses and instructions" sh -c \
	"grep -q '^MEM load exe+[0-9a-f]* size=16' '$TMP/qi.txt' && grep -q '^INSN' '$TMP/qi.txt'"
# A lock cmpxchg whose comparison fails still writes its operand back
# (Intel SDM, CMPXCHG: "the destination operand is written back if the
# comparison fails"): QEMU reports the store, and so does the one decoder.
check_files_eq "vg_mem: instructions and accesses equal ptrace's" "$TMP/pi.txt" "$TMP/qi.txt"
"$COLLECT" -q --backend qemu --level branch -o "$TMP/qb.itr" -- "$MEMP" >/dev/null
"$COLLECT" -q --backend ptrace --level branch -o "$TMP/pb.itr" -- "$MEMP" >/dev/null
"$DUMP" "$TMP/qb.itr" | awk '$2 == "BRANCH" { $1 = ""; print }' | sed 's/0x400000*/X/g' >"$TMP/qb.txt"
"$DUMP" "$TMP/pb.itr" | awk '$2 == "BRANCH" { $1 = ""; print }' | sed 's/0x400000*/X/g' >"$TMP/pb.txt"
check_files_eq "vg_mem: branch level equals ptrace's" "$TMP/pb.txt" "$TMP/qb.txt"
"$BIN/itrace-fill" -q -o "$TMP/qf.itr" "$TMP/qb.itr"
per_thread "$TMP/qf.itr" >"$TMP/qf.txt"
per_thread "$TMP/qi.itr" >"$TMP/qi2.txt"
check_files_eq "vg_mem: itrace-fill of the branch trace gives the insn trace" "$TMP/qi2.txt" "$TMP/qf.txt"

# --- vg_prog: dynamic C with a thread and signals -----------------------------------
"$PROG" >"$TMP/native.out" 2>"$TMP/native.err"
native_rc=$?
"$COLLECT" -q --backend qemu -o "$TMP/qp.itr" -- "$PROG" >"$TMP/q.out" 2>"$TMP/q.err"
check_eq "vg_prog: exit status unchanged" "$native_rc" "$?"
check_files_eq "vg_prog: stdout unchanged" "$TMP/native.out" "$TMP/q.out"
check_files_eq "vg_prog: stderr unchanged" "$TMP/native.err" "$TMP/q.err"
"$COLLECT" -q --backend qemu --start main -o "$TMP/qs.itr" -- "$PROG" >/dev/null 2>&1
"$COLLECT" -q --backend ptrace --start main -o "$TMP/ps.itr" -- "$PROG" >/dev/null 2>&1
normalized dynamic "$PROG" "$TMP/qs.itr" | grep -v '^TRACE' >"$TMP/qs.txt"
normalized dynamic "$PROG" "$TMP/ps.itr" | grep -v '^TRACE' >"$TMP/ps.txt"
check "vg_prog --start main: executable code recorded" test "$(wc -l <"$TMP/qs.txt")" -gt 100
check_files_eq "vg_prog --start main: main's instructions and accesses equal ptrace's" \
	"$TMP/ps.txt" "$TMP/qs.txt"
"$DUMP" "$TMP/qs.itr" >"$TMP/qs.dump"
check "vg_prog: SIGUSR1 (raise) and SIGSEGV (a handled fault) inferred" sh -c \
	"grep -q 'SIGNAL signo=10 code=-6' '$TMP/qs.dump' && grep -q 'SIGNAL signo=11' '$TMP/qs.dump'"
# the pc of a SIGSEGV as an offset in the executable (its first mapping)
segv_pc() {
	"$DUMP" "$1" | awk -v exe="'$PROG'" '$2 == "MMAP" && $NF == exe && !base { split($4, r, "-"); base = r[1] }
		$2 == "SIGNAL" && $3 == "signo=11" { sub("pc=", "", $6); print base, $6; exit }' |
		{ read -r b p; printf '%x\n' $((p - b)); }
}
check_eq "vg_prog: the SIGSEGV's pc is the faulting instruction, as with ptrace" \
	"$(segv_pc "$TMP/ps.itr")" "$(segv_pc "$TMP/qs.itr")"

# Windows: each call of vg_window, from its entry to its return.
for trig in "--start vg_window:3" "--start vg_window --stop vg_after:1"; do
	windows=${trig#*:}
	trig=${trig%:*}
	# shellcheck disable=SC2086
	"$COLLECT" -q --backend qemu $trig -o "$TMP/qw.itr" -- "$PROG" >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$COLLECT" -q --backend ptrace $trig -o "$TMP/pw.itr" -- "$PROG" >/dev/null 2>&1
	normalized dynamic "$PROG" "$TMP/qw.itr" >"$TMP/qwn.txt"
	normalized dynamic "$PROG" "$TMP/pw.itr" >"$TMP/pwn.txt"
	check_eq "$trig: $windows window(s)" "$windows" "$(grep -c '^TRACE_ON' "$TMP/qwn.txt")"
	check_files_eq "$trig: the same windows, instructions and accesses as ptrace" \
		"$TMP/pwn.txt" "$TMP/qwn.txt"
	check_eq "$trig: as many instructions in total as ptrace" \
		"$("$DUMP" "$TMP/pw.itr" | grep -c ' INSN ')" "$("$DUMP" "$TMP/qw.itr" | grep -c ' INSN ')"
done
"$COLLECT" -q --backend qemu --level branch --start vg_window -o "$TMP/qbw.itr" -- "$PROG" >/dev/null 2>&1
"$COLLECT" -q --backend ptrace --level branch --start vg_window -o "$TMP/pbw.itr" -- "$PROG" >/dev/null 2>&1
normalized dynamic "$PROG" "$TMP/qbw.itr" >"$TMP/qbw.txt"
normalized dynamic "$PROG" "$TMP/pbw.itr" >"$TMP/pbw.txt"
check_files_eq "--level branch --start vg_window: the same branches and windows as ptrace" \
	"$TMP/pbw.txt" "$TMP/qbw.txt"

# The whole program at branch level (two threads, signals, a handled
# fault): itrace-fill finds its way everywhere.  (Instruction sequences of
# two runs are not compared: the threads' locking varies between runs.)
"$COLLECT" -q --backend qemu --level branch -o "$TMP/qpb.itr" -- "$PROG" >/dev/null 2>&1
"$BIN/itrace-fill" -q -o "$TMP/qpf.itr" "$TMP/qpb.itr"
check_eq "vg_prog: itrace-fill of the whole branch trace leaves no gap" "0" \
	"$("$DUMP" "$TMP/qpf.itr" | grep -c ' GAP ')"
done_testing
