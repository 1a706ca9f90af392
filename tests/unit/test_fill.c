/*
 * test_fill.c - the filler against a single-step oracle.
 *
 * fill_loop (a static program: loop, calls, indirect call, jump table,
 * rep movsb, syscalls) is single-stepped once; its branch trace is written
 * with the writer API in several styles, filled, and the instruction
 * addresses compared with the stepped ones.  Damaged variants check the
 * GAP records.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf_testutil.h"
#include "fill_stepper.h"
#include "fill_testutil.h"
#include "itrace_format.h"

static char prog[PATH_MAX];
static struct steps oracle;
static struct itrace_decoder *dec;

/* What a fill produced. */
struct collected {
	uint64_t *addrs;
	size_t n, cap;
	struct itrace_gap gaps[16];
	size_t ngaps;
	size_t switches, others;
};

static int collect(void *arg, const struct itrace_record *rec)
{
	struct collected *c = arg;

	if (rec->type == ITRACE_REC_INSN) {
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 1024;
			c->addrs = realloc(c->addrs, c->cap * sizeof(*c->addrs));
		}
		c->addrs[c->n++] = rec->u.insn.addr;
	} else if (rec->type == ITRACE_REC_GAP) {
		if (c->ngaps < 16)
			c->gaps[c->ngaps] = rec->u.gap;
		c->ngaps++;
	} else if (rec->type == ITRACE_REC_THREAD) {
		c->switches++;
	} else {
		c->others++;
	}
	return 0;
}

struct trace_opts {
	enum trace_style style;
	int no_start;	     /* leave out the TRACE_CTL with the start address */
	int bad_buildid;     /* MMAP record with a wrong build-id */
	int no_mmap;	     /* no MMAP record at all */
	int code_instead;    /* [vdso]-like: bytes only through a CODE record */
	uint64_t bad_byte_at; /* with code_instead: 06 (no 64-bit instruction) there */
	size_t lost_after;   /* LOST record after this many branches (0: none) */
	uint64_t bogus_from; /* one extra branch from an address never reached */
	int chunks;	     /* write the branches in this many chunks */
};

static char *trace_path(void)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/itrace-test-fill-%d.itr", (int)getpid());
	return path;
}

static void write_mmap(struct itrace_writer *w, const struct trace_opts *t)
{
	struct itrace_record rec = { .type = ITRACE_REC_MMAP };

	assert_int_equal(test_text_mmap(prog, "_start", 0x1000, &rec.u.mmap), 0);
	rec.u.mmap.pid = (uint32_t)oracle.pid;
	if (t->bad_buildid)
		rec.u.mmap.buildid[3] ^= 0x5a;
	if (t->code_instead) {
		static uint8_t page[0x1000];
		FILE *fp = fopen(prog, "rb");

		assert_non_null(fp);
		assert_int_equal(fseek(fp, (long)rec.u.mmap.pgoff, SEEK_SET), 0);
		assert_int_equal(fread(page, 1, sizeof(page), fp) > 0, 1);
		fclose(fp);
		if (t->bad_byte_at)
			page[t->bad_byte_at - rec.u.mmap.start] = 0x06;
		rec.u.mmap.path = "[vdso]";
		rec.u.mmap.path_len = 6;
		rec.u.mmap.buildid_len = 0;
		assert_int_equal(itrace_writer_write(w, &rec), 0);
		rec.type = ITRACE_REC_CODE;
		rec.u.code = (struct itrace_code){ rec.u.mmap.start, page, sizeof(page) };
	}
	assert_int_equal(itrace_writer_write(w, &rec), 0);
}

