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

#include "itrace.h"

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

/*
 * Output files.  Every file a tool writes goes through libitrace's output
 * files (itrace.h, section 3b): a hidden temporary beside the destination,
 * renamed over it when complete, never written through a symlink.  The
 * tools register what they write here, so that SIGINT, SIGTERM and SIGHUP
 * remove the temporaries before the tool dies (SIGKILL cannot be caught:
 * the next run in that directory removes them).
 */

/* cli_set_no_clobber - --no-clobber: refuse to replace existing outputs. */
void cli_set_no_clobber(int on);

/* cli_output_flags - the itrace_outfile flags the options ask for. */
unsigned cli_output_flags(void);

/*
 * cli_output_create - start writing output `path` ("-" = stdout).  Prints
 * "cannot create 'path': why" and returns NULL on failure.
 */
struct itrace_outfile *cli_output_create(const char *path);

/*
 * cli_output_finish - complete the output when `ok` (sync, rename into
 * place), else discard it (the previous file stays).  Prints the error and
 * returns -1 if completing fails, else 0 (also when discarding).
 */
int cli_output_finish(struct itrace_outfile *o, int ok);

/*
 * cli_output_fopen - cli_output_create() as a stdio stream (stdout for
 * "-").  *op receives the output to pass to cli_output_fclose().
 */
FILE *cli_output_fopen(const char *path, struct itrace_outfile **op);

/*
 * cli_output_fclose - flush and close fp (not stdout, which is flushed),
 * then cli_output_finish(o, ok and no write error).  Prints "cannot write
 * 'path': why" on a write error.  Returns 0, or -1 when the output is not
 * complete.
 */
int cli_output_fclose(FILE *fp, struct itrace_outfile *o, const char *path, int ok);

/* cli_errstr - text for a libitrace code: strerror(errno) for an I/O
 * error (libitrace keeps errno), else itrace_errstr(). */
const char *cli_errstr(int code);

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

/*
 * cli_parse_count - the value `arg` of option `opt` as a whole number
 * (cli_parse_u64) from min to max; anything else is a usage error, exit 2:
 * "OPT needs a number, not 'ARG'", or with a range "OPT: expected MIN to
 * MAX, not 'ARG'".  The one parser of counts in options.
 */
uint64_t cli_parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max);

/*
 * cli_parse_size - cli_parse_u64 with an optional K, M or G suffix (powers
 * of 1024, any case, an optional B after it): "32K", "1MB", "1G",
 * "64".  The one parser of sizes in options and core descriptions.
 */
int cli_parse_size(const char *s, uint64_t *out);

struct itrace_reader;
/*
 * cli_open_trace - open trace `path` for reading.  On failure print the
 * one error line every tool gives, "cannot open 'PATH': <errno text>" when
 * the file cannot be opened, "cannot read 'PATH': <why>" when it is no
 * readable trace, and return NULL (the caller exits CLI_EXIT_BAD_INPUT).
 * (tools/cli_trace.c)
 */
struct itrace_reader *cli_open_trace(const char *path);

/*
 * cli_warn_incomplete - every tool that reads a trace calls this once it
 * has read to the end: unless the trace is complete (ITRACE.md 7.4), one
 * line "prog: warning: 'NAME' is not complete: <how it ended>" on stderr
 * (nothing more when the reader met damage: the tool reports that).
 * Returns 1 if the trace is complete, 0 if not.  (tools/cli_trace.c)
 */
int cli_warn_incomplete(const struct itrace_reader *r, const char *name);

/* ---- Handler chains, for the drivers itrace-run and itrace-collect
 * --handler (tools/cli_handler.c; the caller links libitrace-code). */
struct itrace_handler_chain;
struct itrace_handler_chain_options;

/*
 * cli_handler_chain - a chain with options `o` and the handlers
 * specs[0..n) ("PATH[:ARGS]") loaded in order; NULL after printing why
 * (the chain's message: a missing file, a bad table...).
 */
struct itrace_handler_chain *cli_handler_chain(const struct itrace_handler_chain_options *o,
					       char *const *specs, int n);

/*
 * cli_handler_catch_faults - fn for SIGSEGV, SIGBUS, SIGFPE and SIGILL, on
 * an alternate stack (a handler's stack overflow too); `flags` are more
 * SA_* flags (SA_RESETHAND, SA_NODEFER).
 */
void cli_handler_catch_faults(void (*fn)(int), int flags);

/*
 * cli_handler_crashed - "PROG: handler 'WHO' crashed (SIGSEGV) at record
 * N; TAIL" on stderr.  Async-signal-safe (write(2) only).
 */
void cli_handler_crashed(int sig, const char *who, uint64_t index, const char *tail);

#endif
