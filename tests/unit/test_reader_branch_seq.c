/*
 * test_reader_branch_seq.c - BRANCH_SEQ records (format 4.0, ITRACE.md 6.5.16):
 * sequences of branches defined to the writer, written as one record or
 * one repeat byte, against what the reader delivers (the branches one by
 * one), byte for byte where the spec fixes the bytes, and the reader's
 * checks on hostile BRANCH_SEQ records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf_testutil.h"

#include "internal.h"
#include "itrace.h"
#include "writer_testutil.h"
#include "chunk_testutil.h"
#include "gen_testutil.h"

static struct itrace_writer *open_writer(int *fd, int seqs, size_t chunk)
{
	struct itrace_writer_options o;

	itrace_writer_options_init(&o);
	o.level = ITRACE_LEVEL_BRANCH;
	o.compression = ITRACE_COMPRESS_NONE;
	o.chunk_bytes = chunk;
	o.features = seqs ? ITRACE_FEAT_BRANCH_SEQ : 0;
	return memfd_writer(&o, fd);
}

/* The branches a reader must deliver, in order. */
struct branch {
	uint64_t from, to;
	unsigned kind, flags;
};

struct branches {
	struct branch *v;
	size_t n, cap;
};

static void add(struct branches *b, const struct branch *x)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 1024;
		b->v = realloc(b->v, b->cap * sizeof(*b->v));
		assert_non_null(b->v);
	}
	b->v[b->n++] = *x;
}

/* read_branches - every record of f is a branch of want, in order (the
 * instructions `insns` says are between them skipped); footer totals. */
static void read_branches(const struct buf *f, const struct branches *want, size_t insns)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	struct itrace_footer ft;
	size_t i = 0, ni = 0;
	int rc;

	assert_int_equal(itrace_reader_open_mem(f->data, f->len, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		if (rec.type == ITRACE_REC_INSN) {
			ni++;
			continue;
		}
		assert_int_equal(rec.type, ITRACE_REC_BRANCH);
		assert_true(i < want->n);
		assert_int_equal(rec.u.branch.from, want->v[i].from);
		assert_int_equal(rec.u.branch.to, want->v[i].to);
		assert_int_equal(rec.u.branch.kind, want->v[i].kind);
		assert_int_equal(rec.u.branch.flags, want->v[i].flags);
		i++;
	}
	assert_int_equal(rc, ITRACE_EOF);
	assert_int_equal(i, want->n);
	assert_int_equal(ni, insns);
	assert_int_equal(itrace_reader_footer(r, &ft), 0);
	assert_int_equal(ft.branch_count, want->n);
	assert_int_equal(ft.record_count, want->n + insns);
	itrace_reader_close(r);
}

/* The example of ITRACE.md 9.6: a loop of two branches, written twice as
 * one sequence: a BRANCH_SEQ record into slot 0, then its repeat byte. */
static void test_seq_bytes(void **state)
{
	static const uint8_t want_bytes[] = {
		0x10, 0x0b,		/* BRANCH_SEQ, 11 payload bytes */
		0x88, 0xc0, 0x80, 0x04, /* from = 0 + 0x401004 */
		0x00,			/* slot 0 */
		0x02,			/* k = 2 */
		0x04, 0x00,		/* to = from + 2; COND, not taken */
		0x02, 0x0d, 0x10,	/* from = 0x401006 + 1, to = from - 7; COND, TAKEN */
		0x80,			/* repeat of slot 0 */
	};
	struct branches want = { 0 };
	struct itrace_writer *w;
	struct buf b;
	int fd, ids[2], seq;

	(void)state;
	w = open_writer(&fd, 1, 1 << 20);
	ids[0] = itrace_writer_branch_define(w, 0x401004, 0x401006, ITRACE_BRANCH_COND, 0);
	ids[1] = itrace_writer_branch_define(w, 0x401007, 0x401000, ITRACE_BRANCH_COND,
					     ITRACE_BRANCH_TAKEN);
	seq = itrace_writer_branch_seq_define(w, 2, ids);
	assert_int_equal(seq, 2); /* the ids of branches and sequences are one series */
	assert_int_equal(itrace_writer_branch_id(w, seq), 0);
	assert_int_equal(itrace_writer_branch_ids(w, 1, &seq), 0);
	b = close_and_slurp(w, fd);
	assert_int_equal(get_le16(b.data + 8), ITRACE_FORMAT_MAJOR);
	assert_int_equal(get_le32(b.data + 36), ITRACE_FEAT_BRANCH_SEQ); /* incompat_features */
	assert_memory_equal(b.data + get_le32(b.data + 16) + 72, want_bytes, sizeof(want_bytes));
	assert_int_equal(get_le32(b.data + get_le32(b.data + 16) + 16), 2); /* framed records */
	for (int i = 0; i < 2; i++) {
		add(&want, &(struct branch){ 0x401004, 0x401006, ITRACE_BRANCH_COND, 0 });
		add(&want, &(struct branch){ 0x401007, 0x401000, ITRACE_BRANCH_COND,
					     ITRACE_BRANCH_TAKEN });
	}
	read_branches(&b, &want, 0);
	free(want.v);
	free(b.data);
}

