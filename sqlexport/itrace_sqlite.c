/*
 * itrace-sqlite - export an itrace trace into an SQLite database whose
 * schema is perf's export-to-sqlite.py's, with itrace's own tables beside
 * it (see schema.sql.h), so that perf's exported-sql-viewer.py opens it.
 *
 * Levels: the default writes the aggregates (functions, call paths, call
 * graph, blocks, hot branches, source lines), whose size follows the code
 * executed; "calls", "branches" and "insns" add one row per activation,
 * per branch and per instruction, streamed into the database as the
 * analysis produces them.  Memory stays bounded whatever the trace's
 * length: SQLite's page cache is capped, index builds sort through
 * temporary files, and the exporter keeps only per-thread call stacks.
 *
 * Safety: the database is built in a temporary file next to the target,
 * in one transaction with prepared statements (names are bound, never
 * pasted into SQL), and renamed over the target only once it is complete
 * and synced.  Killing the exporter at any point leaves the previous
 * target (or none) in place.
 */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "export_cli.h"
#include "itrace.h"
#include "itrace_code.h"
#include "schema.sql.h"

enum export_level {
	LEVEL_SUMMARY = 0,  /* aggregate tables only (default) */
	LEVEL_CALLS = 1,    /* + every activation (perf's calls) */
	LEVEL_BRANCHES = 2, /* + every branch (perf's samples) */
	LEVEL_INSNS = 3,    /* + every instruction */
};

static const char *const level_names[] = {"summary", "calls", "branches", "insns"};

struct options {
	struct export_opts e;
	int level;
};

enum time_unit { TIME_UNDECIDED, TIME_NS, TIME_INSNS };

/* An activation whose calls row is written when it ends. */
struct pending_call {
	uint64_t id, call_sample;
};

struct thread_state {
	uint64_t insns_at_sample; /* thread instructions before its last taken branch's end */
	uint64_t last_branch;	  /* samples id of its last branch */
	struct pending_call *stack;
	size_t depth, cap;
	int has_calls;
};

/* Calls are inserted CALL_BATCH rows per statement: one row per
 * statement cost SQLite a statement's start and end (cursor opened, the
 * B-tree searched from its root, statement closed) per row, a fifth of
 * the calls level (bench/README.md). */
#define CALL_BATCH 32
#define CALL_COLUMNS 17

struct exporter {
	sqlite3 *db;
	sqlite3_stmt *sample, *call;
	sqlite3_stmt *call_batch;		  /* CALL_BATCH rows */
	int64_t calls[CALL_BATCH][CALL_COLUMNS]; /* rows not inserted yet */
	int ncalls;
	struct cli_progress progress;
	uint64_t rows, sample_id;
	int time_unit;
	struct thread_state *threads; /* by thread id */
	size_t nthreads;
};

static const char *target_path = ""; /* for messages */

/* ---- SQL helpers --------------------------------------------------------- */

/* os_error - " (No space left on device)" when SQLite failed on a system
 * call, so the real errno is said, else "". */
static const char *os_error(struct exporter *x)
{
	static char buf[160];
	int e = sqlite3_system_errno(x->db);

	/* SQLite keeps no errno for SQLITE_FULL: it is a write's ENOSPC */
	if (!e && (sqlite3_errcode(x->db) & 0xff) == SQLITE_FULL)
		e = ENOSPC;
	if (!e)
		return "";
	snprintf(buf, sizeof(buf), " (%s)", strerror(e));
	return buf;
}

static int sql_fail(struct exporter *x, const char *what)
{
	cli_error("cannot write '%s': SQLite: %s: %s%s", target_path, what, sqlite3_errmsg(x->db),
		  os_error(x));
	return -1;
}

