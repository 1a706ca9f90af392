/*
 * test_bts.c - the raw BTS buffer converter, snapshot overlap removal,
 * address filter, perf sideband decoding and the itrace sink, on
 * byte-exact inputs built from the documented layouts.
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

#include "../../collectors/bts/bts.h"

#define KADDR 0xffffffff81000000ull

/* ---- helpers ---------------------------------------------------------- */

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

static void bts_rec(uint8_t *p, uint64_t from, uint64_t to, uint64_t flags)
{
	le64(p, from);
	le64(p + 8, to);
	le64(p + 16, flags);
}

#define MAX_EV 64
struct collected {
	struct bts_event ev[MAX_EV];
	char names[MAX_EV][64];
	int n;
	int fail_at; /* return an error at this event (-1: never) */
};

static int collect(void *ctx, const struct bts_event *ev)
{
	struct collected *c = ctx;

	if (c->n == c->fail_at)
		return -ITRACE_E_IO;
	assert_true(c->n < MAX_EV);
	c->ev[c->n] = *ev;
	if (ev->type == BTS_EV_MMAP)
		snprintf(c->names[c->n], 64, "%.*s", (int)ev->u.mmap.path_len, ev->u.mmap.path);
	if (ev->type == BTS_EV_COMM)
		snprintf(c->names[c->n], 64, "%.*s", (int)ev->u.comm.name_len, ev->u.comm.name);
	c->n++;
	return 0;
}

static void init_collected(struct collected *c)
{
	memset(c, 0, sizeof *c);
	c->fail_at = -1;
}

/* ---- conversion ------------------------------------------------------- */

static void test_convert_skips_padding_and_sentinels(void **state)
{
	uint8_t buf[6 * 24 + 5];
	struct collected c;
	struct bts_convert_stats st = {0};
	(void)state;

	memset(buf, 0, sizeof buf);
	bts_rec(buf + 0, 0x401000, 0x401020, 0x10);
	bts_rec(buf + 24, 0, 0, 0);		 /* padding */
	bts_rec(buf + 48, 0, 0x401000, 0);	 /* trace begin */
	bts_rec(buf + 72, 0x401030, 0x401100, 0);
	bts_rec(buf + 96, 0x401100, 0, 0);	 /* trace end */
	bts_rec(buf + 120, 0x401104, KADDR, 0); /* into the kernel */
	init_collected(&c);
	assert_int_equal(bts_convert(buf, sizeof buf, 7, 8, BTS_SPACE_USER, collect, &c, &st), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.ev[0].type, BTS_EV_BRANCH);
	assert_int_equal(c.ev[0].pid, 7);
	assert_int_equal(c.ev[0].tid, 8);
	assert_int_equal(c.ev[0].u.branch.from, 0x401000);
	assert_int_equal(c.ev[0].u.branch.to, 0x401020);
	assert_int_equal(c.ev[1].u.branch.from, 0x401030);
	assert_int_equal(c.ev[1].u.branch.to, 0x401100);
	assert_int_equal(st.records, 6);
	assert_int_equal(st.padding, 1);
	assert_int_equal(st.sentinels, 2);
	assert_int_equal(st.filtered, 0);
	assert_int_equal(c.ev[2].type, BTS_EV_KENTRY); /* user -> kernel crossing */
	assert_int_equal(c.ev[2].u.branch.from, 0x401104);
	assert_int_equal(st.kentries, 1);
	assert_int_equal(st.branches, 2);
	assert_int_equal(st.trailing, 5);
}

