/*
 * itrace-dump - print an itrace file record by record, or summarise it.
 *
 * The listing is one line per record, "TID TYPE fields", addresses in hex,
 * so it can be diffed and grepped; golden tests compare it.  Damage is
 * reported git-style after every record that could still be read.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "itrace.h"

#define MAX_THREADS 4096

struct thread_count {
	uint32_t tid;
	uint64_t records, insns, branches;
};

struct summary {
	uint64_t per_type[128];
	uint64_t records, errors;
	struct thread_count threads[MAX_THREADS];
	size_t nthreads;
	int thread_overflow;
};

/* by=start#0, by=stop#1, by=return, by=for, by=every (ITRACE.md 6.5.12). */
static void print_ctl_trigger(const struct itrace_trace_ctl *c)
{
	static const char *const by[] = {"", "start", "stop", "return", "for", "every"};

	if (c->trigger < sizeof(by) / sizeof(by[0]))
		printf(" by=%s", by[c->trigger]);
	else
		printf(" by=%u", c->trigger);
	if (c->trigger == ITRACE_CTL_BY_START || c->trigger == ITRACE_CTL_BY_STOP)
		printf("#%u", c->index);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: itrace-dump [options] FILE\n"
		   "Print every record of an itrace file, one per line.\n\n"
		   "  -s, --summary   header, metadata, counts per record type and thread,\n"
		   "                  how the trace ended, bytes per record\n"
		   "  -H, --header    print the header and metadata before the records\n"
		   "  -n, --limit N   stop after N records\n"
		   "  -q, --quiet     no output, only the exit status (1 if damaged)\n"
		   "      --help, --version\n"
		   "FILE '-' reads standard input.\n");
}

/* end_name - the "ended:" words for a footer's end_reason (ITRACE.md
 * appendix A): the library's, "unknown" for reason 0 in a footer, and
 * "unknown (reason N)" for a reason of a later minor. */
static const char *end_name(int end, char *buf, size_t len)
{
	const char *n = itrace_end_reason_name(end);

	if (n)
		return n;
	if (end == ITRACE_END_UNKNOWN)
		return "unknown";
	snprintf(buf, len, "unknown (reason %d)", end);
	return buf;
}

static void print_bytes(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

static void print_string(const char *s, size_t n)
{
	putchar('\'');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || c == '\'' || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\'');
}

static void print_branch(const struct itrace_branch *b)
{
	printf("BRANCH 0x%" PRIx64 " -> 0x%" PRIx64 " %s %s", b->from, b->to,
	       itrace_branch_kind_name(b->kind),
	       b->flags & ITRACE_BRANCH_TAKEN ? "taken" : "not-taken");
	if (b->flags & ITRACE_BRANCH_PRED_KNOWN)
		printf(" %s", b->flags & ITRACE_BRANCH_PRED_CORRECT ? "predicted" : "mispredicted");
}

static void print_process(const struct itrace_process *p)
{
	printf("PROCESS %s pid=%u", itrace_process_event_name(p->event), p->pid);
	if (p->event == ITRACE_PROCESS_FORK)
		printf(" child=%" PRIu64, p->other);
	if (p->event == ITRACE_PROCESS_EXIT)
		printf(" status=%" PRId64, p->status);
	if (p->name) {
		putchar(' ');
		print_string(p->name, p->name_len);
	}
}

static void print_thread(const struct itrace_thread *t)
{
	printf("THREAD %s tid=%u pid=%u", itrace_thread_event_name(t->event), t->tid, t->pid);
	if (t->event == ITRACE_THREAD_CREATE)
		printf(" parent=%" PRIu64, t->other);
	if (t->event == ITRACE_THREAD_EXIT)
		printf(" status=%" PRIu64, t->other);
	if (t->name) {
		putchar(' ');
		print_string(t->name, t->name_len);
	}
}

static void print_syscall(const struct itrace_syscall *s)
{
	if (s->dir == ITRACE_SYSCALL_EXIT) {
		printf("SYSCALL exit nr=%" PRIu64 " ret=%" PRId64, s->nr, s->ret);
		return;
	}
	printf("SYSCALL enter nr=%" PRIu64, s->nr);
	for (unsigned i = 0; i < s->nargs; i++)
		printf("%s0x%" PRIx64, i ? "," : " args=", s->args[i]);
}

