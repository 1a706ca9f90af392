#!/bin/sh
# "complete" means complete (#15 item 4), with the ptrace and valgrind
# backends, on installed programs: a start trigger that never fires, a
# trigger or module that exists nowhere (an error before the program
# runs), a killed collector, an interrupted one.  The footer says how the
# trace ended, itrace-dump --summary prints it, and every tool that reads
# an incomplete trace warns.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"

for be in ptrace valgrind; do
	# A libc function /bin/true never calls: the window never opens.
	"$COLLECT" -q --backend $be --start abort -o "$TMP/nt.itr" -- /bin/true 2>"$TMP/nt.err"
	check_eq "$be: --start never fired: itrace-collect exits 1 (the program exited 0)" 1 $?
	check "$be: --start never fired: it says so" \
		grep -q "warning: nothing of what was asked ran: the start trigger never fired" "$TMP/nt.err"
	"$DUMP" --summary "$TMP/nt.itr" >"$TMP/nt.sum"
	check "$be: --start never fired: the footer says so" sh -c \
		"grep -q '^ended: start never triggered, status 0$' '$TMP/nt.sum' &&
		 grep -q '^complete: no$' '$TMP/nt.sum' &&
		 grep -q '^how: the start trigger never fired.*(the program exited with status 0); nothing recorded$' '$TMP/nt.sum'"
	"$DUMP" "$TMP/nt.itr" >/dev/null 2>"$TMP/nt.derr"
	check "$be: itrace-dump warns that it is not complete" \
		grep -q "^itrace-dump: warning: '$TMP/nt.itr' is not complete: the start trigger never fired" "$TMP/nt.derr"
	"$BIN/itrace-sqlite" --level summary "$TMP/nt.itr" -o "$TMP/nt.db" 2>"$TMP/nt.serr"
	check "$be: itrace-sqlite warns too" grep -q "warning: '$TMP/nt.itr' is not complete" "$TMP/nt.serr"

	# A function that exists nowhere: an error before the program runs.
	"$COLLECT" -q --backend $be --start no_such_function_anywhere -o "$TMP/ns.itr" -- /bin/echo RAN >"$TMP/ns.out" 2>"$TMP/ns.err"
	check_eq "$be: unknown --start function: exit 1" 1 $?
	check_eq "$be: unknown --start function: one error line" \
		"itrace-collect: --start: no function 'no_such_function_anywhere' in the program or its libraries (check the name with nm; static functions need a symbol table)" \
		"$(cat "$TMP/ns.err")"
	check_eq "$be: unknown --start function: the program did not run" "" "$(cat "$TMP/ns.out")"
	"$COLLECT" -q --backend $be --stop no_such_function_anywhere -o "$TMP/ns.itr" -- /bin/echo RAN >"$TMP/ns.out" 2>"$TMP/ns.err"
	check "$be: unknown --stop function: an error, the program did not run" sh -c \
		"grep -q \"^itrace-collect: --stop: no function 'no_such_function_anywhere'\" '$TMP/ns.err' && test ! -s '$TMP/ns.out'"
	"$COLLECT" -q --backend $be --only libno-such-module.so -o "$TMP/nm.itr" -- /bin/echo RAN >"$TMP/nm.out" 2>"$TMP/nm.err"
	check "$be: --only a module that is not mapped: an error, the program did not run" sh -c \
		"grep -q \"^itrace-collect: --only: no executable mapping of 'libno-such-module.so'\" '$TMP/nm.err' && test ! -s '$TMP/nm.out'"

	# A whole run of ls: complete, and nobody warns.
	"$COLLECT" -q --backend $be -o "$TMP/ls.itr" -- /bin/ls / >/dev/null 2>"$TMP/ls.err"
	"$DUMP" --summary "$TMP/ls.itr" >"$TMP/ls.sum" 2>>"$TMP/ls.err"
	"$DUMP" "$TMP/ls.itr" >/dev/null 2>>"$TMP/ls.err"
	check "$be: ls /: complete, the program exited with status 0" sh -c \
		"grep -q '^complete: yes$' '$TMP/ls.sum' && grep -q '^how: the program exited with status 0$' '$TMP/ls.sum'"
	check_eq "$be: ls /: no warning from anyone" "" "$(cat "$TMP/ls.err")"

	# Interrupted: not complete, and the reader says why.
	"$COLLECT" -q --backend $be -o "$TMP/int.itr" -- "$DATA/vg_work" 100000 >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -INT $pid
	wait $pid
	"$DUMP" --summary "$TMP/int.itr" >"$TMP/int.sum"
	check "$be: interrupted: not complete, and why" sh -c \
		"grep -q '^complete: no$' '$TMP/int.sum' && grep -q '^how: the collector was interrupted by signal 2$' '$TMP/int.sum'"

	# Killed: no footer; the trace is cut short.
	"$COLLECT" -q --backend $be -o "$TMP/k.itr" -- "$DATA/vg_work" 100000 >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -KILL $pid
	wait $pid 2>/dev/null
	"$DUMP" --summary "$TMP/k.itr" >"$TMP/k.sum" 2>/dev/null
	check "$be: killed collector: not complete, truncated" sh -c \
		"grep -q '^complete: no$' '$TMP/k.sum' && grep -q '^how: truncated: no footer' '$TMP/k.sum'"
done

# A trace that lost data (--ring keeps the last branches only) is not
# complete either, and says how much is missing.
"$COLLECT" -q --ring 10 -o "$TMP/ring.itr" -- /bin/true
"$DUMP" --summary "$TMP/ring.itr" >"$TMP/ring.sum"
check "--ring: not complete, with the lost branches counted" sh -c \
	"grep -q '^complete: no$' '$TMP/ring.sum' && grep -q '^how: the program exited with status 0; [0-9]* lost (LOST records)$' '$TMP/ring.sum'"

# ptrace cannot step a program's own SIGTRAP handler (a step trap would
# reset it): the stretch is a GAP, and the trace is not complete.  The rest
# of a program that blocks SIGTRAP with the default action is stepped.
"$COLLECT" -q --backend ptrace --start main -o "$TMP/trap.itr" -- "$DATA/collect_prog" trap >/dev/null 2>&1
"$DUMP" --summary "$TMP/trap.itr" >"$TMP/trap.sum"
check "ptrace, a SIGTRAP handler: GAP records, not complete" sh -c \
	"grep -q '^  GAP ' '$TMP/trap.sum' && grep -q '^complete: no$' '$TMP/trap.sum'"
done_testing