static void test_convert_kernel_filters(void **state)
{
	uint8_t buf[3 * 24];
	struct collected c;
	struct bts_convert_stats st = {0};
	(void)state;

	bts_rec(buf, 0x1000, 0x2000, 0);
	bts_rec(buf + 24, KADDR, KADDR + 0x40, 0);
	bts_rec(buf + 48, KADDR + 0x80, 0x3000, 0); /* sysret-like crossing */
	init_collected(&c);
	assert_int_equal(bts_convert(buf, sizeof buf, 1, 1, BTS_SPACE_KERNEL, collect, &c, &st), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.ev[0].u.branch.from, KADDR);
	init_collected(&c);
	assert_int_equal(bts_convert(buf, sizeof buf, 1, 1, BTS_SPACE_USER | BTS_SPACE_KERNEL, collect, &c, &st), 0);
	assert_int_equal(c.n, 3);
	assert_true(bts_addr_is_kernel(0xffff800000000000ull));
	assert_false(bts_addr_is_kernel(0x00007fffffffffffull));
}

static void test_convert_propagates_errors(void **state)
{
	uint8_t buf[3 * 24];
	struct collected c;
	struct bts_convert_stats st = {0};
	(void)state;

	for (int i = 0; i < 3; i++)
		bts_rec(buf + 24 * i, 0x1000 + i, 0x2000 + i, 0);
	init_collected(&c);
	c.fail_at = 1;
	assert_int_equal(bts_convert(buf, sizeof buf, 1, 1, BTS_SPACE_USER, collect, &c, &st), -ITRACE_E_IO);
	assert_int_equal(c.n, 1);
	assert_int_equal(st.branches, 1);
}

/* ---- snapshot overlap ------------------------------------------------- */

static void fill_seq(uint8_t *buf, int first, int n)
{
	for (int i = 0; i < n; i++)
		bts_rec(buf + 24 * i, 0x1000 + 16 * (first + i), 0x9000 + 16 * (first + i), 0);
}

static void test_overlap(void **state)
{
	uint8_t a[10 * 24], b[10 * 24];
	(void)state;

	fill_seq(a, 0, 10); /* records 0..9 */
	fill_seq(b, 6, 10); /* records 6..15: 4 repeat */
	assert_int_equal(bts_snapshot_overlap(a, sizeof a, b, sizeof b), 4 * 24);
	fill_seq(b, 10, 10); /* no overlap */
	assert_int_equal(bts_snapshot_overlap(a, sizeof a, b, sizeof b), 0);
	fill_seq(b, 3, 4); /* b inside a, but not at a's end */
	assert_int_equal(bts_snapshot_overlap(a, sizeof a, b, 4 * 24), 0);
	fill_seq(b, 7, 3); /* b is exactly a's tail */
	assert_int_equal(bts_snapshot_overlap(a, sizeof a, b, 3 * 24), 3 * 24);
	fill_seq(b, 0, 10); /* identical buffers (nothing new) */
	assert_int_equal(bts_snapshot_overlap(a, sizeof a, b, sizeof b), 10 * 24);
	assert_int_equal(bts_snapshot_overlap(a, 0, b, sizeof b), 0);
	assert_int_equal(bts_snapshot_overlap(a, sizeof a, b, 0), 0);
	/* a partial trailing record in either buffer is ignored */
	fill_seq(b, 8, 5);
	assert_int_equal(bts_snapshot_overlap(a, sizeof a + 0, b, 5 * 24 + 7), 2 * 24);
}

/* ---- perf sideband records -------------------------------------------- */

static size_t mmap2_record(uint8_t *r, const char *path, const uint8_t *bid, uint8_t bidlen)
{
	size_t n = strlen(path) + 1, size = 72 + (n + 7) / 8 * 8 + 16;

	memset(r, 0, size);
	le32(r, PR_MMAP2);
	r[4] = 2 | 0; /* misc: user */
	if (bid)
		r[5] = (uint8_t)(PR_MISC_MMAP_BUILD_ID >> 8);
	r[6] = (uint8_t)size;
	r[7] = (uint8_t)(size >> 8);
	le32(r + 8, 42);
	le32(r + 12, 43);
	le64(r + 16, 0x400000);
	le64(r + 24, 0x2000);
	le64(r + 32, 0x1000);
	if (bid) {
		r[40] = bidlen;
		memcpy(r + 44, bid, bidlen);
	}
	le32(r + 64, PROT_READ | PROT_EXEC);
	le32(r + 68, 2);
	memcpy(r + 72, path, n);
	return size;
}