static void print_record(const struct itrace_record *r)
{
	printf("%u ", r->tid);
	switch (r->type) {
	case ITRACE_REC_BRANCH:
		print_branch(&r->u.branch);
		break;
	case ITRACE_REC_INSN:
		printf("INSN 0x%" PRIx64 " len=%u", r->u.insn.addr, r->u.insn.len);
		if (r->u.insn.has_bytes) {
			printf(" bytes=");
			print_bytes(r->u.insn.bytes, r->u.insn.len);
		}
		break;
	case ITRACE_REC_MEM:
		printf("MEM %s 0x%" PRIx64 " size=%" PRIu64,
		       r->u.mem.flags & ITRACE_MEM_STORE ? "store" : "load", r->u.mem.addr,
		       r->u.mem.size);
		break;
	case ITRACE_REC_MMAP:
		printf("MMAP pid=%u 0x%" PRIx64 "-0x%" PRIx64 " pgoff=0x%" PRIx64 " prot=%c%c%c",
		       r->u.mmap.pid, r->u.mmap.start, r->u.mmap.start + r->u.mmap.len,
		       r->u.mmap.pgoff, r->u.mmap.prot & 1 ? 'r' : '-',
		       r->u.mmap.prot & 2 ? 'w' : '-', r->u.mmap.prot & 4 ? 'x' : '-');
		if (r->u.mmap.buildid_len) {
			printf(" buildid=");
			print_bytes(r->u.mmap.buildid, r->u.mmap.buildid_len);
		}
		if (r->u.mmap.path) {
			putchar(' ');
			print_string(r->u.mmap.path, r->u.mmap.path_len);
		}
		break;
	case ITRACE_REC_CODE:
		printf("CODE 0x%" PRIx64 " len=%zu", r->u.code.addr, r->u.code.len);
		break;
	case ITRACE_REC_THREAD:
		print_thread(&r->u.thread);
		break;
	case ITRACE_REC_PROCESS:
		print_process(&r->u.process);
		break;
	case ITRACE_REC_SYSCALL:
		print_syscall(&r->u.syscall);
		break;
	case ITRACE_REC_SIGNAL:
		printf("SIGNAL signo=%u code=%d addr=0x%" PRIx64 " pc=0x%" PRIx64
		       " handler=0x%" PRIx64,
		       r->u.signal.signo, r->u.signal.code, r->u.signal.addr, r->u.signal.pc,
		       r->u.signal.handler);
		break;
	case ITRACE_REC_TIMESTAMP:
		printf("TIMESTAMP %" PRIu64, r->time_ns);
		break;
	case ITRACE_REC_TRACE_CTL:
		printf("TRACE_%s %s 0x%" PRIx64, r->u.ctl.on ? "ON" : "OFF",
		       itrace_ctl_reason_name(r->u.ctl.reason), r->u.ctl.addr);
		if (r->u.ctl.trigger)
			print_ctl_trigger(&r->u.ctl);
		break;
	case ITRACE_REC_LOST:
		printf("LOST %" PRIu64 " %s reason=%s", r->u.lost.count,
		       itrace_lost_unit_name(r->u.lost.unit),
		       itrace_lost_reason_name(r->u.lost.reason));
		break;
	case ITRACE_REC_GAP:
		printf("GAP reason=%s addr=0x%" PRIx64 " resume=0x%" PRIx64 " count=%" PRIu64,
		       itrace_gap_reason_name(r->u.gap.reason), r->u.gap.addr, r->u.gap.resume,
		       r->u.gap.count);
		break;
	default:
		printf("UNKNOWN type=%u", r->raw_type);
	}
	putchar('\n');
}

static void print_header(struct itrace_reader *rd)
{
	const struct itrace_header *h = itrace_reader_header(rd);
	const char *k, *v;

	printf("format: itrace %u.%u\n", h->major, h->minor);
	printf("features:");
	for (unsigned b = 0; b < 32; b++)
		if (h->incompat_features >> b & 1)
			printf(" %s", itrace_feature_name(b));
	printf("%s\n", h->incompat_features ? "" : " none");
	if (h->compat_features) /* none defined in 1.0: a newer writer's */
		printf("compat features: 0x%x (unknown to this reader, ignored)\n",
		       (unsigned)h->compat_features);
	printf("mem table: %u entries\n", 1u << h->mem_table_log2);
	printf("arch: %s (e_machine %u, %s-endian)\n", itrace_machine_name(h->machine, h->target_endian),
	       h->machine, h->target_endian == 1 ? "little" : "big");
	printf("level: %s\n", h->level == ITRACE_LEVEL_BRANCH ? "branch" : "insn");
	printf("flags: 0x%x\n", h->flags);
	for (size_t i = 0; itrace_reader_meta_at(rd, i, &k, &v) == 0; i++)
		printf("meta: %s=%s\n", k, v);
}

static void count_thread(struct summary *s, const struct itrace_record *r)
{
	size_t i;

	for (i = 0; i < s->nthreads && s->threads[i].tid != r->tid; i++)
		;
	if (i == s->nthreads) {
		if (i == MAX_THREADS) {
			s->thread_overflow = 1;
			return;
		}
		s->threads[s->nthreads++].tid = r->tid;
	}
	s->threads[i].records++;
	s->threads[i].insns += r->type == ITRACE_REC_INSN;
	s->threads[i].branches += r->type == ITRACE_REC_BRANCH;
}

