/*
 * schema.sql.h - the SQLite schema written by itrace-sqlite (version
 * EXPORT_SCHEMA_VERSION, stored in PRAGMA user_version).
 *
 * The tables perf's export-to-sqlite.py creates (perf 6.1, with its
 * "branches calls" options) come first, with perf's columns in perf's
 * order and meaning, perf's ids (0 = unknown, a row with id 0 in each
 * table; call path 1 is the root) and perf's branch type ids and call
 * flags, so that perf's exported-sql-viewer.py and SQL written for perf's
 * databases work unchanged.  itrace's own columns follow perf's in a few
 * tables, named so that no query joining perf's tables becomes ambiguous
 * (the viewer selects unqualified columns across joins).  itrace's own
 * tables (functions, call_graph, basic_blocks, hot_branches, source_lines,
 * metadata) sit beside them.  Included by itrace_sqlite.c only.
 */
#ifndef EXPORT_SCHEMA_SQL_H
#define EXPORT_SCHEMA_SQL_H

#define EXPORT_SCHEMA_VERSION 3 /* 3: hot_branches.dso_offset */

static const char schema_tables[] =
	/* perf's tables */
	"CREATE TABLE selected_events(id INTEGER PRIMARY KEY, name VARCHAR(80));\n"
	"CREATE TABLE machines(id INTEGER PRIMARY KEY, pid INTEGER, root_dir VARCHAR(4096),"
	" e_machine INTEGER);\n"
	"CREATE TABLE threads(id INTEGER PRIMARY KEY, machine_id BIGINT, process_id BIGINT,"
	" pid INTEGER, tid INTEGER, thread_insn_count BIGINT, thread_branch_count BIGINT);\n"
	"CREATE TABLE comms(id INTEGER PRIMARY KEY, comm VARCHAR(16), c_thread_id BIGINT,"
	" c_time BIGINT, exec_flag BOOLEAN, has_calls BOOLEAN);\n"
	"CREATE TABLE comm_threads(id INTEGER PRIMARY KEY, comm_id BIGINT, thread_id BIGINT);\n"
	"CREATE TABLE dsos(id INTEGER PRIMARY KEY, machine_id BIGINT, short_name VARCHAR(256),"
	" long_name VARCHAR(4096), build_id VARCHAR(64));\n"
	"CREATE TABLE symbols(id INTEGER PRIMARY KEY, dso_id BIGINT, sym_start BIGINT,"
	" sym_end BIGINT, binding INTEGER, name VARCHAR(2048));\n"
	"CREATE TABLE branch_types(id INTEGER PRIMARY KEY, name VARCHAR(80));\n"
	"CREATE TABLE samples(id INTEGER PRIMARY KEY, evsel_id BIGINT, machine_id BIGINT,"
	" thread_id BIGINT, comm_id BIGINT, dso_id BIGINT, symbol_id BIGINT, sym_offset BIGINT,"
	" ip BIGINT, time BIGINT, cpu INTEGER, to_dso_id BIGINT, to_symbol_id BIGINT,"
	" to_sym_offset BIGINT, to_ip BIGINT, branch_type INTEGER, in_tx BOOLEAN,"
	" call_path_id BIGINT, insn_count BIGINT, cyc_count BIGINT, flags INTEGER);\n"
	"CREATE TABLE call_paths(id INTEGER PRIMARY KEY, parent_id BIGINT, symbol_id BIGINT,"
	" ip BIGINT, call_count BIGINT, path_insn_count BIGINT);\n"
	"CREATE TABLE calls(id INTEGER PRIMARY KEY, thread_id BIGINT, comm_id BIGINT,"
	" call_path_id BIGINT, call_time BIGINT, return_time BIGINT, branch_count BIGINT,"
	" call_id BIGINT, return_id BIGINT, parent_call_path_id BIGINT, flags INTEGER,"
	" parent_id BIGINT, insn_count BIGINT, cyc_count BIGINT,"
	" call_ip BIGINT, call_insn BIGINT, return_insn BIGINT, depth INTEGER);\n"
	/* itrace's own tables */
	"CREATE TABLE metadata(key TEXT PRIMARY KEY, value TEXT);\n"
	"CREATE TABLE functions(id INTEGER PRIMARY KEY, symbol_id INTEGER, insn_count INTEGER,"
	" total_insn_count INTEGER, call_count INTEGER, src_file TEXT, src_line INTEGER);\n"
	"CREATE TABLE call_graph(id INTEGER PRIMARY KEY, caller_symbol_id INTEGER,"
	" callee_symbol_id INTEGER, call_count INTEGER, insn_count INTEGER);\n"
	"CREATE TABLE basic_blocks(id INTEGER PRIMARY KEY, symbol_id INTEGER, start_ip INTEGER,"
	" end_ip INTEGER, insn_count INTEGER, exec_count INTEGER);\n"
	"CREATE TABLE hot_branches(id INTEGER PRIMARY KEY, symbol_id INTEGER, ip INTEGER,"
	" to_ip INTEGER, fallthrough_ip INTEGER, branch_type INTEGER, kind TEXT,"
	" exec_count INTEGER, taken_count INTEGER, taken_ratio REAL, dso_offset INTEGER);\n"
	"CREATE TABLE source_lines(id INTEGER PRIMARY KEY, file TEXT, line INTEGER,"
	" symbol_id INTEGER, exec_count INTEGER, insn_count INTEGER);\n";

