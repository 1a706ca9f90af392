/*
 * test_reader_block.c - BLOCK records (format 3.0, ITRACE.md 6.5.15): the block
 * API of the writer against what the reader delivers, byte for byte where
 * the spec fixes the bytes, and the reader's checks on hostile BLOCK
 * records.
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

/* What a reader must deliver: instructions and accesses, in order. */
struct want {
	int type; /* ITRACE_REC_INSN or ITRACE_REC_MEM (or BRANCH) */
	uint64_t addr, size, to;
	unsigned flags;
};

struct wants {
	struct want *v;
	size_t n, cap;
};

static void want(struct wants *w, int type, uint64_t addr, uint64_t size, unsigned flags)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->v = realloc(w->v, w->cap * sizeof(*w->v));
		assert_non_null(w->v);
	}
	w->v[w->n++] = (struct want){ .type = type, .addr = addr, .size = size, .flags = flags };
}

static struct itrace_writer *open_writer(int *fd, int blocks, size_t chunk)
{
	struct itrace_writer_options o;

	itrace_writer_options_init(&o);
	o.compression = ITRACE_COMPRESS_NONE;
	o.chunk_bytes = chunk;
	o.flags = ITRACE_FF_MEM;
	o.features = blocks ? ITRACE_FEAT_BLOCK : 0;
	return memfd_writer(&o, fd);
}

/* read_all - every record of b must equal the wanted ones; footer totals too. */
static void read_all(const struct buf *b, const struct wants *w, uint32_t features)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	struct itrace_footer f;
	size_t i = 0, insns = 0, mems = 0;
	int rc;

	assert_int_equal(itrace_reader_open_mem(b->data, b->len, &r), 0);
	assert_int_equal(itrace_reader_header(r)->major, ITRACE_FORMAT_MAJOR);
	assert_int_equal(itrace_reader_header(r)->incompat_features, features);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		assert_true(i < w->n);
		assert_int_equal(rec.type, w->v[i].type);
		if (rec.type == ITRACE_REC_INSN) {
			assert_int_equal(rec.u.insn.addr, w->v[i].addr);
			assert_int_equal(rec.u.insn.len, w->v[i].size);
			insns++;
		} else if (rec.type == ITRACE_REC_MEM) {
			assert_int_equal(rec.u.mem.addr, w->v[i].addr);
			assert_int_equal(rec.u.mem.size, w->v[i].size);
			assert_int_equal(rec.u.mem.flags, w->v[i].flags);
			mems++;
		} else {
			assert_int_equal(rec.u.branch.from, w->v[i].addr);
			assert_int_equal(rec.u.branch.to, w->v[i].to);
		}
		i++;
	}
	assert_int_equal(rc, ITRACE_EOF);
	assert_int_equal(i, w->n);
	assert_int_equal(itrace_reader_footer(r, &f), 0);
	assert_int_equal(f.record_count, w->n);
	assert_int_equal(f.insn_count, insns);
	assert_int_equal(f.mem_count, mems);
	itrace_reader_close(r);
}

#define NDEF 300

struct def {
	uint64_t start;
	size_t n, m;
	uint8_t lens[ITRACE_RUN_MAX];
	struct itrace_block_access acc[ITRACE_BLOCK_ACCESS_MAX];
	int id;
};

/* make_def - a random block: a few long ones, accesses clustered on some
 * instructions, several on one instruction, some on the last one. */
static void make_def(struct gen *g, struct def *d, unsigned i)
{
	unsigned k, insn = 0;

	d->start = 0x400000 + (next(g) % 4096) * 16;
	d->n = 1 + next(g) % (i % 31 == 0 ? ITRACE_RUN_MAX : 12);
	for (k = 0; k < d->n; k++)
		d->lens[k] = (uint8_t)(i % 5 == 0 ? 4 : 1 + next(g) % 15);
	d->m = i % 29 == 0 ? ITRACE_BLOCK_ACCESS_MAX : next(g) % 6;
	for (k = 0; k < d->m; k++) {
		if (next(g) % 2)
			insn += (unsigned)(next(g) % 3);
		if (insn >= d->n)
			insn = (unsigned)d->n - 1;
		d->acc[k].insn = (uint8_t)insn;
		d->acc[k].size = next(g) % 9 == 0 ? 512 : 1u << next(g) % 4;
		d->acc[k].flags = next(g) % 3 == 0 ? ITRACE_MEM_STORE : 0;
	}
}