/* Write the branch trace of the oracle run in style t. */
static void make_trace(const struct trace_opts *t)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_record rec = { .type = ITRACE_REC_THREAD };
	struct steps part = oracle;

	itrace_writer_options_init(&o);
	o.level = ITRACE_LEVEL_BRANCH;
	o.flags = t->style == STYLE_TAKEN_ONLY ? ITRACE_FF_TAKEN_ONLY : 0;
	o.chunk_bytes = 256; /* many chunks even for a small program */
	assert_int_equal(itrace_writer_open(trace_path(), &o, &w), 0);
	rec.u.thread.event = ITRACE_THREAD_SWITCH;
	rec.u.thread.tid = rec.u.thread.pid = (uint32_t)oracle.pid;
	assert_int_equal(itrace_writer_write(w, &rec), 0);
	if (!t->no_mmap)
		write_mmap(w, t);
	if (!t->no_start) {
		rec.type = ITRACE_REC_TRACE_CTL;
		rec.u.ctl = (struct itrace_trace_ctl){ .on = 1, .reason = ITRACE_CTL_START, .addr = oracle.v[0].addr };
		assert_int_equal(itrace_writer_write(w, &rec), 0);
	}
	if (t->lost_after) {
		/* Branches up to a point, LOST, then the rest. */
		struct steps tail = oracle;
		size_t cut = 0, branches = 0;

		for (; cut < oracle.n && branches < t->lost_after; cut++) {
			struct itrace_decoded di;

			itrace_decoder_decode(dec, oracle.v[cut].bytes, 16, oracle.v[cut].addr, &di);
			if (di.kind != ITRACE_INSN_NOT_BRANCH && di.kind != ITRACE_BRANCH_SYSCALL)
				branches++;
		}
		part.n = cut;
		assert_int_equal(write_branches(w, dec, &part, t->style), 0);
		rec.type = ITRACE_REC_LOST;
		rec.u.lost = (struct itrace_lost){ ITRACE_LOST_OVERFLOW, ITRACE_UNIT_BRANCHES, 3 };
		assert_int_equal(itrace_writer_write(w, &rec), 0);
		tail.v += cut + 6;
		tail.n -= cut + 6;
		assert_int_equal(write_branches(w, dec, &tail, t->style), 0);
	} else if (t->chunks) {
		/* The same branches in t->chunks chunks: split at non-syscall steps. */
		size_t from = 0;

		for (int k = 1; k <= t->chunks; k++) {
			size_t to = k == t->chunks ? oracle.n - 1 : oracle.n * k / t->chunks;

			while (to < oracle.n - 1 && oracle.v[to].bytes[0] == 0x0f && oracle.v[to].bytes[1] == 0x05)
				to++;
			part = oracle;
			part.v = oracle.v + from;
			part.n = to - from + 1;
			assert_int_equal(write_branches(w, dec, &part, t->style), 0);
			assert_int_equal(itrace_writer_flush(w), 0);
			from = to;
		}
	} else {
		assert_int_equal(write_branches(w, dec, &oracle, t->style), 0);
	}
	if (t->bogus_from)
		assert_int_equal(itrace_writer_branch(w, t->bogus_from, oracle.v[0].addr,
						     ITRACE_BRANCH_UNCOND, ITRACE_BRANCH_TAKEN), 0);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
}

static int run_fill(unsigned flags, unsigned jobs, struct collected *c, struct itrace_fill_stats *st)
{
	struct itrace_fill_options o;
	struct itrace_filler *f;
	struct itrace_reader *r;
	int rc;

	memset(c, 0, sizeof(*c));
	itrace_fill_options_init(&o);
	o.flags = flags;
	o.jobs = jobs;
	assert_int_equal(itrace_filler_alloc(&o, &f), 0);
	assert_int_equal(itrace_reader_open(trace_path(), &r), 0);
	rc = itrace_filler_run(f, r, trace_path(), collect, c);
	if (st)
		*st = *itrace_filler_stats(f);
	itrace_reader_close(r);
	itrace_filler_free(f);
	return rc;
}

static void assert_no_gaps(const struct collected *c)
{
	if (c->ngaps)
		fail_msg("%zu gaps, first: %s at %#llx", c->ngaps, itrace_gap_reason_name(c->gaps[0].reason),
			 (unsigned long long)c->gaps[0].addr);
}

static void assert_matches_oracle(const struct collected *c, size_t from)
{
	assert_int_equal(c->n, oracle.n - from);
	for (size_t i = 0; i < c->n; i++)
		if (c->addrs[i] != oracle.v[from + i].addr)
			fail_msg("instruction %zu: filled %#llx, stepped %#llx", i,
				 (unsigned long long)c->addrs[i],
				 (unsigned long long)oracle.v[from + i].addr);
}

static void test_full_trace_matches_steps(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL };
	struct itrace_fill_stats st;
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, &st), 0);
	assert_no_gaps(&c);
	assert_matches_oracle(&c, 0);
	/* The loop body is decoded once and reused on later iterations. */
	assert_true(st.blocks_reused > 0);
	assert_true(st.blocks_decoded < st.branches);
	free(c.addrs);
}

