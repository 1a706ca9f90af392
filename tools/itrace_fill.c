/*
 * itrace-fill - turn a branch-level trace into an instruction-level one.
 *
 * A thin front end over libitrace's filler (itrace_filler_run): it opens the
 * input, writes the output as an itrace file or as a text listing, and
 * prints the gap summary.  All the work is in code/fill/.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "itrace.h"
#include "itrace_code.h"

struct args {
	const char *input;
	const char *output;
	const char *sysroot;
	const char *debug_dir;
	unsigned jobs;
	int text, symbols, bytes, naive, quiet, verbose;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: itrace-fill [options] [INPUT]\n"
		"Recover every instruction of a branch-level itrace (INPUT, '-' = stdin;\n"
		"without INPUT, stdin when it is not a terminal)\n"
		"by decoding the traced program's code between the recorded branches.\n"
		"\n"
		"  -o, --output FILE   write to FILE ('-' = stdout; the default when\n"
		"                      stdout is not a terminal), replaced only once\n"
		"                      complete\n"
		"      --no-clobber    never replace an existing FILE\n"
		"      --text          print a listing instead of an itrace file\n"
		"      --symbols       in the listing: symbol+offset and file:line\n"
		"      --bytes         store instruction bytes in the output trace\n"
		"      --sysroot DIR   look for mapped files under DIR\n"
		"      --debug-dir DIR build-id directory (default /usr/lib/debug)\n"
		"  -j, --jobs N        fill chunks with N threads (same output)\n"
		"      --naive         decode every executed instruction, no\n"
		"                      block cache (for benchmarks)\n"
		"  -q, --quiet         no progress, no summary\n"
		"  -v, --verbose       print totals as well as gaps\n"
		"      --help          this text\n"
		"      --version       print the version\n");
}

static void parse_args(int argc, char **argv, struct args *a)
{
	enum { O_TEXT = 256, O_SYMBOLS, O_BYTES, O_SYSROOT, O_DEBUG_DIR, O_NAIVE, O_HELP, O_VERSION,
	       O_NO_CLOBBER };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "text", no_argument, NULL, O_TEXT },
		{ "symbols", no_argument, NULL, O_SYMBOLS },
		{ "bytes", no_argument, NULL, O_BYTES },
		{ "sysroot", required_argument, NULL, O_SYSROOT },
		{ "debug-dir", required_argument, NULL, O_DEBUG_DIR },
		{ "jobs", required_argument, NULL, 'j' },
		{ "naive", no_argument, NULL, O_NAIVE },
		{ "no-clobber", no_argument, NULL, O_NO_CLOBBER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->jobs = 1;
	while ((c = getopt_long(argc, argv, "o:j:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': a->output = optarg; break;
		case O_TEXT: a->text = 1; break;
		case O_SYMBOLS: a->symbols = 1; break;
		case O_BYTES: a->bytes = 1; break;
		case O_SYSROOT: a->sysroot = optarg; break;
		case O_DEBUG_DIR: a->debug_dir = optarg; break;
		case O_NAIVE: a->naive = 1; break;
		case O_NO_CLOBBER: cli_set_no_clobber(1); break;
		case 'q': a->quiet = 1; break;
		case 'v': a->verbose = 1; break;
		case 'j':
			a->jobs = (unsigned)cli_parse_count("-j", optarg, 1, 256);
			break;
		case O_HELP: usage(stdout); exit(0);
		case O_VERSION: printf("itrace-fill %s\n", itrace_version()); exit(0);
		default: fprintf(stderr, "try 'itrace-fill --help' for usage\n"); exit(CLI_EXIT_USAGE);
		}
	}
	if (optind + 1 < argc)
		cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
	/* In a pipeline (collect -o - | itrace-fill | qtrace-conv) the input is stdin. */
	a->input = optind < argc ? argv[optind] : !isatty(STDIN_FILENO) ? "-" : NULL;
	if (!a->input)
		cli_usage_error("no input trace given");
	if (a->symbols && !a->text)
		cli_usage_error("--symbols only applies to --text");
}

/* ---- Text listing ---------------------------------------------------- */

struct listing {
	FILE *fp;
	int symbols;
	struct itrace_image *img;
	struct itrace_symbolizer *sym;
	struct itrace_decoder *dec;
	uint32_t tid, pid;
};