/* want_block - the records of the first ninsns instructions of d. */
static void want_block(struct wants *w, const struct def *d, size_t ninsns, const uint64_t *addrs,
		       const uint8_t *skip)
{
	uint64_t a = d->start;
	size_t k = 0;

	for (size_t i = 0; i < ninsns; i++) {
		want(w, ITRACE_REC_INSN, a, d->lens[i], 0);
		a += d->lens[i];
		for (; k < d->m && d->acc[k].insn == i; k++)
			if (!skip || !skip[k])
				want(w, ITRACE_REC_MEM, addrs[k], d->acc[k].size, d->acc[k].flags);
	}
}

/*
 * emit - a stream of block executions (whole and partial) between plain
 * instructions, MEM records and branches; the wanted records beside it.
 */
static void emit(struct itrace_writer *w, struct wants *ws, struct def *defs, unsigned steps)
{
	struct gen g = { 7 };
	uint64_t addrs[ITRACE_BLOCK_ACCESS_MAX], stride[ITRACE_BLOCK_ACCESS_MAX];
	uint8_t skip[ITRACE_BLOCK_ACCESS_MAX];

	for (unsigned i = 0; i < NDEF; i++) {
		make_def(&g, &defs[i], i);
		defs[i].id = itrace_writer_block_define(w, defs[i].start, defs[i].n, defs[i].lens,
							defs[i].m, defs[i].acc);
		assert_int_equal(defs[i].id, i);
	}
	for (unsigned k = 0; k < ITRACE_BLOCK_ACCESS_MAX; k++)
		stride[k] = 0x7ffd0000 + k * 0x100;
	for (unsigned s = 0; s < steps; s++) {
		/* hot blocks most of the time: repeats */
		struct def *d = &defs[next(&g) % 8 ? next(&g) % 12 : next(&g) % NDEF];
		unsigned what = (unsigned)(next(&g) % 16);

		for (size_t k = 0; k < d->m; k++) {
			stride[k] += next(&g) % 4 == 0 ? next(&g) : 8;
			addrs[k] = stride[k];
			skip[k] = next(&g) % 4 == 0;
		}
		if (what < 12) {
			assert_int_equal(itrace_writer_block(w, d->id, addrs), 0);
			want_block(ws, d, d->n, addrs, NULL);
		} else if (what == 12) {
			size_t part = next(&g) % (d->n + 1);

			assert_int_equal(itrace_writer_block_partial(w, d->id, part, addrs, NULL), 0);
			want_block(ws, d, part, addrs, NULL);
		} else if (what == 13) {
			assert_int_equal(itrace_writer_block_partial(w, d->id, d->n, addrs, skip), 0);
			want_block(ws, d, d->n, addrs, skip);
		} else if (what == 14) {
			/* a loose MEM record after a block belongs to its last instruction */
			assert_int_equal(itrace_writer_block(w, d->id, addrs), 0);
			want_block(ws, d, d->n, addrs, NULL);
			assert_int_equal(itrace_writer_mem(w, 0x601000 + s, 4, 0), 0);
			want(ws, ITRACE_REC_MEM, 0x601000 + s, 4, 0);
		} else {
			uint64_t from = d->start + 2, to = defs[next(&g) % 12].start;

			assert_int_equal(itrace_writer_insn(w, d->start, 2, NULL), 0);
			want(ws, ITRACE_REC_INSN, d->start, 2, 0);
			assert_int_equal(itrace_writer_branch(w, from, to, ITRACE_BRANCH_COND,
							     ITRACE_BRANCH_TAKEN), 0);
			want(ws, ITRACE_REC_BRANCH, from, 0, 0);
			ws->v[ws->n - 1].to = to;
		}
	}
}