/* Indexes are created after the rows: building them once is cheaper.
 * perf indexes calls by parent call path and parent (its viewer's tree
 * queries); samples are looked up by id, which is the primary key. */
static const char schema_indexes[] =
	"CREATE INDEX pcpid_idx ON calls(parent_call_path_id);\n"
	"CREATE INDEX pid_idx ON calls(parent_id);\n"
	"CREATE INDEX call_paths_parent ON call_paths(parent_id);\n"
	"CREATE INDEX symbols_name ON symbols(name);\n"
	"CREATE INDEX functions_symbol ON functions(symbol_id);\n"
	"CREATE INDEX basic_blocks_symbol ON basic_blocks(symbol_id, start_ip);\n"
	"CREATE INDEX hot_branches_symbol ON hot_branches(symbol_id, ip);\n"
	"CREATE INDEX hot_branches_exec ON hot_branches(exec_count);\n"
	"CREATE INDEX source_lines_file ON source_lines(file, line);\n"
	"CREATE INDEX call_graph_caller ON call_graph(caller_symbol_id);\n";

/* perf's views, with the columns and meanings export-to-sqlite.py gives
 * them (hex addresses as printf("%x")). */
static const char schema_perf_views[] =
	"CREATE VIEW machines_view AS SELECT id, pid, root_dir,"
	" CASE WHEN id=0 THEN 'unknown' WHEN pid=-1 THEN 'host' ELSE 'guest' END AS host_or_guest"
	" FROM machines;\n"
	"CREATE VIEW dsos_view AS SELECT id, machine_id,"
	" (SELECT host_or_guest FROM machines_view WHERE id = machine_id) AS host_or_guest,"
	" short_name, long_name, build_id FROM dsos;\n"
	"CREATE VIEW symbols_view AS SELECT id, name,"
	" (SELECT short_name FROM dsos WHERE id=dso_id) AS dso, dso_id, sym_start, sym_end,"
	" CASE WHEN binding=0 THEN 'local' WHEN binding=1 THEN 'global' ELSE 'weak' END AS binding"
	" FROM symbols;\n"
	"CREATE VIEW threads_view AS SELECT id, machine_id,"
	" (SELECT host_or_guest FROM machines_view WHERE id = machine_id) AS host_or_guest,"
	" process_id, pid, tid FROM threads;\n"
	"CREATE VIEW comm_threads_view AS SELECT comm_id,"
	" (SELECT comm FROM comms WHERE id = comm_id) AS command, thread_id,"
	" (SELECT pid FROM threads WHERE id = thread_id) AS pid,"
	" (SELECT tid FROM threads WHERE id = thread_id) AS tid FROM comm_threads;\n"
	"CREATE VIEW call_paths_view AS SELECT c.id, printf(\"%x\", c.ip) AS ip, c.symbol_id,"
	" (SELECT name FROM symbols WHERE id = c.symbol_id) AS symbol,"
	" (SELECT dso_id FROM symbols WHERE id = c.symbol_id) AS dso_id,"
	" (SELECT dso FROM symbols_view WHERE id = c.symbol_id) AS dso_short_name,"
	" c.parent_id, printf(\"%x\", p.ip) AS parent_ip, p.symbol_id AS parent_symbol_id,"
	" (SELECT name FROM symbols WHERE id = p.symbol_id) AS parent_symbol,"
	" (SELECT dso_id FROM symbols WHERE id = p.symbol_id) AS parent_dso_id,"
	" (SELECT dso FROM symbols_view WHERE id = p.symbol_id) AS parent_dso_short_name"
	" FROM call_paths c INNER JOIN call_paths p ON p.id = c.parent_id;\n"
	"CREATE VIEW calls_view AS SELECT calls.id, thread_id,"
	" (SELECT pid FROM threads WHERE id = thread_id) AS pid,"
	" (SELECT tid FROM threads WHERE id = thread_id) AS tid,"
	" (SELECT comm FROM comms WHERE id = comm_id) AS command, call_path_id,"
	" printf(\"%x\", ip) AS ip, symbol_id, (SELECT name FROM symbols WHERE id = symbol_id) AS symbol,"
	" call_time, return_time, return_time - call_time AS elapsed_time, branch_count,"
	" insn_count, cyc_count,"
	" CASE WHEN cyc_count=0 THEN CAST(0 AS FLOAT) ELSE ROUND(CAST(insn_count AS FLOAT) / cyc_count, 2) END AS IPC,"
	" call_id, return_id,"
	" CASE WHEN flags=0 THEN '' WHEN flags=1 THEN 'no call' WHEN flags=2 THEN 'no return'"
	" WHEN flags=3 THEN 'no call/return' WHEN flags=6 THEN 'jump' ELSE flags END AS flags,"
	" parent_call_path_id, calls.parent_id"
	" FROM calls INNER JOIN call_paths ON call_paths.id = call_path_id;\n"
	"CREATE VIEW samples_view AS SELECT id, time, cpu,"
	" (SELECT pid FROM threads WHERE id = thread_id) AS pid,"
	" (SELECT tid FROM threads WHERE id = thread_id) AS tid,"
	" (SELECT comm FROM comms WHERE id = comm_id) AS command,"
	" (SELECT name FROM selected_events WHERE id = evsel_id) AS event,"
	" printf(\"%x\", ip) AS ip_hex, (SELECT name FROM symbols WHERE id = symbol_id) AS symbol,"
	" sym_offset, (SELECT short_name FROM dsos WHERE id = dso_id) AS dso_short_name,"
	" printf(\"%x\", to_ip) AS to_ip_hex,"
	" (SELECT name FROM symbols WHERE id = to_symbol_id) AS to_symbol, to_sym_offset,"
	" (SELECT short_name FROM dsos WHERE id = to_dso_id) AS to_dso_short_name,"
	" (SELECT name FROM branch_types WHERE id = branch_type) AS branch_type_name,"
	" in_tx, insn_count, cyc_count,"
	" CASE WHEN cyc_count=0 THEN CAST(0 AS FLOAT) ELSE ROUND(CAST(insn_count AS FLOAT) / cyc_count, 2) END AS IPC,"
	" flags FROM samples;\n";