static void test_taken_only_matches_steps(void **state)
{
	struct trace_opts t = { .style = STYLE_TAKEN_ONLY };
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, NULL), 0);
	assert_no_gaps(&c);
	assert_matches_oracle(&c, 0);
	free(c.addrs);
}

/* The naive fill (no cache) and the parallel fill give the same output. */
static void test_naive_and_parallel_agree(void **state)
{
	struct trace_opts t = { .style = STYLE_TAKEN_ONLY };
	struct itrace_fill_stats st;
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(ITRACE_FILL_NO_CACHE, 1, &c, &st), 0);
	assert_matches_oracle(&c, 0);
	assert_int_equal(st.blocks_reused, 0);
	assert_int_equal(st.blocks_decoded, c.n); /* one capstone call per instruction */
	free(c.addrs);
	assert_int_equal(run_fill(0, 3, &c, NULL), 0);
	assert_matches_oracle(&c, 0);
	free(c.addrs);
}

/* Code only known from a CODE record ([vdso], JIT). */
static void test_code_record(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .code_instead = 1 };
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, NULL), 0);
	assert_no_gaps(&c);
	assert_matches_oracle(&c, 0);
	free(c.addrs);
}

/* Bytes that do not decode: a GAP naming their address, and the walk
 * resumes at the next branch; nothing is invented. */
static void test_undecodable_gap(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .code_instead = 1, .bad_byte_at = oracle.v[0].addr };
	struct itrace_fill_stats st;
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, &st), 0);
	assert_int_equal(c.ngaps, 1);
	assert_int_equal(c.gaps[0].reason, ITRACE_GAP_UNDECODABLE);
	assert_int_equal(c.gaps[0].addr, oracle.v[0].addr);
	assert_int_equal(st.gap_reason[ITRACE_GAP_UNDECODABLE], 1);
	for (size_t i = 0; i < c.n; i++)
		assert_true(c.addrs[i] != oracle.v[0].addr);
	assert_true(c.n > 0 && c.addrs[c.n - 1] == oracle.v[oracle.n - 1].addr);
	free(c.addrs);
}

/* Index of the first executed branch instruction in the oracle run. */
static size_t first_branch_index(void)
{
	for (size_t i = 0; i < oracle.n; i++) {
		struct itrace_decoded di;

		assert_int_equal(itrace_decoder_decode(dec, oracle.v[i].bytes, 16, oracle.v[i].addr, &di), 0);
		if (di.kind != ITRACE_INSN_NOT_BRANCH)
			return i;
	}
	fail_msg("no branch in the oracle run");
	return 0;
}

/* Without a start address, the first branch starts with a GAP. */
static void test_unknown_start(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .no_start = 1 };
	struct collected c;
	size_t first = first_branch_index();

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, NULL), 0);
	assert_int_equal(c.ngaps, 1);
	assert_int_equal(c.gaps[0].reason, ITRACE_GAP_TRACE_OFF);
	assert_int_equal(c.gaps[0].resume, oracle.v[first + 1].addr);
	assert_matches_oracle(&c, first + 1);
	free(c.addrs);
}

static void test_buildid_mismatch_gap(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .bad_buildid = 1 };
	struct itrace_fill_stats st;
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, &st), 0);
	assert_int_equal(c.n, 0);
	assert_true(c.ngaps > 0);
	assert_int_equal(c.gaps[0].reason, ITRACE_GAP_BUILDID);
	assert_int_equal(c.gaps[0].addr, oracle.v[0].addr);
	assert_int_equal(st.gap_reason[ITRACE_GAP_BUILDID], st.gaps);
	free(c.addrs);
}

static void test_no_mapping_gap(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .no_mmap = 1 };
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, NULL), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.gaps[0].reason, ITRACE_GAP_NO_MAPPING);
	free(c.addrs);
}

/* LOST in the input: a GAP, then the fill resumes at the next branch. */
static void test_lost_input_resyncs(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .lost_after = 2 };
	struct collected c;

	(void)state;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, NULL), 0);
	assert_int_equal(c.ngaps, 1);
	assert_int_equal(c.gaps[0].reason, ITRACE_GAP_LOST_INPUT);
	assert_int_equal(c.gaps[0].count, 3);
	/* The last instructions after the resync are the oracle's. */
	assert_true(c.n > 10 && c.n < oracle.n);
	for (size_t i = 1; i <= 10; i++)
		assert_int_equal(c.addrs[c.n - i], oracle.v[oracle.n - i].addr);
	free(c.addrs);
}

