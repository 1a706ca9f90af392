#!/bin/sh
# itrace-collect when things go wrong: SIGINT/SIGTERM end the trace with a
# valid footer marked interrupted; SIGKILL of the collector leaves no
# tracee stopped or running; -p attaches and detaches leaving the program
# running; --ring keeps the last branches before a crash.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/collect_lib.sh"

# wait_trace FILE: until the collector has started tracing (file exists).
wait_trace() {
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

for pair in INT:2 TERM:15; do
	sig=${pair%:*} num=${pair#*:}
	"$COLLECT" --backend ptrace -q --start main -o "$TMP/$sig.itr" -- "$PROG" sleep >/dev/null 2>&1 &
	cpid=$!
	wait_trace "$TMP/$sig.itr"
	sleep 0.3
	prog=$(started_by "$cpid")
	kill -"$sig" "$cpid"
	wait "$cpid"
	rc=$?
	check_eq "SIG$sig: collector exits 128+signal" "$((128 + num))" "$rc"
	check_eq "SIG$sig: footer says interrupted" "interrupted, status $num" "$(ended "$TMP/$sig.itr")"
	check "SIG$sig: trace reads without error" "$DUMP" -q "$TMP/$sig.itr"
	check "SIG$sig: the started program is gone" gone "$prog" 1
done

"$COLLECT" --backend ptrace -q -o "$TMP/kill.itr" -- "$PROG" sleep >/dev/null 2>&1 &
cpid=$!
wait_trace "$TMP/kill.itr"
prog=$(started_by "$cpid")
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
check "SIGKILL of the collector while stepping: no tracee left" gone "$prog" 1

# Attach to a running program, detach on SIGINT: it runs on to its end.
"$PROG" sleep >"$TMP/att.out" 2>&1 &
ppid=$!
sleep 0.2
"$COLLECT" --backend ptrace -q -p "$ppid" -o "$TMP/att.itr" >"$TMP/attc.out" 2>&1 &
cpid=$!
wait_trace "$TMP/att.itr"
sleep 0.3
kill -INT "$cpid"
wait "$cpid"
check_eq "attach: collector interrupted" 130 "$?"
wait "$ppid"
check_eq "attach: program exits normally after detach" 5 "$?"
check "attach: program output complete" grep -q EXIT-SUCCESS "$TMP/att.out"
check "attach: TRACE_ON attach and TRACE_OFF detach" sh -c \
	"'$DUMP' '$TMP/att.itr' | grep -q 'TRACE_ON attach' && '$DUMP' '$TMP/att.itr' | grep -q 'TRACE_OFF detach'"
check "attach: instructions recorded" sh -c "'$DUMP' '$TMP/att.itr' | grep -q ' INSN '"

# Attach until the program exits: the collector returns its status.
"$PROG" sleep >/dev/null 2>&1 &
ppid=$!
sleep 0.2
"$COLLECT" --backend ptrace -q -p "$ppid" --start helper -o "$TMP/att2.itr" >/dev/null 2>&1
check_eq "attach to the end: the program's exit status" 5 "$?"
check_eq "attach to the end: footer complete" "complete, status 5" "$(ended "$TMP/att2.itr")"

# Flight recorder: the last branches and the fatal signal.
"$COLLECT" --backend ptrace -q --ring 8 --start main -o "$TMP/ring.itr" -- "$PROG" segv >/dev/null 2>&1
check_eq "ring: exit status of a SIGSEGV" 139 "$?"
check_eq "ring: footer says crashed" "target crashed, status 11" "$(ended "$TMP/ring.itr")"
"$DUMP" "$TMP/ring.itr" >"$TMP/ring.txt"
check_eq "ring: exactly 8 branches kept (the signal besides)" 8 "$(grep -c ' BRANCH ' "$TMP/ring.txt")"
check "ring: the overwritten branches are counted as LOST" grep -q ' LOST [1-9][0-9]* branches' "$TMP/ring.txt"
check_eq "ring: the SIGSEGV comes right after the last branch" "BRANCH SIGNAL" \
	"$(awk '$2 == "BRANCH" || $2 == "SIGNAL" { prev = last; last = $2 } END { print prev, last }' "$TMP/ring.txt")"
check "ring: the last branch leads to the faulting pc" sh -c \
	"awk '\$2 == \"BRANCH\" { to = \$5 } \$2 == \"SIGNAL\" { split(\$6, a, \"=\"); exit !(a[2] == to) }' '$TMP/ring.txt'"
done_testing
