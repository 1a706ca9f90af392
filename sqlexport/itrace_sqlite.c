/*
 * itrace-sqlite - export an itrace trace into an SQLite database whose
 * schema follows perf's export-to-sqlite.py (see schema.sql.h).
 *
 * Safety: the database is built in a temporary file next to the target,
 * in one transaction with prepared statements (names are bound, never
 * pasted into SQL), and renamed over the target only once it is complete
 * and synced.  Killing the exporter at any point leaves the previous
 * target (or none) in place.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "itrace.h"
#include "schema.sql.h"

enum export_level {
	LEVEL_SUMMARY = 0, /* aggregate tables only */
	LEVEL_BRANCHES = 1, /* + every branch and every call */
	LEVEL_INSNS = 2,    /* + every instruction */
};

struct options {
	const char *input, *output;
	const char *sysroot, *debug_dir;
	int level;
	int quiet, verbose;
};

struct exporter {
	sqlite3 *db;
	sqlite3_stmt *branch, *call, *insn;
	struct cli_progress progress;
	uint64_t rows;
	int sql_rc; /* first SQLite error met inside a callback */
};

/* ---- temporary file and signals ----------------------------------------- */

static char tmp_path[PATH_MAX];
static const char *target_path = ""; /* for messages */

static void remove_tmp_and_die(int sig)
{
	if (tmp_path[0])
		unlink(tmp_path); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_tmp_and_die;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
}

/* make_tmp - create an empty temporary file beside `target`. */
static int make_tmp(const char *target)
{
	char copy[PATH_MAX];
	const char *base;
	int fd;

	if (snprintf(copy, sizeof(copy), "%s", target) >= (int)sizeof(copy)) {
		cli_error("output path too long: '%s'", target);
		return -1;
	}
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (snprintf(tmp_path, sizeof(tmp_path), "%s/.%s.tmp-XXXXXX", dirname(copy), base) >=
	    (int)sizeof(tmp_path)) {
		cli_error("output path too long: '%s'", target);
		return -1;
	}
	fd = mkstemp(tmp_path);
	if (fd < 0) {
		cli_error("cannot create a temporary file beside '%s': %s", target, strerror(errno));
		tmp_path[0] = '\0';
		return -1;
	}
	/* closed before SQLite opens it: a second descriptor on the same file
	 * would drop SQLite's POSIX locks when closed */
	close(fd);
	return 0;
}

