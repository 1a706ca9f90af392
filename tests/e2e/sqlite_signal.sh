#!/bin/sh
# Call reconstruction across signal handlers, sigreturn, siglongjmp and
# lazily bound PLT calls, on a real trace of tests/data/export_signal.c.
. tests/lib.sh
SQL="$BIN/itrace-sqlite"
q() { sqlite3 -batch "$TMP/s.db" "$1"; }

if [ ! -x "$BIN/itrace-collect" ]; then
	echo "ok 1 # SKIP itrace-collect not built"
	echo "1..1"
	exit 0
fi
"$BIN/itrace-collect" -q --start main -o "$TMP/s.itr" -- "$DATA/export_signal"
check_eq "program ran as expected under the collector" 0 $?
check "export" "$SQL" -q --level calls "$TMP/s.itr" -o "$TMP/s.db"
# calls.flags: perf's 1 no call, 2 no return; itrace's 0x100 signal
# handler, 0x200 unwound
check_eq "two handler activations, both signal frames" "256
770" "$(q "SELECT c.flags FROM calls c JOIN calls_view v ON v.id = c.id WHERE v.symbol='handler' ORDER BY c.id")"
# pthread_kill tail-calls __pthread_kill_implementation, which makes the
# system call: a call, as callgrind counts it
check_eq "handlers run on top of raise's pthread_kill" "__pthread_kill_implementation
__pthread_kill_implementation" \
	"$(q "SELECT p.symbol FROM calls_view c JOIN calls_view p ON p.id = c.parent_id WHERE c.symbol='handler' ORDER BY c.id")"
check_eq "in_handler called once per handler, from it" "2|2" \
	"$(q "SELECT count(*), sum(p.symbol = 'handler') FROM calls_view c JOIN calls_view p ON p.id = c.parent_id WHERE c.symbol='in_handler'")"
check_eq "first worker returned, second was unwound by siglongjmp" "0|514" \
	"$(q "SELECT group_concat(flags, '|') FROM (SELECT c.flags FROM calls c JOIN calls_view v ON v.id = c.id WHERE v.symbol='worker' ORDER BY c.id)")"
check_eq "after siglongjmp main goes on: it is the only open frame" "main|no call/return" \
	"$(q "SELECT v.symbol || '|' || v.flags FROM calls c JOIN calls_view v ON v.id = c.id WHERE c.id > 0 AND (c.flags & 2) AND NOT (c.flags & 512)")"
check_eq "the first handler's frame ends at sigreturn, in raise" 1 \
	"$(q "SELECT count(*) FROM calls c JOIN calls h ON h.id = (SELECT id FROM calls_view WHERE symbol='handler' ORDER BY id LIMIT 1) WHERE c.id = h.parent_id AND c.return_insn > h.return_insn")"
check_eq "PLT calls become calls of their targets" "main|worker|2
worker|raise|2
handler|in_handler|2
handler|siglongjmp|1" \
	"$(q "SELECT caller || '|' || callee || '|' || call_count FROM call_graph_view WHERE (caller IN ('main','worker','handler') AND callee IN ('worker','raise','in_handler','siglongjmp')) ORDER BY id")"
# a stub is called, then jumps: its call counts (callgrind --skip-plt=no),
# and its target's call comes from the stub's caller, as checked above;
# stubs are named as objdump -d names them
check_eq "PLT stubs count their calls, from the callers" "main|__sigsetjmp@plt|1
main|sigaction@plt|1
worker|raise@plt|2" \
	"$(q "SELECT caller || '|' || callee || '|' || call_count FROM call_graph_view WHERE callee LIKE '%@plt' AND caller IN ('main','worker') ORDER BY caller, callee")"
check "itrace-xml: valid" sh -c "'$BIN/itrace-xml' -q '$TMP/s.itr' | xmllint --noout --nonet --schema '$ITRACE_ROOT/format/itrace-profile.xsd' -"
done_testing
