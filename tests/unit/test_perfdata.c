/*
 * test_perfdata.c - the perf.data parser on small files assembled here,
 * field by field, from perf.data-file-format.txt and the UAPI layouts:
 * intel_bts full trace and snapshot recordings, legacy branch samples,
 * build-ids from the feature section, loss markers, and every kind of
 * damage or unsupported content the parser must name.
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

#define KADDR 0xffffffff81000000ull

/* ---- a perf.data builder --------------------------------------------- */

struct pdb {
	uint8_t b[1 << 16];
	size_t len;
	size_t data_off;
};

static void p64(struct pdb *f, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		f->b[f->len++] = (uint8_t)(v >> (8 * i));
}

static void p32(struct pdb *f, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		f->b[f->len++] = (uint8_t)(v >> (8 * i));
}

static void p16(struct pdb *f, uint16_t v)
{
	f->b[f->len++] = (uint8_t)v;
	f->b[f->len++] = (uint8_t)(v >> 8);
}

static void pz(struct pdb *f, size_t n)
{
	memset(f->b + f->len, 0, n);
	f->len += n;
}

static void set64(struct pdb *f, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		f->b[at + i] = (uint8_t)(v >> (8 * i));
}

struct attr_spec {
	uint32_t type;
	uint64_t config, period, sample_type, flags, id;
};

#define ATTR_SZ 112 /* PERF_ATTR_SIZE_VER5 */

/* Header, attrs (+16-byte ids section each), ids; data starts after. */
static void pdb_begin(struct pdb *f, const struct attr_spec *a, size_t n)
{
	size_t entry = ATTR_SZ + 16, ids = 104 + n * entry;

	memset(f, 0, sizeof *f);
	memcpy(f->b, "PERFILE2", 8);
	f->len = 8;
	p64(f, 104);
	p64(f, entry);
	p64(f, 104);
	p64(f, n * entry);
	f->len = 104;
	for (size_t i = 0; i < n; i++) {
		size_t s = f->len;
		p32(f, a[i].type);
		p32(f, ATTR_SZ);
		p64(f, a[i].config);
		p64(f, a[i].period);
		p64(f, a[i].sample_type);
		p64(f, 0);
		p64(f, a[i].flags);
		pz(f, ATTR_SZ - (f->len - s));
		p64(f, ids + 8 * i);
		p64(f, 8);
	}
	for (size_t i = 0; i < n; i++)
		p64(f, a[i].id);
	f->data_off = f->len;
}

static size_t rec_begin(struct pdb *f, uint32_t type, uint16_t misc)
{
	size_t at = f->len;
	p32(f, type);
	p16(f, misc);
	p16(f, 0);
	return at;
}

static void rec_end(struct pdb *f, size_t at)
{
	size_t n = f->len - at;
	f->b[at + 6] = (uint8_t)n;
	f->b[at + 7] = (uint8_t)(n >> 8);
}

static void rec_auxtrace_info(struct pdb *f, uint32_t type, int snapshot)
{
	size_t at = rec_begin(f, PR_AUXTRACE_INFO, 0);
	p32(f, type);
	p32(f, 0);
	p64(f, 8); /* PMU type */
	pz(f, 32);
	p64(f, (uint64_t)snapshot);
	rec_end(f, at);
}

static void rec_mmap2(struct pdb *f, uint32_t pid, uint64_t start, const char *path, const uint8_t *bid)
{
	size_t n = strlen(path) + 1;
	size_t at = rec_begin(f, PR_MMAP2, (uint16_t)(2 | (bid ? PR_MISC_MMAP_BUILD_ID : 0)));
	p32(f, pid);
	p32(f, pid);
	p64(f, start);
	p64(f, 0x1000);
	p64(f, 0);
	if (bid) {
		pz(f, 4);
		f->b[f->len - 4] = 20;
		memcpy(f->b + f->len, bid, 20);
		f->len += 20;
	} else {
		pz(f, 24);
	}
	p32(f, PROT_READ | PROT_EXEC);
	p32(f, 2);
	memcpy(f->b + f->len, path, n);
	f->len += n;
	pz(f, (8 - n % 8) % 8);
	p32(f, pid); /* sample_id: pid, tid, time */
	p32(f, pid);
	p64(f, 1);
	rec_end(f, at);
}