static void test_sideband_mmap2(void **state)
{
	uint8_t r[256], bid[20];
	struct bts_event ev;
	(void)state;

	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);
	size_t size = mmap2_record(r, "/bin/prog", bid, 20);
	assert_int_equal(perf_record_sideband(r, size, &ev), 1);
	assert_int_equal(ev.type, BTS_EV_MMAP);
	assert_int_equal(ev.pid, 42);
	assert_int_equal(ev.tid, 43);
	assert_int_equal(ev.u.mmap.start, 0x400000);
	assert_int_equal(ev.u.mmap.len, 0x2000);
	assert_int_equal(ev.u.mmap.pgoff, 0x1000);
	assert_int_equal(ev.u.mmap.prot, PROT_READ | PROT_EXEC);
	assert_int_equal(ev.u.mmap.buildid_len, 20);
	assert_memory_equal(ev.u.mmap.buildid, bid, 20);
	assert_int_equal(ev.u.mmap.path_len, 9);
	assert_memory_equal(ev.u.mmap.path, "/bin/prog", 9);

	size = mmap2_record(r, "/lib/x.so", NULL, 0);
	assert_int_equal(perf_record_sideband(r, size, &ev), 1);
	assert_int_equal(ev.u.mmap.buildid_len, 0);

	/* a build-id longer than the 20-byte field is malformed */
	size = mmap2_record(r, "/bin/prog", bid, 20);
	r[40] = 21;
	assert_int_equal(perf_record_sideband(r, size, &ev), -1);
	/* a name without NUL inside the record is malformed */
	size = mmap2_record(r, "/bin/prog", NULL, 0);
	memset(r + 72, 'x', size - 72);
	assert_int_equal(perf_record_sideband(r, size, &ev), -1);
	/* too short */
	assert_int_equal(perf_record_sideband(r, 40, &ev), -1);
}

static void test_sideband_comm_fork_exit(void **state)
{
	uint8_t r[64];
	struct bts_event ev;
	(void)state;

	memset(r, 0, sizeof r);
	le32(r, PR_COMM);
	r[5] = (uint8_t)(PR_MISC_COMM_EXEC >> 8);
	r[6] = 32;
	le32(r + 8, 5);
	le32(r + 12, 6);
	memcpy(r + 16, "prog", 5);
	assert_int_equal(perf_record_sideband(r, 32, &ev), 1);
	assert_int_equal(ev.type, BTS_EV_COMM);
	assert_int_equal(ev.u.comm.exec, 1);
	assert_int_equal(ev.u.comm.name_len, 4);
	assert_int_equal(ev.tid, 6);

	memset(r, 0, sizeof r);
	le32(r, PR_FORK);
	r[6] = 40;
	le32(r + 8, 10);  /* pid */
	le32(r + 12, 10); /* ppid */
	le32(r + 16, 11); /* tid */
	le32(r + 20, 10); /* ptid */
	assert_int_equal(perf_record_sideband(r, 40, &ev), 1);
	assert_int_equal(ev.type, BTS_EV_FORK);
	assert_int_equal(ev.pid, 10);
	assert_int_equal(ev.tid, 11);
	assert_int_equal(ev.u.task.ptid, 10);
	le32(r, PR_EXIT);
	assert_int_equal(perf_record_sideband(r, 40, &ev), 1);
	assert_int_equal(ev.type, BTS_EV_EXIT);
	assert_int_equal(perf_record_sideband(r, 20, &ev), -1);

	le32(r, PR_FINISHED_ROUND);
	assert_int_equal(perf_record_sideband(r, 8, &ev), 0);
}

/* ---- sink: events -> itrace records ----------------------------------- */

