#!/bin/sh
# itrace-sqlite read by perf's own tools: perf's exported-sql-viewer.py
# (Debian linux-perf) opens the database headless and its call graph, call
# tree and "All branches" reports show what the trace holds; the SQL of
# perf's documentation (export-to-postgresql.py's examples) runs on it.
. tests/lib.sh
SQL="$BIN/itrace-sqlite"
q() { sqlite3 -batch "$1" "$2"; }
VIEWER=$(ls /usr/lib/perf-core/scripts/python/exported-sql-viewer.py \
	/usr/libexec/perf-core/scripts/python/exported-sql-viewer.py 2>/dev/null | head -1)
PY=/usr/bin/python3 # Debian's, where python3-pyside2 is installed
export PYTHONIOENCODING=utf-8
# as Qt shows names: bytes that are not UTF-8 become U+FFFD
as_qt() { "$PY" -c 'import sys; sys.stdout.write(sys.stdin.buffer.read().decode("utf-8", "replace"))'; }

if [ -z "$VIEWER" ] || ! "$PY" -c 'import PySide2.QtSql' 2>/dev/null; then
	echo "not ok 1 - perf's exported-sql-viewer.py or PySide2 missing (make deps installs linux-perf, python3-pyside2.qtsql)"
	echo "1..1"
	exit 1
fi

"$BIN/itrace-collect" -q -o "$TMP/c.itr" -- "$DATA/export_calls"
check "export_calls: export with calls and branches" "$SQL" -q --level branches "$TMP/c.itr" -o "$TMP/c.db"
HOME="$TMP" timeout 120 "$PY" "$ITRACE_ROOT/tests/e2e/perf_viewer.py" "$VIEWER" "$TMP/c.db" \
	>"$TMP/view.txt" 2>"$TMP/view.err"
check_eq "perf's viewer opens the database" 0 $?
check "viewer: main window built" grep -q "^window Exported SQL Viewer: $TMP/c.db" "$TMP/view.txt"
check_eq "viewer: its reports are offered" "All branches
Call Tree
Context-Sensitive Call Graph" \
	"$(grep -e '^menu All branches$' -e '^menu Call Tree$' -e '^menu Context-Sensitive Call Graph$' "$TMP/view.txt" | cut -c6- | sort)"

# Call graph: per call path, the viewer's COUNT and SUM(insn_count) over
# the calls rows equal the analysis' own call path aggregates.
awk '$1 == "graph" && $2 >= 2 { print $3, $5, $7 }' "$TMP/view.txt" | sort >"$TMP/graph"
q "$TMP/c.db" "SELECT symbol || ' ' || call_count || ' ' || insn_count FROM call_path_stats_view" |
	as_qt | sort >"$TMP/paths"
check "call graph shows the call paths" test -s "$TMP/graph"
check_files_eq "call graph: counts and instructions = call path aggregates" "$TMP/paths" "$TMP/graph"
check "call graph: recursion of fact four deep" grep -q '^graph 6 fact export_calls 5 ' "$TMP/view.txt"
check_eq "call tree: one row per call" "$(q "$TMP/c.db" 'SELECT count(*) FROM calls WHERE id > 0')" \
	"$(awk '$1 == "tree" && $2 >= 2' "$TMP/view.txt" | wc -l)"
check_eq "call tree: calls start at their instruction number" \
	"$(q "$TMP/c.db" "SELECT call_time FROM calls_view WHERE symbol = 'leaf' ORDER BY id LIMIT 1")" \
	"$(awk '$1 == "tree" && $3 == "leaf" { print $5; exit }' "$TMP/view.txt")"

# All branches: every taken branch, in order, as perf shows Intel PT's.
check_eq "All branches: one row per taken branch" \
	"$(q "$TMP/c.db" 'SELECT sum(taken_count) FROM hot_branches')" "$(grep -c '^branch ' "$TMP/view.txt")"
check_eq "All branches: the first is _start's call of leaf" \
	"call 401005 _start+0x5 (export_calls) -> 401026 leaf (export_calls)" \
	"$(grep '^branch ' "$TMP/view.txt" | head -1 | cut -d' ' -f6,8-)"
check_eq "All branches: fact's recursive calls" 15 \
	"$(grep '^branch .* call .* fact+0x8 (export_calls) -> 401030 fact (export_calls)$' "$TMP/view.txt" | wc -l)"

