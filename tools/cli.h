/*
 * cli.h - what every itrace command-line tool shares: git-style error
 * messages, output selection by the "-o FILE / stdout when not a terminal"
 * rule, and a progress line that only appears on a terminal.
 * Not part of libitrace (which never prints); linked into the tools.
 */
#ifndef ITRACE_CLI_H
#define ITRACE_CLI_H

#include <stdint.h>
#include <stdio.h>

/* Exit codes shared by all tools. */
#define CLI_EXIT_BAD_INPUT 1
#define CLI_EXIT_USAGE 2

/* cli_init - remember the tool name used as the prefix of messages. */
void cli_init(const char *progname);
const char *cli_progname(void);

/* cli_error - print "prog: <message>" on stderr (one line, no full stop). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_warn - print "prog: warning: <message>" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_usage_error - print the message and "try 'prog --help'", exit 2. */
void cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * cli_output_path - resolve the output argument of a stream tool:
 * NULL or "-" means stdout.  Returns "-" for stdout, else `path`.  When
 * stdout would be a terminal and `binary` is set, prints an error asking
 * for -o and returns NULL.
 */
const char *cli_output_path(const char *path, int binary);

/* cli_stderr_is_tty - progress is shown only when this is true. */
int cli_stderr_is_tty(void);

/*
 * Progress line: cli_progress(&p, count) redraws at most 4 times a second
 * while stderr is a terminal and quiet is off; cli_progress_end() clears it.
 */
struct cli_progress {
	const char *what; /* "instructions", "records", ... */
	int enabled;
	double start, last;
	uint64_t total; /* 0 when unknown */
};
void cli_progress_init(struct cli_progress *p, const char *what, uint64_t total, int quiet);
void cli_progress(struct cli_progress *p, uint64_t count);
void cli_progress_end(struct cli_progress *p);

/* cli_now - monotonic seconds. */
double cli_now(void);

/* cli_parse_u64 - strict decimal/hex (0x) parse; returns 0 or -1. */
int cli_parse_u64(const char *s, uint64_t *out);

struct itrace_reader;
/*
 * cli_warn_incomplete - every tool that reads a trace calls this once it
 * has read to the end: unless the trace is complete (ITRACE.md 7.4), one
 * line "prog: warning: 'NAME' is not complete: <how it ended>" on stderr
 * (nothing more when the reader met damage: the tool reports that).
 * Returns 1 if the trace is complete, 0 if not.  (tools/cli_trace.c)
 */
int cli_warn_incomplete(const struct itrace_reader *r, const char *name);

#endif