/* sync_path - fsync a file or directory. */
static int sync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* publish - move the finished temporary database over the target. */
static int publish(const char *target)
{
	char copy[PATH_MAX];

	if (sync_path(tmp_path, O_RDONLY) < 0 || rename(tmp_path, target) < 0) {
		cli_error("cannot write '%s': %s", target, strerror(errno));
		return -1;
	}
	tmp_path[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", target);
	sync_path(dirname(copy), O_RDONLY | O_DIRECTORY); /* best effort */
	return 0;
}

/* ---- SQL helpers --------------------------------------------------------- */

static int sql_fail(struct exporter *x, const char *what)
{
	cli_error("cannot write '%s': SQLite: %s: %s", target_path, what, sqlite3_errmsg(x->db));
	return -1;
}

static int exec_sql(struct exporter *x, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(x->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		cli_error("cannot write '%s': SQLite: %s", target_path,
			  err ? err : sqlite3_errmsg(x->db));
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
	if (rc != SQLITE_DONE) {
		x->sql_rc = rc;
		return sql_fail(x, "insert");
	}
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

static int on_branch(void *ctx, const struct itrace_analysis_branch_event *ev)
{
	struct exporter *x = ctx;
	sqlite3_stmt *st = x->branch;

	bind_u64(st, 1, ev->seq);
	bind_u64(st, 2, ev->thread_id);
	bind_u64(st, 3, ev->thread_id); /* comm: one per thread */
	bind_u64(st, 4, ev->from_dso_id);
	bind_u64(st, 5, ev->from_function_id);
	bind_u64(st, 6, ev->from_offset);
	bind_u64(st, 7, ev->from);
	bind_u64(st, 8, ev->to_dso_id);
	bind_u64(st, 9, ev->to_function_id);
	bind_u64(st, 10, ev->to_offset);
	bind_u64(st, 11, ev->to);
	sqlite3_bind_int(st, 12, ev->kind + 1);
	sqlite3_bind_int(st, 13, ev->taken);
	bind_u64(st, 14, ev->call_path_id);
	bind_u64(st, 15, ev->insn_seq);
	bind_u64(st, 16, ev->time_ns);
	if (step(x, st) < 0)
		return -ITRACE_E_IO;
	cli_progress(&x->progress, x->rows);
	return 0;
}

static int on_call(void *ctx, const struct itrace_analysis_call *c)
{
	struct exporter *x = ctx;
	sqlite3_stmt *st = x->call;

	bind_u64(st, 1, c->id);
	bind_u64(st, 2, c->thread_id);
	bind_u64(st, 3, c->thread_id);
	bind_u64(st, 4, c->call_path_id);
	bind_u64(st, 5, c->call_time);
	bind_u64(st, 6, c->return_time);
	bind_u64(st, 7, c->branch_count);
	bind_u64(st, 8, c->call_ip);
	bind_u64(st, 9, c->call_insn);
	bind_u64(st, 10, c->return_insn);
	bind_u64(st, 11, c->parent_call_path_id);
	sqlite3_bind_int(st, 12, (int)c->flags);
	bind_u64(st, 13, c->parent_id);
	bind_u64(st, 14, c->insn_count);
	sqlite3_bind_int(st, 15, (int)c->depth);
	return step(x, st) < 0 ? -ITRACE_E_IO : 0;
}

static int on_insn(void *ctx, const struct itrace_analysis_insn_event *ev)
{
	struct exporter *x = ctx;
	sqlite3_stmt *st = x->insn;

	sqlite3_bind_null(st, 1);
	bind_u64(st, 2, ev->thread_id);
	bind_u64(st, 3, ev->addr);
	bind_u64(st, 4, ev->function_id);
	bind_u64(st, 5, ev->offset);
	bind_u64(st, 6, ev->call_path_id);
	bind_u64(st, 7, ev->time_ns);
	if (step(x, st) < 0)
		return -ITRACE_E_IO;
	cli_progress(&x->progress, x->rows);
	return 0;
}

/* ---- aggregate tables ------------------------------------------------------ */

static const char *const branch_type_names[] = {
	[ITRACE_BRANCH_COND] = "conditional jump",
	[ITRACE_BRANCH_UNCOND] = "unconditional jump",
	[ITRACE_BRANCH_CALL] = "call",
	[ITRACE_BRANCH_RETURN] = "return",
	[ITRACE_BRANCH_INDIRECT] = "indirect jump",
	[ITRACE_BRANCH_INDIRECT_CALL] = "indirect call",
	[ITRACE_BRANCH_SYSCALL] = "system call",
	[ITRACE_BRANCH_INTERRUPT] = "asynchronous branch",
	[ITRACE_BRANCH_SIGRETURN] = "return from interrupt",
	[ITRACE_BRANCH_UNKNOWN] = "unknown",
};

static int write_branch_types(struct exporter *x)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if (prepare(x, "INSERT INTO branch_types(id, name) VALUES (?, ?)", &st) < 0)
		return -1;
	/* id = enum itrace_branch_kind + 1: id 0 stays "unknown" as in perf */
	for (i = 0; i < sizeof(branch_type_names) / sizeof(*branch_type_names) && rc == 0; i++) {
		sqlite3_bind_int(st, 1, (int)i + 1);
		bind_text(st, 2, branch_type_names[i]);
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
	    prepare(x, "INSERT INTO comms VALUES (?, ?, ?, 0, 0)", &co) < 0 ||
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
		bind_text(ds, 4, d->buildid_len ? bid : NULL);
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

	if (prepare(x, "INSERT INTO symbols VALUES (?, ?, ?, ?, NULL, ?)", &sy) < 0 ||
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
	    prepare(x, "INSERT INTO hot_branches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", &hb) < 0 ||
	    prepare(x, "INSERT INTO source_lines VALUES (?, ?, ?, ?, ?, ?)", &sl) < 0)
		return -1;
	for (i = 0; i < itrace_analysis_call_path_count(a) && rc == 0; i++) {
		const struct itrace_analysis_call_path *p = itrace_analysis_call_path_at(a, i);

		bind_u64(cp, 1, p->id);
		bind_u64(cp, 2, p->parent_id);
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
		sqlite3_bind_int(hb, 6, s->kind + 1);
		bind_u64(hb, 7, s->executions);
		bind_u64(hb, 8, s->taken);
		if (s->executions)
			sqlite3_bind_double(hb, 9, (double)s->taken / (double)s->executions);
		else
			sqlite3_bind_null(hb, 9);
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

static const char *level_names[] = {"summary", "branches", "insns"};

static int write_metadata(struct exporter *x, const struct options *o, struct itrace_reader *r,
			  const struct itrace_analysis *a, int damage)
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
	if (strcmp(o->input, "-") == 0)
		rc |= insert_meta(x, "source_trace", "-");
	else
		rc |= insert_meta(x, "source_trace", realpath(o->input, path) ? path : o->input);
	if (strcmp(o->input, "-") != 0 && stat(o->input, &st) == 0) {
		rc |= insert_meta_u64(x, "source_size", (uint64_t)st.st_size);
		rc |= insert_meta_u64(x, "source_mtime", (uint64_t)st.st_mtime);
	}
	rc |= insert_meta(x, "trace_level", h->level == ITRACE_LEVEL_BRANCH ? "branch" : "insn");
	snprintf(buf, sizeof(buf), "%u.%u", h->write_major, h->write_minor);
	rc |= insert_meta(x, "trace_format_version", buf);
	if (itrace_reader_footer(r, &f) == 0) {
		rc |= insert_meta(x, "trace_end", end_reason_name(f.end_reason));
		snprintf(buf, sizeof(buf), "%d", f.end_status);
		rc |= insert_meta(x, "trace_end_status", buf);
	}
	rc |= insert_meta(x, "complete", damage ? "0" : "1");
	if (damage)
		rc |= insert_meta(x, "damage", itrace_analysis_run_error(a));
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

/* No journal and no syncing inside SQLite: the file is private until it
 * is renamed (after one fsync), and a failed run deletes it.  Large pages
 * and an in-memory sorter make the bulk load and the index builds cheaper. */
static const char pragmas[] =
	"PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	" PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;";

static int open_db(struct exporter *x)
{
	/* one thread uses the connection: no mutexes */
	if (sqlite3_open_v2(tmp_path, &x->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		cli_error("cannot open '%s': %s", tmp_path, x->db ? sqlite3_errmsg(x->db) : "no memory");
		return -1;
	}
	if (exec_sql(x, pragmas) < 0 || exec_sql(x, "BEGIN") < 0 || exec_sql(x, schema_tables) < 0)
		return -1;
	if (prepare(x, "INSERT INTO branches VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &x->branch) < 0 ||
	    prepare(x, "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &x->call) < 0 ||
	    prepare(x, "INSERT INTO instructions VALUES (?,?,?,?,?,?,?)", &x->insn) < 0)
		return -1;
	return 0;
}

static void progress_cb(void *arg, uint64_t records)
{
	cli_progress(arg, records);
}

static int write_aggregates(struct exporter *x, const struct options *o, struct itrace_reader *r,
			    const struct itrace_analysis *a, int damage)
{
	const struct itrace_analysis_thread *t0 = itrace_analysis_thread_at(a, 0);
	sqlite3_stmt *m;
	char version[32];
	int rc;

	if (prepare(x, "INSERT INTO machines VALUES (1, ?, ?, ?)", &m) < 0)
		return -1;
	sqlite3_bind_int64(m, 1, t0 ? t0->pid : 0);
	bind_text(m, 2, o->sysroot ? o->sysroot : "/");
	sqlite3_bind_int(m, 3, itrace_reader_header(r)->machine);
	rc = step(x, m);
	sqlite3_finalize(m);
	if (rc < 0 || write_branch_types(x) < 0 || write_threads_and_dsos(x, a) < 0 ||
	    write_functions(x, a) < 0 || write_code_tables(x, a) < 0 ||
	    write_metadata(x, o, r, a, damage) < 0)
		return -1;
	if (exec_sql(x, schema_indexes) < 0 || exec_sql(x, schema_views) < 0)
		return -1;
	snprintf(version, sizeof(version), "PRAGMA user_version=%d", EXPORT_SCHEMA_VERSION);
	return exec_sql(x, version);
}

/* close_db - finalize and close; -1 if SQLite reports a failure (then the
 * file must not be published). */
static int close_db(struct exporter *x)
{
	int rc = 0;

	sqlite3_finalize(x->branch); /* step errors were checked when met */
	sqlite3_finalize(x->call);
	sqlite3_finalize(x->insn);
	x->branch = x->call = x->insn = NULL;
	if (x->db && sqlite3_close(x->db) != SQLITE_OK) {
		cli_error("cannot write '%s': SQLite: close: %s", target_path, sqlite3_errmsg(x->db));
		rc = -1;
	}
	x->db = NULL;
	return rc;
}

/* Instructions whose bytes were missing or invalid count as plain ones. */
static void warn_decode_failures(const struct itrace_analysis *a, int quiet)
{
	struct itrace_analysis_totals t;

	itrace_analysis_totals(a, &t);
	if (t.decode_failures && !quiet)
		cli_warn("%llu executed instruction%s could not be decoded (first at %#llx); "
			 "they count as non-branch instructions",
			 (unsigned long long)t.decode_failures, t.decode_failures == 1 ? "" : "s",
			 (unsigned long long)t.first_decode_failure);
}

/* export - returns the exit status. */
static int export(const struct options *o)
{
	struct exporter x = {0};
	struct itrace_analysis_options ao;
	struct itrace_analysis_run_options ro;
	struct itrace_analysis *a = NULL;
	struct itrace_reader *r = NULL;
	struct itrace_footer f;
	int rc, damage = 0, status = CLI_EXIT_BAD_INPUT;

	rc = itrace_reader_open(o->input, &r);
	if (rc < 0) {
		if (rc == -ITRACE_E_IO)
			cli_error("cannot open '%s': %s", o->input, strerror(errno));
		else
			cli_error("cannot read '%s': %s", o->input, itrace_errstr(rc));
		return CLI_EXIT_BAD_INPUT;
	}
	if (make_tmp(o->output) < 0) {
		itrace_reader_close(r);
		return CLI_EXIT_BAD_INPUT;
	}
	if (open_db(&x) < 0)
		goto out;
	cli_progress_init(&x.progress, "rows", 0, o->quiet);
	itrace_analysis_options_init(&ao);
	ao.cb_ctx = &x;
	if (o->level >= LEVEL_BRANCHES) {
		ao.on_branch = on_branch;
		ao.on_call = on_call;
	}
	if (o->level >= LEVEL_INSNS)
		ao.on_insn = on_insn;
	itrace_analysis_run_options_init(&ro);
	ro.sysroot = o->sysroot;
	ro.debug_dir = o->debug_dir;
	if (o->level == LEVEL_SUMMARY) { /* no rows to count: show records */
		cli_progress_init(&x.progress, "records",
				  itrace_reader_footer(r, &f) == 0 ? f.record_count : 0, o->quiet);
		ro.progress = progress_cb;
		ro.progress_arg = &x.progress;
	}
	rc = itrace_analysis_run(r, strcmp(o->input, "-") ? o->input : NULL, &ao, &ro, &a);
	cli_progress_end(&x.progress);
	if (!a) {
		if (!x.sql_rc)
			cli_error("cannot analyse '%s': %s", o->input, itrace_errstr(rc));
		goto out;
	}
	if (rc < 0) {
		damage = rc;
		cli_error("'%s' is damaged: %s (%s); exporting the records before it", o->input,
			  itrace_errstr(rc), itrace_analysis_run_error(a));
	}
	warn_decode_failures(a, o->quiet);
	cli_warn_incomplete(r, o->input);
	if (write_aggregates(&x, o, r, a, damage) < 0 || exec_sql(&x, "COMMIT") < 0)
		goto out;
	if (close_db(&x) < 0 || publish(o->output) < 0)
		goto out;
	if (o->verbose) {
		struct itrace_analysis_totals t;

		itrace_analysis_totals(a, &t);
		fprintf(stderr, "%s: %llu rows, %llu instructions, %llu branches, %llu calls\n",
			cli_progname(), (unsigned long long)x.rows, (unsigned long long)t.insns,
			(unsigned long long)t.branches, (unsigned long long)t.calls);
	}
	status = damage ? CLI_EXIT_BAD_INPUT : 0;
out:
	close_db(&x);
	if (tmp_path[0]) {
		unlink(tmp_path);
		tmp_path[0] = '\0';
	}
	itrace_analysis_free(a);
	itrace_reader_close(r);
	return status;
}

/* ---- command line ------------------------------------------------------------ */

static void usage(void)
{
	printf("usage: %s [options] TRACE -o DB\n"
	       "Export an itrace trace (TRACE, '-' = stdin) into an SQLite database.\n"
	       "Branch-level traces are filled through the traced binaries first.\n"
	       "\n"
	       "  -o, --output DB       database to write (replaced atomically)\n"
	       "  -l, --level LEVEL     how much to export:\n"
	       "                          summary   functions, call paths, call graph, blocks,\n"
	       "                                    hot branches, source lines\n"
	       "                          branches  + every branch and every call (default)\n"
	       "                          insns     + every instruction\n"
	       "      --sysroot DIR     find the traced binaries under DIR\n"
	       "      --debug-dir DIR   separate debug info root (default /usr/lib/debug)\n"
	       "  -q, --quiet           no progress line\n"
	       "  -v, --verbose         print row counts at the end\n"
	       "      --help            this text\n"
	       "      --version         print the version\n",
	       cli_progname());
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"level", required_argument, NULL, 'l'},
		{"sysroot", required_argument, NULL, 'S'},
		{"debug-dir", required_argument, NULL, 'D'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->level = LEVEL_BRANCHES;
	while ((c = getopt_long(argc, argv, "o:l:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'l':
			for (i = 0; i < 3 && strcmp(optarg, level_names[i]) != 0; i++)
				;
			if (i == 3)
				cli_usage_error("unknown level '%s' (use branches, insns or summary)",
						optarg);
			o->level = (int)i;
			break;
		case 'S': o->sysroot = optarg; break;
		case 'D': o->debug_dir = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(); exit(0);
		case 'V': printf("%s %s\n", cli_progname(), ITRACE_VERSION_STRING); exit(0);
		default: cli_usage_error("unknown option");
		}
	}
	if (optind + 1 != argc)
		cli_usage_error(optind == argc ? "no trace given" : "more than one trace given");
	o->input = argv[optind];
	if (!o->output)
		cli_usage_error("no output database given (-o DB)");
	if (strcmp(o->output, "-") == 0)
		cli_usage_error("an SQLite database cannot be written to stdout; use -o FILE");
}

int main(int argc, char **argv)
{
	struct options o;

	cli_init(argv[0]);
	parse_args(argc, argv, &o);
	target_path = o.output;
	catch_signals();
	return export(&o);
}
