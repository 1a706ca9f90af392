#!/bin/sh
# What a started program leaves behind (collectors/guard.h), for every
# backend that starts programs (ptrace, valgrind, qemu on x86-64, gdb with
# either stub: qemu-x86_64 -g, gdbserver).  The
# program (tests/data/guard_prog.c) forks a child that sleeps and a
# daemon (fork, setsid, fork: its own session, its parent gone).
#  - kill -9 of itrace-collect, or SIGINT to its process group (^C): the
#    program, its child and the daemon are all gone within seconds.
#  - A normal end: the exit status, a crash's signal, the program's own
#    SIGINT handler, stdin and stdout are as without itrace-collect, and
#    what the program left running keeps running, as it does without it.
#  - The guardian and the program stay in the collector's process group
#    and session (the gdb backend's stub has always had a group of its own).
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/collect_lib.sh"
G="$DATA/guard_prog"

# What the runs left, killed after each backend (the sleepers of the
# normal ends run on by design): the processes still running with this
# test's directory in their command line, so never a reused pid.
cleanup() {
	cat "$TMP"/*.pids 2>/dev/null | awk '{ print $2 }' | while read -r p; do
		{ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$TMP" &&
			kill -KILL "$p" 2>/dev/null
	done
}
trap 'cleanup; rm -rf "$TMP"' EXIT

# wait_pids FILE: until the program has written its pids (up to 30 s:
# valgrind starts slowly on a loaded machine).
wait_pids() {
	_i=0
	while [ ! -s "$1" ] && [ "$_i" -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -s "$1" ]
}
pid_of() { awk -v w="$1" '$1 == w { print $2 }' "$2"; }
# running PID: alive, not a zombie; gone_ PID SECONDS: gone, a known pid.
running() {
	_s=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$1" ] && [ -n "$_s" ] && [ "$_s" != Z ]
}
gone_() { [ -n "$1" ] && gone "$@"; }
# descends PID ANCESTOR: ANCESTOR is PID's parent, or its parent's...
descends() {
	_p=$1
	while [ -n "$_p" ] && [ "$_p" -gt 1 ]; do
		_p=$(ps -o ppid= -p "$_p" | tr -d ' ')
		[ "$_p" = "$2" ] && return 0
	done
	return 1
}
# finish PID: its exit status; killed if it has not ended within 30 s.
finish() {
	gone "$1" 30 >/dev/null || kill -KILL "$1"
	wait "$1"
}

# The program alone: what it leaves after a normal exit keeps running.
"$G" exit "$TMP/native.pids" 3 >/dev/null 2>&1
check_eq "without itrace-collect: the program exits 3" 3 "$?"
check "without itrace-collect: its child keeps running" running "$(pid_of child "$TMP/native.pids")"
check "without itrace-collect: its daemon keeps running" running "$(pid_of daemon "$TMP/native.pids")"

for be in ptrace valgrind qemu gdb gdbserver; do
	opts="-q --backend $be --level branch"
	unset ITRACE_GDB_STUB
	case $be in
	gdb*)
		# The gdb backend steps through RSP, slowly: run to a trigger
		# (the processes are what this test is about).  Its stub has a
		# process group of its own (^C goes to the collector only).
		opts="-q --backend gdb --level branch --start on_int"
		[ $be = gdbserver ] && export ITRACE_GDB_STUB=gdbserver ;;
	esac

	# kill -9 of the collector while the program runs.
	"$COLLECT" $opts -o "$TMP/$be-k.itr" -- "$G" wait "$TMP/$be-k.pids" >/dev/null 2>&1 &
	c=$!
	wait_pids "$TMP/$be-k.pids"
	guardian=$(pgrep -P "$c" -x itrace-guardian)
	check "$be: the program descends from the guardian" \
		descends "$(pid_of prog "$TMP/$be-k.pids")" "$guardian"
	check_eq "$be: the guardian in the collector's process group and session" \
		"$(ps -o pgid=,sid= -p "$c")" "$(ps -o pgid=,sid= -p "$guardian")"
	[ $be = gdb ] || [ $be = gdbserver ] ||
		check_eq "$be: the program in the collector's process group and session" \
			"$(ps -o pgid=,sid= -p "$c")" \
			"$(ps -o pgid=,sid= -p "$(pid_of prog "$TMP/$be-k.pids")")"
	kill -KILL "$c"
	wait "$c" 2>/dev/null
	for w in prog child daemon; do
		check "$be, kill -9 of itrace-collect: the $w is gone" gone_ \
			"$(pid_of "$w" "$TMP/$be-k.pids")" 5
	done
	check "$be, kill -9 of itrace-collect: the guardian is gone" gone_ "$guardian" 5

	# ^C: SIGINT to the collector's process group (its own session here).
	# A background job ignores SIGINT: the program sets a handler (int).
	setsid "$COLLECT" $opts -o "$TMP/$be-i.itr" -- \
		"$G" int "$TMP/$be-i.pids" >/dev/null 2>&1 &
	c=$!
	wait_pids "$TMP/$be-i.pids"
	kill -INT "-$c"
	finish "$c"
	check_eq "$be, SIGINT to the group: itrace-collect exits 130" 130 "$?"
	check_eq "$be, SIGINT to the group: the trace says interrupted" "interrupted, status 2" \
		"$(ended "$TMP/$be-i.itr")"
	for w in prog child daemon; do
		check "$be, SIGINT to the group: the $w is gone" gone_ "$(pid_of "$w" "$TMP/$be-i.pids")" 5
	done

	# Normal ends: as without itrace-collect.
	"$COLLECT" $opts -o "$TMP/$be-e.itr" -- "$G" exit "$TMP/$be-e.pids" 3 >/dev/null 2>&1
	check_eq "$be, exit 3: itrace-collect exits 3" 3 "$?"
	check_eq "$be, exit 3: the trace says so" "complete, status 3" "$(ended "$TMP/$be-e.itr")"
	for w in child daemon; do
		p=$(pid_of "$w" "$TMP/$be-e.pids")
		check "$be, exit 3: the $w it left keeps running" running "$p"
		check_fails "$be, exit 3: ... not under a guardian" \
			sh -c "ps -o comm= -p \$(ps -o ppid= -p $p) | grep -qx itrace-guardian"
	done

	"$COLLECT" $opts -o "$TMP/$be-s.itr" -- "$G" segv "$TMP/$be-s.pids" >/dev/null 2>&1
	check_eq "$be, SIGSEGV: itrace-collect exits 139" 139 "$?"
	check_eq "$be, SIGSEGV: the trace says crashed" "target crashed, status 11" \
		"$(ended "$TMP/$be-s.itr")"
	check "$be, SIGSEGV: the child it left keeps running" running \
		"$(pid_of child "$TMP/$be-s.pids")"

	printf 'one\ntwo\n' | "$COLLECT" $opts -o "$TMP/$be-c.itr" -- "$G" cat "$TMP/$be-c.pids" >"$TMP/$be-c.out"
	check_eq "$be: the program's stdin and stdout unchanged" "one
two" "$(cat "$TMP/$be-c.out")"

	# SIGINT to the program alone: its own handler runs (exit 42).
	"$COLLECT" $opts -o "$TMP/$be-h.itr" -- "$G" int "$TMP/$be-h.pids" >/dev/null 2>&1 &
	c=$!
	wait_pids "$TMP/$be-h.pids"
	kill -INT "$(pid_of prog "$TMP/$be-h.pids")"
	finish "$c"
	check_eq "$be, SIGINT to the program: its handler's exit status" 42 "$?"
	check_eq "$be, SIGINT to the program: the trace is complete" "complete, status 42" \
		"$(ended "$TMP/$be-h.itr")"
	cleanup
done
done_testing
