/*
 * test_reader_mem_table.c - the MEM table's size, a header parameter
 * (mem_table_log2, ITRACE.md 4.1 and 6.5.4): what the header says, the
 * delta bases a reader takes for MEM records and a block's accesses in
 * files of 1024 entries and of 128, byte for byte from hand-made chunks,
 * and a round trip through the writer with both.
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

#include "buf_testutil.h"

#include "internal.h"
#include "itrace.h"
#include "writer_testutil.h"
#include "chunk_testutil.h"
#include "gen_testutil.h"

/* The slot of ITRACE.md 6.5.4, written out here from the spec's text:
 * `bits` of the hash, 7 (128 entries) or 10 (1024). */
static unsigned spec_slot(uint64_t insn, unsigned ordinal, unsigned bits)
{
	return (unsigned)(((insn ^ ((uint64_t)ordinal << 56)) * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/*
 * The first address c from `from` on whose access 0 shares a slot of 128
 * entries with access 0 of the instruction at c + 144, but not one of
 * 1024.  (The hash is Fibonacci hashing: instructions a Fibonacci number
 * of bytes apart, 144 here, come closest; two accesses of one
 * instruction, whose ordinals change only the hash's top byte, by 0x15,
 * never share a slot.)
 */
#define APART 144
static uint64_t colliding(uint64_t from)
{
	uint64_t c = from;

	while (!(spec_slot(c, 0, 7) == spec_slot(c + APART, 0, 7) &&
		 spec_slot(c, 0, 10) != spec_slot(c + APART, 0, 10)))
		assert_true(++c < from + 0x10000);
	return c;
}

/* put_rec - record `type` with payload p[0..len) at out; returns its size. */
static size_t put_rec(uint8_t *out, uint8_t type, const uint8_t *p, size_t len)
{
	out[0] = type;
	out[1] = (uint8_t)len; /* payloads here are short */
	memcpy(out + 2, p, len);
	return 2 + len;
}

/* The addresses of the MEM records of f, in order; returns how many.
 * The file ends as `end` says: 1 (its footer) or -ITRACE_E_NOFOOTER
 * (one_chunk()'s files). */
static size_t mem_addrs(const struct buf *f, uint64_t *out, size_t max, int end)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	size_t n = 0;
	int rc;

	assert_int_equal(itrace_reader_open_mem(f->data, f->len, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0)
		if (rec.type == ITRACE_REC_MEM && n < max)
			out[n++] = rec.u.mem.addr;
	assert_int_equal(rc, end);
	itrace_reader_close(r);
	return n;
}

/* What the header says for every combination of the options that set
 * it (ITRACE.md 4.1): major 1, this minor, the features asked at offset 36,
 * mem_table_log2 at 12 (0 for the default, 7); options out of range are
 * refused. */
static void test_header_params(void **state)
{
	static const unsigned logs[] = { 0, 6, 10, 12 };
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct buf b;
	int fd;

	(void)state;
	for (unsigned l = 0; l < sizeof(logs) / sizeof(logs[0]); l++)
		for (uint32_t feat = 0; feat <= ITRACE_FEAT_INCOMPAT_KNOWN; feat++) {
			itrace_writer_options_init(&o);
			o.mem_table_log2 = logs[l];
			o.features = feat;
			w = memfd_writer(&o, &fd);
			b = close_and_slurp(w, fd);
			assert_int_equal(get_le16(b.data + 8), 1);  /* major */
			assert_int_equal(get_le16(b.data + 10), ITRACE_FORMAT_MINOR); /* minor */
			assert_int_equal(b.data[12], logs[l] ? logs[l] : 7);
			assert_int_equal(get_le16(b.data + 14), 64); /* fixed_size */
			assert_int_equal(get_le32(b.data + 36), feat);
			assert_int_equal(get_le32(b.data + 40), 0); /* compat_features */
			free(b.data);
		}
	itrace_writer_options_init(&o);
	fd = memfd_create("hdr", 0);
	assert_true(fd >= 0);
	o.mem_table_log2 = 5;
	assert_int_equal(itrace_writer_open_fd(fd, &o, &w), -ITRACE_E_INVAL);
	o.mem_table_log2 = 13;
	assert_int_equal(itrace_writer_open_fd(fd, &o, &w), -ITRACE_E_INVAL);
	o.mem_table_log2 = 0;
	o.features = 1u << 2; /* not a feature of 1.0 */
	assert_int_equal(itrace_writer_open_fd(fd, &o, &w), -ITRACE_E_INVAL);
	close(fd);
}

/*
 * Two MEM records of instructions a and b whose slots collide in 128
 * entries only: in a file of 1024 entries the second record's delta
 * +8 is against 0 (its own entry), in one of 128 against the first
 * record's address.
 */
static void test_mem_bytes(void **state)
{
	const uint64_t a = colliding(0x401000), b = a + APART, x = 0x7ffd1000;
	uint64_t got[4];
	uint8_t recs[96], p[32];
	size_t len = 0, q;
	struct buf f;

	(void)state;
	/* INSN_RUN at a, one instruction of 1 byte; MEM load 8 at x */
	q = put_varint(p, zigzag((int64_t)a));
	p[q++] = 3; /* n = 1, uniform */
	p[q++] = 1;
	len += put_rec(recs + len, ITRACE_T_INSN_RUN, p, q);
	q = 0;
	p[q++] = 0;
	p[q++] = 8;
	q += put_varint(p + q, zigzag((int64_t)x));
	len += put_rec(recs + len, ITRACE_T_MEM, p, q);
	/* INSN_RUN at b (cur_pc is a + 1); MEM load 8, delta +8 */
	q = put_varint(p, zigzag((int64_t)(b - (a + 1))));
	p[q++] = 3;
	p[q++] = 1;
	len += put_rec(recs + len, ITRACE_T_INSN_RUN, p, q);
	q = 0;
	p[q++] = 0;
	p[q++] = 8;
	q += put_varint(p + q, zigzag(8));
	len += put_rec(recs + len, ITRACE_T_MEM, p, q);

	f = one_chunk(ITRACE_FEAT_BLOCK, 10, recs, len, 4);
	assert_int_equal(mem_addrs(&f, got, 4, -ITRACE_E_NOFOOTER), 2);
	assert_int_equal(got[0], x);
	assert_int_equal(got[1], 8);
	free(f.data);
	f = one_chunk(ITRACE_FEAT_BLOCK, 7, recs, len, 4);
	assert_int_equal(mem_addrs(&f, got, 4, -ITRACE_E_NOFOOTER), 2);
	assert_int_equal(got[0], x);
	assert_int_equal(got[1], x + 8);
	free(f.data);
}

/*
 * A BLOCK of 13 instructions of 12 bytes from c, the first and the last
 * (at c + 144) with one access each, whose slots collide in 128 entries
 * and not in 1024: the second delta's base is the first access's address
 * in a table of 128 entries only.
 */
static void test_block_bytes(void **state)
{
	uint64_t c = colliding(0x600000), got[4];
	uint8_t recs[64], p[32];
	size_t q;
	struct buf f;

	(void)state;
	q = put_varint(p, zigzag((int64_t)c));
	p[q++] = 13 << 1 | 1; /* n = 13, uniform: the last at c + 12 * 12 = c + APART */
	p[q++] = 12;
	p[q++] = 2;	      /* m */
	p[q++] = 0;	      /* access 0: instruction 0, */
	p[q++] = 8 << 1;      /* a load of 8 */
	p[q++] = 12;	      /* access 1: instruction 12, */
	p[q++] = 8 << 1 | 1;  /* a store of 8 */
	q += put_varint(p + q, zigzag(0x1000));
	q += put_varint(p + q, zigzag(0x10));
	q = put_rec(recs, ITRACE_T_BLOCK, p, q);
	f = one_chunk(ITRACE_FEAT_BLOCK, 10, recs, q, 1);
	assert_int_equal(mem_addrs(&f, got, 4, -ITRACE_E_NOFOOTER), 2);
	assert_int_equal(got[0], 0x1000);
	assert_int_equal(got[1], 0x10);
	free(f.data);
	f = one_chunk(ITRACE_FEAT_BLOCK, 7, recs, q, 1);
	assert_int_equal(mem_addrs(&f, got, 4, -ITRACE_E_NOFOOTER), 2);
	assert_int_equal(got[0], 0x1000);
	assert_int_equal(got[1], 0x1010);
	free(f.data);
}

/*
 * Round trip: 300 blocks of 1 to 6 instructions, each with accesses that
 * stride, run in random order as whole blocks, blocks cut short (MEM
 * records) and plain MEM records, across small chunks; with and without
 * the wide table the reader delivers the addresses written, and the wide
 * file is smaller: 300 blocks' accesses crowd 128 entries.
 */
#define NB 300
static void test_round_trip(void **state)
{
	static uint64_t want[200000], got[200000];
	size_t size[2] = { 0, 0 };

	(void)state;
	for (int wide = 0; wide < 2; wide++) {
		struct itrace_writer_options o;
		struct itrace_writer *w;
		struct gen g = { 42 };
		struct itrace_block_access acc[NB][12];
		uint64_t stride[NB][12], cur[NB][12], addrs[12];
		uint8_t lens[6] = { 3, 4, 2, 5, 1, 7 };
		size_t nacc[NB], n = 0;
		int ids[NB], fd;
		struct buf f;

		itrace_writer_options_init(&o);
		o.compression = ITRACE_COMPRESS_NONE;
		o.flags = ITRACE_FF_MEM;
		o.features = ITRACE_FEAT_BLOCK;
		o.mem_table_log2 = wide ? ITRACE_MEM_TABLE_LOG2_WIDE : 0;
		o.chunk_bytes = 64 * 1024;
		w = memfd_writer(&o, &fd);
		for (int i = 0; i < NB; i++) {
			size_t ni = 1 + next(&g) % 6;

			nacc[i] = 1 + next(&g) % 12;
			for (size_t k = 0; k < nacc[i]; k++) {
				acc[i][k].insn = (uint8_t)(k * ni / nacc[i]);
				acc[i][k].flags = next(&g) & 1 ? ITRACE_MEM_STORE : 0;
				acc[i][k].size = 8;
				stride[i][k] = 8 * (next(&g) % 4);
				cur[i][k] = (next(&g) & 1 ? 0x7ffd0000ull : 0x55550000ull) + next(&g) * 64;
			}
			ids[i] = itrace_writer_block_define(w, 0x400000 + (uint64_t)i * 64, ni, lens,
							    nacc[i], acc[i]);
			assert_int_equal(ids[i], i);
		}
		while (n + 12 < sizeof(want) / sizeof(want[0])) {
			int i = (int)(next(&g) % NB);

			for (size_t k = 0; k < nacc[i]; k++) {
				cur[i][k] += stride[i][k];
				addrs[k] = cur[i][k];
			}
			if (next(&g) % 16 == 0) { /* cut short after its first instruction */
				size_t k = 0;

				assert_int_equal(itrace_writer_block_partial(w, i, 1, addrs, NULL), 0);
				for (; k < nacc[i] && acc[i][k].insn == 0; k++)
					want[n++] = addrs[k];
			} else {
				assert_int_equal(itrace_writer_block(w, i, addrs), 0);
				memcpy(want + n, addrs, nacc[i] * sizeof(*addrs));
				n += nacc[i];
			}
		}
		f = close_and_slurp(w, fd);
		assert_int_equal(f.data[12], wide ? 10 : 7); /* mem_table_log2 */
		assert_int_equal(mem_addrs(&f, got, sizeof(got) / sizeof(got[0]), 1), n);
		assert_memory_equal(got, want, n * sizeof(*got));
		size[wide] = f.len;
		free(f.data);
	}
	/* fewer base collisions: shorter deltas */
	assert_true(size[1] < size[0] * 9 / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_params),
		cmocka_unit_test(test_mem_bytes),
		cmocka_unit_test(test_block_bytes),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