static void test_define_rejects(void **state)
{
	struct itrace_writer *w;
	int fd, ids[ITRACE_SEQ_MAX + 1], seq;

	(void)state;
	w = open_writer(&fd, 0, 4096);
	ids[0] = itrace_writer_branch_define(w, 0x1000, 0x2000, ITRACE_BRANCH_CALL, ITRACE_BRANCH_TAKEN);
	assert_int_equal(ids[0], 0);
	/* not without ITRACE_FEAT_BRANCH_SEQ: the file's features say none */
	assert_int_equal(itrace_writer_branch_seq_define(w, 1, ids), -ITRACE_E_INVAL);
	itrace_writer_abandon(w);
	close(fd);

	w = open_writer(&fd, 1, 4096);
	ids[0] = itrace_writer_branch_define(w, 0x1000, 0x2000, ITRACE_BRANCH_CALL, ITRACE_BRANCH_TAKEN);
	for (int i = 1; i <= ITRACE_SEQ_MAX; i++)
		ids[i] = ids[0];
	assert_int_equal(itrace_writer_branch_seq_define(NULL, 1, ids), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_seq_define(w, 0, ids), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_seq_define(w, 1, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_seq_define(w, ITRACE_SEQ_MAX + 1, ids), -ITRACE_E_INVAL);
	ids[1] = 1; /* unknown */
	assert_int_equal(itrace_writer_branch_seq_define(w, 2, ids), -ITRACE_E_INVAL);
	ids[1] = -1;
	assert_int_equal(itrace_writer_branch_seq_define(w, 2, ids), -ITRACE_E_INVAL);
	ids[1] = ids[0];
	seq = itrace_writer_branch_seq_define(w, ITRACE_SEQ_MAX, ids);
	assert_int_equal(seq, 1);
	ids[1] = seq; /* a sequence is not a branch of another */
	assert_int_equal(itrace_writer_branch_seq_define(w, 2, ids), -ITRACE_E_INVAL);
	seq = itrace_writer_branch_seq_define(w, 1, ids); /* one of one branch is, too */
	assert_int_equal(seq, 2);
	ids[1] = seq;
	assert_int_equal(itrace_writer_branch_seq_define(w, 2, ids), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_id(w, 3), -ITRACE_E_INVAL);
	itrace_writer_abandon(w);
	close(fd);
}

#define NBR 200
#define NSEQ 400

/*
 * Sequences (more of them than the repeat table has slots, some of 255
 * branches whose records are longer than 127 bytes), mixed with their
 * branches, plain branches and instructions, across 1 KiB chunks: a
 * reader gets the branches of a file written one by one with
 * itrace_writer_branch(); batches write the same bytes as single calls.
 */
static void test_round_trip(void **state)
{
	static struct branch br[NBR];
	static int br_id[NBR], seq_id[NSEQ], seq_k[NSEQ], seq_of[NSEQ][ITRACE_SEQ_MAX];
	struct branches want = { 0 };
	struct itrace_writer *one, *batch, *plain;
	struct gen g = { 7 };
	struct buf fo, fb, fp;
	int fdo, fdb, fdp;
	size_t insns = 0;

	(void)state;
	one = open_writer(&fdo, 1, 1024);
	batch = open_writer(&fdb, 1, 1024);
	plain = open_writer(&fdp, 0, 1024);
	for (int i = 0; i < NBR; i++) {
		uint64_t from = 0x400000 + next(&g) % 4096, to;

		/* far targets now and then: long svarints */
		to = i % 17 == 0 ? 0x7f0000000000ull + next(&g) : 0x400000 + next(&g) % 4096;
		br[i] = (struct branch){ from, to, (unsigned)(next(&g) % 10), (unsigned)(next(&g) % 8) };
		br_id[i] = itrace_writer_branch_define(one, from, to, br[i].kind, br[i].flags);
		assert_int_equal(itrace_writer_branch_define(batch, from, to, br[i].kind, br[i].flags),
				 br_id[i]);
	}
	for (int s = 0; s < NSEQ; s++) {
		int ids[ITRACE_SEQ_MAX];

		seq_k[s] = s % 50 == 0 ? ITRACE_SEQ_MAX : 1 + (int)(next(&g) % 12);
		for (int j = 0; j < seq_k[s]; j++) {
			seq_of[s][j] = (int)(next(&g) % NBR);
			ids[j] = br_id[seq_of[s][j]];
		}
		seq_id[s] = itrace_writer_branch_seq_define(one, (size_t)seq_k[s], ids);
		assert_true(seq_id[s] >= NBR);
		assert_int_equal(itrace_writer_branch_seq_define(batch, (size_t)seq_k[s], ids), seq_id[s]);
	}
	for (int step = 0; step < 20000; step++) {
		unsigned what = (unsigned)(next(&g) % 10);
		/* a hot few and the cold rest */
		int s = (int)(next(&g) % (step % 5 ? 24 : NSEQ)), b = (int)(next(&g) % NBR);

		if (what < 6) {
			int run[8], n = 1 + (int)(next(&g) % 8);

			for (int j = 0; j < n; j++) {
				int t = (s + j * 3) % NSEQ;

				run[j] = seq_id[t];
				assert_int_equal(itrace_writer_branch_id(one, run[j]), 0);
				for (int q = 0; q < seq_k[t]; q++) {
					const struct branch *x = &br[seq_of[t][q]];

					add(&want, x);
					assert_int_equal(itrace_writer_branch(plain, x->from, x->to, x->kind,
									     x->flags), 0);
				}
			}
			assert_int_equal(itrace_writer_branch_ids(batch, (size_t)n, run), 0);
		} else if (what < 8) {
			const struct branch *x = &br[b];

			add(&want, x);
			assert_int_equal(itrace_writer_branch_id(one, br_id[b]), 0);
			assert_int_equal(itrace_writer_branch(batch, x->from, x->to, x->kind, x->flags), 0);
			assert_int_equal(itrace_writer_branch(plain, x->from, x->to, x->kind, x->flags), 0);
		} else {
			uint64_t a = br[b].to;

			insns++;
			assert_int_equal(itrace_writer_insn(one, a, 3, NULL), 0);
			assert_int_equal(itrace_writer_insn(batch, a, 3, NULL), 0);
			assert_int_equal(itrace_writer_insn(plain, a, 3, NULL), 0);
		}
	}
	fo = close_and_slurp(one, fdo);
	fb = close_and_slurp(batch, fdb);
	fp = close_and_slurp(plain, fdp);
	assert_same_bytes(&fo, &fb);
	read_branches(&fo, &want, insns);
	read_branches(&fp, &want, insns);
	free(want.v);
	free(fo.data);
	free(fb.data);
	free(fp.data);
}

/* ITRACE.md 6.5.16's example record, then a repeat of its slot. */
static const uint8_t good[] = { 0x10, 0x0b, 0x88, 0xc0, 0x80, 0x04, 0x00, 0x02,
				0x04, 0x00, 0x02, 0x0d, 0x10, 0x80 };

/*
 * reads_as - a file of one chunk of `len` record bytes (nrec framed, the
 * incompatible features asked) delivers `n` records, then stops with error `err`
 * (-ITRACE_E_NOFOOTER: every record read, the file has no footer).
 */
static void reads_as(uint32_t features, const uint8_t *recs, size_t len, unsigned nrec, int n,
		     int err)
{
	struct buf b = one_chunk(features, 7, recs, len, nrec);
	int got;

	assert_int_equal(count_until_error(&b, &got), n);
	assert_int_equal(got, err);
	free(b.data);
}

static void test_hostile_seqs(void **state)
{
	static const uint8_t k_zero[] = { 0x10, 0x03, 0x00, 0x00, 0x00 };
	static const uint8_t k_big[] = { 0x10, 0x06, 0x00, 0x00, 0x80, 0x02, 0x00, 0x00 };
	/* one more byte in the payload: a field of a later minor version */
	static const uint8_t longer[] = { 0x10, 0x0c, 0x88, 0xc0, 0x80, 0x04, 0x00, 0x02,
					  0x04, 0x00, 0x02, 0x0d, 0x10, 0x55, 0x80 };
	/* malformed: slot 128, a bad kind, flag bit 7, a payload cut short */
	static const struct {
		size_t at;
		uint8_t v;
	} bad[] = { { 6, 0x80 }, { 9, 0x0a }, { 12, 0x90 }, { 1, 0x0a } };
	uint8_t rec[sizeof(good)];

	(void)state;
	reads_as(ITRACE_FEAT_BRANCH_SEQ, good, sizeof(good), 2, 4, -ITRACE_E_NOFOOTER);
	reads_as(ITRACE_FEAT_BRANCH_SEQ, longer, sizeof(longer), 2, 4, -ITRACE_E_NOFOOTER);
	/* in a file without the BRANCH_SEQ feature, type 16 is corrupt (4.3) */
	reads_as(ITRACE_FEAT_BLOCK, good, sizeof(good) - 1, 1, 0, -ITRACE_E_CORRUPT);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(rec, good, sizeof(good));
		rec[bad[i].at] = bad[i].v;
		reads_as(ITRACE_FEAT_BRANCH_SEQ, rec, sizeof(rec), 2, 0, -ITRACE_E_CORRUPT);
	}
	reads_as(ITRACE_FEAT_BRANCH_SEQ, k_zero, sizeof(k_zero), 1, 0, -ITRACE_E_CORRUPT);
	reads_as(ITRACE_FEAT_BRANCH_SEQ, k_big, sizeof(k_big), 1, 0, -ITRACE_E_CORRUPT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_bytes),
		cmocka_unit_test(test_define_rejects),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_hostile_seqs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