static int exec_sql(struct exporter *x, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(x->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		cli_error("cannot write '%s': SQLite: %s%s", target_path,
			  err ? err : sqlite3_errmsg(x->db), os_error(x));
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

static int prepare(struct exporter *x, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v3(x->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return sql_fail(x, "prepare");
	return 0;
}

/* Bind an unsigned 64-bit value: addresses above 2^63 keep their bits. */
static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* step - run a bound insert and reset it; counts the row. */
static int step(struct exporter *x, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_fail(x, "insert");
	x->rows++;
	return 0;
}

/* insert - prepare-once helper for the small tables: "?" per column. */
static int insert_meta(struct exporter *x, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(x, "INSERT OR REPLACE INTO metadata(key, value) VALUES (?, ?)", &st) < 0)
		return -1;
	bind_text(st, 1, key);
	bind_text(st, 2, value);
	rc = step(x, st);
	sqlite3_finalize(st);
	return rc;
}

static int insert_meta_u64(struct exporter *x, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return insert_meta(x, key, buf);
}

/* ---- per-event rows (callbacks of the analysis) -------------------------- */

/*
 * calls.flags: perf's bits (util/thread-stack.h: CALL_RETURN_NO_CALL 1,
 * CALL_RETURN_NO_RETURN 2, CALL_RETURN_NON_CALL 4: entered by a jump, a
 * tail call or a PLT/GOT jump, itrace's ITRACE_CALL_JUMP) keep their
 * meaning; itrace's signal-handler and unwound marks go above them.
 */
#define CALLS_FLAG_SIGNAL 0x100
#define CALLS_FLAG_UNWOUND 0x200

static int perf_call_flags(uint32_t f)
{
	return (f & ITRACE_CALL_NO_CALL ? 1 : 0) | (f & ITRACE_CALL_NO_RETURN ? 2 : 0) |
	       (f & ITRACE_CALL_JUMP ? 4 : 0) | (f & ITRACE_CALL_SIGNAL ? CALLS_FLAG_SIGNAL : 0) |
	       (f & ITRACE_CALL_UNWOUND ? CALLS_FLAG_UNWOUND : 0);
}

/* selected_events: perf's "branches" event is every taken branch (what
 * perf's Intel PT decoder synthesizes); not-taken conditional branches
 * and instructions are events of their own. */
enum { EVSEL_BRANCHES = 1, EVSEL_NOT_TAKEN = 2, EVSEL_INSNS = 3 };
static const char *const evsel_names[] = {"unknown", "branches", "branches-not-taken",
					  "instructions"};

/* time columns: the trace's nanoseconds when it has TIMESTAMP records
 * from its start, else the trace-wide instruction number */
static uint64_t event_time(struct exporter *x, uint64_t time_ns, uint64_t index)
{
	if (x->time_unit == TIME_UNDECIDED)
		x->time_unit = time_ns ? TIME_NS : TIME_INSNS;
	return x->time_unit == TIME_NS ? time_ns : index;
}

/* thread_state - the per-thread state of thread id `id`, grown on demand. */
static struct thread_state *thread_state(struct exporter *x, uint64_t id)
{
	if (id >= x->nthreads) {
		size_t n = id + 16;
		struct thread_state *t = realloc(x->threads, n * sizeof(*t));

		if (!t)
			return NULL;
		memset(t + x->nthreads, 0, (n - x->nthreads) * sizeof(*t));
		x->threads = t;
		x->nthreads = n;
	}
	return &x->threads[id];
}

/* One row of perf's samples table (the columns the exporter sets). */
struct sample {
	int evsel, branch_type;
	uint64_t thread, dso, symbol, offset, ip, time;
	uint64_t to_dso, to_symbol, to_offset, to_ip;
	uint64_t call_path, insn_count;
};

/* write_sample - insert it with the next samples id; returns that id, or
 * 0 after printing why it failed. */
static uint64_t write_sample(struct exporter *x, const struct sample *m)
{
	sqlite3_stmt *st = x->sample;
	uint64_t id = ++x->sample_id;

	bind_u64(st, 1, id);
	sqlite3_bind_int(st, 2, m->evsel);
	bind_u64(st, 3, m->thread);
	bind_u64(st, 4, m->thread); /* comm: one per thread */
	bind_u64(st, 5, m->dso);
	bind_u64(st, 6, m->symbol);
	bind_u64(st, 7, m->offset);
	bind_u64(st, 8, m->ip);
	bind_u64(st, 9, m->time);
	bind_u64(st, 10, m->to_dso);
	bind_u64(st, 11, m->to_symbol);
	bind_u64(st, 12, m->to_offset);
	bind_u64(st, 13, m->to_ip);
	sqlite3_bind_int(st, 14, m->branch_type);
	bind_u64(st, 15, m->call_path + 1); /* perf's root call path is 1 */
	bind_u64(st, 16, m->insn_count);
	if (step(x, st) < 0)
		return 0;
	cli_progress(&x->progress, x->rows);
	return id;
}

static int on_branch(void *ctx, const struct itrace_analysis_branch_event *ev)
{
	struct exporter *x = ctx;
	struct thread_state *t = thread_state(x, ev->thread_id);
	struct sample m = {
		.evsel = ev->taken ? EVSEL_BRANCHES : EVSEL_NOT_TAKEN,
		.branch_type = itrace_analysis_perf_branch_type(ev->kind),
		.thread = ev->thread_id,
		.dso = ev->from_dso_id,
		.symbol = ev->from_function_id,
		.offset = ev->from_offset,
		.ip = ev->from,
		.time = event_time(x, ev->time_ns, ev->insn_index),
		.to_dso = ev->to_dso_id,
		.to_symbol = ev->to_function_id,
		.to_offset = ev->to_offset,
		.to_ip = ev->to,
		.call_path = ev->call_path_id,
	};

	if (!t)
		return -ITRACE_E_NOMEM;
	/* perf: instructions since the previous "branches" sample */
	m.insn_count = ev->insn_seq + 1 - t->insns_at_sample;
	if (ev->taken)
		t->insns_at_sample = ev->insn_seq + 1;
	t->last_branch = write_sample(x, &m);
	return t->last_branch ? 0 : -ITRACE_E_IO;
}

static int on_insn(void *ctx, const struct itrace_analysis_insn_event *ev)
{
	struct exporter *x = ctx;
	struct sample m = {
		.evsel = EVSEL_INSNS,
		.branch_type = 0, /* perf's "no branch" (itrace_analysis_perf_branch_type) */
		.thread = ev->thread_id,
		.dso = ev->dso_id,
		.symbol = ev->function_id,
		.offset = ev->offset,
		.ip = ev->addr,
		.time = event_time(x, ev->time_ns, ev->insn_index),
		.call_path = ev->call_path_id,
		.insn_count = 1,
	};

	return write_sample(x, &m) ? 0 : -ITRACE_E_IO;
}

/* An activation begins: remember the sample of the call that made it. */
static int on_enter(void *ctx, const struct itrace_analysis_call *c)
{
	struct exporter *x = ctx;
	struct thread_state *t = thread_state(x, c->thread_id);
	struct pending_call *p;

	if (!t)
		return -ITRACE_E_NOMEM;
	if (t->depth == t->cap) {
		size_t n = t->cap ? 2 * t->cap : 16;

		p = realloc(t->stack, n * sizeof(*p));
		if (!p)
			return -ITRACE_E_NOMEM;
		t->stack = p;
		t->cap = n;
	}
	p = &t->stack[t->depth++];
	p->id = c->id;
	p->call_sample = c->flags & (ITRACE_CALL_NO_CALL | ITRACE_CALL_SIGNAL) ? 0 : t->last_branch;
	return 0;
}

/*
 * flush_calls - insert the rows of calls kept: CALL_BATCH at once through
 * the batch statement, fewer (the last ones) one by one.  Values are
 * 64-bit integers (unsigned ones keep their bits, as bind_u64).  0 or -1.
 */
static int flush_calls(struct exporter *x)
{
	int n = x->ncalls, batch = n == CALL_BATCH;
	sqlite3_stmt *st = batch ? x->call_batch : x->call;

	x->ncalls = 0;
	for (int i = 0; i < n; i++) {
		int base = batch ? i * CALL_COLUMNS : 0;

		for (int k = 0; k < CALL_COLUMNS; k++)
			sqlite3_bind_int64(st, base + k + 1, x->calls[i][k]);
		if (!batch && step(x, st) < 0)
			return -1;
	}
	if (batch) {
		if (step(x, st) < 0)
			return -1;
		x->rows += CALL_BATCH - 1; /* step() counted one */
	}
	return 0;
}

static int on_call(void *ctx, const struct itrace_analysis_call *c)
{
	struct exporter *x = ctx;
	struct thread_state *t = thread_state(x, c->thread_id);
	uint64_t call_sample = 0;
	int64_t *row;

	if (!t)
		return -ITRACE_E_NOMEM;
	while (t->depth > 0) { /* calls end innermost first */
		const struct pending_call *p = &t->stack[--t->depth];

		if (p->id == c->id) {
			call_sample = p->call_sample;
			break;
		}
	}
	t->has_calls = 1;
	row = x->calls[x->ncalls++];
	row[0] = (int64_t)c->id;
	row[1] = (int64_t)c->thread_id;
	row[2] = (int64_t)c->thread_id;
	row[3] = (int64_t)(c->call_path_id + 1);
	row[4] = (int64_t)event_time(x, c->call_time, c->call_index);
	row[5] = (int64_t)event_time(x, c->return_time, c->return_index);
	row[6] = (int64_t)c->branch_count;
	row[7] = (int64_t)call_sample;
	/* a normal return is the branch just reported on this thread */
	row[8] = c->flags & (ITRACE_CALL_NO_RETURN | ITRACE_CALL_SIGNAL) ? 0 : (int64_t)t->last_branch;
	row[9] = (int64_t)(c->parent_call_path_id + 1);
	row[10] = perf_call_flags(c->flags);
	row[11] = (int64_t)c->parent_id;
	row[12] = (int64_t)c->insn_count;
	row[13] = (int64_t)c->call_ip;
	row[14] = (int64_t)c->call_insn;
	row[15] = (int64_t)c->return_insn;
	row[16] = (int64_t)c->depth;
	if (x->ncalls == CALL_BATCH)
		return flush_calls(x) < 0 ? -ITRACE_E_IO : 0;
	return 0;
}

/* ---- aggregate tables ------------------------------------------------------ */

/* The rows with id 0 that perf's export writes first ("unknown"), and
 * perf's root call path (id 1). */
static const char unknown_rows[] =
	"INSERT INTO machines VALUES (0, 0, 'unknown', 0);"
	"INSERT INTO threads VALUES (0, 0, 0, -1, -1, 0, 0);"
	"INSERT INTO comms VALUES (0, 'unknown', 0, 0, 0, 0);"
	"INSERT INTO dsos VALUES (0, 0, 'unknown', 'unknown', '');"
	"INSERT INTO symbols VALUES (0, 0, 0, 0, 0, 'unknown');"
	"INSERT INTO samples VALUES (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);"
	"INSERT INTO call_paths VALUES (0, 0, 0, 0, 0, 0);"
	"INSERT INTO call_paths VALUES (1, 0, 0, 0, 0, 0);"
	"INSERT INTO calls VALUES (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);";

static int write_branch_types(struct exporter *x)
{
	sqlite3_stmt *st;
	const char *name;
	size_t i;
	int id, rc = 0;

	if (prepare(x, "INSERT INTO branch_types(id, name) VALUES (?, ?)", &st) < 0)
		return -1;
	for (i = 0; (name = itrace_analysis_perf_branch_type_at(i, &id)) && rc == 0; i++) {
		sqlite3_bind_int(st, 1, id);
		bind_text(st, 2, name);
		rc = step(x, st);
	}
	sqlite3_finalize(st);
	if (rc < 0 || prepare(x, "INSERT INTO selected_events(id, name) VALUES (?, ?)", &st) < 0)
		return -1;
	for (i = 0; i < sizeof(evsel_names) / sizeof(*evsel_names) && rc == 0; i++) {
		sqlite3_bind_int(st, 1, (int)i);
		bind_text(st, 2, evsel_names[i]);
		rc = step(x, st);
	}
	sqlite3_finalize(st);
	return rc;
}

static void hex(char *buf, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", b[i]);
	buf[2 * n] = '\0';
}

static int write_threads_and_dsos(struct exporter *x, const struct itrace_analysis *a)
{
	sqlite3_stmt *th, *co, *ct, *ds;
	size_t i, j, n = itrace_analysis_thread_count(a);
	int rc = 0;

	if (prepare(x, "INSERT INTO threads VALUES (?, 1, ?, ?, ?, ?, ?)", &th) < 0 ||
	    prepare(x, "INSERT INTO comms VALUES (?, ?, ?, 0, 0, ?)", &co) < 0 ||
	    prepare(x, "INSERT INTO comm_threads VALUES (?, ?, ?)", &ct) < 0 ||
	    prepare(x, "INSERT INTO dsos VALUES (?, 1, ?, ?, ?)", &ds) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		const struct itrace_analysis_thread *t = itrace_analysis_thread_at(a, i);
		uint64_t process_id = 0;

		for (j = 0; j < n; j++) /* the thread whose tid is the pid */
			if (itrace_analysis_thread_at(a, j)->tid == t->pid)
				process_id = itrace_analysis_thread_at(a, j)->id;
		bind_u64(th, 1, t->id);
		bind_u64(th, 2, process_id);
		sqlite3_bind_int64(th, 3, t->pid);
		sqlite3_bind_int64(th, 4, t->tid);
		bind_u64(th, 5, t->insns);
		bind_u64(th, 6, t->branches);
		bind_u64(co, 1, t->id);
		bind_text(co, 2, t->comm);
		bind_u64(co, 3, t->id);
		sqlite3_bind_int(co, 4, t->id < x->nthreads && x->threads[t->id].has_calls);
		bind_u64(ct, 1, t->id);
		bind_u64(ct, 2, t->id);
		bind_u64(ct, 3, t->id);
		rc = step(x, th) < 0 || step(x, co) < 0 || step(x, ct) < 0 ? -1 : 0;
	}
	for (i = 0; i < itrace_analysis_dso_count(a) && rc == 0; i++) {
		const struct itrace_analysis_dso *d = itrace_analysis_dso_at(a, i);
		char bid[2 * 64 + 1];

		hex(bid, d->buildid, d->buildid_len);
		bind_u64(ds, 1, d->id);
		bind_text(ds, 2, d->short_name);
		bind_text(ds, 3, d->path);
		bind_text(ds, 4, d->buildid_len ? bid : "");
		rc = step(x, ds);
	}
	sqlite3_finalize(th);
	sqlite3_finalize(co);
	sqlite3_finalize(ct);
	sqlite3_finalize(ds);
	return rc;
}

static int write_functions(struct exporter *x, const struct itrace_analysis *a)
{
	sqlite3_stmt *sy, *fn, *cg;
	size_t i;
	int rc = 0;

	/* binding: 1 (global) as perf's view prints it; the analysis does
	 * not keep the ELF binding */
	if (prepare(x, "INSERT INTO symbols VALUES (?, ?, ?, ?, 1, ?)", &sy) < 0 ||
	    prepare(x, "INSERT INTO functions VALUES (?, ?, ?, ?, ?, ?, ?)", &fn) < 0 ||
	    prepare(x, "INSERT INTO call_graph VALUES (?, ?, ?, ?, ?)", &cg) < 0)
		return -1;
	for (i = 0; i < itrace_analysis_function_count(a) && rc == 0; i++) {
		const struct itrace_analysis_function *f = itrace_analysis_function_at(a, i);

		bind_u64(sy, 1, f->id);
		bind_u64(sy, 2, f->dso_id);
		bind_u64(sy, 3, f->start);
		bind_u64(sy, 4, f->start + f->size);
		bind_text(sy, 5, f->name);
		bind_u64(fn, 1, f->id);
		bind_u64(fn, 2, f->id);
		bind_u64(fn, 3, f->insns);
		bind_u64(fn, 4, f->total_insns);
		bind_u64(fn, 5, f->calls);
		bind_text(fn, 6, f->file);
		if (f->line)
			sqlite3_bind_int64(fn, 7, f->line);
		else
			sqlite3_bind_null(fn, 7);
		rc = step(x, sy) < 0 || step(x, fn) < 0 ? -1 : 0;
	}
	for (i = 0; i < itrace_analysis_edge_count(a) && rc == 0; i++) {
		const struct itrace_analysis_edge *e = itrace_analysis_edge_at(a, i);

		bind_u64(cg, 1, e->id);
		bind_u64(cg, 2, e->caller_id);
		bind_u64(cg, 3, e->callee_id);
		bind_u64(cg, 4, e->calls);
		bind_u64(cg, 5, e->insns);
		rc = step(x, cg);
	}
	sqlite3_finalize(sy);
	sqlite3_finalize(fn);
	sqlite3_finalize(cg);
	return rc;
}

static int write_code_tables(struct exporter *x, const struct itrace_analysis *a)
{
	sqlite3_stmt *cp, *bb, *hb, *sl;
	size_t i;
	int rc = 0;

	if (prepare(x, "INSERT INTO call_paths VALUES (?, ?, ?, ?, ?, ?)", &cp) < 0 ||
	    prepare(x, "INSERT INTO basic_blocks VALUES (?, ?, ?, ?, ?, ?)", &bb) < 0 ||
	    prepare(x, "INSERT INTO hot_branches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &hb) < 0 ||
	    prepare(x, "INSERT INTO source_lines VALUES (?, ?, ?, ?, ?, ?)", &sl) < 0)
		return -1;
	for (i = 0; i < itrace_analysis_call_path_count(a) && rc == 0; i++) {
		const struct itrace_analysis_call_path *p = itrace_analysis_call_path_at(a, i);

		bind_u64(cp, 1, p->id + 1); /* perf's id 1 is the root */
		bind_u64(cp, 2, p->parent_id + 1);
		bind_u64(cp, 3, p->function_id);
		bind_u64(cp, 4, p->ip);
		bind_u64(cp, 5, p->calls);
		bind_u64(cp, 6, p->insns);
		rc = step(x, cp);
	}
	for (i = 0; i < itrace_analysis_block_count(a) && rc == 0; i++) {
		const struct itrace_analysis_block *b = itrace_analysis_block_at(a, i);

		bind_u64(bb, 1, b->id);
		bind_u64(bb, 2, b->function_id);
		bind_u64(bb, 3, b->start);
		bind_u64(bb, 4, b->end);
		bind_u64(bb, 5, b->insn_count);
		bind_u64(bb, 6, b->executions);
		rc = step(x, bb);
	}
	for (i = 0; i < itrace_analysis_branch_stat_count(a) && rc == 0; i++) {
		const struct itrace_analysis_branch_stat *s = itrace_analysis_branch_stat_at(a, i);

		bind_u64(hb, 1, s->id);
		bind_u64(hb, 2, s->function_id);
		bind_u64(hb, 3, s->from);
		bind_u64(hb, 4, s->to);
		bind_u64(hb, 5, s->fallthrough);
		sqlite3_bind_int(hb, 6, itrace_analysis_perf_branch_type(s->kind));
		bind_text(hb, 7, itrace_branch_kind_name(s->kind));
		bind_u64(hb, 8, s->executions);
		bind_u64(hb, 9, s->taken);
		if (s->executions)
			sqlite3_bind_double(hb, 10, (double)s->taken / (double)s->executions);
		else
			sqlite3_bind_null(hb, 10);
		if (s->dso_offset)
			bind_u64(hb, 11, s->dso_offset);
		else
			sqlite3_bind_null(hb, 11);
		rc = step(x, hb);
	}
	for (i = 0; i < itrace_analysis_line_count(a) && rc == 0; i++) {
		const struct itrace_analysis_line *l = itrace_analysis_line_at(a, i);

		bind_u64(sl, 1, l->id);
		bind_text(sl, 2, l->file);
		sqlite3_bind_int64(sl, 3, l->line);
		bind_u64(sl, 4, l->function_id);
		bind_u64(sl, 5, l->executions);
		bind_u64(sl, 6, l->insns);
		rc = step(x, sl);
	}
	sqlite3_finalize(cp);
	sqlite3_finalize(bb);
	sqlite3_finalize(hb);
	sqlite3_finalize(sl);
	return rc;
}

static const char *end_reason_name(int r)
{
	static const char *const names[] = {"unknown", "complete", "interrupted",
					    "crashed", "error", "detached"};

	return r >= 0 && r < (int)(sizeof(names) / sizeof(*names)) ? names[r] : "unknown";
}


static int write_metadata(struct exporter *x, const struct options *o, struct itrace_reader *r,
			  const struct itrace_analysis *a, const char *incomplete)
{
	const struct itrace_header *h = itrace_reader_header(r);
	struct itrace_analysis_totals t;
	struct itrace_footer f;
	char path[PATH_MAX], buf[64];
	struct stat st;
	const char *k, *v;
	size_t i;
	int rc = 0;

	itrace_analysis_totals(a, &t);
	snprintf(buf, sizeof(buf), "%d", EXPORT_SCHEMA_VERSION);
	rc |= insert_meta(x, "schema_version", buf);
	rc |= insert_meta(x, "exporter", "itrace-sqlite " ITRACE_VERSION_STRING);
	rc |= insert_meta(x, "export_level", level_names[o->level]);
	if (strcmp(o->e.input, "-") == 0)
		rc |= insert_meta(x, "source_trace", "-");
	else
		rc |= insert_meta(x, "source_trace", realpath(o->e.input, path) ? path : o->e.input);
	if (strcmp(o->e.input, "-") != 0 && stat(o->e.input, &st) == 0) {
		rc |= insert_meta_u64(x, "source_size", (uint64_t)st.st_size);
		rc |= insert_meta_u64(x, "source_mtime", (uint64_t)st.st_mtime);
	}
	rc |= insert_meta(x, "trace_level", h->level == ITRACE_LEVEL_BRANCH ? "branch" : "insn");
	snprintf(buf, sizeof(buf), "%u.%u", h->major, h->minor);
	rc |= insert_meta(x, "trace_format_version", buf);
	if (itrace_reader_footer(r, &f) == 0) {
		rc |= insert_meta(x, "trace_end", end_reason_name(f.end_reason));
		snprintf(buf, sizeof(buf), "%d", f.end_status);
		rc |= insert_meta(x, "trace_end_status", buf);
	}
	rc |= insert_meta(x, "time_unit", x->time_unit == TIME_NS ? "ns" : "instructions");
	rc |= insert_meta(x, "complete", incomplete ? "0" : "1");
	if (incomplete)
		rc |= insert_meta(x, "damage", incomplete);
	rc |= insert_meta_u64(x, "lost_count", t.lost);
	rc |= insert_meta_u64(x, "insn_count", t.insns);
	rc |= insert_meta_u64(x, "branch_count", t.branches);
	rc |= insert_meta_u64(x, "call_count", t.calls);
	rc |= insert_meta_u64(x, "decode_failures", t.decode_failures);
	rc |= insert_meta_u64(x, "gap_count", t.gaps);
	for (i = 0; i < itrace_reader_header(r)->meta_count; i++) {
		char key[256];

		if (itrace_reader_meta_at(r, i, &k, &v) < 0)
			continue;
		snprintf(key, sizeof(key), "trace.%s", k);
		rc |= insert_meta(x, key, v);
	}
	return rc ? -1 : 0;
}

/* ---- the export ------------------------------------------------------------ */

/*
 * No journal and no syncing inside SQLite: the file is private until it
 * is renamed (after one fsync), and a failed run deletes it.  Large pages
 * make the bulk load cheaper.  Memory is bounded: a 32 MiB page cache, and
 * index builds sort through temporary files (temp_store=FILE), not in
 * memory, whatever the number of rows.
 */
static const char pragmas[] =
	"PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	" PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-32768; PRAGMA temp_store=FILE;";

/* prepare_call_batch - "INSERT INTO calls VALUES (...), (...), ..." of
 * CALL_BATCH rows, each as x->call's. */
static int prepare_call_batch(struct exporter *x)
{
	static const char row[] = "(?,?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?)";
	char sql[sizeof("INSERT INTO calls VALUES ") + CALL_BATCH * sizeof(row)];
	size_t n = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO calls VALUES ");

	for (int i = 0; i < CALL_BATCH; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s%s", i ? "," : "", row);
	return prepare(x, sql, &x->call_batch);
}

static int open_db(struct exporter *x, const char *path)
{
	/* one thread uses the connection: no mutexes */
	if (sqlite3_open_v2(path, &x->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		cli_error("cannot open '%s': %s", path, x->db ? sqlite3_errmsg(x->db) : "no memory");
		return -1;
	}
	if (exec_sql(x, pragmas) < 0 || exec_sql(x, "BEGIN") < 0 || exec_sql(x, schema_tables) < 0)
		return -1;
	if (prepare(x, "INSERT INTO samples VALUES (?,?,1,?,?,?,?,?,?,?,-1,?,?,?,?,?,0,?,?,0,0)",
		    &x->sample) < 0 ||
	    prepare(x, "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?)", &x->call) < 0)
		return -1;
	return prepare_call_batch(x);
}

static int write_aggregates(struct exporter *x, const struct options *o, struct itrace_reader *r,
			    const struct itrace_analysis *a, const char *incomplete)
{
	const struct itrace_analysis_thread *t0 = itrace_analysis_thread_at(a, 0);
	sqlite3_stmt *m;
	char version[32];
	int rc;

	if (exec_sql(x, unknown_rows) < 0 ||
	    prepare(x, "INSERT INTO machines VALUES (1, ?, ?, ?)", &m) < 0)
		return -1;
	sqlite3_bind_int64(m, 1, t0 ? t0->pid : 0);
	bind_text(m, 2, o->e.sysroot ? o->e.sysroot : "/");
	sqlite3_bind_int(m, 3, itrace_reader_header(r)->machine);
	rc = step(x, m);
	sqlite3_finalize(m);
	if (rc < 0 || write_branch_types(x) < 0 || write_threads_and_dsos(x, a) < 0 ||
	    write_functions(x, a) < 0 || write_code_tables(x, a) < 0 ||
	    write_metadata(x, o, r, a, incomplete) < 0)
		return -1;
	if (exec_sql(x, schema_indexes) < 0 || exec_sql(x, schema_perf_views) < 0 ||
	    exec_sql(x, schema_views) < 0)
		return -1;
	snprintf(version, sizeof(version), "PRAGMA user_version=%d", EXPORT_SCHEMA_VERSION);
	return exec_sql(x, version);
}

/* close_db - finalize and close; -1 if SQLite reports a failure (then the
 * file must not be published). */
static int close_db(struct exporter *x)
{
	int rc = 0;

	sqlite3_finalize(x->sample); /* step errors were checked when met */
	sqlite3_finalize(x->call);
	sqlite3_finalize(x->call_batch);
	x->sample = x->call = x->call_batch = NULL;
	if (x->db && sqlite3_close(x->db) != SQLITE_OK) {
		cli_error("cannot write '%s': SQLite: close: %s", target_path, sqlite3_errmsg(x->db));
		rc = -1;
	}
	x->db = NULL;
	return rc;
}

static void free_threads(struct exporter *x)
{
	size_t i;

	for (i = 0; i < x->nthreads; i++)
		free(x->threads[i].stack);
	free(x->threads);
	x->threads = NULL;
	x->nthreads = 0;
}

/* export - returns the exit status. */
static int export(const struct options *o)
{
	struct exporter x = {0};
	struct itrace_analysis_options ao;
	struct itrace_analysis *a = NULL;
	struct itrace_reader *r;
	const char *tmp;
	const char *incomplete = NULL;
	int status = CLI_EXIT_BAD_INPUT;

	r = export_open(&o->e);
	if (!r)
		return CLI_EXIT_BAD_INPUT;
	tmp = export_tmp_create(o->e.output);
	if (!tmp || open_db(&x, tmp) < 0)
		goto out;
	itrace_analysis_options_init(&ao);
	ao.cb_ctx = &x;
	if (o->level >= LEVEL_CALLS) {
		ao.on_enter = on_enter;
		ao.on_call = on_call;
	}
	if (o->level >= LEVEL_BRANCHES)
		ao.on_branch = on_branch;
	if (o->level >= LEVEL_INSNS)
		ao.on_insn = on_insn;
	cli_progress_init(&x.progress, "rows", 0, o->e.quiet);
	/* rows show progress when there are rows; else records do */
	a = export_analyse(&o->e, r, &ao, ITRACE_RUN_ALL_FUNCTIONS, o->level == LEVEL_SUMMARY,
			   &incomplete);
	cli_progress_end(&x.progress);
	if (!a)
		goto out;
	if (flush_calls(&x) < 0 || write_aggregates(&x, o, r, a, incomplete) < 0 ||
	    exec_sql(&x, "COMMIT") < 0)
		goto out;
	if (close_db(&x) < 0 || export_tmp_publish(o->e.output) < 0)
		goto out;
	if (o->e.verbose) {
		struct itrace_analysis_totals t;

		itrace_analysis_totals(a, &t);
		fprintf(stderr, "%s: %llu rows, %llu instructions, %llu branches, %llu calls\n",
			cli_progname(), (unsigned long long)x.rows, (unsigned long long)t.insns,
			(unsigned long long)t.branches, (unsigned long long)t.calls);
	}
	status = incomplete ? CLI_EXIT_BAD_INPUT : 0;
out:
	close_db(&x);
	export_tmp_discard();
	free_threads(&x);
	itrace_analysis_free(a);
	itrace_reader_close(r);
	return status;
}

/* ---- command line ------------------------------------------------------------ */

static void usage(void)
{
	printf("usage: %s [options] TRACE -o DB\n"
	       "Export an itrace trace (TRACE, '-' = stdin) into an SQLite database in\n"
	       "the layout of perf's export-to-sqlite.py (perf's exported-sql-viewer.py\n"
	       "opens it).  Branch-level traces are filled through the traced binaries.\n"
	       "\n"
	       "  -o, --output DB       database to write (replaced atomically)\n"
	       "  -l, --level LEVEL     how much to export:\n"
	       "                          summary   functions, call paths, call graph, blocks,\n"
	       "                                    hot branches, source lines (default)\n"
	       "                          calls     + every call (perf's calls: call graph\n"
	       "                                    and call tree in perf's viewer)\n"
	       "                          branches  + every branch (perf's samples)\n"
	       "                          insns     + every instruction\n"
	       EXPORT_COMMON_USAGE,
	       cli_progname());
}

static void handle_option(int c, const char *arg, void *tool_opts)
{
	struct options *o = tool_opts;
	size_t i;

	if (c != 'l')
		cli_usage_error("unknown option");
	for (i = 0; i < 4 && strcmp(arg, level_names[i]) != 0; i++)
		;
	if (i == 4)
		cli_usage_error("unknown level '%s' (use summary, calls, branches or insns)", arg);
	o->level = (int)i;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"level", required_argument, NULL, 'l'},
		{NULL, 0, NULL, 0},
	};
	struct options o = {.level = LEVEL_SUMMARY};
	const struct export_tool tool = {"l:", longopts, handle_option, &o, usage};

	cli_init(argv[0]);
	export_parse_args(argc, argv, &tool, &o.e);
	if (!o.e.output)
		cli_usage_error("no output database given (-o DB)");
	if (strcmp(o.e.output, "-") == 0)
		cli_usage_error("an SQLite database cannot be written to stdout; use -o FILE");
	target_path = o.e.output;
	return export(&o);
}
