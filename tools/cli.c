/* cli.c - shared command-line helpers (see cli.h). */
#include "cli.h"

#include <errno.h>
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

int cli_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}