/* A branch whose source the walk never meets. */
static void test_branch_not_reached(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .no_start = 0 };
	struct itrace_elf_symbol hlt;
	struct collected c;

	(void)state;
	/* After the exit syscall the walk meets hlt, func's add and ret: ret is
	 * not the recorded source (func2), so the walk cannot go on. */
	assert_int_equal(itrace_elf_find_symbol(prog, "func2", &hlt), 0);
	t.bogus_from = hlt.vaddr;
	make_trace(&t);
	assert_int_equal(run_fill(0, 1, &c, NULL), 0);
	assert_int_equal(c.ngaps, 1);
	assert_int_equal(c.gaps[0].reason, ITRACE_GAP_BRANCH_NOT_REACHED);
	free(c.addrs);
}

/* Every output record, flattened for comparison (pointers dropped). */
struct flat {
	struct itrace_record *v;
	size_t n, cap;
};

static int flatten(void *arg, const struct itrace_record *rec)
{
	struct flat *f = arg;
	struct itrace_record r;

	memset(&r, 0, sizeof(r));
	r.type = rec->type;
	r.u = rec->u;
	if (rec->type == ITRACE_REC_MMAP)
		r.u.mmap.path = NULL;
	else if (rec->type == ITRACE_REC_CODE)
		r.u.code.bytes = NULL;
	else if (rec->type == ITRACE_REC_THREAD)
		r.u.thread.name = NULL;
	else if (rec->type == ITRACE_REC_PROCESS)
		r.u.process.name = NULL;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 1024;
		f->v = realloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->n++] = r;
	return 0;
}

/* Fill the trace with options o into f; *st (unless NULL) gets the
 * filler's statistics. */
static void fill_flat_with(const struct itrace_fill_options *o, struct flat *f,
			   struct itrace_fill_stats *st)
{
	struct itrace_filler *fl;
	struct itrace_reader *r;

	memset(f, 0, sizeof(*f));
	assert_int_equal(itrace_filler_alloc(o, &fl), 0);
	assert_int_equal(itrace_reader_open(trace_path(), &r), 0);
	assert_int_equal(itrace_filler_run(fl, r, trace_path(), flatten, f), 0);
	if (st)
		*st = *itrace_filler_stats(fl);
	itrace_reader_close(r);
	itrace_filler_free(fl);
}

static void fill_flat(unsigned jobs, struct flat *f)
{
	struct itrace_fill_options o;

	itrace_fill_options_init(&o);
	o.jobs = jobs;
	fill_flat_with(&o, f, NULL);
}

/*
 * -j N against -j 1 on a trace whose thread state crosses many chunk
 * boundaries: three threads running the oracle's branches interleaved at
 * random, with syscalls left to walk lazily, LOST records, tracing turned
 * off and on, input gaps, signals and a thread created from another.
 */
/*
 * Three threads running the oracle's branches interleaved at random; with
 * `events`, also LOST, tracing off, input gaps, signals and a thread
 * created by another.  With far_off, the second thread runs in a second
 * mapping of the program that far above the first.
 */