static void test_sink_writes_taken_only_branch_trace(void **state)
{
	char path[] = "/tmp/test_bts_XXXXXX";
	int fd = mkstemp(path);
	struct itrace_writer_options wo;
	struct itrace_writer *w;
	struct itrace_reader *r;
	struct itrace_record rec;
	struct bts_sink sink;
	struct bts_event ev;
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	bts_writer_options(&wo);
	assert_int_equal(itrace_writer_open(path, &wo, &w), 0);
	bts_sink_init(&sink, w, BTS_SPACE_USER);

	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_MMAP;
	ev.pid = 9;
	ev.u.mmap.start = 0x400000;
	ev.u.mmap.len = 0x1000;
	ev.u.mmap.prot = PROT_READ | PROT_EXEC;
	ev.u.mmap.buildid_len = 2;
	ev.u.mmap.buildid[0] = 0xab;
	ev.u.mmap.buildid[1] = 0xcd;
	ev.u.mmap.path = "/bin/p";
	ev.u.mmap.path_len = 6;
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	ev.u.mmap.prot = PROT_READ; /* data mapping: not written */
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_BRANCH;
	ev.pid = 9;
	ev.tid = 9;
	ev.u.branch.from = 0x400010;
	ev.u.branch.to = 0x400100;
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	ev.u.branch.from = 0x400104;
	ev.u.branch.to = 0x400010;
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	ev.tid = 10;
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_LOST;
	ev.u.lost.reason = ITRACE_LOST_OVERFLOW;
	ev.u.lost.unit = ITRACE_UNIT_RECORDS;
	ev.u.lost.count = 3;
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	bts_sink_fini(&sink);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);

	assert_int_equal(itrace_reader_open(path, &r), 0);
	assert_int_equal(itrace_reader_header(r)->level, ITRACE_LEVEL_BRANCH);
	assert_true(itrace_reader_header(r)->flags & ITRACE_FF_TAKEN_ONLY);
	int expect[] = {ITRACE_REC_MMAP, ITRACE_REC_THREAD, ITRACE_REC_BRANCH, ITRACE_REC_BRANCH,
			ITRACE_REC_THREAD, ITRACE_REC_BRANCH, ITRACE_REC_LOST};
	for (size_t i = 0; i < sizeof expect / sizeof *expect; i++) {
		assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
		assert_int_equal(rec.type, expect[i]);
		if (rec.type == ITRACE_REC_MMAP) {
			assert_int_equal(rec.u.mmap.buildid_len, 2);
			assert_int_equal(rec.u.mmap.buildid[1], 0xcd);
			assert_int_equal(rec.u.mmap.path_len, 6);
		}
		if (rec.type == ITRACE_REC_BRANCH) {
			assert_int_equal(rec.u.branch.kind, ITRACE_BRANCH_UNKNOWN);
			assert_int_equal(rec.u.branch.flags, ITRACE_BRANCH_TAKEN);
		}
		if (rec.type == ITRACE_REC_THREAD)
			assert_int_equal(rec.u.thread.event, ITRACE_THREAD_SWITCH);
		if (i == 5)
			assert_int_equal(rec.tid, 10);
		if (rec.type == ITRACE_REC_LOST)
			assert_int_equal(rec.u.lost.count, 3);
	}
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), ITRACE_EOF);
	itrace_reader_close(r);
	unlink(path);
}

/* ---- why BTS is missing ---------------------------------------------- */

static void explain(const char *cpuinfo, char *buf, size_t len)
{
	struct bts_cpu_facts c;
	FILE *f = fmemopen((void *)cpuinfo, strlen(cpuinfo), "r");

	assert_non_null(f);
	bts_cpu_facts_parse(f, &c);
	fclose(f);
	bts_explain_missing_pmu(&c, buf, len);
}

