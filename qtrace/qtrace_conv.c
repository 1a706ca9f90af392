/*
 * qtrace-conv - convert an instruction-level itrace into qtrace, the trace
 * format of the POWER performance tools, and print qtrace files.
 *
 *   qtrace-conv [-o OUT.qt] [--tid TID] [INPUT.itr]   (INPUT "-" = stdin)
 *   qtrace-conv --dump FILE.qt
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conv.h"
#include "itrace.h"
#include "qtrace.h"

int qtrace_dump(const char *path, int verbose);

static void usage(void)
{
	printf("usage: qtrace-conv [options] [INPUT]\n"
	       "       qtrace-conv --dump FILE.qt\n"
	       "\n"
	       "Convert an instruction-level itrace of a POWER program (ppc64, ppc64le)\n"
	       "into qtrace, one file per thread.  INPUT is an itrace file, '-' or nothing\n"
	       "for stdin (itrace-fill in.itr | qtrace-conv -o out.qt).\n"
	       "\n"
	       "  -o FILE      output ('-' = stdout, the default when not a terminal);\n"
	       "               with several threads FILE.qt becomes FILE.TID.qt; files\n"
	       "               are replaced only once complete\n"
	       "  --no-clobber never replace an existing output file\n"
	       "  --tid TID    convert only thread TID\n"
	       "  --dump FILE  print the records of qtrace file FILE\n"
	       "  -q           no progress, no summary\n"
	       "  -v           more output (--dump: also the record offsets)\n"
	       "  --help       this text\n"
	       "  --version    print the version\n");
}

struct args {
	const char *input;
	const char *output;
	const char *dump;
	int has_tid;
	uint32_t tid;
	int quiet, verbose;
};

static void parse_args(int argc, char **argv, struct args *a)
{
	enum { OPT_TID = 256, OPT_DUMP, OPT_HELP, OPT_VERSION, OPT_NO_CLOBBER };
	static const struct option longopts[] = {
		{"no-clobber", no_argument, NULL, OPT_NO_CLOBBER},
		{"tid", required_argument, NULL, OPT_TID},
		{"dump", required_argument, NULL, OPT_DUMP},
		{"help", no_argument, NULL, OPT_HELP},
		{"version", no_argument, NULL, OPT_VERSION},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int ch;

	memset(a, 0, sizeof(*a));
	while ((ch = getopt_long(argc, argv, "o:qv", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			a->output = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'v':
			a->verbose++;
			break;
		case OPT_TID:
			if (cli_parse_u64(optarg, &v) < 0 || v > UINT32_MAX)
				cli_usage_error("--tid needs a thread id, not '%s'", optarg);
			a->has_tid = 1;
			a->tid = (uint32_t)v;
			break;
		case OPT_DUMP:
			a->dump = optarg;
			break;
		case OPT_NO_CLOBBER:
			cli_set_no_clobber(1);
			break;
		case OPT_HELP:
			usage();
			exit(0);
		case OPT_VERSION:
			printf("qtrace-conv %s\n", itrace_version());
			exit(0);
		default:
			cli_usage_error("unknown option");
		}
	}
	if (optind < argc)
		a->input = argv[optind++];
	if (optind < argc)
		cli_usage_error("one input only, got '%s' too", argv[optind]);
	if (a->dump && (a->input || a->output || a->has_tid))
		cli_usage_error("--dump takes the qtrace file only");
	if (!a->input)
		a->input = "-";
}

static const char *input_name(const char *input)
{
	return strcmp(input, "-") == 0 ? "stdin" : input;
}

/* check_header - refuse what qtrace cannot hold, with the way out. */
static int check_header(const struct args *a, const struct itrace_header *h)
{
	const char *name = input_name(a->input);

	if (!conv_isa_for_machine(h->machine)) {
		cli_error("'%s' is a%s %s trace: qtrace carries only fixed 32-bit POWER "
			  "instruction words; run pipeline-sim on the itrace file directly "
			  "(pipeline-sim %s)",
			  name, h->machine == EM_X86_64 ? "n" : "", conv_machine_name(h->machine),
			  strcmp(a->input, "-") == 0 ? "TRACE.itr" : a->input);
		return -1;
	}
	if (h->level != ITRACE_LEVEL_INSN) {
		cli_error("'%s' is a branch-level trace: qtrace needs every instruction; "
			  "fill it first (itrace-fill %s | qtrace-conv -o OUT.qt)",
			  name, strcmp(a->input, "-") == 0 ? "TRACE.itr" : a->input);
		return -1;
	}
	return 0;
}