/* Blocks written as BLOCK records and as INSN_RUN + MEM records read back
 * as the same records; with BLOCK records the file is much smaller. */
static void test_round_trip(void **state)
{
	static struct def defs[NDEF];
	struct wants w1 = { 0 }, w0 = { 0 };
	int fd1, fd0;
	struct itrace_writer *b1 = open_writer(&fd1, 1, 4096);
	struct itrace_writer *b0 = open_writer(&fd0, 0, 4096);
	struct buf f1, f0;

	(void)state;
	emit(b1, &w1, defs, 20000);
	emit(b0, &w0, defs, 20000);
	f1 = close_and_slurp(b1, fd1);
	f0 = close_and_slurp(b0, fd0);
	assert_int_equal(w1.n, w0.n);
	assert_true(f1.len * 10 < f0.len * 8);
	read_all(&f1, &w1, ITRACE_FEAT_BLOCK);
	read_all(&f0, &w0, 0);
	free(f1.data);
	free(f0.data);
	free(w1.v);
	free(w0.v);
}

/* A block without accesses, defined before any block with them, written
 * as INSN_RUN records (no BLOCK records, and a partial run with them):
 * the writer has no access table yet then.  It added zero to that null
 * pointer, which clang's UBSan reports and gcc's does not: the input
 * fuzz_roundtrip found is in its corpus (ub-block-without-accesses),
 * which make check replays under clang's UBSan (build/fuzz-ub). */
static void test_block_without_accesses_first(void **state)
{
	static const uint8_t lens[3] = { 2, 3, 4 };
	struct wants ws = { 0 };

	(void)state;
	for (int blocks = 0; blocks <= 1; blocks++) {
		int fd, id;
		struct itrace_writer *w = open_writer(&fd, blocks, 4096);
		struct buf f;

		id = itrace_writer_block_define(w, 0x401000, 3, lens, 0, NULL);
		assert_int_equal(id, 0);
		ws.n = 0;
		assert_int_equal(itrace_writer_block(w, id, NULL), 0);
		assert_int_equal(itrace_writer_block_partial(w, id, 2, NULL, NULL), 0);
		want(&ws, ITRACE_REC_INSN, 0x401000, 2, 0);
		want(&ws, ITRACE_REC_INSN, 0x401002, 3, 0);
		want(&ws, ITRACE_REC_INSN, 0x401005, 4, 0);
		want(&ws, ITRACE_REC_INSN, 0x401000, 2, 0);
		want(&ws, ITRACE_REC_INSN, 0x401002, 3, 0);
		f = close_and_slurp(w, fd);
		read_all(&f, &ws, blocks ? ITRACE_FEAT_BLOCK : 0);
		free(f.data);
	}
	free(ws.v);
}

/* The bytes of a BLOCK record and of its repeat, as 6.5.15 spells them. */
static void test_block_bytes(void **state)
{
	static const uint8_t lens[3] = { 4, 3, 2 };
	static const struct itrace_block_access acc[2] = {
		{ .size = 8, .insn = 0, .flags = 0 },
		{ .size = 4, .insn = 2, .flags = ITRACE_MEM_STORE },
	};
	static const uint8_t want_bytes[] = {
		/* BLOCK, 16 payload bytes */
		0x0f, 0x10,
		0x80, 0xc0, 0x80, 0x04, /* start +0x401000 */
		0x06, 0x34, 0x02,	/* n = 3, packed lengths 4 3 2 */
		0x02,			/* m = 2 */
		0x00, 0x10,		/* insn 0, load of 8 */
		0x02, 0x09,		/* insn 0 + 2, store of 4 */
		0x80, 0x40,		/* 0x1000 - 0 */
		0x80, 0x40,		/* 0x1000 - 0 */
		/* repeat of slot run_slot(0x401000, 3) = 45, then the deltas */
		0xad, 0x10, 0x01,	/* +8, -1 */
	};
	uint64_t a1[2] = { 0x1000, 0x1000 }, a2[2] = { 0x1008, 0xfff };
	struct itrace_writer *w;
	struct buf b;
	int fd, id;

	(void)state;
	w = open_writer(&fd, 1, 1 << 20);
	id = itrace_writer_block_define(w, 0x401000, 3, lens, 2, acc);
	assert_int_equal(id, 0);
	assert_int_equal(itrace_writer_block(w, id, a1), 0);
	assert_int_equal(itrace_writer_block(w, id, a2), 0);
	b = close_and_slurp(w, fd);
	assert_int_equal(get_le32(b.data + 36), ITRACE_FEAT_BLOCK); /* incompat_features */
	/* the chunk's records follow its 72-byte header */
	assert_memory_equal(b.data + get_le32(b.data + 16) + 72, want_bytes, sizeof(want_bytes));
	assert_int_equal(get_le32(b.data + get_le32(b.data + 16) + 16), 2); /* framed records */
	free(b.data);
}

