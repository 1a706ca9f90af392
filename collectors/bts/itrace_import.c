/*
 * itrace-import - convert a perf.data branch trace into an itrace file.
 *
 *   itrace-import [--user] [--kernel] [-o OUT] perf.data
 *
 * Reads recordings of `perf record -e intel_bts//u --per-thread` (full
 * trace or -S snapshots) and of the legacy `perf record -e branches:u -c 1
 * -d`, and writes a branch-level itrace with the taken-only flag, ready
 * for itrace-fill.  The file is checked in a first pass over memory
 * before anything is written, so unsupported content produces no output;
 * damaged content produces every record before the damage, a footer that
 * says "error", and exit status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bts.h"
#include "cli.h"

struct import_opts {
	const char *input;
	const char *output;
	const char *buildid_dir; /* perf's build-id cache, for the vDSO */
	unsigned spaces;
	int quiet, verbose;
};

static void usage(void)
{
	printf("usage: itrace-import [options] PERF.DATA\n"
	       "\n"
	       "Convert a perf.data branch trace (perf record -e intel_bts//u --per-thread,\n"
	       "or perf record -e branches:u -c 1 -d) into a branch-level itrace file\n"
	       "(taken branches only; run itrace-fill on it for the instruction stream).\n"
	       "\n"
	       "  -o FILE      output file ('-' = stdout, the default when not a terminal),\n"
	       "               replaced only once complete\n"
	       "  --no-clobber never replace an existing output file\n"
	       "  --user       keep user-space branches (default)\n"
	       "  --kernel     keep kernel branches (with --user: both)\n"
	       "  --buildid-dir DIR  perf's build-id cache, where the vDSO of the\n"
	       "               recording is found ($PERF_BUILDID_DIR, else ~/.debug)\n"
	       "  -q           quiet\n"
	       "  -v           print statistics of the conversion\n"
	       "  --help       this text\n"
	       "  --version    print the version\n"
	       "\n"
	       "PERF.DATA '-' reads standard input, e.g. perf record -o - ... | itrace-import -\n");
}