/* report_read_error - damage met while reading; returns 1 if reading can
 * go on (the reader resynchronises after a corrupt chunk). */
static int report_read_error(const struct args *a, struct itrace_reader *r, int rc)
{
	const char *name = input_name(a->input);

	if (rc == -ITRACE_E_NOFOOTER)
		cli_error("'%s' ends without a footer (the collector was killed); converted "
			  "every complete record", name);
	else if (rc == -ITRACE_E_CORRUPT)
		cli_error("'%s': %s; skipped to the next intact chunk", name, itrace_reader_error(r));
	else
		cli_error("'%s': %s; converted every complete record before it", name,
			  itrace_reader_error(r)[0] ? itrace_reader_error(r) : cli_errstr(rc));
	return rc == -ITRACE_E_CORRUPT;
}

static void print_summary(const struct args *a, const struct conv_stats *st)
{
	if (st->dropped)
		cli_warn("%llu instructions left out: word 0 or a lone prefix word cannot be "
			 "represented in qtrace (the successor carries its address)",
			 (unsigned long long)st->dropped);
	if (a->quiet)
		return;
	if (a->verbose || st->threads > 1)
		fprintf(stderr, "%s: %llu instructions in %llu file%s\n", cli_progname(),
			(unsigned long long)st->insns, (unsigned long long)st->threads,
			st->threads == 1 ? "" : "s");
	if (a->verbose && st->extra_mem)
		fprintf(stderr, "%s: %llu extra memory accesses not kept (qtrace has one data "
			"address per instruction)\n", cli_progname(),
			(unsigned long long)st->extra_mem);
}

/*
 * convert_records - the record loop.  Returns 0; 1 for damaged input (every
 * intact record converted, the damage reported); -1 when the conversion
 * itself failed (message printed): its output must not be kept.
 */
static int convert_records(const struct args *a, struct itrace_reader *r, struct conv *c)
{
	struct itrace_record rec;
	struct cli_progress prog;
	uint64_t n = 0;
	int rc, damaged = 0;

	cli_progress_init(&prog, "records", 0, a->quiet);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF) {
		if (rc < 0) {
			damaged = 1;
			if (!report_read_error(a, r, rc))
				break;
			continue;
		}
		if (conv_record(c, &rec) < 0) {
			cli_progress_end(&prog);
			if (*conv_error(c))
				cli_error("%s", conv_error(c));
			return -1;
		}
		if ((++n & 0xffff) == 0)
			cli_progress(&prog, n);
	}
	cli_progress_end(&prog);
	return damaged;
}

static int convert(const struct args *a)
{
	struct conv_options co = {.source = input_name(a->input), .has_tid = a->has_tid,
				  .tid = a->tid};
	struct itrace_reader *r;
	struct conv_stats st;
	struct conv *c;
	int rc, status;

	co.output = cli_output_path(a->output, 1);
	if (!co.output)
		return CLI_EXIT_USAGE;
	rc = itrace_reader_open(a->input, &r);
	if (rc < 0) {
		cli_error("cannot read '%s': %s", input_name(a->input), cli_errstr(rc));
		return CLI_EXIT_BAD_INPUT;
	}
	if (check_header(a, itrace_reader_header(r)) < 0) {
		itrace_reader_close(r);
		return CLI_EXIT_BAD_INPUT;
	}
	rc = conv_open(&co, itrace_reader_header(r)->machine,
		       itrace_reader_header(r)->target_endian, &c);
	if (rc < 0) {
		cli_error("%s", itrace_errstr(rc));
		itrace_reader_close(r);
		return CLI_EXIT_BAD_INPUT;
	}
	rc = convert_records(a, r, c);
	status = rc ? CLI_EXIT_BAD_INPUT : 0;
	cli_warn_incomplete(r, a->input);
	if (conv_close(c, rc >= 0, &st) < 0) {
		if (*conv_error(c))
			cli_error("%s", conv_error(c));
		status = CLI_EXIT_BAD_INPUT;
	}
	print_summary(a, &st);
	conv_free(c);
	itrace_reader_close(r);
	return status;
}

int main(int argc, char **argv)
{
	struct args a;

	cli_init(argv[0]);
	parse_args(argc, argv, &a);
	if (a.dump)
		return qtrace_dump(a.dump, a.verbose);
	return convert(&a);
}