/* "how: ..." in words, and "complete: yes" or "complete: no" (ITRACE.md
 * 7.4: a trace whose reading met damage is not complete). */
static void print_how_it_ended(const struct itrace_reader *rd, int damaged)
{
	struct itrace_footer f;
	const struct itrace_footer *fp = itrace_reader_footer(rd, &f) == 0 ? &f : NULL;
	char how[256];

	printf("how: %s\ncomplete: %s\n", itrace_footer_describe(fp, how, sizeof(how)),
	       itrace_footer_is_complete(fp) && !damaged ? "yes" : "no");
}

static void print_summary(struct itrace_reader *rd, const struct summary *s, const char *path)
{
	struct itrace_footer f;
	struct stat st;
	char why[64];
	uint64_t size = 0;
	uint64_t insns = s->per_type[ITRACE_REC_INSN], branches = s->per_type[ITRACE_REC_BRANCH];

	print_header(rd);
	if (strcmp(path, "-") && stat(path, &st) == 0)
		size = (uint64_t)st.st_size;
	printf("records: %" PRIu64 "\n", s->records);
	for (int t = 0; t < 128; t++)
		if (s->per_type[t])
			printf("  %-10s %" PRIu64 "\n", itrace_rec_type_name(t), s->per_type[t]);
	printf("threads: %zu%s\n", s->nthreads, s->thread_overflow ? " (more not counted)" : "");
	for (size_t i = 0; i < s->nthreads; i++)
		printf("  tid %u: %" PRIu64 " records, %" PRIu64 " insns, %" PRIu64 " branches\n",
		       s->threads[i].tid, s->threads[i].records, s->threads[i].insns,
		       s->threads[i].branches);
	if (itrace_reader_footer(rd, &f) == 0)
		printf("ended: %s, status %d\nchunks: %" PRIu64 "\n",
		       end_name(f.end_reason, why, sizeof(why)), f.end_status, f.chunk_count);
	else
		printf("ended: unknown (no footer)\n");
	print_how_it_ended(rd, s->errors != 0);
	if (size) {
		printf("file bytes: %" PRIu64 "\n", size);
		printf("bytes per record: %.3f\n", s->records ? (double)size / s->records : 0.0);
		if (insns)
			printf("bytes per insn: %.3f\n", (double)size / insns);
		if (branches)
			printf("bytes per branch: %.3f\n", (double)size / branches);
	}
	if (s->errors)
		printf("damage: %" PRIu64 " errors (see stderr)\n", s->errors);
}

struct options {
	int summary, header, quiet;
	uint64_t limit;
	const char *path;
};

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "summary", no_argument, NULL, 's' }, { "header", no_argument, NULL, 'H' },
		{ "limit", required_argument, NULL, 'n' }, { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },	   { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "sHn:q", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->summary = 1; break;
		case 'H': o->header = 1; break;
		case 'q': o->quiet = 1; break;
		case 'n':
			o->limit = cli_parse_count("-n", optarg, 0, UINT64_MAX);
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("itrace-dump %s\n", itrace_version()); exit(0);
		default: usage(stderr); exit(CLI_EXIT_USAGE);
		}
	}
	if (optind != argc - 1)
		cli_usage_error(optind == argc ? "no input file given" : "more than one input file");
	o->path = argv[optind];
}

int main(int argc, char **argv)
{
	struct options o;
	struct itrace_reader *rd;
	struct itrace_record rec;
	static struct summary s;
	int rc;

	cli_init(argv[0]);
	parse_args(argc, argv, &o);
	rd = cli_open_trace(o.path);
	if (!rd)
		return CLI_EXIT_BAD_INPUT;
	if (o.header && !o.summary && !o.quiet)
		print_header(rd);
	while (!o.limit || s.records < o.limit) {
		rc = itrace_reader_next(rd, &rec, sizeof(rec));
		if (rc == ITRACE_EOF)
			break;
		if (rc < 0) {
			s.errors++;
			cli_error("'%s': %s: %s", o.path, itrace_errstr(rc), itrace_reader_error(rd));
			continue; /* the reader resyncs or returns EOF next */
		}
		s.records++;
		s.per_type[rec.type < 128 ? rec.type : 127]++;
		if (o.summary)
			count_thread(&s, &rec);
		else if (!o.quiet)
			print_record(&rec);
	}
	if (o.summary && !o.quiet)
		print_summary(rd, &s, o.path);
	else if (rc == ITRACE_EOF)
		cli_warn_incomplete(rd, o.path); /* --summary says it in its "complete:" line */
	itrace_reader_close(rd);
	if (fflush(stdout) != 0) {
		cli_error("cannot write output: %s", strerror(errno));
		return CLI_EXIT_BAD_INPUT;
	}
	return s.errors ? CLI_EXIT_BAD_INPUT : 0;
}