/* itrace's views of its own tables: names, hex addresses as '%#x'. */
static const char schema_views[] =
	"CREATE VIEW functions_view AS SELECT f.id, s.name AS symbol, d.short_name AS dso,"
	" printf('%#x', s.sym_start) AS sym_start, f.insn_count, f.total_insn_count,"
	" f.call_count, round(100.0 * f.insn_count /"
	" max(1, (SELECT sum(insn_count) FROM functions)), 2) AS insn_percent,"
	" f.src_file, f.src_line FROM functions f JOIN symbols s ON s.id = f.symbol_id"
	" LEFT JOIN dsos d ON d.id = s.dso_id;\n"
	"CREATE VIEW call_graph_view AS SELECT g.id, cs.name AS caller, es.name AS callee,"
	" g.call_count, g.insn_count FROM call_graph g"
	" LEFT JOIN symbols cs ON cs.id = g.caller_symbol_id"
	" LEFT JOIN symbols es ON es.id = g.callee_symbol_id;\n"
	"CREATE VIEW call_path_stats_view AS SELECT p.id, s.name AS symbol, d.short_name AS dso,"
	" printf('%#x', p.ip) AS ip, p.parent_id, p.call_count, p.path_insn_count AS insn_count"
	" FROM call_paths p LEFT JOIN symbols s ON s.id = p.symbol_id"
	" LEFT JOIN dsos d ON d.id = s.dso_id WHERE p.id > 1;\n"
	"CREATE VIEW basic_blocks_view AS SELECT b.id, s.name AS symbol,"
	" printf('%#x', b.start_ip) AS start_ip, printf('%#x', b.end_ip) AS end_ip,"
	" b.insn_count, b.exec_count, b.insn_count * b.exec_count AS insns_executed"
	" FROM basic_blocks b LEFT JOIN symbols s ON s.id = b.symbol_id;\n"
	"CREATE VIEW hot_branches_view AS SELECT h.id, s.name AS symbol,"
	" printf('%#x', h.ip) AS ip, printf('%#x', h.ip - s.sym_start) AS sym_offset,"
	" printf('%#x', h.to_ip) AS to_ip, bt.name AS branch_type_name, h.kind, h.exec_count,"
	" h.taken_count, h.taken_ratio, d.short_name AS dso, printf('%#x', h.dso_offset) AS dso_offset"
	" FROM hot_branches h"
	" LEFT JOIN symbols s ON s.id = h.symbol_id"
	" LEFT JOIN dsos d ON d.id = s.dso_id"
	" LEFT JOIN branch_types bt ON bt.id = h.branch_type;\n"
	"CREATE VIEW source_lines_view AS SELECT l.id, l.file, l.line, s.name AS symbol,"
	" l.exec_count, l.insn_count FROM source_lines l"
	" LEFT JOIN symbols s ON s.id = l.symbol_id;\n";

#endif