static void rec_comm(struct pdb *f, uint32_t pid, uint32_t tid, const char *name)
{
	size_t at = rec_begin(f, PR_COMM, (uint16_t)PR_MISC_COMM_EXEC);
	p32(f, pid);
	p32(f, tid);
	memcpy(f->b + f->len, name, strlen(name) + 1);
	f->len += strlen(name) + 1;
	pz(f, (8 - (strlen(name) + 1) % 8) % 8);
	rec_end(f, at);
}

static void rec_aux(struct pdb *f, uint64_t off, uint64_t size, uint64_t flags)
{
	size_t at = rec_begin(f, PR_AUX, 0);
	p64(f, off);
	p64(f, size);
	p64(f, flags);
	rec_end(f, at);
}

/* AUXTRACE header + n BTS records starting at `first` (0 = padding). */
static void rec_auxtrace(struct pdb *f, uint32_t tid, uint64_t off, const uint64_t *pairs, size_t n)
{
	size_t at = rec_begin(f, PR_AUXTRACE, 0);
	p64(f, n * 24);
	p64(f, off);
	p64(f, 1);
	p32(f, 0);
	p32(f, tid);
	p32(f, 0xffffffffu);
	p32(f, 0);
	rec_end(f, at);
	for (size_t i = 0; i < n; i++) {
		p64(f, pairs[2 * i]);
		p64(f, pairs[2 * i + 1]);
		p64(f, 0);
	}
}

static void rec_sample(struct pdb *f, uint32_t pid, uint32_t tid, uint64_t from, uint64_t to)
{
	size_t at = rec_begin(f, PR_SAMPLE, 2); /* IP|TID|TIME|ADDR|PERIOD */
	p64(f, from);
	p32(f, pid);
	p32(f, tid);
	p64(f, 77);
	p64(f, to);
	p64(f, 1);
	rec_end(f, at);
}

/* Data size, then the feature table (BUILD_ID when bid_path) and sections. */
static void pdb_finish(struct pdb *f, const char *bid_path, const uint8_t *bid)
{
	size_t data_size = f->len - f->data_off;

	set64(f, 40, f->data_off);
	set64(f, 48, data_size);
	if (!bid_path)
		return;
	f->b[72] = 1u << 2; /* HEADER_BUILD_ID */
	size_t table = f->len;
	p64(f, 0);
	p64(f, 0);
	size_t sec = f->len, n = strlen(bid_path) + 1, size = 36 + (n + 63) / 64 * 64;
	p32(f, 0);
	p16(f, 2);
	p16(f, (uint16_t)size);
	p32(f, 0xffffffffu);
	memcpy(f->b + f->len, bid, 20);
	f->len += 20;
	pz(f, 4); /* no BUILD_ID_SIZE bit: 20 bytes */
	memcpy(f->b + f->len, bid_path, n);
	f->len += n;
	pz(f, size - 36 - n);
	set64(f, table, sec);
	set64(f, table + 8, f->len - sec);
}

/* ---- event collection ------------------------------------------------- */

#define MAX_EV 256
struct collected {
	struct bts_event ev[MAX_EV];
	int n;
};

static int collect(void *ctx, const struct bts_event *ev)
{
	struct collected *c = ctx;
	if (c->n < MAX_EV)
		c->ev[c->n] = *ev;
	c->n++;
	return 0;
}

static int parse(const struct pdb *f, size_t len, struct collected *c, struct perfdata_stats *st, char *err)
{
	memset(c, 0, sizeof *c);
	return perfdata_parse(f->b, len, BTS_SPACE_USER, collect, c, st, err, 256);
}