static void test_define_rejects(void **state)
{
	static const uint8_t lens[4] = { 1, 2, 3, 4 }, bad_lens[2] = { 1, 16 };
	struct itrace_block_access acc[2] = { { .size = 1, .insn = 1 }, { .size = 1, .insn = 0 } };
	struct itrace_writer *w;
	struct itrace_writer_stats before, after;
	int fd;

	(void)state;
	w = open_writer(&fd, 1, 4096);
	assert_int_equal(itrace_writer_block_define(w, 0x1000, 0, lens, 0, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_block_define(w, 0x1000, 2, bad_lens, 0, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_block_define(w, 0x1000, 4, lens, 2, acc), -ITRACE_E_INVAL);
	acc[1].insn = 4;
	assert_int_equal(itrace_writer_block_define(w, 0x1000, 4, lens, 2, acc), -ITRACE_E_INVAL);
	acc[1].insn = 3;
	acc[1].flags = 2;
	assert_int_equal(itrace_writer_block_define(w, 0x1000, 4, lens, 2, acc), -ITRACE_E_INVAL);
	acc[1].flags = 0;
	assert_int_equal(itrace_writer_block_define(w, 0x1000, 4, lens, 2, acc), 0);
	assert_int_equal(itrace_writer_block(w, 1, (uint64_t[2]){ 0 }), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_block(w, -1, (uint64_t[2]){ 0 }), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_block(w, 0, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_block_partial(w, 0, 5, (uint64_t[2]){ 0 }, NULL),
			 -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_block_partial(w, 0, 1, NULL, NULL), 0); /* no access ran */
	/* a batch with an unknown id (past the last, negative) or without
	 * the addresses of a block with accesses writes nothing */
	itrace_writer_stats(w, &before);
	assert_int_equal(itrace_writer_blocks(w, 2, (int[]){ 0, 1 }, (uint64_t[4]){ 0 }),
			 -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_blocks(w, 2, (int[]){ 0, -1 }, (uint64_t[4]){ 0 }),
			 -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_blocks(w, 2, (int[]){ 0, INT32_MIN }, (uint64_t[4]){ 0 }),
			 -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_blocks(w, 2, (int[]){ 0, 0 }, NULL), -ITRACE_E_INVAL);
	itrace_writer_stats(w, &after);
	assert_int_equal(after.records, before.records);
	assert_int_equal(after.raw_bytes, before.raw_bytes);
	assert_int_equal(itrace_writer_blocks(w, 2, (int[]){ 0, 0 }, (uint64_t[4]){ 0 }), 0);
	itrace_writer_abandon(w);
	close(fd);
}

static void test_hostile_blocks(void **state)
{
	/* n = 1 (length 2), m = 1 at insn 0 (load of 8), delta 0 */
	static const uint8_t good[] = { 0x0f, 0x07, 0x00, 0x03, 0x02, 0x01, 0x00, 0x10, 0x00 };
	static const uint8_t idx_out[] = { 0x0f, 0x07, 0x00, 0x03, 0x02, 0x01, 0x01, 0x10, 0x00 };
	static const uint8_t m_big[] = { 0x0f, 0x07, 0x00, 0x03, 0x02, 0x81, 0x02, 0x10, 0x00 };
	static const uint8_t no_delta[] = { 0x0f, 0x06, 0x00, 0x03, 0x02, 0x01, 0x00, 0x10 };
	static const uint8_t n_zero[] = { 0x0f, 0x07, 0x00, 0x01, 0x02, 0x01, 0x00, 0x10, 0x00 };
	static const uint8_t zero_len[] = { 0x0f, 0x07, 0x00, 0x02, 0x00, 0x01, 0x00, 0x10, 0x00 };
	/* the good block, then its repeat without its delta */
	uint8_t cut_repeat[sizeof(good) + 1];
	struct buf b;
	int err;

	(void)state;
	b = one_chunk(ITRACE_FEAT_BLOCK, 7, good, sizeof(good), 1);
	assert_int_equal(count_until_error(&b, &err), 2); /* INSN, MEM */
	assert_int_equal(err, -ITRACE_E_NOFOOTER);
	free(b.data);
	/* in a file without the BLOCK feature, type 15 is corrupt (4.3) */
	b = one_chunk(0, 7, good, sizeof(good), 1);
	assert_int_equal(count_until_error(&b, &err), 0);
	assert_int_equal(err, -ITRACE_E_CORRUPT);
	free(b.data);
	const uint8_t *bad[] = { idx_out, m_big, no_delta, n_zero, zero_len };
	size_t bad_len[] = { sizeof(idx_out), sizeof(m_big), sizeof(no_delta), sizeof(n_zero),
			     sizeof(zero_len) };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = one_chunk(ITRACE_FEAT_BLOCK, 7, bad[i], bad_len[i], 1);
		assert_int_equal(count_until_error(&b, &err), 0);
		assert_int_equal(err, -ITRACE_E_CORRUPT);
		free(b.data);
	}
	memcpy(cut_repeat, good, sizeof(good));
	cut_repeat[sizeof(good)] = (uint8_t)(0x80 | run_slot(0, 1));
	b = one_chunk(ITRACE_FEAT_BLOCK, 7, cut_repeat, sizeof(cut_repeat), 2);
	assert_int_equal(count_until_error(&b, &err), 2);
	assert_int_equal(err, -ITRACE_E_CORRUPT);
	free(b.data);
}

/* itrace_reader_reopen_mem: a block the previous trace stored in a slot
 * is gone; a repeat of that slot in the next trace reads as it does in a
 * fresh reader (an empty slot), and the block read after it is whole. */
static void test_reopen_forgets_blocks(void **state)
{
	static const uint8_t good[] = { 0x0f, 0x07, 0x00, 0x03, 0x02, 0x01, 0x00, 0x10, 0x00 };
	uint8_t repeat = (uint8_t)(0x80 | run_slot(0, 1));
	struct buf first = one_chunk(ITRACE_FEAT_BLOCK, 7, good, sizeof(good), 1);
	struct buf second = one_chunk(ITRACE_FEAT_BLOCK, 7, &repeat, 1, 1);
	struct itrace_reader *r;
	struct itrace_record rec;
	int fresh_err, err, fresh_n, n = 0;

	(void)state;
	fresh_n = count_until_error(&second, &fresh_err);
	assert_int_equal(itrace_reader_open_mem(first.data, first.len, &r), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.type, ITRACE_REC_MEM);
	assert_int_equal(itrace_reader_reopen_mem(&r, second.data, second.len), 0);
	while ((err = itrace_reader_next(r, &rec, sizeof(rec))) == 0 && rec.type != ITRACE_REC_GAP)
		n++;
	assert_int_equal(n, fresh_n);
	assert_int_equal(err, fresh_err);
	assert_int_equal(itrace_reader_reopen_mem(&r, first.data, first.len), 0);
	assert_int_equal(count_until_error(&first, &fresh_err), 2);
	for (n = 0; (err = itrace_reader_next(r, &rec, sizeof(rec))) == 0; n++)
		;
	assert_int_equal(n, 2);
	assert_int_equal(err, fresh_err);
	itrace_reader_close(r);
	free(first.data);
	free(second.data);
}

/* assert_same_files - close writers a and b: their files are the same bytes. */
static void assert_same_files(struct itrace_writer *a, int fda, struct itrace_writer *b, int fdb)
{
	struct buf fa = close_and_slurp(a, fda), fb = close_and_slurp(b, fdb);

	assert_int_equal(fa.len, fb.len);
	assert_memory_equal(fa.data, fb.data, fa.len);
	free(fa.data);
	free(fb.data);
}

/* Defined branches write the very bytes of itrace_writer_branch(), mixed
 * with it, with runs and blocks in the same slots, across chunks, one by
 * one or in batches (itrace_writer_branch_ids); a batch with an unknown id
 * writes nothing. */
static void test_branch_ids(void **state)
{
	static const uint8_t lens[2] = { 3, 2 };
	static const struct itrace_block_access acc[1] = { { .size = 8, .insn = 1 } };
	struct itrace_writer *a, *b;
	struct gen g = { 11 };
	uint64_t from[64], to[64], addr = 0x7ffd0000;
	unsigned kind[64], flags[64];
	int fda, fdb, id[64], blk;

	(void)state;
	a = open_writer(&fda, 1, 1024);
	b = open_writer(&fdb, 1, 1024);
	assert_int_equal(itrace_writer_branch_define(a, 1, 2, 99, 0), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_define(a, 1, 2, 0, 8), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_id(a, 0), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_ids(a, 1, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch_ids(a, 0, NULL), 0);
	for (int i = 0; i < 64; i++) {
		from[i] = 0x400000 + (next(&g) % 512) * 4;
		to[i] = i % 9 == 0 ? from[i] : 0x400000 + (next(&g) % 512) * 4;
		kind[i] = (unsigned)(next(&g) % 10);
		flags[i] = (unsigned)(next(&g) % 8);
		id[i] = itrace_writer_branch_define(b, from[i], to[i], kind[i], flags[i]);
		assert_int_equal(id[i], i);
	}
	blk = itrace_writer_block_define(b, 0x400000, 2, lens, 1, acc);
	assert_int_equal(itrace_writer_block_define(a, 0x400000, 2, lens, 1, acc), blk);
	for (int s = 0; s < 20000; s++) {
		int i = (int)(next(&g) % (s % 7 ? 8 : 64));
		unsigned what = (unsigned)(next(&g) % 10);

		if (what == 0) {
			int batch[6], k = 1 + (int)(next(&g) % 5);

			for (int j = 0; j < k; j++) {
				batch[j] = id[(i + j * 5) % 64];
				assert_int_equal(itrace_writer_branch(a, from[batch[j]], to[batch[j]],
								     kind[batch[j]], flags[batch[j]]), 0);
			}
			/* unknown: the whole batch is refused */
			batch[k] = s % 3 == 0 ? 64 : s % 3 == 1 ? -1 : INT32_MIN;
			assert_int_equal(itrace_writer_branch_ids(b, (size_t)k + 1, batch),
					 -ITRACE_E_INVAL);
			assert_int_equal(itrace_writer_branch_ids(b, (size_t)k, batch), 0);
		} else if (what < 6) {
			assert_int_equal(itrace_writer_branch(a, from[i], to[i], kind[i], flags[i]), 0);
			if (what < 3)
				assert_int_equal(itrace_writer_branch_id(b, id[i]), 0);
			else
				assert_int_equal(itrace_writer_branch(b, from[i], to[i], kind[i], flags[i]), 0);
		} else if (what < 8) {
			assert_int_equal(itrace_writer_insn(a, from[i], 4, NULL), 0);
			assert_int_equal(itrace_writer_insn(b, from[i], 4, NULL), 0);
		} else {
			addr += 8;
			assert_int_equal(itrace_writer_block(a, blk, &addr), 0);
			assert_int_equal(itrace_writer_block(b, blk, &addr), 0);
		}
	}
	assert_same_files(a, fda, b, fdb);
}

/*
 * itrace_writer_blocks() writes the same bytes as one itrace_writer_block()
 * call per block: batches of hot blocks (repeats) and cold ones, with
 * small and large address deltas, across chunk boundaries (1 KiB chunks),
 * after a pending instruction run, with and without BLOCK records, NULL
 * addresses for blocks without accesses; a batch with an unknown id is
 * refused whole.
 */
static void test_block_batches(void **state)
{
	static struct def defs[NDEF];
	static uint64_t addrs[64 * ITRACE_BLOCK_ACCESS_MAX];
	struct gen g = { 5 };
	uint64_t stride[ITRACE_BLOCK_ACCESS_MAX];
	int ids[65], nomem = -1;

	(void)state;
	for (unsigned i = 0; i < NDEF; i++) {
		make_def(&g, &defs[i], i);
		if (defs[i].m == 0 && nomem < 0)
			nomem = (int)i;
	}
	assert_true(nomem >= 0);
	for (unsigned k = 0; k < ITRACE_BLOCK_ACCESS_MAX; k++)
		stride[k] = 0x7ffd0000 + k * 0x100;
	for (int blocks = 0; blocks < 2; blocks++) {
		int fda, fdb;
		struct itrace_writer *a = open_writer(&fda, blocks, 1024);
		struct itrace_writer *b = open_writer(&fdb, blocks, 1024);

		for (unsigned i = 0; i < NDEF; i++) {
			defs[i].id = itrace_writer_block_define(a, defs[i].start, defs[i].n,
								defs[i].lens, defs[i].m, defs[i].acc);
			assert_int_equal(itrace_writer_block_define(b, defs[i].start, defs[i].n,
								    defs[i].lens, defs[i].m, defs[i].acc),
					 defs[i].id);
		}
		assert_int_equal(itrace_writer_blocks(b, 1, NULL, addrs), -ITRACE_E_INVAL);
		assert_int_equal(itrace_writer_blocks(NULL, 0, ids, addrs), -ITRACE_E_INVAL);
		assert_int_equal(itrace_writer_blocks(b, 0, NULL, NULL), 0);
		for (int s = 0; s < 3000; s++) {
			size_t n = 1 + next(&g) % 40, na = 0;
			uint64_t *p = addrs;

			if (s % 10 == 0) { /* a pending run before the batch */
				assert_int_equal(itrace_writer_insn(a, 0x500000 + 4 * (uint64_t)s, 4, NULL), 0);
				assert_int_equal(itrace_writer_insn(b, 0x500000 + 4 * (uint64_t)s, 4, NULL), 0);
			}
			for (size_t j = 0; j < n; j++) {
				const struct def *d = &defs[next(&g) % 6 ? next(&g) % 10 : next(&g) % NDEF];

				ids[j] = d->id;
				for (size_t k = 0; k < d->m; k++) {
					stride[k] += next(&g) % 5 == 0 ? next(&g) << 7 : 8;
					addrs[na + k] = stride[k];
				}
				assert_int_equal(itrace_writer_block(a, d->id, d->m ? p : NULL), 0);
				p += d->m;
				na += d->m;
			}
			ids[n] = s % 2 ? NDEF : -1; /* unknown: the whole batch is refused */
			assert_int_equal(itrace_writer_blocks(b, n + 1, ids, addrs), -ITRACE_E_INVAL);
			assert_int_equal(itrace_writer_blocks(b, n, ids, addrs), 0);
			if (s % 50 == 0) { /* no accesses: addrs may be NULL */
				ids[0] = ids[1] = defs[nomem].id;
				assert_int_equal(itrace_writer_block(a, ids[0], NULL), 0);
				assert_int_equal(itrace_writer_block(a, ids[0], NULL), 0);
				assert_int_equal(itrace_writer_blocks(b, 2, ids, NULL), 0);
			}
		}
		assert_same_files(a, fda, b, fdb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_block_bytes),
		cmocka_unit_test(test_block_without_accesses_first),
		cmocka_unit_test(test_define_rejects),
		cmocka_unit_test(test_hostile_blocks),
		cmocka_unit_test(test_reopen_forgets_blocks),
		cmocka_unit_test(test_branch_ids),
		cmocka_unit_test(test_block_batches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
