#!/bin/sh
# Two processes (fork, traced with --follow-fork) of tests/data/export_fork.S:
# each gets its own thread row, stack and counts.
. tests/lib.sh
SQL="$BIN/itrace-sqlite"
q() { sqlite3 -batch "$TMP/f.db" "$1"; }

if [ ! -x "$BIN/itrace-collect" ]; then
	echo "ok 1 # SKIP itrace-collect not built"
	echo "1..1"
	exit 0
fi
"$BIN/itrace-collect" -q --follow-fork -o "$TMP/f.itr" -- "$DATA/export_fork"
check_eq "program ran under the collector" 0 $?
check "export" "$SQL" -q --level calls "$TMP/f.itr" -o "$TMP/f.db"
check_eq "two processes, each its own process row" "2|2|2" \
	"$(q "SELECT count(*), count(DISTINCT pid), sum(process_id = id) FROM threads WHERE id > 0")"
# parent: 16 own instructions + parent_work (2 x 2 + 1); child: 7 + child_work (4 x 2 + 1)
check_eq "per-process instruction counts" "21
16" "$(q "SELECT thread_insn_count FROM threads WHERE id > 0 ORDER BY id")"
# Each process calls its own function once; its loop jumps back to the
# function's start, which callgrind (and so the export) counts as a
# recursive call: one activation per iteration, nested.
check_eq "each process called its own function, looping through its start" "parent_work|1|5
parent_work|1|3
child_work|2|9
child_work|2|7
child_work|2|5
child_work|2|3" \
	"$(q "SELECT s.name, k.thread_id, k.insn_count FROM calls k JOIN call_paths p ON p.id = k.call_path_id JOIN symbols s ON s.id = p.symbol_id WHERE s.name LIKE '%_work' ORDER BY k.thread_id, k.id")"
check_eq "_start counted over both processes" "23|0" \
	"$(q "SELECT insn_count, call_count FROM functions_view WHERE symbol='_start'")"
check_eq "one module row for the shared executable" 1 \
	"$(q "SELECT count(*) FROM dsos WHERE short_name='export_fork'")"
done_testing