static const struct attr_spec bts_attrs[] = {
	{8, 0, 1, 0x10007, 1u << 5 | 1u << 18, 100},
	{1, 9, 1, 0x10007, 1u << 8 | 1u << 9 | 1u << 13 | 1u << 18 | 1u << 23, 101},
};
static const struct attr_spec legacy_attr = {0, 4, 1, 0x10f, 1u << 5, 200};
static const uint8_t bid[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

static struct pdb F; /* 64 KiB: not on the stack */

static void build_bts(int truncated)
{
	const uint64_t recs1[] = {0x401000, 0x401100, 0, 0, 0x401104, 0x401200};
	const uint64_t recs2[] = {0x401204, 0x401000, 0x401010, KADDR};

	pdb_begin(&F, bts_attrs, 2);
	rec_auxtrace_info(&F, 2, 0);
	rec_comm(&F, 50, 50, "prog");
	rec_mmap2(&F, 50, 0x400000, "/bin/prog", NULL);
	rec_aux(&F, 0, 72, truncated ? PR_AUX_FLAG_TRUNCATED : 0);
	rec_auxtrace(&F, 51, 0, recs1, 3);
	rec_auxtrace(&F, 50, 0, recs2, 2);
	pdb_finish(&F, "/bin/prog", bid);
}

static void test_bts_full_trace(void **state)
{
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	build_bts(1);
	assert_int_equal(parse(&F, F.len, &c, &st, err), 0);
	assert_int_equal(st.mode, PERFDATA_MODE_BTS);
	assert_int_equal(st.auxtrace_buffers, 2);
	assert_int_equal(st.bts.padding, 1);
	assert_int_equal(st.bts.kentries, 1);
	assert_int_equal(st.buildids, 1);
	assert_int_equal(st.truncated_aux, 1);
	/* COMM, MMAP, 2 branches of 51, LOST (after the data it follows), 1 of 50, kernel entry */
	assert_int_equal(c.n, 7);
	assert_int_equal(c.ev[6].type, BTS_EV_KENTRY);
	assert_int_equal(c.ev[0].type, BTS_EV_COMM);
	assert_int_equal(c.ev[1].type, BTS_EV_MMAP);
	assert_int_equal(c.ev[1].u.mmap.buildid_len, 20);
	assert_memory_equal(c.ev[1].u.mmap.buildid, bid, 20);
	assert_int_equal(c.ev[2].type, BTS_EV_BRANCH);
	assert_int_equal(c.ev[2].tid, 51);
	assert_int_equal(c.ev[2].u.branch.from, 0x401000);
	assert_int_equal(c.ev[3].u.branch.to, 0x401200);
	assert_int_equal(c.ev[4].type, BTS_EV_LOST);
	assert_int_equal(c.ev[4].u.lost.count, 1);
	assert_int_equal(c.ev[5].type, BTS_EV_BRANCH);
	assert_int_equal(c.ev[5].tid, 50);
	assert_int_equal(c.ev[5].pid, 50);
}

static void test_bts_snapshot_overlap_removed(void **state)
{
	const uint64_t a[] = {0x1000, 0x2000, 0x1010, 0x2010, 0x1020, 0x2020, 0x1030, 0x2030};
	const uint64_t b[] = {0x1020, 0x2020, 0x1030, 0x2030, 0x1040, 0x2040};
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	pdb_begin(&F, bts_attrs, 2);
	rec_auxtrace_info(&F, 2, 1);
	rec_auxtrace(&F, 5, 0, a, 4);
	rec_auxtrace(&F, 5, 96, b, 3);
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), 0);
	assert_int_equal(st.mode, PERFDATA_MODE_SNAPSHOT);
	assert_int_equal(st.overlap_bytes, 48);
	assert_int_equal(c.n, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(c.ev[i].u.branch.from, 0x1000 + 0x10 * i);
		assert_int_equal(c.ev[i].u.branch.to, 0x2000 + 0x10 * i);
	}
}