static void print_insn(struct listing *l, const struct itrace_insn *in)
{
	char text[160] = "?";
	struct itrace_symbol s;

	fprintf(l->fp, "%6u  %#14llx ", l->tid, (unsigned long long)in->addr);
	if (l->symbols) {
		char where[256] = "";

		if (itrace_symbolizer_lookup(l->sym, l->pid, in->addr, ITRACE_SYM_NAME | ITRACE_SYM_LINE, &s) == 0 &&
		    s.name)
			snprintf(where, sizeof(where), "%s+0x%llx", s.name, (unsigned long long)s.offset);
		else
			s.file = NULL;
		fprintf(l->fp, " %-28s", where);
	}
	fputc(' ', l->fp);
	for (unsigned i = 0; i < 10; i++) {
		if (in->has_bytes && i < in->len)
			fprintf(l->fp, "%02x ", in->bytes[i]);
		else
			fputs("   ", l->fp);
	}
	if (in->has_bytes)
		itrace_decoder_text(l->dec, in->bytes, in->len, in->addr, text, sizeof(text));
	fprintf(l->fp, " %s", text);
	if (l->symbols && s.file) {
		const char *base = strrchr(s.file, '/');

		fprintf(l->fp, "  ; %s:%d", base ? base + 1 : s.file, s.line);
	}
	fputc('\n', l->fp);
}

static void print_context(struct listing *l, const struct itrace_record *rec)
{
	fprintf(l->fp, "%6u  %-14s", rec->tid, itrace_rec_type_name(rec->type));
	switch (rec->type) {
	case ITRACE_REC_GAP:
		fprintf(l->fp, " %s at %#llx, resume at %#llx", itrace_gap_reason_name(rec->u.gap.reason),
			(unsigned long long)rec->u.gap.addr, (unsigned long long)rec->u.gap.resume);
		break;
	case ITRACE_REC_MMAP:
		fprintf(l->fp, " %#llx-%#llx %.*s", (unsigned long long)rec->u.mmap.start,
			(unsigned long long)(rec->u.mmap.start + rec->u.mmap.len),
			(int)rec->u.mmap.path_len, rec->u.mmap.path);
		break;
	case ITRACE_REC_SYSCALL:
		if (rec->u.syscall.dir == ITRACE_SYSCALL_ENTER)
			fprintf(l->fp, " enter %llu", (unsigned long long)rec->u.syscall.nr);
		else
			fprintf(l->fp, " exit %llu = %lld", (unsigned long long)rec->u.syscall.nr,
				(long long)rec->u.syscall.ret);
		break;
	case ITRACE_REC_SIGNAL:
		fprintf(l->fp, " %u at %#llx, handler %#llx", rec->u.signal.signo,
			(unsigned long long)rec->u.signal.pc, (unsigned long long)rec->u.signal.handler);
		break;
	case ITRACE_REC_THREAD:
		fprintf(l->fp, " event %u tid %u", rec->u.thread.event, rec->u.thread.tid);
		break;
	default:
		break;
	}
	fputc('\n', l->fp);
}

static int listing_output(void *arg, const struct itrace_record *rec)
{
	struct listing *l = arg;
	int rc;

	if (rec->type == ITRACE_REC_INSN) {
		print_insn(l, &rec->u.insn);
		return ferror(l->fp) ? -ITRACE_E_IO : 0;
	}
	if (rec->type == ITRACE_REC_THREAD && rec->u.thread.event == ITRACE_THREAD_SWITCH) {
		l->tid = rec->u.thread.tid;
		l->pid = rec->u.thread.pid;
	}
	rc = itrace_image_apply(l->img, rec);
	if (rc < 0)
		return rc;
	print_context(l, rec);
	return ferror(l->fp) ? -ITRACE_E_IO : 0;
}

static int listing_open(struct listing *l, const struct args *a, const struct itrace_header *h)
{
	struct itrace_image_options io;
	int rc;

	memset(l, 0, sizeof(*l));
	l->symbols = a->symbols;
	itrace_image_options_init(&io);
	io.sysroot = a->sysroot;
	io.debug_dir = a->debug_dir;
	rc = itrace_image_alloc(&io, &l->img);
	if (rc == 0)
		rc = itrace_symbolizer_alloc(l->img, &l->sym);
	if (rc == 0)
		rc = itrace_decoder_alloc(h->machine, h->target_endian, &l->dec);
	return rc;
}