static void parse_args(int argc, char **argv, struct import_opts *o)
{
	static const struct option longopts[] = {
		{"user", no_argument, NULL, 'U'},    {"kernel", no_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},    {"version", no_argument, NULL, 'V'},
		{"output", required_argument, NULL, 'o'}, {"buildid-dir", required_argument, NULL, 'B'},
		{"no-clobber", no_argument, NULL, 'N'},
		{NULL, 0, NULL, 0},
	};
	unsigned user = 0, kernel = 0;
	int c;

	memset(o, 0, sizeof *o);
	opterr = 0; /* our own message, in the tools' style */
	while ((c = getopt_long(argc, argv, "o:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose++; break;
		case 'U': user = 1; break;
		case 'K': kernel = 1; break;
		case 'B': o->buildid_dir = optarg; break;
		case 'N': cli_set_no_clobber(1); break;
		case 'h': usage(); exit(0);
		case 'V': printf("itrace-import %s\n", itrace_version()); exit(0);
		default: cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		cli_usage_error(optind == argc ? "no input file given" : "more than one input file given");
	o->input = argv[optind];
	if (!o->buildid_dir)
		o->buildid_dir = getenv("PERF_BUILDID_DIR");
	if (!o->buildid_dir && getenv("HOME")) {
		static char home_debug[4096];
		snprintf(home_debug, sizeof home_debug, "%s/.debug", getenv("HOME"));
		o->buildid_dir = home_debug;
	}
	o->spaces = (user || !kernel ? BTS_SPACE_USER : 0) | (kernel ? BTS_SPACE_KERNEL : 0);
}

/* Read all of fd; the size comes from the bytes that exist, not from the file. */
static int read_all(int fd, uint8_t **bufp, size_t *lenp)
{
	size_t cap = 1 << 16, len = 0;
	struct stat sb;
	uint8_t *buf;

	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0)
		cap = (size_t)sb.st_size + 1;
	buf = malloc(cap);
	if (!buf)
		return -1;
	for (;;) {
		ssize_t n;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

static int count_event(void *ctx, const struct bts_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

/* Pass 2's event function: the sink, plus a progress line on a terminal. */
struct import_ctx {
	struct bts_sink sink;
	struct cli_progress progress;
	uint64_t events;
};

static int import_event(void *ctx, const struct bts_event *ev)
{
	struct import_ctx *ic = ctx;

	if ((++ic->events & 0xffff) == 0)
		cli_progress(&ic->progress, ic->sink.branches);
	return bts_sink_event(&ic->sink, ev);
}

static const char *mode_name(int mode)
{
	switch (mode) {
	case PERFDATA_MODE_BTS: return "intel_bts";
	case PERFDATA_MODE_SNAPSHOT: return "intel_bts snapshot";
	case PERFDATA_MODE_LEGACY: return "legacy branch samples";
	default: return "none";
	}
}

static void print_stats(const struct perfdata_stats *st, const struct bts_sink *s)
{
	fprintf(stderr,
		"%s: %s: %llu perf records, %llu AUXTRACE buffers, %llu BTS records "
		"(%llu padding, %llu markers, %llu filtered), %llu branch samples, "
		"%llu overlap bytes removed, %llu truncated AUX areas, %llu build-ids, "
		"%llu records of other types skipped; wrote %llu branches, %llu mappings, %llu lost markers\n",
		cli_progname(), mode_name(st->mode), (unsigned long long)st->records,
		(unsigned long long)st->auxtrace_buffers, (unsigned long long)st->bts.records,
		(unsigned long long)st->bts.padding, (unsigned long long)st->bts.sentinels,
		(unsigned long long)st->bts.filtered, (unsigned long long)st->branch_samples,
		(unsigned long long)st->overlap_bytes, (unsigned long long)st->truncated_aux,
		(unsigned long long)st->buildids, (unsigned long long)st->unknown_records,
		(unsigned long long)s->branches, (unsigned long long)s->mmaps,
		(unsigned long long)s->lost_events);
}

static int import(const struct import_opts *o, const uint8_t *buf, size_t len)
{
	struct perfdata_stats st;
	struct itrace_writer_options wo;
	struct itrace_writer *w;
	struct itrace_outfile *file;
	struct import_ctx ic;
	struct bts_sink *sink = &ic.sink;
	char err[512], err2[512];
	int check, rc, wrc;
	const char *out = cli_output_path(o->output, 1);

	if (!out)
		return CLI_EXIT_USAGE;
	/* Pass 1: validate in memory, so unsupported input writes nothing. */
	check = perfdata_parse(buf, len, o->spaces, count_event, NULL, &st, err, sizeof err);
	if (check == -ITRACE_E_NOTSUP || check == -ITRACE_E_BADMAGIC || check == -ITRACE_E_NOMEM ||
	    (check < 0 && !st.records)) {
		cli_error("%s: %s", o->input, err[0] ? err : itrace_errstr(check));
		return CLI_EXIT_BAD_INPUT;
	}
	struct itrace_meta meta[] = {
		{"collector", "itrace-import"},
		{"source", "perf.data"},
		{"perf_mode", mode_name(st.mode)},
		{"input", o->input},
	};
	bts_writer_options(&wo);
	wo.meta = meta;
	wo.meta_count = sizeof meta / sizeof *meta;
	file = cli_output_create(out);
	if (!file)
		return CLI_EXIT_BAD_INPUT;
	rc = itrace_writer_open_fd(itrace_outfile_fd(file), &wo, &w);
	if (rc) {
		cli_error("cannot write '%s': %s", out, cli_errstr(rc));
		cli_output_finish(file, 0);
		return CLI_EXIT_BAD_INPUT;
	}
	/* Pass 2: the same parse, now writing. */
	memset(&ic, 0, sizeof ic);
	bts_sink_init(sink, w, o->spaces);
	sink->buildid_dir = o->buildid_dir;
	cli_progress_init(&ic.progress, "branches", 0, o->quiet);
	rc = perfdata_parse(buf, len, o->spaces, import_event, &ic, &st, err2, sizeof err2);
	cli_progress_end(&ic.progress);
	bts_sink_fini(sink);
	if (rc && rc == check) {
		/* damaged input: what came before the damage is kept */
		wrc = itrace_writer_close(w, ITRACE_END_ERROR, -rc);
		if (wrc < 0)
			cli_error("cannot write '%s': %s", out, cli_errstr(wrc));
		if (cli_output_finish(file, wrc == 0) < 0 || wrc < 0)
			return CLI_EXIT_BAD_INPUT;
		cli_error("%s: %s (the %llu branches before it were written)", o->input, err,
			  (unsigned long long)sink->branches);
		return CLI_EXIT_BAD_INPUT;
	}
	if (rc) {
		itrace_writer_abandon(w);
		cli_error("cannot write '%s': %s", out, err2[0] ? err2 : cli_errstr(rc));
		cli_output_finish(file, 0);
		return CLI_EXIT_BAD_INPUT;
	}
	rc = itrace_writer_close(w, ITRACE_END_COMPLETE, 0);
	if (rc) {
		cli_error("cannot write '%s': %s", out, cli_errstr(rc));
		cli_output_finish(file, 0);
		return CLI_EXIT_BAD_INPUT;
	}
	if (cli_output_finish(file, 1) < 0)
		return CLI_EXIT_BAD_INPUT;
	if (o->verbose)
		print_stats(&st, sink);
	if (!o->quiet && st.bts.trailing)
		cli_warn("%s: %llu bytes after the last whole BTS record were ignored", o->input,
			 (unsigned long long)st.bts.trailing);
	if (!o->quiet && !sink->branches)
		cli_warn("%s: the trace holds no branches", o->input);
	return 0;
}

int main(int argc, char **argv)
{
	struct import_opts o;
	uint8_t *buf;
	size_t len;
	int fd, rc;

	cli_init("itrace-import");
	parse_args(argc, argv, &o);
	fd = strcmp(o.input, "-") ? open(o.input, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0) {
		cli_error("cannot open '%s': %s", o.input, strerror(errno));
		return CLI_EXIT_BAD_INPUT;
	}
	if (read_all(fd, &buf, &len)) {
		cli_error("cannot read '%s': %s", o.input, strerror(errno));
		return CLI_EXIT_BAD_INPUT;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	rc = import(&o, buf, len);
	free(buf);
	return rc;
}
