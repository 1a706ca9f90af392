/* export_cli.c - the exporters' shared command line (see export_cli.h). */
#include "export_cli.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

enum { OPT_SYSROOT = 0x1000, OPT_DEBUG_DIR, OPT_HELP, OPT_VERSION, OPT_NO_CLOBBER };

static const struct option common_longopts[] = {
	{"output", required_argument, NULL, 'o'},
	{"sysroot", required_argument, NULL, OPT_SYSROOT},
	{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{"no-clobber", no_argument, NULL, OPT_NO_CLOBBER},
};

#define NCOMMON (sizeof(common_longopts) / sizeof(*common_longopts))

void export_parse_args(int argc, char **argv, const struct export_tool *t, struct export_opts *o)
{
	struct option longopts[NCOMMON + 32];
	char shortopts[64];
	size_t n = 0, i;
	int c;

	memcpy(longopts, common_longopts, sizeof(common_longopts));
	n = NCOMMON;
	for (i = 0; t->longopts && t->longopts[i].name && n < NCOMMON + 31; i++)
		longopts[n++] = t->longopts[i];
	memset(&longopts[n], 0, sizeof(longopts[n]));
	snprintf(shortopts, sizeof(shortopts), "o:qv%s", t->shortopts ? t->shortopts : "");
	memset(o, 0, sizeof(*o));
	opterr = 0; /* one line, ours */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case OPT_SYSROOT: o->sysroot = optarg; break;
		case OPT_DEBUG_DIR: o->debug_dir = optarg; break;
		case OPT_NO_CLOBBER: cli_set_no_clobber(1); break;
		case OPT_HELP: t->usage(); exit(0);
		case OPT_VERSION: printf("%s %s\n", cli_progname(), ITRACE_VERSION_STRING); exit(0);
		case '?':
			if (optopt && strchr(shortopts, optopt))
				cli_usage_error("option '-%c' needs a value", optopt);
			cli_usage_error("unknown option '%s'", argv[optind - 1]);
		default: t->handle(c, optarg, t->tool_opts); break;
		}
	}
	if (optind + 1 != argc)
		cli_usage_error(optind == argc ? "no trace given" : "more than one trace given");
	o->input = argv[optind];
}

struct itrace_reader *export_open(const struct export_opts *o)
{
	return cli_open_trace(o->input);
}

static void progress_cb(void *arg, uint64_t records)
{
	cli_progress(arg, records);
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

struct itrace_analysis *export_analyse(const struct export_opts *o, struct itrace_reader *r,
				       const struct itrace_analysis_options *ao, unsigned flags,
				       int progress, const char **incomplete)
{
	static char text[512];
	struct itrace_analysis_totals t;
	struct itrace_analysis_run_options ro;
	struct itrace_analysis *a = NULL;
	struct cli_progress p;
	struct itrace_footer f;
	int rc;

	*incomplete = NULL;
	itrace_analysis_run_options_init(&ro);
	ro.sysroot = o->sysroot;
	ro.debug_dir = o->debug_dir;
	ro.flags = flags;
	cli_progress_init(&p, "records", itrace_reader_footer(r, &f) == 0 ? f.record_count : 0,
			  o->quiet || !progress);
	ro.progress = progress_cb;
	ro.progress_arg = &p;
	rc = itrace_analysis_run(r, strcmp(o->input, "-") ? o->input : NULL, ao, &ro, &a);
	cli_progress_end(&p);
	if (!a) {
		if (rc != -ITRACE_E_IO) /* a callback's failure has said why */
			cli_error("cannot analyse '%s': %s", o->input, itrace_errstr(rc));
		return NULL;
	}
	itrace_analysis_totals(a, &t);
	if (rc < 0) {
		cli_error("'%s' is damaged: %s (%s); exporting the records before it", o->input,
			  itrace_errstr(rc), itrace_analysis_run_error(a));
		snprintf(text, sizeof(text), "incomplete: the trace is damaged: %s (%s); this "
			 "covers the records before the damage", itrace_errstr(rc),
			 itrace_analysis_run_error(a));
		*incomplete = text;
	} else if (t.lost || t.gaps_lost) {
		/* the trace says so itself: what it lacks is not made up */
		snprintf(text, sizeof(text), "incomplete: the trace records lost data: %llu lost "
			 "(LOST records), %llu gaps where instructions are unknown",
			 (unsigned long long)t.lost, (unsigned long long)t.gaps_lost);
		cli_error("'%s' records lost data (%llu lost, %llu gaps); the export covers what it "
			  "kept", o->input, (unsigned long long)t.lost, (unsigned long long)t.gaps_lost);
		*incomplete = text;
	} else if (!itrace_footer_is_complete(itrace_reader_footer(r, &f) == 0 ? &f : NULL)) {
		/* ended before its end, or never started (ITRACE.md 7.4) */
		char why[256];

		cli_warn_incomplete(r, o->input);
		snprintf(text, sizeof(text), "incomplete: the trace is not complete: %s",
			 itrace_footer_describe(itrace_reader_footer(r, &f) == 0 ? &f : NULL, why,
						sizeof(why)));
		*incomplete = text;
	}
	warn_decode_failures(a, o->quiet);
	return a;
}

/* ---- outputs ------------------------------------------------------------------ */

/*
 * The exporters' outputs are the tools' output files (tools/cli.h over
 * libitrace's itrace_outfile): a hidden temporary beside the target,
 * removed on SIGINT/SIGTERM/SIGHUP and swept by the next run after a
 * SIGKILL, renamed into place only when complete.  One at a time.
 */
static struct itrace_outfile *out_file;

const char *export_tmp_create(const char *target)
{
	out_file = cli_output_create(target);
	if (out_file && !itrace_outfile_temp(out_file)) {
		cli_error("cannot write a database to '%s': not a regular file", target);
		cli_output_finish(out_file, 0);
		out_file = NULL;
	}
	return out_file ? itrace_outfile_temp(out_file) : NULL;
}

int export_tmp_publish(const char *target)
{
	struct itrace_outfile *o = out_file;

	(void)target; /* cli_output_finish() names it in its message */
	out_file = NULL;
	return cli_output_finish(o, 1);
}

void export_tmp_discard(void)
{
	cli_output_finish(out_file, 0);
	out_file = NULL;
}

FILE *export_output_open(const char *path)
{
	return cli_output_fopen(path, &out_file);
}

int export_output_close(FILE *fp, const char *path, int failed)
{
	struct itrace_outfile *o = out_file;

	out_file = NULL;
	return cli_output_fclose(fp, o, path, !failed);
}