static void listing_close(struct listing *l)
{
	itrace_decoder_free(l->dec);
	itrace_symbolizer_free(l->sym);
	itrace_image_free(l->img);
}

/* ---- Main ------------------------------------------------------------ */

static void show_progress(void *arg, uint64_t records)
{
	cli_progress(arg, records);
}

/* What to tell the user about each kind of gap. */
static const char *gap_advice(int reason)
{
	switch (reason) {
	case ITRACE_GAP_BUILDID:
		return "the file differs from the traced one (rebuilt?); give the original with --sysroot or --debug-dir";
	case ITRACE_GAP_NO_BINARY:
		return "mapped file not found; use --sysroot or --debug-dir";
	case ITRACE_GAP_NO_MAPPING:
		return "address outside every mapping of the trace";
	case ITRACE_GAP_UNDECODABLE:
		return "the bytes there are no valid instruction (code changed after it was mapped, "
		       "or the mapped file is not the traced one)";
	default:
		return NULL;
	}
}

static void print_summary(const struct args *a, struct itrace_filler *f)
{
	const struct itrace_fill_stats *st = itrace_filler_stats(f);

	if (a->quiet)
		return;
	if (a->verbose || st->gaps)
		fprintf(stderr,
			"%s: %llu instructions from %llu branches, %llu gaps (%llu blocks decoded, %llu reused)\n",
			cli_progname(), (unsigned long long)st->insns, (unsigned long long)st->branches,
			(unsigned long long)st->gaps, (unsigned long long)st->blocks_decoded,
			(unsigned long long)st->blocks_reused);
	for (int i = 1; i < 16; i++) {
		const char *mod = itrace_filler_gap_module(f, i), *advice = gap_advice(i);

		if (!st->gap_reason[i])
			continue;
		fprintf(stderr, "%s:   %llu gap%s: %s, first at %#llx%s%s%s\n", cli_progname(),
			(unsigned long long)st->gap_reason[i], st->gap_reason[i] > 1 ? "s" : "",
			itrace_gap_reason_name(i), (unsigned long long)st->first_gap_addr[i],
			mod ? " in '" : "", mod ? mod : "", mod ? "'" : "");
		if (advice)
			fprintf(stderr, "%s:     %s\n", cli_progname(), advice);
	}
	if (st->unknown_dropped)
		cli_warn("%llu records of unknown type not copied",
			 (unsigned long long)st->unknown_dropped);
}

/* Report how the fill ended; returns the exit status. */
static int report(const struct args *a, struct itrace_filler *f, int rc)
{
	print_summary(a, f);
	if (rc == 0)
		return 0;
	if (rc == -ITRACE_E_NOFOOTER) {
		if (!a->quiet)
			cli_warn("'%s' has no footer (its writer was killed); filled all of it",
				 a->input);
		return 0;
	}
	if (rc == -ITRACE_E_TRUNCATED || rc == -ITRACE_E_CORRUPT) {
		cli_error("'%s' is damaged (%s); everything before the damage was filled",
			  a->input, itrace_filler_error(f));
		return CLI_EXIT_BAD_INPUT;
	}
	cli_error("cannot fill '%s': %s", a->input,
		  *itrace_filler_error(f) ? itrace_filler_error(f) : itrace_errstr(rc));
	return CLI_EXIT_BAD_INPUT;
}

static int run_fill(const struct args *a, struct itrace_reader *r, itrace_fill_output_fn out,
		    void *arg, struct itrace_filler **fp)
{
	struct itrace_fill_options o;
	struct cli_progress prog;
	int rc;

	itrace_fill_options_init(&o);
	o.sysroot = a->sysroot;
	o.debug_dir = a->debug_dir;
	o.jobs = a->jobs;
	o.flags = (a->naive ? ITRACE_FILL_NO_CACHE : 0) | (a->bytes || a->text ? ITRACE_FILL_BYTES : 0);
	cli_progress_init(&prog, "records", 0, a->quiet);
	o.progress = show_progress;
	o.progress_arg = &prog;
	rc = itrace_filler_alloc(&o, fp);
	if (rc < 0)
		return rc;
	rc = itrace_filler_run(*fp, r, strcmp(a->input, "-") ? a->input : NULL, out, arg);
	cli_progress_end(&prog);
	return rc;
}