static void make_threaded_trace_far(int events, uint64_t far_off)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_record rec;
	struct itrace_mmap m;
	size_t pos[3] = { 0, 0, 0 };
	uint32_t tids[3] = { 500, 501, 502 };
	unsigned seed = 12345;

	itrace_writer_options_init(&o);
	o.level = ITRACE_LEVEL_BRANCH;
	o.chunk_bytes = 256;
	assert_int_equal(itrace_writer_open(trace_path(), &o, &w), 0);
	assert_int_equal(test_text_mmap(prog, "_start", 0x1000, &m), 0);
	m.pid = 500;
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_MMAP;
	rec.u.mmap = m;
	assert_int_equal(itrace_writer_write(w, &rec), 0);
	if (far_off) {
		rec.u.mmap.start += far_off;
		assert_int_equal(itrace_writer_write(w, &rec), 0);
	}
	for (int round = 0; round < 400; round++) {
		uint64_t off;

		int t = (int)((seed = seed * 1103515245 + 12345) >> 16) % 3;
		int what = (int)((seed = seed * 1103515245 + 12345) >> 16) % 20 + (events ? 0 : 20);
		const struct step *st;
		struct itrace_decoded di;

		off = t == 1 ? far_off : 0;
		memset(&rec, 0, sizeof(rec));
		rec.type = ITRACE_REC_THREAD;
		rec.u.thread = (struct itrace_thread){ .event = ITRACE_THREAD_SWITCH, .tid = tids[t], .pid = 500 };
		assert_int_equal(itrace_writer_write(w, &rec), 0);
		if (pos[t] == 0 || pos[t] + 1 >= oracle.n) {
			if (events && t == 2 && round > 0) {
				rec.u.thread = (struct itrace_thread){ .event = ITRACE_THREAD_CREATE, .tid = tids[2],
								       .pid = 500, .other = tids[0] };
			} else {
				rec.type = ITRACE_REC_TRACE_CTL;
				rec.u.ctl = (struct itrace_trace_ctl){ .on = 1, .reason = ITRACE_CTL_START, .addr = oracle.v[0].addr + off };
			}
			assert_int_equal(itrace_writer_write(w, &rec), 0);
			pos[t] = 0;
		}
		memset(&rec, 0, sizeof(rec));
		if (what == 0) {
			rec.type = ITRACE_REC_LOST;
			rec.u.lost = (struct itrace_lost){ ITRACE_LOST_OVERFLOW, ITRACE_UNIT_BRANCHES, 2 };
		} else if (what == 1) {
			rec.type = ITRACE_REC_TRACE_CTL;
			rec.u.ctl = (struct itrace_trace_ctl){ .on = 0, .reason = ITRACE_CTL_SCOPE, .addr = oracle.v[pos[t]].addr + off };
		} else if (what == 2) {
			rec.type = ITRACE_REC_GAP;
			rec.u.gap = (struct itrace_gap){ ITRACE_GAP_TRACE_OFF, 0, oracle.v[pos[t]].addr + off, 0 };
		} else if (what == 3) {
			rec.type = ITRACE_REC_SIGNAL;
			rec.u.signal = (struct itrace_signal){ 10, 0, 0, oracle.v[pos[t]].addr + off, 0 };
		} else if (what == 4) {
			/* a chunk's output encoded apart must start from this time */
			rec.type = ITRACE_REC_TIMESTAMP;
			rec.time_ns = 1000000 + 977 * (uint64_t)round;
		}
		if (rec.type)
			assert_int_equal(itrace_writer_write(w, &rec), 0);
		/* Then this thread's next few steps, as a full-style trace. */
		for (int k = 0; k < 4 && pos[t] + 1 < oracle.n; k++, pos[t]++) {
			st = &oracle.v[pos[t]];
			assert_int_equal(itrace_decoder_decode(dec, st->bytes, 16, st->addr, &di), 0);
			if (di.kind == ITRACE_BRANCH_SYSCALL) {
				memset(&rec, 0, sizeof(rec));
				rec.type = ITRACE_REC_SYSCALL;
				rec.u.syscall.dir = ITRACE_SYSCALL_ENTER;
				assert_int_equal(itrace_writer_write(w, &rec), 0);
			} else if (di.kind != ITRACE_INSN_NOT_BRANCH) {
				assert_int_equal(itrace_writer_branch(w, st->addr + off, oracle.v[pos[t] + 1].addr + off,
								     di.kind, ITRACE_BRANCH_TAKEN), 0);
			}
		}
	}
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
}

static void make_threaded_trace(int events)
{
	make_threaded_trace_far(events, 0);
}

/* Fill the trace with -j 1 and -j 3: the same records. */
static void check_parallel_equals_sequential(void)
{
	struct flat one, many;

	fill_flat(1, &one);
	fill_flat(3, &many);
	assert_true(one.n > 1000);
	assert_int_equal(many.n, one.n);
	for (size_t i = 0; i < one.n; i++)
		if (memcmp(&one.v[i], &many.v[i], sizeof(one.v[i])) != 0)
			fail_msg("record %zu differs: %s vs %s", i, itrace_rec_type_name(one.v[i].type),
				 itrace_rec_type_name(many.v[i].type));
	free(one.v);
	free(many.v);
}

static void test_parallel_equals_sequential(void **state)
{
	(void)state;
	make_threaded_trace(1);
	check_parallel_equals_sequential();
}

/* Threads far apart: a branch is not within 32 KB of the branch before it
 * (another thread's), which the compact records between read and fill
 * keep aside. */
