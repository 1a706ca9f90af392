/* export_cli.c - the exporters' shared command line (see export_cli.h). */
#include "export_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

enum { OPT_SYSROOT = 0x1000, OPT_DEBUG_DIR, OPT_HELP, OPT_VERSION };

static const struct option common_longopts[] = {
	{"output", required_argument, NULL, 'o'},
	{"sysroot", required_argument, NULL, OPT_SYSROOT},
	{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
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
	struct itrace_reader *r;
	int rc = itrace_reader_open(o->input, &r);

	if (rc == 0)
		return r;
	if (rc == -ITRACE_E_IO)
		cli_error("cannot open '%s': %s", o->input, strerror(errno));
	else
		cli_error("cannot read '%s': %s", o->input, itrace_errstr(rc));
	return NULL;
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
	}
	warn_decode_failures(a, o->quiet);
	return a;
}

/* ---- temporary outputs ---------------------------------------------------- */

static char tmp_path[PATH_MAX];

static void remove_tmp_and_die(int sig)
{
	if (tmp_path[0])
		unlink(tmp_path); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

const char *export_tmp_create(const char *target)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	struct sigaction sa;
	char copy[PATH_MAX];
	const char *base;
	size_t i;
	int fd;

	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	snprintf(copy, sizeof(copy), "%s", target);
	if (strlen(target) >= sizeof(copy) ||
	    snprintf(tmp_path, sizeof(tmp_path), "%s/.%s.tmp-XXXXXX", dirname(copy), base) >=
		    (int)sizeof(tmp_path)) {
		tmp_path[0] = '\0';
		cli_error("output path too long: '%s'", target);
		return NULL;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_tmp_and_die;
	for (i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	fd = mkstemp(tmp_path);
	if (fd < 0) {
		cli_error("cannot write '%s': %s", target, strerror(errno));
		tmp_path[0] = '\0';
		return NULL;
	}
	/* closed again: the caller opens it its own way (SQLite must hold the
	 * only descriptor, or closing ours would drop its POSIX locks) */
	close(fd);
	return tmp_path;
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

static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

int export_tmp_publish(const char *target)
{
	char copy[PATH_MAX];

	/* the permissions a new file would get, not mkstemp's 0600 */
	if (chmod(tmp_path, 0666 & ~current_umask()) < 0 || sync_path(tmp_path, O_RDONLY) < 0 ||
	    rename(tmp_path, target) < 0) {
		cli_error("cannot write '%s': %s", target, strerror(errno));
		export_tmp_discard();
		return -1;
	}
	tmp_path[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", target);
	sync_path(dirname(copy), O_RDONLY | O_DIRECTORY); /* best effort */
	return 0;
}

void export_tmp_discard(void)
{
	if (tmp_path[0])
		unlink(tmp_path);
	tmp_path[0] = '\0';
}

FILE *export_output_open(const char *path)
{
	const char *tmp;
	FILE *fp;

	if (strcmp(path, "-") == 0)
		return stdout;
	tmp = export_tmp_create(path);
	if (!tmp)
		return NULL;
	fp = fopen(tmp, "w");
	if (!fp) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		export_tmp_discard();
	}
	return fp;
}

int export_output_close(FILE *fp, const char *path, int failed)
{
	int err = 0;

	if (fflush(fp) != 0 || ferror(fp))
		err = errno ? errno : EIO;
	if (fp == stdout) {
		if (failed || err) {
			cli_error("cannot write to stdout: %s", err ? strerror(err) : "writer failed");
			return -1;
		}
		return 0;
	}
	if (fclose(fp) != 0 && !err)
		err = errno;
	if (failed || err) {
		cli_error("cannot write '%s': %s", path, err ? strerror(err) : "writer failed");
		export_tmp_discard();
		return -1;
	}
	return export_tmp_publish(path);
}
