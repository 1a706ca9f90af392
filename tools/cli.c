/* cli.c - shared command-line helpers (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *progname = "itrace";

void cli_init(const char *name)
{
	const char *slash = strrchr(name, '/');

	progname = slash ? slash + 1 : name;
}

const char *cli_progname(void)
{
	return progname;
}

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	char buf[4096];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", progname, prefix, buf);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: try '%s --help' for usage\n", progname, progname);
	exit(CLI_EXIT_USAGE);
}

const char *cli_output_path(const char *path, int binary)
{
	if (path && strcmp(path, "-") != 0)
		return path;
	if (binary && isatty(STDOUT_FILENO)) {
		cli_error("refusing to write a binary trace to a terminal; use -o FILE or a pipe");
		return NULL;
	}
	return "-";
}

int cli_stderr_is_tty(void)
{
	return isatty(STDERR_FILENO);
}

double cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void cli_progress_init(struct cli_progress *p, const char *what, uint64_t total, int quiet)
{
	p->what = what;
	p->enabled = !quiet && cli_stderr_is_tty();
	p->start = p->last = cli_now();
	p->total = total;
}

void cli_progress(struct cli_progress *p, uint64_t count)
{
	double now;

	if (!p->enabled)
		return;
	now = cli_now();
	if (now - p->last < 0.25)
		return;
	p->last = now;
	if (p->total)
		fprintf(stderr, "\r%s: %llu/%llu %s (%.0f%%), %.0f/s ", progname,
			(unsigned long long)count, (unsigned long long)p->total, p->what,
			100.0 * count / p->total, count / (now - p->start));
	else
		fprintf(stderr, "\r%s: %llu %s, %.0f/s ", progname, (unsigned long long)count,
			p->what, count / (now - p->start));
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->enabled)
		fprintf(stderr, "\r\033[K");
}

/* parse_number - decimal or 0x hex, with a K/M/G (1024-based, then an
 * optional B) suffix when `suffix` is set.  0 or -1. */
static int parse_number(const char *s, uint64_t *out, int suffix)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (suffix) {
		switch (*end) {
		case 'k': case 'K': shift = 10; end++; break;
		case 'm': case 'M': shift = 20; end++; break;
		case 'g': case 'G': shift = 30; end++; break;
		}
		if (*end == 'b' || *end == 'B')
			end++;
	}
	if (*end || (shift && v > UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	return parse_number(s, out, 0);
}

uint64_t cli_parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;
	int bad = cli_parse_u64(arg, &v) < 0;

	if (bad && min == 0 && max == UINT64_MAX)
		cli_usage_error("%s needs a number, not '%s'", opt, arg);
	if (bad || v < min || v > max)
		cli_usage_error("%s: expected %llu to %llu, not '%s'", opt, (unsigned long long)min,
				(unsigned long long)max, arg);
	return v;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	return parse_number(s, out, 1);
}

const char *cli_errstr(int code)
{
	return code == -ITRACE_E_IO ? strerror(errno) : itrace_errstr(code);
}

/* ---- Output files ------------------------------------------------------ */

static unsigned output_flags;

void cli_set_no_clobber(int on)
{
	output_flags = on ? ITRACE_OUT_NO_CLOBBER : 0;
}

unsigned cli_output_flags(void)
{
	return output_flags;
}

/*
 * The temporaries being written, copied so that a signal handler can read
 * them at any moment (a slot is cleared before its file is finished).
 */
#define MAX_OUTPUTS 64
static struct {
	const struct itrace_outfile *o;
	char temp[4352];
} outputs[MAX_OUTPUTS];

static void remove_temps_and_die(int sig)
{
	for (int i = 0; i < MAX_OUTPUTS; i++)
		if (outputs[i].o && outputs[i].temp[0])
			unlink(outputs[i].temp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(const struct itrace_outfile *o)
{
	static int handlers;
	const char *temp = itrace_outfile_temp(o);

	if (!temp || strlen(temp) >= sizeof(outputs[0].temp))
		return; /* in place: nothing to remove */
	if (!handlers) {
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = remove_temps_and_die;
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			struct sigaction old;

			/* a tool that handles the signal itself cleans up itself */
			if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
				sigaction(sigs[i], &sa, NULL);
		}
		handlers = 1;
	}
	for (int i = 0; i < MAX_OUTPUTS; i++)
		if (!outputs[i].o) {
			strcpy(outputs[i].temp, temp);
			outputs[i].o = o;
			return;
		}
}

static void untrack(const struct itrace_outfile *o)
{
	for (int i = 0; i < MAX_OUTPUTS; i++)
		if (outputs[i].o == o) {
			outputs[i].temp[0] = '\0';
			outputs[i].o = NULL;
		}
}

struct itrace_outfile *cli_output_create(const char *path)
{
	struct itrace_outfile *o;
	int rc = itrace_outfile_open(path, output_flags, &o);

	if (rc < 0) {
		if (rc == -ITRACE_E_IO && errno == EEXIST)
			cli_error("'%s' exists; not replaced (--no-clobber)", path);
		else
			cli_error("cannot create '%s': %s", path, cli_errstr(rc));
		return NULL;
	}
	track(o);
	return o;
}

int cli_output_finish(struct itrace_outfile *o, int ok)
{
	char path[4096];
	int rc;

	if (!o)
		return 0;
	untrack(o);
	if (!ok) {
		itrace_outfile_discard(o);
		return 0;
	}
	snprintf(path, sizeof(path), "%s", itrace_outfile_path(o));
	rc = itrace_outfile_commit(o);
	if (rc < 0) {
		if (rc == -ITRACE_E_IO && errno == EEXIST)
			cli_error("'%s' appeared meanwhile; not replaced (--no-clobber)", path);
		else
			cli_error("cannot write '%s': %s", path, cli_errstr(rc));
		return -1;
	}
	return 0;
}

FILE *cli_output_fopen(const char *path, struct itrace_outfile **op)
{
	int fd;
	FILE *fp;

	*op = NULL;
	if (!path || strcmp(path, "-") == 0)
		return stdout;
	*op = cli_output_create(path);
	if (!*op)
		return NULL;
	fd = dup(itrace_outfile_fd(*op));
	fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fp) {
		cli_error("cannot create '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		cli_output_finish(*op, 0);
		*op = NULL;
	}
	return fp;
}

int cli_output_fclose(FILE *fp, struct itrace_outfile *o, const char *path, int ok)
{
	int bad = fflush(fp) != 0 || ferror(fp);
	int saved = errno;

	if (fp != stdout && fclose(fp) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		if (fp == stdout)
			cli_error("cannot write to stdout: %s", strerror(saved ? saved : EIO));
		else
			cli_error("cannot write '%s': %s", path, strerror(saved ? saved : EIO));
		cli_output_finish(o, 0);
		return -1;
	}
	return cli_output_finish(o, ok) < 0 || !ok ? -1 : 0;
}
