#!/bin/sh
# itrace-sqlite: schema, counts, levels, views and errors, on a synthetic
# trace (export-synth: counts known from the iteration count) and on a
# real trace of tests/data/export_calls.S (itrace-collect).
. tests/lib.sh
SQL="$BIN/itrace-sqlite"
q() { sqlite3 -batch "$1" "$2"; }

# ---- synthetic: 1000 iterations = 10001 insns, 6000 branches, 1000 calls
"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/s.itr" 1000
check "export synthetic trace" "$SQL" -q --level branches "$TMP/s.itr" -o "$TMP/s.db"
check_eq "user_version holds the schema version" 3 "$(q "$TMP/s.db" 'PRAGMA user_version')"
check_eq "metadata names the source trace" "$(cd "$TMP" && pwd -P)/s.itr" \
	"$(q "$TMP/s.db" "SELECT value FROM metadata WHERE key='source_trace'")"
check_eq "metadata says complete" 1 "$(q "$TMP/s.db" "SELECT value FROM metadata WHERE key='complete'")"
check_eq "instruction count" 10001 "$(q "$TMP/s.db" "SELECT value FROM metadata WHERE key='insn_count'")"
check_eq "one sample per branch (perf's row 0 aside)" 6000 "$(q "$TMP/s.db" 'SELECT count(*) FROM samples WHERE id > 0')"
check_eq "taken branches are perf's 'branches' event" 5000 \
	"$(q "$TMP/s.db" "SELECT count(*) FROM samples_view WHERE event = 'branches'")"
check_eq "not-taken ones an event of their own" 1000 \
	"$(q "$TMP/s.db" "SELECT count(*) FROM samples_view WHERE event = 'branches-not-taken'")"
check_eq "calls: 1000 + the root" 1001 "$(q "$TMP/s.db" 'SELECT count(*) FROM calls WHERE id > 0')"
check_eq "every call has 8 instructions" "1000|8" \
	"$(q "$TMP/s.db" "SELECT count(*), min(insn_count) FROM calls WHERE call_ip = 4198400")"
check_eq "hot branch: inner jne executed 3000, taken 2000" "3000|2000|0x402005" \
	"$(q "$TMP/s.db" "SELECT exec_count, taken_count, to_ip FROM hot_branches_view WHERE ip='0x402007'")"
check_eq "branch types by name (perf's ids)" "conditional jump|9|3000" \
	"$(q "$TMP/s.db" "SELECT branch_type_name, branch_type, count(*) FROM samples_view v JOIN samples s USING (id) WHERE ip_hex='402007' GROUP BY 1")"
check_eq "samples count instructions since the previous taken branch" "3|2" \
	"$(q "$TMP/s.db" "SELECT max(insn_count), min(insn_count) FROM samples WHERE evsel_id = 1 AND ip = 4202503")"
check_eq "time is the instruction number (no timestamps in the trace)" "instructions|3|5" \
	"$(q "$TMP/s.db" "SELECT (SELECT value FROM metadata WHERE key='time_unit'), (SELECT time FROM samples WHERE id = 2), (SELECT time FROM samples WHERE id = 3)")"
check_eq "calls: perf's call/return sample ids, parent call path" "1|5|2|0" \
	"$(q "$TMP/s.db" "SELECT call_id, return_id, parent_call_path_id, flags FROM calls WHERE id = 2")"
check_eq "blocks: the inner loop ran 3000 times" "0x402005|0x402009|3000" \
	"$(q "$TMP/s.db" "SELECT start_ip, end_ip, exec_count FROM basic_blocks_view WHERE start_ip='0x402005'")"
check_eq "indexes exist" 1 "$(q "$TMP/s.db" "SELECT count(*) FROM sqlite_master WHERE type='index' AND name='pid_idx'")"
check_eq "integrity" ok "$(q "$TMP/s.db" 'PRAGMA integrity_check')"
check_eq "no temporary file left" "s.db s.itr" "$(cd "$TMP" && ls -A | tr '\n' ' ' | sed 's/ $//')"

check "default level: the aggregates" "$SQL" -q "$TMP/s.itr" -o "$TMP/sum.db"
check_eq "default level: no per-event rows" "summary|0|0|4" \
	"$(q "$TMP/sum.db" "SELECT (SELECT value FROM metadata WHERE key='export_level'), (SELECT count(*) FROM samples WHERE id > 0), (SELECT count(*) FROM calls WHERE id > 0), (SELECT count(*) FROM hot_branches)")"
