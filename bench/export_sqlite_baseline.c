/*
 * export_sqlite_baseline.c - the baseline of bench/export_sqlite.sh: a bare
 * C loop inserting N rows shaped like itrace-sqlite's `samples` rows (perf's
 * 21 integer columns) with one prepared statement in one transaction, under
 * the same pragmas the exporter uses, and the same fsync before the end.
 * Prints "WALL_SECONDS CPU_SECONDS".  With --run it times a command
 * instead (wall and the child's user+system CPU), so that both sides are
 * measured the same way on a shared machine.
 *
 *   export-sqlite-baseline DB N
 *   export-sqlite-baseline --run CMD [ARGS...]
 */
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(const struct rusage *ru)
{
	return ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 + ru->ru_stime.tv_sec +
	       ru->ru_stime.tv_usec / 1e6;
}

/* run - time argv as a child: wall and its CPU. */
static int run(char **argv)
{
	struct rusage ru;
	double t0 = now();
	pid_t pid;
	int status;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) {
		perror(argv[0]);
		return 1;
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "export-sqlite-baseline: %s failed\n", argv[0]);
		return 1;
	}
	printf("%.6f %.6f\n", now() - t0, cpu(&ru));
	return 0;
}

static int die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "export-sqlite-baseline: %s: %s\n", what, sqlite3_errmsg(db));
	return 1;
}

int main(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long n, i;
	double t0;
	int c;

	struct rusage r0, r1;
	int fd;

	if (argc >= 3 && strcmp(argv[1], "--run") == 0)
		return run(argv + 2);
	if (argc != 3 || (n = atoll(argv[2])) <= 0) {
		fprintf(stderr, "usage: export-sqlite-baseline DB N\n");
		return 2;
	}
	unlink(argv[1]);
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return die(db, "open");
	if (sqlite3_exec(db,
			 "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
			 " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-32768;"
			 " PRAGMA temp_store=FILE; BEGIN;"
			 "CREATE TABLE samples(id INTEGER PRIMARY KEY, evsel_id BIGINT, machine_id BIGINT,"
			 " thread_id BIGINT, comm_id BIGINT, dso_id BIGINT, symbol_id BIGINT,"
			 " sym_offset BIGINT, ip BIGINT, time BIGINT, cpu INTEGER, to_dso_id BIGINT,"
			 " to_symbol_id BIGINT, to_sym_offset BIGINT, to_ip BIGINT, branch_type INTEGER,"
			 " in_tx BOOLEAN, call_path_id BIGINT, insn_count BIGINT, cyc_count BIGINT,"
			 " flags INTEGER)",
			 NULL, NULL, NULL) != SQLITE_OK)
		return die(db, "schema");
	if (sqlite3_prepare_v2(db, "INSERT INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return die(db, "prepare");
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, i + 1);
		for (c = 2; c <= 21; c++) /* addresses and small ids, like the real rows */
			sqlite3_bind_int64(st, c, c == 9 || c == 15 ? 0x401000 + (i & 0xfff) : i % 7);
		if (sqlite3_step(st) != SQLITE_DONE)
			return die(db, "insert");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return die(db, "commit");
	if (sqlite3_close(db) != SQLITE_OK)
		return die(db, "close");
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fsync(fd) < 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	getrusage(RUSAGE_SELF, &r1);
	printf("%.6f %.6f\n", now() - t0, cpu(&r1) - cpu(&r0));
	unlink(argv[1]);
	return 0;
}