# perf's documentation examples (export-to-postgresql.py), unchanged.
check_eq "doc: top 10 function calls (not aggregated)" "_start|10" \
	"$(q "$TMP/c.db" "SELECT (SELECT symbol FROM (SELECT * FROM calls_view ORDER BY elapsed_time DESC LIMIT 10) LIMIT 1), (SELECT count(*) FROM (SELECT * FROM calls_view ORDER BY elapsed_time DESC LIMIT 10))")"
check_eq "doc: top 10 function calls (aggregated by symbol; recursion adds up)" "fact|_start|leaf" \
	"$(q "$TMP/c.db" "SELECT group_concat(symbol, '|') FROM (SELECT symbol_id,(SELECT name FROM symbols WHERE id = symbol_id) AS symbol, SUM(elapsed_time) AS tot_elapsed_time,SUM(branch_count) AS tot_branch_count FROM calls_view GROUP BY symbol_id ORDER BY tot_elapsed_time DESC LIMIT 3)")"
check_eq "doc: symbols by pattern" fact \
	"$(q "$TMP/c.db" "SELECT name FROM symbols_view WHERE name LIKE '%fac%'")"
fact=$(q "$TMP/c.db" "SELECT id FROM symbols WHERE name = 'fact'")
check_eq "doc: top 10 calls of one symbol" 10 \
	"$(q "$TMP/c.db" "SELECT count(*) FROM (SELECT * FROM calls_view WHERE symbol_id = $fact ORDER BY elapsed_time DESC LIMIT 10)")"
start_path=$(q "$TMP/c.db" "SELECT call_path_id FROM calls_view WHERE symbol = '_start'")
check_eq "doc: calls made in the same context" 11 \
	"$(q "$TMP/c.db" "SELECT count(*) FROM calls_view WHERE parent_call_path_id = $start_path")"
check_eq "doc: branches made during a call = its branches and its call" 0 \
	"$(q "$TMP/c.db" "SELECT count(*) FROM calls c WHERE c.call_id > 0 AND c.return_id > 0 AND (SELECT count(*) FROM samples_view WHERE id >= c.call_id AND id <= c.return_id AND tid = (SELECT tid FROM threads WHERE id = c.thread_id) AND event LIKE 'branches%') != c.branch_count + 1")"
check "doc: (some calls have both ids)" test "$(q "$TMP/c.db" 'SELECT count(*) FROM calls WHERE call_id > 0 AND return_id > 0')" -gt 20
deep=$(q "$TMP/c.db" "SELECT call_path_id FROM calls_view WHERE symbol = 'fact' ORDER BY call_path_id DESC LIMIT 1")
stack=""
while [ "$deep" != 0 ] && [ "$deep" != 1 ]; do # perf's printcallstack.py walk
	stack="$stack $(q "$TMP/c.db" "SELECT symbol FROM call_paths_view WHERE id = $deep")"
	deep=$(q "$TMP/c.db" "SELECT parent_id FROM call_paths_view WHERE id = $deep")
done
check_eq "doc: call stack from call_paths_view" " fact fact fact fact _start" "$stack"

# A C program with libc and PLT calls: the viewer's call graph still
# equals the call path aggregates (call paths that no activation ended on,
# those of PLT stubs whose activations became their targets', have no
# calls rows to show).  LD_BIND_NOW: see the report on lazy binding.
LD_BIND_NOW=1 "$BIN/itrace-collect" -q --start main -o "$TMP/p.itr" -- "$DATA/export_prog" >/dev/null 2>&1
check "export_prog: export" "$SQL" -q --level branches "$TMP/p.itr" -o "$TMP/p.db"
HOME="$TMP" timeout 120 "$PY" "$ITRACE_ROOT/tests/e2e/perf_viewer.py" "$VIEWER" "$TMP/p.db" \
	>"$TMP/pview.txt" 2>"$TMP/pview.err"
check_eq "export_prog: perf's viewer opens it" 0 $?
awk '$1 == "graph" && $2 >= 2 { print $3, $5, $7 }' "$TMP/pview.txt" | sort >"$TMP/pgraph"
q "$TMP/p.db" "SELECT symbol || ' ' || call_count || ' ' || insn_count FROM call_path_stats_view WHERE call_count > 0" |
	sort >"$TMP/ppaths"
check_files_eq "export_prog: call graph = call path aggregates" "$TMP/ppaths" "$TMP/pgraph"
check_eq "export_prog: All branches rows = taken branches" \
	"$(q "$TMP/p.db" 'SELECT count(*) FROM samples WHERE evsel_id = 1')" "$(grep -c '^branch ' "$TMP/pview.txt")"
done_testing
