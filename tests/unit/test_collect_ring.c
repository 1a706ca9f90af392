/*
 * test_collect_ring.c - collectors/collect_ring.c, the --ring flight
 * recorder: the ring as a sink (branches and signals kept, other records
 * refused), wrap-around (exactly the last N branches, oldest first, a LOST
 * record for the others), signals in their place among the branches and
 * dropped with the branches before the oldest kept one, a LOST of unknown
 * count when more signals came than the ring keeps, THREAD switches where
 * the thread changes, and the file it writes at the end, read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect_ring.h"
#include "emit.h"
#include "itrace.h"
#include "readback_testutil.h"

#define MAXREC 1024

/* What the ring writes, as a sink of its own gets it. */
struct capture {
	struct emit_sink sink; /* first: put's sink is the capture */
	struct itrace_record recs[MAXREC];
	size_t n;
};

static int capture_put(struct emit_sink *s, const struct itrace_record *rec)
{
	struct capture *c = (struct capture *)s;

	assert_true(c->n < MAXREC);
	c->recs[c->n++] = *rec;
	return 0;
}

static struct capture *capture_new(void)
{
	struct capture *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->sink.put = capture_put;
	return c;
}

/* Branch i of thread tid: from 0x1000 + i to 0x2000 + i. */
static void push_branch(struct collect_ring *r, uint32_t tid, uint64_t i)
{
	assert_int_equal(emit_branch(collect_ring_sink(r, tid, 100), 0x1000 + i, 0x2000 + i,
				     ITRACE_BRANCH_COND, ITRACE_BRANCH_TAKEN),
			 0);
}

static void push_signal(struct collect_ring *r, uint32_t tid, uint32_t signo)
{
	assert_int_equal(emit_signal(collect_ring_sink(r, tid, 100), &(struct itrace_signal){.signo = signo}),
			 0);
}

static void assert_branch(const struct itrace_record *rec, uint64_t i)
{
	assert_int_equal(rec->type, ITRACE_REC_BRANCH);
	assert_int_equal(rec->u.branch.from, 0x1000 + i);
	assert_int_equal(rec->u.branch.to, 0x2000 + i);
	assert_int_equal(rec->u.branch.kind, ITRACE_BRANCH_COND);
	assert_int_equal(rec->u.branch.flags, ITRACE_BRANCH_TAKEN);
}

static void assert_switch(const struct itrace_record *rec, uint32_t tid)
{
	assert_int_equal(rec->type, ITRACE_REC_THREAD);
	assert_int_equal(rec->u.thread.event, ITRACE_THREAD_SWITCH);
	assert_int_equal(rec->u.thread.tid, tid);
	assert_int_equal(rec->u.thread.pid, 100);
}

/* Fewer branches than room: all of them, no LOST. */
static void test_not_full(void **state)
{
	struct collect_ring r;
	struct capture *c = capture_new();
	uint32_t last = 1;

	(void)state;
	assert_int_equal(collect_ring_init(&r, 8), 0);
	for (uint64_t i = 0; i < 3; i++)
		push_branch(&r, 1, i);
	assert_int_equal(collect_ring_write(&r, &c->sink, &last), 0);
	assert_int_equal(c->n, 3);
	for (uint64_t i = 0; i < 3; i++)
		assert_branch(&c->recs[i], i);
	assert_int_equal(last, 1);
	collect_ring_free(&r);
	free(c);
}

/* 10 branches in a ring of 4, two threads, signals: the last 4 branches
 * oldest first, a LOST of 6, signals before the oldest kept branch gone,
 * the others where they came, a switch at each change of thread. */
static void test_wrap_around(void **state)
{
	struct collect_ring r;
	struct capture *c = capture_new();
	uint32_t last = 1;
	size_t k = 0;

	(void)state;
	assert_int_equal(collect_ring_init(&r, 4), 0);
	push_signal(&r, 1, 10); /* before branch 0: dropped */
	for (uint64_t i = 0; i < 7; i++)
		push_branch(&r, 1, i);
	push_signal(&r, 1, 11); /* after branch 6, the oldest kept: written */
	push_branch(&r, 2, 7);
	push_branch(&r, 2, 8);
	push_signal(&r, 2, 12); /* after branch 8 */
	push_branch(&r, 1, 9);
	push_signal(&r, 1, 13); /* after the last branch */
	assert_int_equal(collect_ring_write(&r, &c->sink, &last), 0);

	assert_int_equal(c->recs[k].type, ITRACE_REC_LOST);
	assert_int_equal(c->recs[k].u.lost.reason, ITRACE_LOST_OVERFLOW);
	assert_int_equal(c->recs[k].u.lost.unit, ITRACE_UNIT_BRANCHES);
	assert_int_equal(c->recs[k++].u.lost.count, 6);
	assert_branch(&c->recs[k++], 6);
	assert_int_equal(c->recs[k].type, ITRACE_REC_SIGNAL);
	assert_int_equal(c->recs[k++].u.signal.signo, 11);
	assert_switch(&c->recs[k++], 2);
	assert_branch(&c->recs[k++], 7);
	assert_branch(&c->recs[k++], 8);
	assert_int_equal(c->recs[k].type, ITRACE_REC_SIGNAL);
	assert_int_equal(c->recs[k++].u.signal.signo, 12);
	assert_switch(&c->recs[k++], 1);
	assert_branch(&c->recs[k++], 9);
	assert_int_equal(c->recs[k].type, ITRACE_REC_SIGNAL);
	assert_int_equal(c->recs[k++].u.signal.signo, 13);
	assert_int_equal(c->n, k);
	assert_int_equal(last, 1);
	collect_ring_free(&r);
	free(c);
}