static void test_missing_pmu_reasons(void **state)
{
	char m[512];
	(void)state;

	explain("processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme hypervisor lahf_lm\n", m, sizeof m);
	assert_non_null(strstr(m, "AuthenticAMD"));
	assert_non_null(strstr(m, "virtual machine"));
	explain("vendor_id\t: GenuineIntel\nflags\t\t: fpu dtes64 hypervisor\n", m, sizeof m);
	assert_non_null(strstr(m, "hypervisor"));
	explain("vendor_id\t: GenuineIntel\nflags\t\t: fpu dtes64 pti ssbd\n", m, sizeof m);
	assert_non_null(strstr(m, "pti=off"));
	/* 'pti' must be a whole flag, not part of another one */
	explain("vendor_id\t: GenuineIntel\nflags\t\t: fpu ptiX dtes64\n", m, sizeof m);
	assert_null(strstr(m, "pti=off"));
	assert_non_null(strstr(m, "no intel_bts PMU"));
	explain("vendor_id\t: GenuineIntel\nflags\t\t: fpu pae\n", m, sizeof m);
	assert_non_null(strstr(m, "dtes64"));
	explain("", m, sizeof m);
	assert_non_null(strstr(m, "unknown"));
}

/* A user->kernel crossing from a syscall instruction becomes a SYSCALL branch. */
static void test_sink_kernel_entry(void **state)
{
	char bin[] = "/tmp/test_bts_code_XXXXXX", out[] = "/tmp/test_bts_out_XXXXXX";
	const uint8_t code[] = {0x90, 0x0f, 0x05, 0x90, 0xcd, 0x80};
	int fd = mkstemp(bin), fo = mkstemp(out);
	struct itrace_writer_options wo;
	struct itrace_writer *w;
	struct itrace_reader *r;
	struct itrace_record rec;
	struct bts_sink sink;
	struct bts_event ev;
	(void)state;

	assert_true(fd >= 0 && fo >= 0);
	assert_int_equal(write(fd, code, sizeof code), (ssize_t)sizeof code);
	close(fd);
	close(fo);
	bts_writer_options(&wo);
	assert_int_equal(itrace_writer_open(out, &wo, &w), 0);
	bts_sink_init(&sink, w, BTS_SPACE_USER);
	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_MMAP;
	ev.pid = ev.tid = 3;
	ev.u.mmap.start = 0x10000;
	ev.u.mmap.len = 0x1000;
	ev.u.mmap.prot = PROT_READ | PROT_EXEC;
	ev.u.mmap.path = bin;
	ev.u.mmap.path_len = strlen(bin);
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_KENTRY;
	ev.pid = ev.tid = 3;
	ev.u.branch.to = KADDR;
	ev.u.branch.from = 0x10000; /* nop: an interrupt, dropped */
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	ev.u.branch.from = 0x10001; /* syscall */
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	ev.u.branch.from = 0x10004; /* int 0x80 */
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	ev.pid = ev.tid = 4; /* another process: no mapping known */
	assert_int_equal(bts_sink_event(&sink, &ev), 0);
	assert_int_equal(sink.syscalls, 2);
	assert_int_equal(sink.kentries_dropped, 2);
	bts_sink_fini(&sink);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);

	assert_int_equal(itrace_reader_open(out, &r), 0);
	int branches = 0;
	while (itrace_reader_next(r, &rec, sizeof(rec)) == 0) {
		if (rec.type != ITRACE_REC_BRANCH)
			continue;
		assert_int_equal(rec.u.branch.kind, ITRACE_BRANCH_SYSCALL);
		assert_int_equal(rec.u.branch.to, rec.u.branch.from + 2);
		branches++;
	}
	assert_int_equal(branches, 2);
	itrace_reader_close(r);
	unlink(bin);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convert_skips_padding_and_sentinels),
		cmocka_unit_test(test_convert_kernel_filters),
		cmocka_unit_test(test_convert_propagates_errors),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_sideband_mmap2),
		cmocka_unit_test(test_sideband_comm_fork_exit),
		cmocka_unit_test(test_sink_writes_taken_only_branch_trace),
		cmocka_unit_test(test_missing_pmu_reasons),
		cmocka_unit_test(test_sink_kernel_entry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
