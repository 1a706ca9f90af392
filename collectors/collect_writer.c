/* collect_writer.c - writer opening and summary shared by backends. */
#include "collect_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "collect_handlers.h"

#define ELF_MACHINE_X86_64 62

/* "prog arg1 arg2" (or "pid N" when attaching), truncated to fit. */
static void format_cmdline(const struct collect_options *opts, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (!opts->argv) {
		snprintf(buf, len, "pid %d", (int)opts->attach_pid);
		return;
	}
	for (char *const *a = opts->argv; *a && used + 1 < len; a++) {
		int n = snprintf(buf + used, len - used, "%s%s", a == opts->argv ? "" : " ", *a);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static void format_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int collect_writer_open(const struct collect_options *opts, const char *backend, pid_t pid,
			uint32_t flags, const struct itrace_meta *extra, size_t n_extra,
			struct itrace_writer **wp)
{
	return collect_writer_open_target(opts, backend, pid, ELF_MACHINE_X86_64, 1, flags, extra,
					  n_extra, wp);
}

int collect_writer_create(const struct collect_options *opts, struct itrace_writer_options *wo,
			  struct itrace_writer **wp)
{
	int fd, rc;

	if (!collect_handlers_no_trace()) {
		rc = itrace_writer_open(opts->output, wo, wp);
	} else if ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) { /* open until exit */
		rc = -ITRACE_E_IO;
	} else {
		wo->compression = ITRACE_COMPRESS_NONE;
		wo->async = 0;
		rc = itrace_writer_open_fd(fd, wo, wp);
	}
	if (rc < 0)
		return rc;
	if (collect_handlers_start(*wp, wo) < 0) {
		itrace_writer_abandon(*wp);
		*wp = NULL;
		return 1;
	}
	return 0;
}

int collect_writer_open_target(const struct collect_options *opts, const char *backend, pid_t pid,
			       uint16_t machine, uint8_t endian, uint32_t flags,
			       const struct itrace_meta *extra, size_t n_extra,
			       struct itrace_writer **wp)
{
	char cmdline[4096], pidbuf[24], host[256] = "", start[40];
	struct itrace_writer_options wo;
	struct itrace_meta meta[24];
	struct utsname un;
	size_t n = 0;
	int rc;

	if (n_extra > sizeof(meta) / sizeof(meta[0]) - 14)
		n_extra = sizeof(meta) / sizeof(meta[0]) - 14;
	format_cmdline(opts, cmdline, sizeof(cmdline));
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
	gethostname(host, sizeof(host) - 1);
	if (uname(&un) != 0)
		strcpy(un.release, "unknown");
	format_utc_now(start, sizeof(start));
	meta[n++] = (struct itrace_meta){"cmdline", cmdline};
	meta[n++] = (struct itrace_meta){"pid", pidbuf};
	meta[n++] = (struct itrace_meta){"host", host};
	meta[n++] = (struct itrace_meta){"kernel", un.release};
	meta[n++] = (struct itrace_meta){"collector", "itrace-collect"};
	meta[n++] = (struct itrace_meta){"backend", backend};
	meta[n++] = (struct itrace_meta){"version", ITRACE_VERSION_STRING};
	meta[n++] = (struct itrace_meta){"start_time", start};
	meta[n++] = (struct itrace_meta){"level", opts->level == ITRACE_LEVEL_INSN ? "insn" : "branch"};
	meta[n++] = (struct itrace_meta){"aslr", opts->aslr ? "on" : "off"};
	if (opts->backend_reason)
		meta[n++] = (struct itrace_meta){"backend_reason", opts->backend_reason};
	for (size_t i = 0; i < n_extra; i++)
		meta[n++] = extra[i];
	if (collect_handlers_given()) /* what made the trace, as itrace-run -o says */
		meta[n++] = (struct itrace_meta){"handlers", collect_handlers_spec()};

	itrace_writer_options_init(&wo);
	wo.level = (uint8_t)opts->level;
	wo.flags = flags;
	wo.machine = machine;
	wo.target_endian = endian;
	wo.compression = opts->compression;
	/* zstd on a second thread: the valgrind backend produces records
	 * faster than one core encodes and compresses them.  Safe here: the
	 * program is already started, the collector forks nothing later. */
	wo.async = 1;
	wo.out_flags = cli_output_flags();
	wo.flush_ms = COLLECT_FLUSH_MS;
	if (strcmp(backend, "valgrind") == 0) {
		/* Hundreds of millions of records a second.  With the tool's
		 * groups written as BLOCK records (feature BLOCK), chained where they follow each other in memory,
		 * and the wide MEM table below, the trace takes 0.63 bytes per
		 * instruction before compression on issue 22's gzip workload.
		 * zstd's fast level -1 over 4 MiB chunks brings it to 0.19
		 * (level 1: 0.16, for about a third more of zstd's CPU;
		 * --fast=3: 0.20 for 3% less of the collector's; target 0.3,
		 * bench/README.md). */
		wo.zstd_level = -1;
		wo.chunk_bytes = 4u << 20;
		if (flags & ITRACE_FF_MEM) {
			wo.features |= ITRACE_FEAT_BLOCK;
			/* The hot blocks' access instructions are more than the
			 * 128 entries of the MEM table: 1024 make the trace 27%
			 * smaller and zstd's work a quarter less. */
			wo.mem_table_log2 = ITRACE_MEM_TABLE_LOG2_WIDE;
		}
		/* At branch level, the converter writes branches that run one
		 * after the other as sequences (feature BRANCH_SEQ): one
		 * repeat byte for several branches. */
		if (opts->level == ITRACE_LEVEL_BRANCH)
			wo.features |= ITRACE_FEAT_BRANCH_SEQ;
	}
	/* the qemu backend's blocks with their accesses, the same way */
	if (strcmp(backend, "qemu") == 0 && (flags & ITRACE_FF_MEM)) {
		wo.features |= ITRACE_FEAT_BLOCK;
		wo.mem_table_log2 = ITRACE_MEM_TABLE_LOG2_WIDE;
	}
	wo.meta = meta;
	wo.meta_count = n;
	rc = collect_writer_create(opts, &wo, wp);
	if (rc < 0) {
		if (rc == -ITRACE_E_IO)
			cli_error("cannot create '%s': %m", opts->output);
		else
			cli_error("cannot start the trace '%s': %s", opts->output, itrace_errstr(rc));
	}
	return rc ? -1 : 0;
}

static void on_tick(int signo)
{
	(void)signo; /* only here to interrupt a blocking wait (EINTR) */
}

void collect_ticker_start(void)
{
	struct itimerval every = { { 0, COLLECT_TICK_MS * 1000 }, { 0, COLLECT_TICK_MS * 1000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick; /* no SA_RESTART: waits return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
}

void collect_ticker_stop(void)
{
	struct itimerval off;

	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
}

void collect_warn_unprivileged(const char *path, uid_t euid, gid_t egid, const char *why)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return;
	if ((st.st_mode & S_ISUID) && st.st_uid != euid)
		cli_warn("'%s' is set-user-ID (uid %u) but runs as uid %u: %s, so it may fail or "
			 "behave otherwise than untraced",
			 path, (unsigned)st.st_uid, (unsigned)euid, why);
	else if ((st.st_mode & S_ISGID) && st.st_gid != egid)
		cli_warn("'%s' is set-group-ID (gid %u) but runs as gid %u: %s, so it may fail or "
			 "behave otherwise than untraced",
			 path, (unsigned)st.st_gid, (unsigned)egid, why);
}

int collect_process_ids(pid_t pid, uid_t *euid, gid_t *egid)
{
	char path[64], line[256];
	unsigned r, e;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u", &r, &e) == 2)
			*euid = e, found |= 1;
		else if (sscanf(line, "Gid: %u %u", &r, &e) == 2)
			*egid = e, found |= 2;
	}
	fclose(f);
	return found == 3 ? 0 : -1;
}

/* Was a start trigger asked for (the trace may rightly stay empty)? */
static int has_start_trigger(const struct collect_options *opts)
{
	return opts->start_func || opts->has_start_addr || (opts->policy && opts->policy->nstart);
}

int collect_final_end(const struct collect_options *opts, struct itrace_writer *w, int end,
		      int *status)
{
	struct itrace_writer_stats st;

	collect_handlers_finish(); /* the held records, before the footer */
	if (!has_start_trigger(opts) && !opts->only_module)
		return end;
	itrace_writer_stats(w, &st);
	if (st.insns + st.branches > 0 || collect_handlers_executed())
		return end; /* (a handler may have dropped what ran) */
	if (end == ITRACE_END_CRASHED)
		*status = -*status;
	else if (end != ITRACE_END_COMPLETE)
		return end;
	return ITRACE_END_NOT_TRIGGERED;
}

/* What a trace that is not complete lacks, as a warning (ITRACE.md 7.4). */
static void warn_incomplete(const struct collect_options *opts, const struct collect_result *res)
{
	if (res->end_reason == ITRACE_END_NOT_TRIGGERED)
		cli_warn("nothing of what was asked ran: %s%s%s; the trace '%s' is empty",
			 has_start_trigger(opts) ? "the start trigger never fired" : "",
			 has_start_trigger(opts) && opts->only_module ? ", or " : "",
			 opts->only_module ? "the --only module never ran" : "", opts->output);
}

void collect_print_summary(const struct collect_options *opts, const struct collect_result *res)
{
	const struct itrace_writer_stats *st = &res->stats;
	double rate = res->seconds > 0 ? res->steps / res->seconds : 0;

	warn_incomplete(opts, res);
	if (opts->quiet)
		return;
	fprintf(stderr,
		"%s: %llu records (%llu instructions, %llu branches, %llu memory), %llu bytes, "
		"%.2f s, %.0f steps/s%s\n",
		cli_progname(), (unsigned long long)st->records, (unsigned long long)st->insns,
		(unsigned long long)st->branches, (unsigned long long)st->mems,
		(unsigned long long)st->file_bytes, res->seconds, rate,
		res->end_reason == ITRACE_END_INTERRUPTED ? " (interrupted)" : "");
}
