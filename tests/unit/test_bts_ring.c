/*
 * test_bts_ring.c - the live backend's reading of the kernel's mapped
 * buffers, on memory laid out here as the kernel lays it out (UAPI
 * perf_event.h): struct perf_event_mmap_page with data_head/data_tail and
 * aux_head/aux_tail, a data ring of records ending in a sample_id
 * trailer, an AUX area of raw 24-byte BTS records.  Covers records and
 * AUX stretches that wrap around the ring end, incomplete records,
 * TRUNCATED areas, legacy samples and the overwrite (--ring) snapshot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "../../collectors/bts/bts.h"

#define RING 4096
#define KADDR 0xffffffff81000000ull

static struct perf_event_mmap_page page;
static uint8_t data[RING], aux[RING];

#define MAX_EV 64
static struct bts_event evs[MAX_EV];
static int nev;

static int collect(void *ctx, const struct bts_event *ev)
{
	(void)ctx;
	assert_true(nev < MAX_EV);
	evs[nev++] = *ev;
	return 0;
}

static void ring_init(struct bts_ring *r, int legacy, int overwrite)
{
	memset(&page, 0, sizeof page);
	memset(data, 0, sizeof data);
	memset(aux, 0, sizeof aux);
	memset(r, 0, sizeof *r);
	nev = 0;
	r->pg = &page;
	r->data = data;
	r->data_size = RING;
	r->aux = legacy ? NULL : aux;
	r->aux_size = RING;
	r->legacy = legacy;
	r->overwrite = overwrite;
	r->spaces = BTS_SPACE_USER;
	r->fn = collect;
}

/* Little-endian stores into a ring at a monotonic position (wrapping). */
static void ring_put(uint8_t *ring, size_t size, uint64_t pos, const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ring[(pos + i) % size] = ((const uint8_t *)src)[i];
}

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Append a record to the data ring at data_head; returns its size. */
static size_t push(uint32_t type, uint16_t misc, const uint8_t *body, size_t n, uint32_t pid, uint32_t tid)
{
	uint8_t rec[256];
	size_t size = 8 + n + 16;

	le32(rec, type);
	rec[4] = (uint8_t)misc;
	rec[5] = (uint8_t)(misc >> 8);
	rec[6] = (uint8_t)size;
	rec[7] = 0;
	memcpy(rec + 8, body, n);
	le32(rec + 8 + n, pid); /* sample_id: TID, IDENTIFIER */
	le32(rec + 12 + n, tid);
	le64(rec + 16 + n, 77);
	ring_put(data, RING, page.data_head, rec, size);
	page.data_head += size;
	return size;
}

static void push_aux(uint64_t off, uint64_t size, uint64_t flags, uint32_t pid, uint32_t tid)
{
	uint8_t b[24];
	le64(b, off);
	le64(b + 8, size);
	le64(b + 16, flags);
	push(PR_AUX, 0, b, sizeof b, pid, tid);
}

static void put_bts(uint64_t pos, uint64_t from, uint64_t to)
{
	uint8_t r[24] = {0};
	le64(r, from);
	le64(r + 8, to);
	ring_put(aux, RING, pos, r, 24);
}

static void test_full_trace(void **state)
{
	struct bts_ring r;
	uint8_t comm[16] = {0};
	(void)state;

	ring_init(&r, 0, 0);
	le32(comm, 5);
	le32(comm + 4, 5);
	memcpy(comm + 8, "prog", 5);
	push(PR_COMM, PR_MISC_COMM_EXEC, comm, sizeof comm, 5, 5);
	for (int i = 0; i < 3; i++)
		put_bts(24 * i, 0x1000 + i, 0x2000 + i);
	put_bts(72, 0x3000, 0x4000);
	put_bts(96, 0x3010, KADDR); /* a crossing into the kernel */
	push_aux(0, 72, 0, 5, 6);
	push_aux(72, 48, PR_AUX_FLAG_TRUNCATED, 5, 6);

	assert_int_equal(bts_ring_drain(&r), 0);
	assert_int_equal(nev, 7);
	assert_int_equal(evs[0].type, BTS_EV_COMM);
	assert_int_equal(evs[0].u.comm.exec, 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(evs[1 + i].type, BTS_EV_BRANCH);
		assert_int_equal(evs[1 + i].tid, 6); /* from the AUX record's sample_id */
		assert_int_equal(evs[1 + i].pid, 5);
		assert_int_equal(evs[1 + i].u.branch.from, 0x1000 + i);
	}
	assert_int_equal(evs[4].u.branch.from, 0x3000);
	assert_int_equal(evs[5].type, BTS_EV_KENTRY);
	assert_int_equal(evs[6].type, BTS_EV_LOST); /* after the data it follows */
	assert_int_equal(r.truncated, 1);
	assert_int_equal(page.data_tail, page.data_head);
	assert_int_equal(page.aux_tail, 120); /* handed back to the kernel */

	/* Nothing new: nothing delivered. */
	nev = 0;
	assert_int_equal(bts_ring_drain(&r), 0);
	assert_int_equal(nev, 0);
	bts_ring_fini(&r);
}