static void test_legacy_samples(void **state)
{
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	pdb_begin(&F, &legacy_attr, 1);
	rec_mmap2(&F, 7, 0x400000, "/bin/p", bid);
	rec_sample(&F, 7, 8, 0x400010, 0x400100);
	rec_sample(&F, 7, 8, 0x400104, KADDR); /* kernel: dropped */
	rec_sample(&F, 7, 9, 0x400200, 0x400010);
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), 0);
	assert_int_equal(st.mode, PERFDATA_MODE_LEGACY);
	assert_int_equal(st.branch_samples, 3);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.ev[0].u.mmap.buildid_len, 20); /* inline MMAP2 build-id */
	assert_int_equal(c.ev[1].u.branch.from, 0x400010);
	assert_int_equal(c.ev[1].u.branch.to, 0x400100);
	assert_int_equal(c.ev[1].tid, 8);
	assert_int_equal(c.ev[2].tid, 9);
}

static void test_legacy_sampled_not_full(void **state)
{
	struct attr_spec a = legacy_attr;
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	a.period = 1000;
	pdb_begin(&F, &a, 1);
	rec_sample(&F, 7, 8, 0x400010, 0x400100);
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_NOTSUP);
	assert_non_null(strstr(err, "-c 1"));
	a = legacy_attr;
	a.sample_type = 0x107; /* no ADDR: recorded without -d */
	pdb_begin(&F, &a, 1);
	rec_comm(&F, 7, 7, "p");
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_NOTSUP);
	assert_non_null(strstr(err, "-d"));
}

static void test_unsupported_content(void **state)
{
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	pdb_begin(&F, bts_attrs, 2);
	rec_auxtrace_info(&F, 1, 0); /* Intel PT */
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_NOTSUP);
	assert_non_null(strstr(err, "Intel PT"));

	pdb_begin(&F, bts_attrs, 2);
	size_t at = rec_begin(&F, PR_COMPRESSED, 0);
	rec_end(&F, at);
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_NOTSUP);
	assert_non_null(strstr(err, "-z"));

	/* cycles samples only: no branch trace at all */
	struct attr_spec cyc = {0, 0, 4000, 0x7, 0, 1};
	pdb_begin(&F, &cyc, 1);
	rec_comm(&F, 1, 1, "x");
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_NOTSUP);
	assert_non_null(strstr(err, "no branch trace"));

	build_bts(0);
	memcpy(F.b, "2ELIFREP", 8);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_NOTSUP);
	build_bts(0);
	memcpy(F.b, "NOTPERF!", 8);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_BADMAGIC);
}