/* More signals among the kept branches than the ring keeps: a LOST of
 * records of unknown count (0), then the last COLLECT_RING_SIGNALS. */
static void test_signal_overflow(void **state)
{
	struct collect_ring r;
	struct capture *c = capture_new();
	uint32_t last = 1;
	size_t k = 0;

	(void)state;
	assert_int_equal(collect_ring_init(&r, 4), 0);
	push_branch(&r, 1, 0);
	for (uint32_t s = 0; s < COLLECT_RING_SIGNALS + 5; s++)
		push_signal(&r, 1, s);
	push_branch(&r, 1, 1);
	assert_int_equal(collect_ring_write(&r, &c->sink, &last), 0);
	assert_int_equal(c->recs[k].type, ITRACE_REC_LOST);
	assert_int_equal(c->recs[k].u.lost.unit, ITRACE_UNIT_RECORDS);
	assert_int_equal(c->recs[k++].u.lost.count, 0);
	assert_branch(&c->recs[k++], 0);
	for (uint32_t s = 5; s < COLLECT_RING_SIGNALS + 5; s++) {
		assert_int_equal(c->recs[k].type, ITRACE_REC_SIGNAL);
		assert_int_equal(c->recs[k++].u.signal.signo, s);
	}
	assert_branch(&c->recs[k++], 1);
	assert_int_equal(c->n, k);
	collect_ring_free(&r);
	free(c);
}

/* The ring keeps branches and signals, nothing else. */
static void test_sink_refuses_others(void **state)
{
	struct collect_ring r;

	(void)state;
	assert_int_equal(collect_ring_init(&r, 4), 0);
	assert_int_equal(emit_lost(&r.sink, ITRACE_LOST_DECODE, ITRACE_UNIT_INSNS, 1), -ITRACE_E_INVAL);
	assert_int_equal(emit_ctl(&r.sink, 1, ITRACE_CTL_TRIGGER, 0), -ITRACE_E_INVAL);
	assert_int_equal(emit_insn(&r.sink, 0x10, 1, NULL), -ITRACE_E_INVAL);
	assert_int_equal(r.head, 0);
	assert_int_equal(r.nsig, 0);
	collect_ring_free(&r);
	assert_int_equal(collect_ring_init(&r, 0), -ITRACE_E_INVAL);
}

/* What it writes at the end, as the reader gets it from the file. */
static void test_written_file(void **state)
{
	struct itrace_writer_options opts;
	struct itrace_record *recs = calloc(MAXREC, sizeof(*recs));
	struct itrace_writer *w;
	struct emit_sink out;
	struct collect_ring r;
	char path[] = "/tmp/test_collect_ring.XXXXXX";
	uint32_t last = 1;
	size_t n;
	int fd;

	(void)state;
	assert_non_null(recs);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	itrace_writer_options_init(&opts);
	opts.level = ITRACE_LEVEL_BRANCH;
	assert_int_equal(itrace_writer_open(path, &opts, &w), 0);
	out = emit_writer_sink(w);
	assert_int_equal(emit_thread(&out, ITRACE_THREAD_SWITCH, 1, 100, 0), 0);
	assert_int_equal(collect_ring_init(&r, 100), 0);
	for (uint64_t i = 0; i < 250; i++)
		push_branch(&r, i < 200 ? 1 : 2, i);
	assert_int_equal(collect_ring_write(&r, &out, &last), 0);
	assert_int_equal(last, 2);
	collect_ring_free(&r);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	n = readback_all(path, recs, MAXREC);
	unlink(path);
	/* switch, LOST 150, branches 150..199 of 1, switch, 200..249 of 2 */
	assert_int_equal(n, 1 + 1 + 50 + 1 + 50);
	assert_switch(&recs[0], 1);
	assert_int_equal(recs[1].type, ITRACE_REC_LOST);
	assert_int_equal(recs[1].u.lost.count, 150);
	for (uint64_t i = 0; i < 50; i++) {
		assert_branch(&recs[2 + i], 150 + i);
		assert_int_equal(recs[2 + i].tid, 1);
	}
	assert_switch(&recs[52], 2);
	for (uint64_t i = 0; i < 50; i++) {
		assert_branch(&recs[53 + i], 200 + i);
		assert_int_equal(recs[53 + i].tid, 2);
	}
	free(recs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_full),
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_signal_overflow),
		cmocka_unit_test(test_sink_refuses_others),
		cmocka_unit_test(test_written_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
