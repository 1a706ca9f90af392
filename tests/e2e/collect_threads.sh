#!/bin/sh
# Threads and processes start with their first instruction (#15 item 5):
# every new thread, and every child followed with --follow-fork, has a
# TRACE_ON start record at its first user instruction, so a branch-level
# trace filled by itrace-fill has no GAP there; under ptrace the parent's
# pthread_create (signals blocked around the clone) is traced too.
# Programs: python3 with a thread (valgrind), our tests/data/vg_prog
# (threads, ptrace and valgrind) and collect_prog fork (ptrace).
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
FILL="$BIN/itrace-fill"

# gaps TRACE: GAP records of its fill.
gaps() {
	"$FILL" -q "$1" -o "$1.filled" 2>/dev/null
	"$DUMP" "$1.filled" | grep -c ' GAP '
}
# starts TRACE: "tid address" of each thread's TRACE_ON start.
starts() {
	"$DUMP" "$1" | awk '$2 == "TRACE_ON" && $3 == "start" { print $1, $4 }'
}

run() { # BACKEND NAME CMD...: branch and insn traces of CMD
	be=$1 name=$2
	shift 2
	"$COLLECT" -q --backend "$be" --level branch -o "$TMP/$name.b.itr" -- "$@" >/dev/null 2>&1
	"$COLLECT" -q --backend "$be" -o "$TMP/$name.i.itr" -- "$@" >/dev/null 2>&1
}

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
run valgrind py "$PY" -c 'import threading
t = threading.Thread(target=lambda: sum(range(1000))); t.start(); t.join()'
check_eq "valgrind, python3 with a thread: two threads start" 2 "$(starts "$TMP/py.b.itr" | wc -l)"
check_eq "valgrind, python3 with a thread: no GAP in the filled trace" 0 "$(gaps "$TMP/py.b.itr")"

for be in ptrace valgrind; do
	run $be vp.$be "$DATA/vg_prog"
	check_eq "$be, vg_prog: no GAP in the filled trace" 0 "$(gaps "$TMP/vp.$be.b.itr")"
	"$DUMP" "$TMP/vp.$be.i.itr" >"$TMP/vp.$be.txt"
	worker=$(awk '$2 == "THREAD" && $3 == "create" { sub(/tid=/, "", $4); print $4; exit }' "$TMP/vp.$be.txt")
	# The worker's first instruction is the one after the clone system
	# call; its first records say so.
	# (the system call that returned the worker's tid in the parent)
	syscall_insn=$(awk -v w="$worker" '$2 == "INSN" { last[$1] = $3 }
		$2 == "SYSCALL" && $3 == "enter" { sc[$1] = last[$1] }
		$2 == "SYSCALL" && $3 == "exit" && $5 == "ret=" w { print sc[$1]; exit }' "$TMP/vp.$be.txt")
	first=$(awk -v w="$worker" '$1 == w && $2 == "TRACE_ON" { print $4; exit }' "$TMP/vp.$be.txt")
	check "$be, vg_prog: the worker starts right after the clone syscall ($syscall_insn + 2 = $first)" \
		test -n "$first" -a "$(printf '%d' "$syscall_insn")" -eq $(($(printf '%d' "${first:-0}") - 2))
	check "$be, vg_prog: its first INSN is there" sh -c \
		"awk -v w='$worker' '\$1 == w && \$2 == \"INSN\" { print \$3; exit }' '$TMP/vp.$be.txt' | grep -qx '$first'"
	check "$be, vg_prog: nothing of the program is left untraced (no TRACE_OFF, complete)" sh -c \
		"! grep -q 'TRACE_OFF' '$TMP/vp.$be.txt' && '$DUMP' --summary '$TMP/vp.$be.i.itr' | grep -q '^complete: yes'"
done

# --follow-fork (ptrace): the child starts after the fork, filled = insn.
"$COLLECT" -q --follow-fork --level branch -o "$TMP/ff.b.itr" -- "$DATA/collect_prog" fork >/dev/null 2>&1
"$COLLECT" -q --follow-fork -o "$TMP/ff.i.itr" -- "$DATA/collect_prog" fork >/dev/null 2>&1
check_eq "ptrace --follow-fork: the child starts with TRACE_ON start" 2 "$(starts "$TMP/ff.b.itr" | wc -l)"
check_eq "ptrace --follow-fork: no GAP in the filled trace" 0 "$(gaps "$TMP/ff.b.itr")"
# per process, in the order of first appearance (pids differ between runs)
per_process() {
	"$DUMP" "$1" | awk '$2 == "INSN" { if (!($1 in id)) id[$1] = ++n; print id[$1], $3 }' | sort -s -k1,1
}
per_process "$TMP/ff.b.itr.filled" >"$TMP/ff.filled.txt"
per_process "$TMP/ff.i.itr" >"$TMP/ff.insn.txt"
check_files_eq "ptrace --follow-fork: filled = insn level, parent and child" "$TMP/ff.insn.txt" "$TMP/ff.filled.txt"
done_testing