/* produced - the fill delivered what the input holds (damaged or not). */
static int produced(int rc)
{
	return rc == 0 || rc == -ITRACE_E_NOFOOTER || rc == -ITRACE_E_TRUNCATED ||
	       rc == -ITRACE_E_CORRUPT;
}

static int fill_to_text(const struct args *a, struct itrace_reader *r)
{
	struct itrace_filler *f = NULL;
	struct itrace_outfile *o;
	struct listing l;
	int rc, status;

	if (listing_open(&l, a, itrace_reader_header(r)) < 0) {
		cli_error("cannot decode the code of '%s': unsupported machine", a->input);
		listing_close(&l);
		return CLI_EXIT_BAD_INPUT;
	}
	l.fp = cli_output_fopen(a->output, &o);
	if (!l.fp) {
		listing_close(&l);
		return CLI_EXIT_BAD_INPUT;
	}
	rc = run_fill(a, r, listing_output, &l, &f);
	/* a write error is reported by cli_output_fclose(), with its errno */
	status = ferror(l.fp) ? CLI_EXIT_BAD_INPUT : f ? report(a, f, rc) : CLI_EXIT_BAD_INPUT;
	if (cli_output_fclose(l.fp, o, a->output, f && produced(rc)) < 0 && status == 0)
		status = CLI_EXIT_BAD_INPUT;
	itrace_filler_free(f);
	listing_close(&l);
	return status;
}

static int fill_to_trace(const struct args *a, struct itrace_reader *r)
{
	const struct itrace_header *h = itrace_reader_header(r);
	struct itrace_meta *meta = calloc(h->meta_count + 1, sizeof(*meta));
	struct itrace_writer_options wo;
	struct itrace_filler *f = NULL;
	struct itrace_writer *w;
	struct itrace_outfile *o;
	struct itrace_footer foot;
	const char *out = cli_output_path(a->output, 1);
	int rc, wrc, status;

	if (!out || !meta) {
		free(meta);
		return out ? CLI_EXIT_BAD_INPUT : CLI_EXIT_USAGE;
	}
	o = cli_output_create(out);
	if (!o) {
		free(meta);
		return CLI_EXIT_BAD_INPUT;
	}
	itrace_fill_writer_options(r, a->bytes ? ITRACE_FILL_BYTES : 0, &wo, meta, h->meta_count);
	rc = itrace_writer_open_fd(itrace_outfile_fd(o), &wo, &w);
	free(meta);
	if (rc < 0) {
		cli_error("cannot write '%s': %s", out, cli_errstr(rc));
		cli_output_finish(o, 0);
		return CLI_EXIT_BAD_INPUT;
	}
	rc = run_fill(a, r, itrace_fill_output_writer, w, &f);
	/* Closing first: a failed write (ENOSPC, EPIPE) is reported as such,
	 * with its errno, not as a failed fill. */
	if (itrace_reader_footer(r, &foot) == 0)
		wrc = itrace_writer_close(w, foot.end_reason, foot.end_status);
	else
		wrc = itrace_writer_close(w, ITRACE_END_UNKNOWN, 0);
	if (wrc < 0) {
		cli_error("cannot write '%s': %s", out, cli_errstr(wrc));
		status = CLI_EXIT_BAD_INPUT;
	} else {
		status = f ? report(a, f, rc) : CLI_EXIT_BAD_INPUT;
	}
	if (cli_output_finish(o, wrc == 0 && f && produced(rc)) < 0)
		status = CLI_EXIT_BAD_INPUT;
	itrace_filler_free(f);
	return status;
}

int main(int argc, char **argv)
{
	struct itrace_reader *r;
	struct args a;
	int status;

	cli_init(argv[0]);
	parse_args(argc, argv, &a);
	r = cli_open_trace(a.input);
	if (!r)
		return CLI_EXIT_BAD_INPUT;
	status = a.text ? fill_to_text(&a, r) : fill_to_trace(&a, r);
	cli_warn_incomplete(r, a.input);
	itrace_reader_close(r);
	return status;
}