static void test_parallel_far_threads(void **state)
{
	(void)state;
	make_threaded_trace_far(1, 0x100000);
	check_parallel_equals_sequential();
	make_threaded_trace_far(0, (uint64_t)1 << 40);
	check_parallel_equals_sequential();
}

struct progress_seen {
	pthread_t caller;
	int off_thread;		/* a call on another thread */
	uint64_t calls, last, backwards;
};

static void note_progress(void *arg, uint64_t records)
{
	struct progress_seen *s = arg;

	if (!pthread_equal(pthread_self(), s->caller))
		s->off_thread = 1;
	usleep(200); /* as slow as a terminal: the other threads go on */
	if (records < s->last)
		s->backwards++;
	s->last = records;
	s->calls++;
}

/* Fill the trace with options o into a file through the writer (workers
 * encode chunks); the filler's return code, its statistics in *st (unless
 * NULL). */
static int fill_file_with(const struct itrace_fill_options *o, size_t chunk_bytes, const char *out,
			  struct itrace_fill_stats *st)
{
	struct itrace_writer_options wo;
	struct itrace_filler *fl;
	struct itrace_reader *r;
	struct itrace_writer *w;
	struct itrace_meta meta[8];
	int rc;

	assert_int_equal(itrace_filler_alloc(o, &fl), 0);
	assert_int_equal(itrace_reader_open(trace_path(), &r), 0);
	assert_int_equal(itrace_fill_writer_options(r, o->flags, &wo, meta, 8), 0);
	wo.chunk_bytes = chunk_bytes;
	assert_int_equal(itrace_writer_open(out, &wo, &w), 0);
	rc = itrace_filler_run(fl, r, trace_path(), itrace_fill_output_writer, w);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	if (st)
		*st = *itrace_filler_stats(fl);
	itrace_reader_close(r);
	itrace_filler_free(fl);
	return rc;
}

static int fill_file_rc(unsigned jobs, unsigned flags, size_t chunk_bytes, const char *out)
{
	struct itrace_fill_options o;

	itrace_fill_options_init(&o);
	o.jobs = jobs;
	o.flags = flags;
	return fill_file_with(&o, chunk_bytes, out, NULL);
}

static void fill_file(unsigned jobs, unsigned flags, size_t chunk_bytes, const char *out)
{
	assert_int_equal(fill_file_rc(jobs, flags, chunk_bytes, out), 0);
}

/*
 * -j N calls the progress function on the caller's thread only, counting
 * up to every record read, for output functions of the caller's and for
 * a writer, whose chunks any thread splices; the call drops the
 * pipeline's lock, which once let the end of the pipeline, reached by
 * another thread meanwhile, go unnoticed: the fill hung.
 */
static void test_parallel_progress(void **state)
{
	struct itrace_fill_options o;
	struct itrace_fill_stats st;
	struct progress_seen seen;
	struct flat f;
	char out[256];
	uint64_t calls = 0;
	const int rounds = 16;

	(void)state;
	snprintf(out, sizeof(out), "%s.out", trace_path());
	make_threaded_trace(1);
	for (int round = 0; round < rounds; round++) {
		memset(&seen, 0, sizeof(seen));
		seen.caller = pthread_self();
		itrace_fill_options_init(&o);
		o.jobs = 3;
		o.progress = note_progress;
		o.progress_arg = &seen;
		if (round % 2) {
			assert_int_equal(fill_file_with(&o, 1 << 20, out, &st), 0);
		} else {
			fill_flat_with(&o, &f, &st);
			free(f.v);
		}
		assert_false(seen.off_thread);
		assert_int_equal(seen.backwards, 0);
		assert_true(seen.calls >= 1);
		assert_int_equal(seen.last, st.records_in);
		calls += seen.calls;
	}
	/* Progress came during the fills, not only at their ends.  Per round
	 * this depends on the scheduler (on a loaded machine the other
	 * threads may do every step while the caller waits), over all
	 * rounds it does not. */
	assert_true(calls > (uint64_t)rounds);
	unlink(out);
}

/*
 * Into a file, -j N writes the bytes of -j 1: its workers encode whole
 * output chunks (several per input chunk with small output chunks), and
 * chunk headers, TIMESTAMP deltas, the index and the footer still agree.
 */