static void test_wrap_and_partial(void **state)
{
	struct bts_ring r;
	uint8_t comm[16] = {0};
	(void)state;

	ring_init(&r, 0, 0);
	/* The data ring has gone round: the next record straddles its end. */
	page.data_head = page.data_tail = 3 * RING - 20;
	/* So has the AUX area: two records, one at the end and one at the start. */
	put_bts(5 * RING - 24, 0x1111, 0x2222);
	put_bts(5 * RING, 0x3333, 0x4444);
	push_aux(5 * RING - 24, 48, 0, 9, 9);
	le32(comm, 9);
	le32(comm + 4, 9);
	memcpy(comm + 8, "x", 2);
	size_t last = push(PR_COMM, 0, comm, sizeof comm, 9, 9);
	/* The kernel has announced only part of the last record yet. */
	page.data_head -= last - 10;

	assert_int_equal(bts_ring_drain(&r), 0);
	assert_int_equal(nev, 2);
	assert_int_equal(evs[0].u.branch.from, 0x1111);
	assert_int_equal(evs[1].u.branch.from, 0x3333);
	assert_int_equal(page.aux_tail, 5 * RING + 24);
	assert_int_equal(page.data_tail, 3 * RING - 20 + 48); /* stops before the partial record */
	page.data_head += last - 10;
	assert_int_equal(bts_ring_drain(&r), 0);
	assert_int_equal(nev, 3);
	assert_int_equal(evs[2].type, BTS_EV_COMM);
	bts_ring_fini(&r);
}

static void test_legacy_samples(void **state)
{
	struct bts_ring r;
	uint8_t s[32];
	(void)state;

	ring_init(&r, 1, 0);
	/* IDENTIFIER, IP, TID, ADDR: no trailer on samples, so push one by hand. */
	le64(s, 1);
	le64(s + 8, 0x400010);
	le32(s + 16, 3);
	le32(s + 20, 4);
	le64(s + 24, 0x400100);
	uint8_t rec[40];
	le32(rec, PR_SAMPLE);
	rec[4] = 2;
	rec[5] = 0;
	rec[6] = 40;
	rec[7] = 0;
	memcpy(rec + 8, s, 32);
	ring_put(data, RING, page.data_head, rec, 40);
	page.data_head += 40;
	le64(rec + 8 + 24, KADDR); /* the kernel filters these; we do too */
	ring_put(data, RING, page.data_head, rec, 40);
	page.data_head += 40;
	uint8_t lost[16];
	le64(lost, 1);
	le64(lost + 8, 12);
	push(PR_LOST, 0, lost, sizeof lost, 3, 4);

	assert_int_equal(bts_ring_drain(&r), 0);
	assert_int_equal(nev, 2);
	assert_int_equal(evs[0].type, BTS_EV_BRANCH);
	assert_int_equal(evs[0].tid, 4);
	assert_int_equal(evs[0].u.branch.to, 0x400100);
	assert_int_equal(evs[1].type, BTS_EV_LOST);
	assert_int_equal(evs[1].u.lost.count, 12);
	assert_int_equal(evs[1].u.lost.unit, ITRACE_UNIT_BRANCHES);
	assert_int_equal(r.cst.filtered, 1);
	bts_ring_fini(&r);
}

static void test_snapshot(void **state)
{
	struct bts_ring r;
	(void)state;

	ring_init(&r, 0, 1);
	r.aux_size = 10 * 24 + 8; /* 10 slots and an unused tail */
	/* Slots 0..9 hold records 10..13 (newest, after the wrap) and 4..9. */
	for (int k = 0; k < 10; k++) {
		int n = k < 4 ? 10 + k : k;
		put_bts(24 * k, 0x1000 + n, 0x2000 + n);
	}
	page.aux_head = 4 * 24;
	/* An AUX record in overwrite mode does not deliver data by itself. */
	push_aux(0, 96, PR_AUX_FLAG_OVERWRITE, 1, 1);
	assert_int_equal(bts_ring_drain(&r), 0);
	assert_int_equal(nev, 0);

	assert_int_equal(bts_ring_snapshot(&r, 1, 2, 5), 0);
	assert_int_equal(nev, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(evs[i].u.branch.from, 0x1000 + 9 + i);
		assert_int_equal(evs[i].tid, 2);
	}

	/* Before the first wrap: unwritten slots are zero and skipped. */
	bts_ring_fini(&r);
	ring_init(&r, 0, 1);
	r.aux_size = 10 * 24;
	put_bts(0, 0x5000, 0x6000);
	put_bts(24, 0x5010, 0x6010);
	page.aux_head = 48;
	assert_int_equal(bts_ring_snapshot(&r, 1, 1, 100), 0);
	assert_int_equal(nev, 2);
	assert_int_equal(evs[0].u.branch.from, 0x5000);
	bts_ring_fini(&r);
}

static void test_bad_record_size(void **state)
{
	struct bts_ring r;
	uint8_t zero[8] = {0};
	(void)state;

	ring_init(&r, 0, 0);
	ring_put(data, RING, 0, zero, 8);
	page.data_head = 8;
	assert_int_equal(bts_ring_drain(&r), -ITRACE_E_CORRUPT);
	bts_ring_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_trace),
		cmocka_unit_test(test_wrap_and_partial),
		cmocka_unit_test(test_legacy_samples),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_bad_record_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