check_eq "default level: call paths with their counts" "1000|8000" \
	"$(q "$TMP/sum.db" "SELECT call_count, insn_count FROM call_path_stats_view WHERE ip = '0x402000'")"
check "--level calls" "$SQL" -q --level calls "$TMP/s.itr" -o "$TMP/calls.db"
check_eq "calls level: calls, no samples" "1001|0" \
	"$(q "$TMP/calls.db" "SELECT (SELECT count(*) FROM calls WHERE id > 0), (SELECT count(*) FROM samples WHERE id > 0)")"
check "--level insns" "$SQL" -q --level insns "$TMP/s.itr" -o "$TMP/ins.db"
check_eq "insns: one sample per instruction" 10001 \
	"$(q "$TMP/ins.db" "SELECT count(*) FROM samples_view WHERE event = 'instructions'")"
check_eq "insns: per-address counts" "402005|3000" \
	"$(q "$TMP/ins.db" "SELECT ip_hex, count(*) FROM samples_view WHERE ip_hex='402005' AND event = 'instructions' GROUP BY ip_hex")"

# ---- errors
check_fails "missing input" "$SQL" "$TMP/nope.itr" -o "$TMP/x.db"
out=$("$SQL" "$TMP/nope.itr" -o "$TMP/x.db" 2>&1); rc=$?
check_eq "missing input: exit 1, one line" "1|itrace-sqlite: cannot open '$TMP/nope.itr': No such file or directory" "$rc|$out"
"$SQL" "$TMP/s.itr" >/dev/null 2>&1; check_eq "no -o: usage error" 2 $?
"$SQL" "$TMP/s.itr" -o - >/dev/null 2>&1; check_eq "-o -: usage error" 2 $?
"$SQL" --level bogus "$TMP/s.itr" -o "$TMP/x.db" >/dev/null 2>&1; check_eq "bad level: usage error" 2 $?
echo "not a trace" >"$TMP/bad.itr"
check_fails "not a trace" "$SQL" "$TMP/bad.itr" -o "$TMP/x.db"
check_eq "failed export leaves nothing" "" "$(cd "$TMP" && ls -A | grep -e '^x.db' -e '^\.x\.db')"
# truncated trace: exit 1, but every record before the cut is exported
"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/chunks.itr" 1000 100
size=$(wc -c <"$TMP/chunks.itr")
head -c $((size - 400)) "$TMP/chunks.itr" >"$TMP/cut.itr"   # past the footer, into a chunk
"$SQL" -q "$TMP/cut.itr" -o "$TMP/cut.db" 2>"$TMP/cut.err"; rc=$?
check_eq "truncated: exit 1" 1 "$rc"
check_eq "truncated: db written, marked incomplete" 0 \
	"$(q "$TMP/cut.db" "SELECT value FROM metadata WHERE key='complete'")"
check "truncated: error names the damage" grep -q "damaged" "$TMP/cut.err"
read_insns=$("$BIN/itrace-dump" "$TMP/cut.itr" 2>/dev/null | grep -c ' INSN ')
check "truncated: the cut is inside the records" test "$read_insns" -gt 0 -a "$read_insns" -lt 10001
check_eq "truncated: every instruction the reader delivers is exported" "$read_insns" \
	"$(q "$TMP/cut.db" "SELECT value FROM metadata WHERE key='insn_count'")"
# a trace that records lost data (a LOST record): marked, exit 1
EXPORT_SYNTH_LOST=1 "$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/lost.itr" 100
"$SQL" -q "$TMP/lost.itr" -o "$TMP/lost.db" 2>"$TMP/lost.err"
check_eq "lost data: exit 1" 1 $?
check "lost data: one line on stderr" grep -q "^itrace-sqlite: '.*lost.itr' records lost data (7 lost, 0 gaps)" "$TMP/lost.err"
check_eq "lost data: marked in metadata" "0|7" \
	"$(q "$TMP/lost.db" "SELECT (SELECT value FROM metadata WHERE key='complete'), (SELECT value FROM metadata WHERE key='lost_count')")"