static void test_parallel_file_equals_sequential(void **state)
{
	static const size_t out_chunk[] = { 256, 1 << 20 };
	char one_path[80], many_path[80];

	(void)state;
	snprintf(one_path, sizeof(one_path), "%s.j1", trace_path());
	snprintf(many_path, sizeof(many_path), "%s.jn", trace_path());
	make_threaded_trace(1);
	for (size_t c = 0; c < 2; c++) {
		for (unsigned flags = 0; flags <= ITRACE_FILL_BYTES; flags += ITRACE_FILL_BYTES) {
			struct buf one, many;

			fill_file(1, flags, out_chunk[c], one_path);
			fill_file(c ? 2 : 3, flags, out_chunk[c], many_path);
			one = buf_from_path(one_path);
			many = buf_from_path(many_path);
			assert_true(one.len > 4096);
			assert_same_bytes(&one, &many);
			free(one.data);
			free(many.data);
		}
	}
	unlink(one_path);
	unlink(many_path);
}

static void corrupt_chunk(uint64_t k);
static void corrupt_chunk_at(uint64_t k, long delta);

/* Files filled with 1 and `jobs` workers: the same return, the same bytes. */
static void assert_fills_equal(unsigned jobs, int expect_rc)
{
	char one_path[80], many_path[80];
	struct buf one, many;

	snprintf(one_path, sizeof(one_path), "%s.j1", trace_path());
	snprintf(many_path, sizeof(many_path), "%s.jn", trace_path());
	assert_int_equal(fill_file_rc(1, 0, 1 << 20, one_path), expect_rc);
	assert_int_equal(fill_file_rc(jobs, 0, 1 << 20, many_path), expect_rc);
	one = buf_from_path(one_path);
	many = buf_from_path(many_path);
	assert_same_bytes(&one, &many);
	free(one.data);
	free(many.data);
	unlink(one_path);
	unlink(many_path);
}

/*
 * Damage stops the parallel pipeline at the damaged chunk and the rest is
 * filled sequentially: the file is still the one -j 1 writes.  A corrupt
 * payload early, in the middle and last, a corrupt header; a trace cut
 * short (no footer, so no parallel start at all).
 */
