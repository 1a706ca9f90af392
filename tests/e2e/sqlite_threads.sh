#!/bin/sh
# Per-thread call reconstruction on a real two-thread trace of
# tests/data/export_threads.c (traced from exec: ~120k single steps).
. tests/lib.sh
SQL="$BIN/itrace-sqlite"
q() { sqlite3 -batch "$TMP/t.db" "$1"; }

if [ ! -x "$BIN/itrace-collect" ]; then
	echo "ok 1 # SKIP itrace-collect not built"
	echo "1..1"
	exit 0
fi
"$BIN/itrace-collect" -q -o "$TMP/t.itr" -- "$DATA/export_threads"
check_eq "program ran under the collector" 0 $?
check "export" "$SQL" -q --level calls "$TMP/t.itr" -o "$TMP/t.db"
check_eq "two threads of one process; the second's process is the first" "2|1|1" \
	"$(q "SELECT count(*), count(DISTINCT pid), max(process_id) FROM threads WHERE id > 0")"
check_eq "thread instruction counts add up" \
	"$(q "SELECT value FROM metadata WHERE key='insn_count'")" "$(q "SELECT sum(thread_insn_count) FROM threads")"
# spin(n) runs 6n + 4 instructions (the loop is 6 per iteration)
check_eq "spin called once in each thread, 6n+4 instructions" "1|1204
2|1804" "$(q "SELECT k.thread_id, k.insn_count FROM calls k JOIN call_paths p ON p.id = k.call_path_id JOIN symbols s ON s.id = p.symbol_id WHERE s.name = 'spin' ORDER BY k.thread_id")"
check_eq "spin: 2 calls, 3008 instructions in all" "2|3008|3008" \
	"$(q "SELECT call_count, insn_count, total_insn_count FROM functions_view WHERE symbol='spin'")"
check_eq "thread_main runs in the second thread and calls spin" "2|thread_main|spin" \
	"$(q "SELECT k.thread_id, c.symbol, s.symbol FROM calls_view s JOIN calls k ON k.id = s.parent_id JOIN calls_view c ON c.id = k.id WHERE s.symbol = 'spin' AND s.tid != s.pid")"
check_eq "calls of one thread never have a parent in another" 0 \
	"$(q "SELECT count(*) FROM calls c JOIN calls p ON p.id = c.parent_id WHERE c.parent_id > 0 AND c.thread_id != p.thread_id")"
done_testing