# stdin
check "trace from stdin" sh -c "'$SQL' -q - -o '$TMP/stdin.db' <'$TMP/s.itr'"
check_eq "stdin: same counts" 6000 "$(q "$TMP/stdin.db" 'SELECT sum(exec_count) FROM hot_branches')"

# ---- progress appears on a terminal only
"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/big.itr" 150000
script -qec "'$SQL' --level branches '$TMP/big.itr' -o '$TMP/tty.db'" /dev/null >"$TMP/tty.out" 2>&1
check "progress line on a terminal" grep -q "rows, .*/s" "$TMP/tty.out"
"$SQL" "$TMP/big.itr" -o "$TMP/pipe.db" 2>"$TMP/pipe.err"
check_eq "no progress when stderr is not a terminal" "" "$(cat "$TMP/pipe.err")"
rm -f "$TMP/big.itr" "$TMP/tty.db" "$TMP/pipe.db"

# ---- a real trace of export_calls (itrace-collect single-steps it)
if [ -x "$BIN/itrace-collect" ]; then
	"$BIN/itrace-collect" -q -o "$TMP/c.itr" -- "$DATA/export_calls"
	check "export collected trace" "$SQL" -q "$TMP/c.itr" -o "$TMP/c.db"
	check_eq "per-function calls" "_start|0
fact|20
leaf|5" "$(q "$TMP/c.db" "SELECT symbol, call_count FROM functions_view WHERE symbol IN ('_start','leaf','fact') ORDER BY symbol")"
	check_eq "name with <&>\", control byte, invalid UTF-8 kept as bound text" 1 \
		"$(q "$TMP/c.db" "SELECT count(*) FROM symbols WHERE name = 'we<&>\"ird' || char(1) || CAST(x'ff' AS TEXT) || 'name'")"
	check_eq "recursion: fact total counted once per outermost call" "140|140" \
		"$(q "$TMP/c.db" "SELECT insn_count, total_insn_count FROM functions_view WHERE symbol='fact'")"
	check_eq "deepest fact call path is 4 levels below _start" 5 \
		"$(q "$TMP/c.db" "WITH RECURSIVE d(id, n) AS (SELECT id, 1 FROM call_paths WHERE parent_id = 1 UNION ALL SELECT p.id, d.n + 1 FROM call_paths p JOIN d ON p.parent_id = d.id) SELECT max(n) FROM d")"
	ninsn=$("$BIN/itrace-dump" "$TMP/c.itr" | grep -c ' INSN ')
	check_eq "instructions = what the reader counts" "$ninsn|$ninsn" \
		"$(q "$TMP/c.db" "SELECT (SELECT value FROM metadata WHERE key='insn_count'), (SELECT sum(insn_count) FROM functions)")"
	check_eq "module build-id recorded" 40 \
		"$(q "$TMP/c.db" "SELECT length(build_id) FROM dsos WHERE short_name='export_calls'")"

	# branch level: filled through the binary, same profile
	"$BIN/itrace-collect" -q --level branch -o "$TMP/b.itr" -- "$DATA/export_calls"
	check "export branch-level trace (filled)" "$SQL" -q "$TMP/b.itr" -o "$TMP/b.db"
	check_eq "branch level: metadata" "branch|0" \
		"$(q "$TMP/b.db" "SELECT (SELECT value FROM metadata WHERE key='trace_level'), (SELECT value FROM metadata WHERE key='gap_count')")"
	check_eq "branch level: _start ran 1 + 5 x 5 + 4 instructions" 30 \
		"$(q "$TMP/b.db" "SELECT insn_count FROM functions_view WHERE symbol='_start'")"
	check_eq "insn level: _start ran 1 + 5 x 5 + 4 instructions" 30 \
		"$(q "$TMP/c.db" "SELECT insn_count FROM functions_view WHERE symbol='_start'")"
	prof="SELECT symbol || ' ' || insn_count || ' ' || total_insn_count || ' ' || call_count FROM functions_view ORDER BY symbol"
	check_eq "branch level: same profile as insn level" "$(q "$TMP/c.db" "$prof")" "$(q "$TMP/b.db" "$prof")"
	check_eq "branch level: same hot branches" \
		"$(q "$TMP/c.db" "SELECT ip, exec_count, taken_count FROM hot_branches ORDER BY ip")" \
		"$(q "$TMP/b.db" "SELECT ip, exec_count, taken_count FROM hot_branches ORDER BY ip")"
fi
done_testing