static void test_parallel_file_damage(void **state)
{
	struct itrace_reader *r;
	int64_t n;
	FILE *fp;
	long len;

	(void)state;
	make_threaded_trace(1);
	assert_int_equal(itrace_reader_open(trace_path(), &r), 0);
	n = itrace_reader_chunk_count(r);
	itrace_reader_close(r);
	assert_true(n > 10);
	for (int64_t k = 1; k < n; k += n / 3) {
		make_threaded_trace(1);
		corrupt_chunk((uint64_t)k);
		assert_fills_equal(3, -ITRACE_E_CORRUPT);
	}
	make_threaded_trace(1);
	corrupt_chunk((uint64_t)n - 1);
	assert_fills_equal(2, -ITRACE_E_CORRUPT);
	/* a damaged header: the reader resynchronises at the next chunk */
	make_threaded_trace(1);
	corrupt_chunk_at((uint64_t)n / 2, 1);
	assert_fills_equal(2, -ITRACE_E_CORRUPT);
	make_threaded_trace(1);
	fp = fopen(trace_path(), "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = ftell(fp);
	fclose(fp);
	assert_int_equal(truncate(trace_path(), len * 2 / 3), 0);
	assert_fills_equal(2, -ITRACE_E_TRUNCATED);
}

/* Flip a payload byte of chunk k of the trace file. */
static void corrupt_chunk(uint64_t k)
{
	corrupt_chunk_at(k, 72 + 3);
}

/* Flip the byte `delta` bytes into chunk k (its header: < 72). */
static void corrupt_chunk_at(uint64_t k, long delta)
{
	struct itrace_chunk_info ci;
	struct itrace_reader *r;
	uint8_t b;
	FILE *fp;

	assert_int_equal(itrace_reader_open(trace_path(), &r), 0);
	assert_int_equal(itrace_reader_chunk_info(r, k, &ci), 0);
	itrace_reader_close(r);
	fp = fopen(trace_path(), "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, (long)ci.offset + delta, SEEK_SET), 0);
	assert_int_equal(fread(&b, 1, 1, fp), 1);
	b ^= 0xff;
	assert_int_equal(fseek(fp, (long)ci.offset + delta, SEEK_SET), 0);
	assert_int_equal(fwrite(&b, 1, 1, fp), 1);
	fclose(fp);
}

/* A corrupt chunk in the middle: skipped, and no thread walks across it. */
static void test_corrupt_chunk_forgets_positions(void **state)
{
	struct trace_opts t = { .style = STYLE_FULL, .chunks = 4 };
	struct itrace_reader *r;
	struct itrace_fill_stats st;
	struct collected c;
	int64_t n;

	(void)state;
	/* One thread: its branches after the lost chunk start afresh. */
	make_trace(&t);
	corrupt_chunk(1);
	assert_int_equal(run_fill(0, 1, &c, &st), -ITRACE_E_CORRUPT);
	assert_int_equal(st.gaps, 0); /* only the reader's GAP */
	assert_int_equal(c.ngaps, 1);
	assert_int_equal(c.gaps[0].reason, ITRACE_GAP_CORRUPT_CHUNK);
	assert_true(c.n > 10 && c.n < oracle.n);
	for (size_t i = 1; i <= 10; i++)
		assert_int_equal(c.addrs[c.n - i], oracle.v[oracle.n - i].addr);
	free(c.addrs);

	/* Three threads: none walks from where it was before the lost chunk. */
	make_threaded_trace(0);
	assert_int_equal(run_fill(0, 1, &c, &st), 0);
	assert_int_equal(st.gaps, 0);
	free(c.addrs);
	assert_int_equal(itrace_reader_open(trace_path(), &r), 0);
	n = itrace_reader_chunk_count(r);
	itrace_reader_close(r);
	assert_true(n > 10);
	for (int64_t k = 2; k < n - 1; k += n / 5) {
		make_threaded_trace(0);
		corrupt_chunk((uint64_t)k);
		assert_int_equal(run_fill(0, 1, &c, &st), -ITRACE_E_CORRUPT);
		if (st.gap_reason[ITRACE_GAP_BRANCH_NOT_REACHED])
			fail_msg("chunk %lld lost: a thread walked across it", (long long)k);
		free(c.addrs);
	}
}

static void test_refuses_insn_level(void **state)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_filler *f;
	struct itrace_reader *r;
	struct collected c = { 0 };

	(void)state;
	itrace_writer_options_init(&o);
	assert_int_equal(itrace_writer_open(trace_path(), &o, &w), 0);
	assert_int_equal(itrace_writer_insn(w, 0x1000, 1, NULL), 0);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	assert_int_equal(itrace_filler_alloc(NULL, &f), 0);
	assert_int_equal(itrace_reader_open(trace_path(), &r), 0);
	assert_int_equal(itrace_filler_run(f, r, NULL, collect, &c), -ITRACE_E_NOTSUP);
	assert_true(strlen(itrace_filler_error(f)) > 0);
	itrace_reader_close(r);
	itrace_filler_free(f);
	itrace_filler_free(NULL);
}

static void test_bad_options(void **state)
{
	struct itrace_fill_options o;
	struct itrace_filler *f;

	(void)state;
	itrace_fill_options_init(&o);
	o.jobs = 0;
	assert_int_equal(itrace_filler_alloc(&o, &f), -ITRACE_E_INVAL);
	assert_int_equal(itrace_filler_alloc(NULL, NULL), -ITRACE_E_INVAL);
}

static int setup(void **state)
{
	(void)state;
	test_prog_path("fill_loop", prog, sizeof(prog));
	if (itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &dec) < 0)
		return -1;
	return step_program(prog, 10000, &oracle);
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace_path());
	itrace_decoder_free(dec);
	free(oracle.v);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_trace_matches_steps),
		cmocka_unit_test(test_taken_only_matches_steps),
		cmocka_unit_test(test_naive_and_parallel_agree),
		cmocka_unit_test(test_code_record),
		cmocka_unit_test(test_undecodable_gap),
		cmocka_unit_test(test_unknown_start),
		cmocka_unit_test(test_buildid_mismatch_gap),
		cmocka_unit_test(test_no_mapping_gap),
		cmocka_unit_test(test_lost_input_resyncs),
		cmocka_unit_test(test_branch_not_reached),
		cmocka_unit_test(test_parallel_equals_sequential),
		cmocka_unit_test(test_parallel_far_threads),
		cmocka_unit_test(test_parallel_progress),
		cmocka_unit_test(test_parallel_file_equals_sequential),
		cmocka_unit_test(test_parallel_file_damage),
		cmocka_unit_test(test_corrupt_chunk_forgets_positions),
		cmocka_unit_test(test_refuses_insn_level),
		cmocka_unit_test(test_bad_options),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
