/*
 * export_cli.h - what the exporters (itrace-sqlite, itrace-xml,
 * itrace-timeline) share on the command line: the common options, opening
 * the trace, running the shared analysis (code/analysis/analysis.c) with progress
 * and damage reporting, and outputs built in a temporary file beside the
 * target that is renamed into place only when complete.
 * Not part of libitrace; linked into the exporters (libexportcli.a).
 */
#ifndef ITRACE_EXPORT_CLI_H
#define ITRACE_EXPORT_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "itrace.h"
#include "itrace_code.h"

/* The options every exporter takes. */
struct export_opts {
	const char *input, *output;
	const char *sysroot, *debug_dir;
	int quiet, verbose;
};

/*
 * A tool's own options: `shortopts` (getopt letters beyond "o:qv"), the
 * long ones (NULL-terminated, beyond output/sysroot/debug-dir/quiet/
 * verbose/help/version), and a handler called for each of them with its
 * getopt value; the handler exits through cli_usage_error() on bad values.
 */
struct export_tool {
	const char *shortopts;
	const struct option *longopts;
	void (*handle)(int opt, const char *arg, void *tool_opts);
	void *tool_opts;
	void (*usage)(void); /* prints --help */
};

/*
 * export_parse_args - parse argv into *o and the tool's options; exactly
 * one TRACE must remain.  --help and --version print and exit 0; usage
 * errors exit 2.
 */
void export_parse_args(int argc, char **argv, const struct export_tool *t, struct export_opts *o);

/* Usage lines of the common options, for the tools' --help texts. */
#define EXPORT_COMMON_USAGE                                                              \
	"      --no-clobber      never replace an existing output file\n"                 \
	"      --sysroot DIR     find the traced binaries under DIR\n"                     \
	"      --debug-dir DIR   separate debug info root (default /usr/lib/debug)\n"      \
	"  -q, --quiet           no progress line, no warnings\n"                          \
	"  -v, --verbose         more messages\n"                                          \
	"      --help            this text\n"                                              \
	"      --version         print the version\n"

/* export_open - open the trace; prints the error and returns NULL. */
struct itrace_reader *export_open(const struct export_opts *o);

/*
 * export_analyse - run the analysis over r with options ao (callbacks
 * set by the caller) and run flags, showing progress in records unless
 * `progress` is 0.  Returns the finished analysis, or NULL after printing
 * why.  *incomplete receives NULL when the trace is whole, else the text
 * the output must carry: the trace is damaged or was cut (the analysis
 * covers the records before it), it records lost data (LOST records,
 * gaps where instructions are unknown), or its footer says it is not
 * complete (ITRACE.md 7.4: interrupted, start never triggered, empty, no
 * footer); a one-line message has then been printed, and the tool exits 1.  Decode failures are warned about.
 */
struct itrace_analysis *export_analyse(const struct export_opts *o, struct itrace_reader *r,
				       const struct itrace_analysis_options *ao, unsigned flags,
				       int progress, const char **incomplete);

/*
 * Temporary output beside the target: export_tmp_create() makes an empty
 * private file ".NAME.tmp-XXXXXX" next to `target` (removed again on
 * SIGINT/SIGTERM/SIGHUP/SIGPIPE and by export_tmp_discard()), and returns
 * its path, or NULL after printing why.  export_tmp_publish() syncs it
 * and renames it over the target; 0 or -1 after printing why.
 */
const char *export_tmp_create(const char *target);
int export_tmp_publish(const char *target);
void export_tmp_discard(void);

/*
 * export_output_open - stdout for "-", else a FILE on a temporary beside
 * `path` with the permissions of a new file (umask).  NULL after printing
 * why.  export_output_close() flushes and checks it (a file is synced and
 * renamed over `path`); `failed` says the writer already failed.
 * Returns 0 or -1 after printing why (the temporary is then removed).
 */
FILE *export_output_open(const char *path);
int export_output_close(FILE *fp, const char *path, int failed);

#endif