/* perf record -o -: a 16-byte header, attributes and build-ids as records. */
static void test_pipe_mode(void **state)
{
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	memset(&F, 0, sizeof F);
	memcpy(F.b, "PERFILE2", 8);
	F.len = 8;
	p64(&F, 16);
	rec_sample(&F, 7, 8, 0x1000, 0x2000); /* before any attribute: not ours */
	size_t at = rec_begin(&F, 64, 0);     /* HEADER_ATTR {attr, id} */
	size_t a0 = F.len;
	p32(&F, legacy_attr.type);
	p32(&F, ATTR_SZ);
	p64(&F, legacy_attr.config);
	p64(&F, legacy_attr.period);
	p64(&F, legacy_attr.sample_type);
	p64(&F, 0);
	p64(&F, legacy_attr.flags);
	pz(&F, ATTR_SZ - (F.len - a0));
	p64(&F, legacy_attr.id);
	rec_end(&F, at);
	rec_mmap2(&F, 7, 0x400000, "/bin/p", NULL);
	rec_sample(&F, 7, 8, 0x400010, 0x400100);
	at = rec_begin(&F, 67, 2 | 1u << 15); /* HEADER_BUILD_ID, at the end as perf sends it */
	p32(&F, 0xffffffffu);
	memcpy(F.b + F.len, bid, 20);
	F.len += 20;
	pz(&F, 4);
	F.b[F.len - 4] = 20; /* build-id size */
	memcpy(F.b + F.len, "/bin/p", 7);
	F.len += 7;
	pz(&F, 64 - 7);
	rec_end(&F, at);

	assert_int_equal(parse(&F, F.len, &c, &st, err), 0);
	assert_int_equal(st.mode, PERFDATA_MODE_LEGACY);
	assert_int_equal(st.other_samples, 1);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.ev[0].type, BTS_EV_MMAP);
	assert_int_equal(c.ev[0].u.mmap.buildid_len, 20); /* from the later record */
	assert_memory_equal(c.ev[0].u.mmap.buildid, bid, 20);
	assert_int_equal(c.ev[1].u.branch.to, 0x400100);

	/* an attribute size larger than its record (the record follows the 48-byte sample) */
	size_t attr_rec = 16 + 48;
	F.b[attr_rec + 8 + 4] = 0xff;
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_CORRUPT);
	assert_non_null(strstr(err, "HEADER_ATTR"));

	/* an empty stream holds no branch trace */
	assert_int_equal(parse(&F, 16, &c, &st, err), -ITRACE_E_NOTSUP);
}

static void test_damage(void **state)
{
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	/* unfinished recording */
	build_bts(0);
	set64(&F, 48, 0);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_TRUNCATED);
	assert_non_null(strstr(err, "not finished"));

	/* an AUXTRACE claiming more bytes than the data holds: events before it delivered */
	build_bts(0);
	size_t data_off = F.data_off;
	size_t pos = data_off, aux_at = 0;
	while (pos < F.len) {
		if (F.b[pos] == PR_AUXTRACE && !aux_at)
			aux_at = pos;
		size_t sz = F.b[pos + 6] | F.b[pos + 7] << 8;
		if (F.b[pos] == PR_AUXTRACE)
			sz += F.b[pos + 8];
		pos += sz;
		if (aux_at)
			break;
	}
	assert_true(aux_at);
	set64(&F, aux_at + 8, 1u << 20);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_TRUNCATED);
	assert_int_equal(c.n, 2); /* COMM and MMAP */
	assert_non_null(strstr(err, "AUXTRACE"));

	/* a record of size 0 would loop forever */
	build_bts(0);
	F.b[data_off + 6] = 0;
	F.b[data_off + 7] = 0;
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_CORRUPT);

	/* AUXTRACE before AUXTRACE_INFO */
	const uint64_t r[] = {0x1000, 0x2000};
	pdb_begin(&F, bts_attrs, 2);
	rec_auxtrace(&F, 1, 0, r, 1);
	pdb_finish(&F, NULL, NULL);
	assert_int_equal(parse(&F, F.len, &c, &st, err), -ITRACE_E_CORRUPT);
}

/* Every prefix of a valid file: an error or success, never a crash or overread. */
static void test_every_truncation(void **state)
{
	struct collected c;
	struct perfdata_stats st;
	char err[256];
	(void)state;

	build_bts(1);
	size_t full = F.len;
	for (size_t len = 0; len < full; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, F.b, len);
		memset(&c, 0, sizeof c);
		int rc = perfdata_parse(copy, len, BTS_SPACE_USER, collect, &c, &st, err, sizeof err);
		assert_true(rc <= 0);
		if (rc < 0)
			assert_true(err[0] != 0);
		free(copy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bts_full_trace),
		cmocka_unit_test(test_bts_snapshot_overlap_removed),
		cmocka_unit_test(test_legacy_samples),
		cmocka_unit_test(test_legacy_sampled_not_full),
		cmocka_unit_test(test_unsupported_content),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_every_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
