/*
 * test_reader.c - libitrace reader/writer: coding primitives, a round trip
 * of every record kind, truncation at every byte offset, bit flips,
 * version rules, unknown records, missing footer, seeking and streams.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf_testutil.h"

#include "internal.h"
#include "chunk_testutil.h"

/* ---- helpers ---------------------------------------------------------- */


/* A writer on a memfd, so the bytes can be inspected afterwards. */
static struct itrace_writer *open_mem_writer(int *fd, int compression, size_t chunk)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	static const struct itrace_meta meta[] = { { "cmdline", "prog a b" }, { "pid", "1234" } };

	*fd = memfd_create("itrace-test", 0);
	assert_true(*fd >= 0);
	itrace_writer_options_init(&o);
	o.compression = compression;
	o.chunk_bytes = chunk;
	o.meta = meta;
	o.meta_count = 2;
	assert_int_equal(itrace_writer_open_fd(*fd, &o, &w), 0);
	return w;
}

/* Every record kind, with values that exercise signs and widths. */
static size_t sample_records(struct itrace_record *out, size_t max)
{
	static const uint8_t code[] = { 0x0f, 0x05, 0xc3 };
	static const uint8_t insn_bytes[] = { 0x48, 0x89, 0xe5 };
	size_t n = 0;

#define ADD(t) (assert_true(n < max), memset(&out[n], 0, sizeof(out[n])), out[n].type = (t), &out[n++])
	struct itrace_record *r;

	r = ADD(ITRACE_REC_PROCESS);
	r->u.process.event = ITRACE_PROCESS_START;
	r->u.process.pid = 1234;
	r->u.process.name = "/bin/prog";
	r->u.process.name_len = 9;
	r = ADD(ITRACE_REC_THREAD);
	r->u.thread.event = ITRACE_THREAD_SWITCH;
	r->u.thread.tid = 1234;
	r->u.thread.pid = 1234;
	r = ADD(ITRACE_REC_MMAP);
	r->u.mmap.pid = 1234;
	r->u.mmap.start = 0x400000;
	r->u.mmap.len = 0x2000;
	r->u.mmap.pgoff = 0x1000;
	r->u.mmap.prot = 5;
	r->u.mmap.buildid_len = 20;
	memset(r->u.mmap.buildid, 0xab, 20);
	r->u.mmap.path = "/bin/prog";
	r->u.mmap.path_len = 9;
	r = ADD(ITRACE_REC_CODE);
	r->u.code.addr = 0x7fff00001000ull;
	r->u.code.bytes = code;
	r->u.code.len = sizeof(code);
	r = ADD(ITRACE_REC_TIMESTAMP);
	r->time_ns = 1700000000123456789ull;
	r = ADD(ITRACE_REC_TRACE_CTL);
	r->u.ctl.on = 1;
	r->u.ctl.reason = ITRACE_CTL_START;
	r->u.ctl.addr = 0x401000;
	for (int i = 0; i < 3; i++) {
		r = ADD(ITRACE_REC_INSN);
		r->u.insn.addr = 0x401000 + 3 * i;
		r->u.insn.len = 3;
	}
	r = ADD(ITRACE_REC_INSN);
	r->u.insn.addr = 0x401009;
	r->u.insn.len = 3;
	r->u.insn.has_bytes = 1;
	memcpy(r->u.insn.bytes, insn_bytes, 3);
	r = ADD(ITRACE_REC_MEM);
	r->u.mem.addr = 0x7ffffffde000ull;
	r->u.mem.size = 8;
	r = ADD(ITRACE_REC_MEM);
	r->u.mem.addr = 0x601000;
	r->u.mem.size = 4096;
	r->u.mem.flags = ITRACE_MEM_STORE;
	r = ADD(ITRACE_REC_BRANCH);
	r->u.branch.from = 0x40100c;
	r->u.branch.to = 0x400f00;
	r->u.branch.kind = ITRACE_BRANCH_CALL;
	r->u.branch.flags = ITRACE_BRANCH_TAKEN;
	r = ADD(ITRACE_REC_BRANCH);
	r->u.branch.from = 0x400f10;
	r->u.branch.to = 0x400f12;
	r->u.branch.kind = ITRACE_BRANCH_COND;
	r->u.branch.flags = ITRACE_BRANCH_PRED_KNOWN;
	r = ADD(ITRACE_REC_SYSCALL);
	r->u.syscall.dir = ITRACE_SYSCALL_ENTER;
	r->u.syscall.nr = 1;
	r->u.syscall.nargs = 3;
	r->u.syscall.args[0] = 1;
	r->u.syscall.args[1] = 0x402000;
	r->u.syscall.args[2] = 14;
	r = ADD(ITRACE_REC_SYSCALL);
	r->u.syscall.dir = ITRACE_SYSCALL_EXIT;
	r->u.syscall.nr = 1;
	r->u.syscall.ret = -14;
	r = ADD(ITRACE_REC_SIGNAL);
	r->u.signal.signo = 11;
	r->u.signal.code = -6;
	r->u.signal.addr = 0;
	r->u.signal.pc = 0x401020;
	r->u.signal.handler = 0x401500;
	r = ADD(ITRACE_REC_LOST);
	r->u.lost.reason = ITRACE_LOST_OVERFLOW;
	r->u.lost.unit = ITRACE_UNIT_BRANCHES;
	r->u.lost.count = 77;
	r = ADD(ITRACE_REC_GAP);
	r->u.gap.reason = ITRACE_GAP_NO_MAPPING;
	r->u.gap.addr = 0xdead0000;
	r->u.gap.resume = 0xbeef0000;
	r->u.gap.count = 3;
	r = ADD(ITRACE_REC_THREAD);
	r->u.thread.event = ITRACE_THREAD_NAME;
	r->u.thread.tid = 1235;
	r->u.thread.pid = 1234;
	r->u.thread.name = "worker";
	r->u.thread.name_len = 6;
	r = ADD(ITRACE_REC_PROCESS);
	r->u.process.event = ITRACE_PROCESS_EXIT;
	r->u.process.pid = 1234;
	r->u.process.status = -9;
#undef ADD
	return n;
}

/* Compare what a writer was given with what the reader delivered. */
static void assert_same_record(const struct itrace_record *a, const struct itrace_record *b)
{
	assert_int_equal(a->type, b->type);
	switch (a->type) {
	case ITRACE_REC_INSN:
		assert_int_equal(a->u.insn.addr, b->u.insn.addr);
		assert_int_equal(a->u.insn.len, b->u.insn.len);
		assert_int_equal(a->u.insn.has_bytes, b->u.insn.has_bytes);
		if (a->u.insn.has_bytes)
			assert_memory_equal(a->u.insn.bytes, b->u.insn.bytes, a->u.insn.len);
		break;
	case ITRACE_REC_BRANCH:
		assert_int_equal(a->u.branch.from, b->u.branch.from);
		assert_int_equal(a->u.branch.to, b->u.branch.to);
		assert_int_equal(a->u.branch.kind, b->u.branch.kind);
		assert_int_equal(a->u.branch.flags, b->u.branch.flags);
		break;
	case ITRACE_REC_MEM:
		assert_int_equal(a->u.mem.addr, b->u.mem.addr);
		assert_int_equal(a->u.mem.size, b->u.mem.size);
		assert_int_equal(a->u.mem.flags, b->u.mem.flags);
		break;
	case ITRACE_REC_MMAP:
		assert_int_equal(a->u.mmap.pid, b->u.mmap.pid);
		assert_int_equal(a->u.mmap.start, b->u.mmap.start);
		assert_int_equal(a->u.mmap.len, b->u.mmap.len);
		assert_int_equal(a->u.mmap.pgoff, b->u.mmap.pgoff);
		assert_int_equal(a->u.mmap.prot, b->u.mmap.prot);
		assert_int_equal(a->u.mmap.buildid_len, b->u.mmap.buildid_len);
		assert_memory_equal(a->u.mmap.buildid, b->u.mmap.buildid, a->u.mmap.buildid_len);
		assert_int_equal(a->u.mmap.path_len, b->u.mmap.path_len);
		assert_memory_equal(a->u.mmap.path, b->u.mmap.path, a->u.mmap.path_len);
		break;
	case ITRACE_REC_CODE:
		assert_int_equal(a->u.code.addr, b->u.code.addr);
		assert_int_equal(a->u.code.len, b->u.code.len);
		assert_memory_equal(a->u.code.bytes, b->u.code.bytes, a->u.code.len);
		break;
	case ITRACE_REC_THREAD:
		assert_int_equal(a->u.thread.event, b->u.thread.event);
		assert_int_equal(a->u.thread.tid, b->u.thread.tid);
		assert_int_equal(a->u.thread.pid, b->u.thread.pid);
		assert_int_equal(a->u.thread.other, b->u.thread.other);
		assert_int_equal(a->u.thread.name_len, b->u.thread.name_len);
		if (a->u.thread.name_len)
			assert_memory_equal(a->u.thread.name, b->u.thread.name, a->u.thread.name_len);
		break;
	case ITRACE_REC_PROCESS:
		assert_int_equal(a->u.process.event, b->u.process.event);
		assert_int_equal(a->u.process.pid, b->u.process.pid);
		assert_int_equal(a->u.process.other, b->u.process.other);
		assert_int_equal(a->u.process.status, b->u.process.status);
		assert_int_equal(a->u.process.name_len, b->u.process.name_len);
		if (a->u.process.name_len)
			assert_memory_equal(a->u.process.name, b->u.process.name, a->u.process.name_len);
		break;
	case ITRACE_REC_SYSCALL:
		assert_int_equal(a->u.syscall.dir, b->u.syscall.dir);
		assert_int_equal(a->u.syscall.nr, b->u.syscall.nr);
		assert_int_equal(a->u.syscall.ret, b->u.syscall.ret);
		assert_int_equal(a->u.syscall.nargs, b->u.syscall.nargs);
		assert_memory_equal(a->u.syscall.args, b->u.syscall.args,
				    a->u.syscall.nargs * sizeof(uint64_t));
		break;
	case ITRACE_REC_SIGNAL:
		assert_memory_equal(&a->u.signal, &b->u.signal, sizeof(a->u.signal));
		break;
	case ITRACE_REC_TIMESTAMP:
		assert_int_equal(a->time_ns, b->time_ns);
		break;
	case ITRACE_REC_TRACE_CTL:
		assert_int_equal(a->u.ctl.on, b->u.ctl.on);
		assert_int_equal(a->u.ctl.reason, b->u.ctl.reason);
		assert_int_equal(a->u.ctl.addr, b->u.ctl.addr);
		break;
	case ITRACE_REC_LOST:
		assert_int_equal(a->u.lost.reason, b->u.lost.reason);
		assert_int_equal(a->u.lost.unit, b->u.lost.unit);
		assert_int_equal(a->u.lost.count, b->u.lost.count);
		break;
	case ITRACE_REC_GAP:
		assert_int_equal(a->u.gap.reason, b->u.gap.reason);
		assert_int_equal(a->u.gap.addr, b->u.gap.addr);
		assert_int_equal(a->u.gap.resume, b->u.gap.resume);
		assert_int_equal(a->u.gap.count, b->u.gap.count);
		break;
	default:
		fail_msg("unexpected record type %d", a->type);
	}
}

/*
 * The golden stream: the sample records, then a loop of instructions,
 * memory accesses and branches long enough to span several chunks.
 */
#define LOOP_ITERS 300
static size_t golden_records(struct itrace_record *out, size_t max)
{
	size_t n = sample_records(out, max);

	for (int i = 0; i < LOOP_ITERS; i++) {
		struct itrace_record *r = &out[n];

		assert_true(n + 5 <= max);
		memset(r, 0, 5 * sizeof(*r));
		r[0].type = r[1].type = r[3].type = ITRACE_REC_INSN;
		r[0].u.insn.addr = 0x401100;
		r[0].u.insn.len = 4;
		r[1].u.insn.addr = 0x401104;
		r[1].u.insn.len = 7;
		r[2].type = ITRACE_REC_MEM;
		r[2].u.mem.addr = 0x7fff0000 + (uint64_t)(i % 37) * 64;
		r[2].u.mem.size = 8;
		r[2].u.mem.flags = i & 1;
		r[3].u.insn.addr = 0x40110b;
		r[3].u.insn.len = 2;
		r[4].type = ITRACE_REC_BRANCH;
		r[4].u.branch.from = 0x40110b;
		r[4].u.branch.to = i % 5 == 4 ? 0x40110d : 0x401100;
		r[4].u.branch.kind = ITRACE_BRANCH_COND;
		r[4].u.branch.flags = i % 5 == 4 ? 0 : ITRACE_BRANCH_TAKEN;
		n += 5;
	}
	return n;
}

static struct buf write_records(const struct itrace_record *recs, size_t n, int comp,
				size_t chunk, int close_it)
{
	int fd;
	struct itrace_writer *w = open_mem_writer(&fd, comp, chunk);

	for (size_t i = 0; i < n; i++)
		assert_int_equal(itrace_writer_write(w, &recs[i]), 0);
	if (close_it) {
		assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 3), 0);
	} else {
		assert_int_equal(itrace_writer_flush(w), 0);
		itrace_writer_abandon(w);
	}
	return buf_from_fd(fd);
}

#define MAXREC 4096
static struct itrace_record golden[MAXREC];

/* ---- tests ------------------------------------------------------------ */

static void test_varint(void **state)
{
	static const uint64_t values[] = { 0, 1, 127, 128, 16383, 16384, 1ull << 32,
					   UINT64_MAX - 1, UINT64_MAX };
	uint8_t b[ITRACE_VARINT_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		size_t n = put_varint(b, values[i]);
		const uint8_t *p = b;
		uint64_t v;

		assert_int_equal(get_varint(&p, b + n, &v), 0);
		assert_int_equal(v, values[i]);
		assert_ptr_equal(p, b + n);
		p = b; /* one byte short must fail, not over-read */
		assert_int_equal(get_varint(&p, b + n - 1, &v), -1);
		assert_int_equal(unzigzag(zigzag((int64_t)values[i])), (int64_t)values[i]);
	}
	assert_int_equal(zigzag(-1), 1);
	assert_int_equal(zigzag(1), 2);
	/* 11 continuation bytes overflow 64 bits */
	memset(b, 0xff, sizeof(b));
	{
		const uint8_t *p = b;
		uint64_t v;

		assert_int_equal(get_varint(&p, b + sizeof(b), &v), -1);
	}
}

static void test_crc32c(void **state)
{
	(void)state;
	/* The standard check value of CRC-32C. */
	assert_int_equal(itrace_crc32c(0, "123456789", 9), 0xE3069283u);
	assert_int_equal(itrace_crc32c(itrace_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
}

/* reader_matches - an open reader of a trace of recs[0..n) written by
 * write_records (with its metadata and footer) returns exactly them. */
static void reader_matches(struct itrace_reader *r, const struct itrace_record *recs, size_t n)
{
	struct itrace_record rec;
	struct itrace_footer f;
	size_t i = 0;
	int rc;

	assert_string_equal(itrace_reader_meta(r, "cmdline"), "prog a b");
	assert_string_equal(itrace_reader_meta(r, "pid"), "1234");
	assert_null(itrace_reader_meta(r, "nope"));
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		assert_true(i < n);
		assert_same_record(&recs[i], &rec);
		i++;
	}
	assert_int_equal(rc, ITRACE_EOF);
	assert_int_equal(i, n);
	assert_int_equal(itrace_reader_footer(r, &f), 0);
	assert_int_equal(f.end_reason, ITRACE_END_COMPLETE);
	assert_int_equal(f.end_status, 3);
	assert_int_equal(f.record_count, n);
}

static void read_all_and_compare(const struct buf *b, const struct itrace_record *recs, size_t n)
{
	struct itrace_reader *r;

	assert_int_equal(itrace_reader_open_mem(b->data, b->len, &r), 0);
	reader_matches(r, recs, n);
	itrace_reader_close(r);
}

/*
 * itrace_reader_reopen_mem: one reader reads trace after trace (zstd
 * and stored chunks, several chunk sizes, read to the end or stopped
 * early) exactly as fresh readers do; a trace it cannot open frees it.
 */
static void test_reopen_reads_like_open(void **state)
{
	static const size_t chunks[] = { 256, 1000, 1 << 20 };
	size_t n = golden_records(golden, MAXREC);
	struct itrace_reader *r;
	struct itrace_record rec;
	struct buf b[6];

	(void)state;
	for (int k = 0; k < 6; k++)
		b[k] = write_records(golden, n, k & 1, chunks[k % 3], 1);
	assert_int_equal(itrace_reader_open_mem(b[0].data, b[0].len, &r), 0);
	reader_matches(r, golden, n);
	for (int k = 1; k < 6; k++) {
		assert_int_equal(itrace_reader_reopen_mem(&r, b[k].data, b[k].len), 0);
		reader_matches(r, golden, n);
		/* stopped in the middle of a chunk: the next trace starts afresh */
		assert_int_equal(itrace_reader_reopen_mem(&r, b[k - 1].data, b[k - 1].len), 0);
		assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
		assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	}
	assert_int_equal(itrace_reader_reopen_mem(&r, b[0].data, b[0].len), 0);
	reader_matches(r, golden, n);
	/* not a trace: the reader is gone */
	assert_true(itrace_reader_reopen_mem(&r, "not a trace", 11) < 0);
	assert_null(r);
	assert_int_equal(itrace_reader_reopen_mem(&r, b[0].data, b[0].len), -ITRACE_E_INVAL);
	for (int k = 0; k < 6; k++)
		free(b[k].data);
}

static void test_roundtrip_every_kind(void **state)
{
	size_t n = golden_records(golden, MAXREC);

	(void)state;
	for (int comp = 0; comp <= 1; comp++) {
		static const size_t chunks[] = { 256, 1000, 1 << 20 };

		for (size_t c = 0; c < 3; c++) {
			struct buf b = write_records(golden, n, comp, chunks[c], 1);

			read_all_and_compare(&b, golden, n);
			free(b.data);
		}
	}
}

static void test_thread_state(void **state)
{
	struct itrace_record recs[4];
	struct itrace_reader *r;
	struct itrace_record rec;
	struct buf b;

	(void)state;
	memset(recs, 0, sizeof(recs));
	recs[0].type = ITRACE_REC_THREAD;
	recs[0].u.thread.event = ITRACE_THREAD_SWITCH;
	recs[0].u.thread.tid = 11;
	recs[0].u.thread.pid = 10;
	recs[1].type = ITRACE_REC_INSN;
	recs[1].u.insn.addr = 0x1000;
	recs[1].u.insn.len = 1;
	recs[2] = recs[0];
	recs[2].u.thread.tid = 12;
	recs[3] = recs[1];
	b = write_records(recs, 4, 0, 256, 1);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.tid, 11);
	assert_int_equal(rec.pid, 10);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.tid, 12);
	itrace_reader_close(r);
	free(b.data);
}

/* Records delivered from a damaged copy must be a prefix of the original. */
static size_t read_prefix(const uint8_t *data, size_t len, size_t n, int *last_rc)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	size_t i = 0;
	int rc = itrace_reader_open_mem(data, len, &r);

	if (rc < 0) {
		*last_rc = rc;
		return 0;
	}
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		assert_true(i < n);
		assert_same_record(&golden[i], &rec);
		i++;
	}
	*last_rc = rc;
	if (rc < 0)
		assert_true(strlen(itrace_reader_error(r)) > 0);
	/* after an error other than CORRUPT the reader ends */
	if (rc != -ITRACE_E_CORRUPT)
		assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), ITRACE_EOF);
	itrace_reader_close(r);
	return i;
}

/* Records in the chunks that end at or before `len`: all must be read. */
static size_t records_in_complete_chunks(const struct buf *b, size_t len)
{
	struct itrace_reader *r;
	struct itrace_chunk_info next;
	struct itrace_record rec;
	uint64_t complete = 0;
	size_t cnt = 0;

	assert_int_equal(itrace_reader_open_mem(b->data, b->len, &r), 0);
	/* chunk k is complete when chunk k+1 starts at or before len */
	while (itrace_reader_chunk_info(r, complete + 1, &next) == 0 && next.offset <= len)
		complete++;
	while (itrace_reader_next(r, &rec, sizeof(rec)) == 0 && rec.chunk < complete)
		cnt++;
	itrace_reader_close(r);
	return cnt;
}

static void truncate_everywhere(int comp)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, comp, 512, 1);

	for (size_t len = 0; len < b.len; len++) {
		int rc;
		size_t got = read_prefix(b.data, len, n, &rc);

		assert_true(rc < 0); /* a cut file never reads as complete */
		assert_true(rc == -ITRACE_E_TRUNCATED || rc == -ITRACE_E_NOFOOTER ||
			    rc == -ITRACE_E_BADMAGIC);
		if (len >= 4096 && len % 97 == 0)
			assert_true(got >= records_in_complete_chunks(&b, len));
	}
	free(b.data);
}

static void test_truncation_every_offset(void **state)
{
	(void)state;
	truncate_everywhere(ITRACE_COMPRESS_NONE);
}

static void test_truncation_every_offset_zstd(void **state)
{
	(void)state;
	truncate_everywhere(ITRACE_COMPRESS_ZSTD);
}

/* Uncompressed: a cut inside a chunk still yields that chunk's records. */
static void test_truncation_partial_chunk(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_NONE, 1 << 20, 1);
	int rc;
	size_t got = read_prefix(b.data, b.len / 2, n, &rc);

	(void)state;
	assert_int_equal(rc, -ITRACE_E_TRUNCATED);
	assert_true(got > n / 3);
	free(b.data);
}

static void test_bit_flips(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_ZSTD, 512, 1);
	uint8_t *copy = malloc(b.len);

	(void)state;
	for (size_t off = 0; off < b.len; off++) {
		struct itrace_reader *r;
		struct itrace_record rec;
		size_t delivered = 0, gaps = 0;
		int rc, errors = 0;

		memcpy(copy, b.data, b.len);
		copy[off] ^= (uint8_t)(1u << (off % 8));
		if (itrace_reader_open_mem(copy, b.len, &r) < 0)
			continue; /* header damage: refused at open */
		for (int guard = 0; guard < 100000; guard++) {
			rc = itrace_reader_next(r, &rec, sizeof(rec));
			if (rc == ITRACE_EOF)
				break;
			if (rc < 0) {
				errors++;
				continue;
			}
			if (rec.type == ITRACE_REC_GAP && rec.u.gap.reason == ITRACE_GAP_CORRUPT_CHUNK)
				gaps++;
			else
				delivered++;
		}
		assert_int_equal(rc, ITRACE_EOF);
		/* damage is never silent: an error was reported, or the flip hit a
		 * byte no check needs (reserved/trailer), and nothing was invented */
		assert_true(delivered <= n);
		if (delivered < n && errors == 0)
			fail_msg("flip at offset %zu of %zu lost records silently (%zu of %zu, %zu gaps)",
				 off, b.len, delivered, n, gaps);
		itrace_reader_close(r);
	}
	free(copy);
	free(b.data);
}

/* Patch the header and fix its CRC. */
static void refresh_header_crc(uint8_t *d)
{
	uint32_t hsize = get_le32(d + 16);

	memset(d + 44, 0, 4);
	put_le32(d + 44, itrace_crc32c(0, d, hsize));
}

static struct buf slurp_data_file(const char *name);

/* golden_file - the golden records written uncompressed in chunks of 512
 * bytes, with a footer; *n is how many records. */
static struct buf golden_file(size_t *n)
{
	*n = golden_records(golden, MAXREC);
	return write_records(golden, *n, ITRACE_COMPRESS_NONE, 512, 1);
}

/*
 * open_report_bytes - itrace_reader_open_report() on a file holding
 * buf[0..len); its message in msg.  Returns its code (the reader closed).
 */
static int open_report_bytes(const uint8_t *buf, size_t len, char *msg, size_t msglen)
{
	char path[] = "/tmp/test_format.XXXXXX";
	int fd = mkstemp(path), rc;
	struct itrace_reader *r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	rc = itrace_reader_open_report(path, &r, msg, msglen);
	unlink(path);
	if (rc == 0)
		itrace_reader_close(r);
	else
		assert_null(r);
	return rc;
}

/* The major (4.2): only 1 opens; a newer minor opens and is reported. */
static void test_versions(void **state)
{
	size_t n;
	struct buf b = golden_file(&n);
	struct itrace_reader *r;
	char msg[256];

	(void)state;
	assert_int_equal(get_le16(b.data + 8), ITRACE_FORMAT_MAJOR);
	assert_int_equal(get_le16(b.data + 14), ITRACE_FILE_FIXED_SIZE);
	put_le16(b.data + 8, ITRACE_FORMAT_MAJOR + 1); /* a major 2 */
	put_le16(b.data + 10, 0);		       /* 2.0, whatever today's minor */
	refresh_header_crc(b.data);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), -ITRACE_E_VERSION);
	assert_null(r);
	assert_int_equal(open_report_bytes(b.data, b.len, msg, sizeof(msg)), -ITRACE_E_VERSION);
	assert_string_equal(msg, "offset 8: format version 2.0 is not supported "
				 "(this reader implements 1.x)");
	put_le16(b.data + 8, 0);
	refresh_header_crc(b.data);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), -ITRACE_E_VERSION);
	put_le16(b.data + 8, ITRACE_FORMAT_MAJOR);
	put_le16(b.data + 10, 7); /* a newer minor opens */
	refresh_header_crc(b.data);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_header(r)->minor, 7);
	assert_int_equal(itrace_reader_header(r)->major, 1);
	itrace_reader_close(r);
	/* fewer than 16 bytes cannot tell another major from a draft (4.1
	 * check 3): truncated, whatever offset 8 holds */
	put_le16(b.data + 8, ITRACE_FORMAT_MAJOR + 1);
	for (size_t len = 10; len < 16; len++) {
		char want[64];

		assert_int_equal(open_report_bytes(b.data, len, msg, sizeof(msg)),
				 -ITRACE_E_TRUNCATED);
		snprintf(want, sizeof(want), "offset %zu: file ends inside the header", len);
		assert_string_equal(msg, want);
	}
	memcpy(b.data, "GARBAGE!", 8);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), -ITRACE_E_BADMAGIC);
	free(b.data);
}

/* An incompatible feature this reader does not know: refused, naming it
 * (4.3); the known ones are reported. */
static void test_unknown_incompat_refused(void **state)
{
	size_t n;
	struct buf b = golden_file(&n);
	struct itrace_reader *r;
	char msg[256];

	(void)state;
	put_le32(b.data + 36, ITRACE_FEAT_BLOCK | ITRACE_FEAT_BRANCH_SEQ);
	refresh_header_crc(b.data);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_header(r)->incompat_features,
			 ITRACE_FEAT_BLOCK | ITRACE_FEAT_BRANCH_SEQ);
	itrace_reader_close(r);
	put_le32(b.data + 36, ITRACE_FEAT_BLOCK | 1u << 5);
	refresh_header_crc(b.data);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), -ITRACE_E_VERSION);
	assert_int_equal(open_report_bytes(b.data, b.len, msg, sizeof(msg)), -ITRACE_E_VERSION);
	assert_string_equal(msg, "offset 36: incompatible feature bit 5 (0x20) unknown to this reader");
	put_le32(b.data + 36, 1u << 5 | 1u << 7 | 1u << 31);
	refresh_header_crc(b.data);
	assert_int_equal(open_report_bytes(b.data, b.len, msg, sizeof(msg)), -ITRACE_E_VERSION);
	assert_string_equal(msg, "offset 36: incompatible feature bits 5, 7, 31 (0x800000a0) "
				 "unknown to this reader");
	assert_string_equal(itrace_feature_name(0), "BLOCK");
	assert_string_equal(itrace_feature_name(1), "BRANCH_SEQ");
	assert_null(itrace_feature_name(2));
	assert_null(itrace_feature_name(40));
	free(b.data);
}

/* The name functions' edges: what a value the library does not know
 * gives (itrace.h); the names themselves are compared with the spec
 * reader's on real traces (tests/e2e/spec_reader.sh). */
static void test_name_fallbacks(void **state)
{
	(void)state;
	assert_string_equal(itrace_thread_event_name(ITRACE_THREAD_NAME), "name");
	assert_string_equal(itrace_thread_event_name(0), "?");
	assert_string_equal(itrace_thread_event_name(5), "?");
	assert_string_equal(itrace_process_event_name(ITRACE_PROCESS_EXEC), "exec");
	assert_string_equal(itrace_process_event_name(-1), "?");
	assert_string_equal(itrace_ctl_reason_name(ITRACE_CTL_SCOPE), "scope");
	assert_string_equal(itrace_ctl_reason_name(6), "?");
	assert_string_equal(itrace_lost_unit_name(ITRACE_UNIT_BYTES), "bytes");
	assert_string_equal(itrace_lost_unit_name(255), "?");
	assert_string_equal(itrace_machine_name(21, 1), "ppc64le");
	assert_string_equal(itrace_machine_name(21, 2), "ppc64");
	assert_string_equal(itrace_machine_name(243, 1), "unknown");
	assert_string_equal(itrace_end_reason_name(ITRACE_END_NOT_TRIGGERED), "start never triggered");
	assert_null(itrace_end_reason_name(ITRACE_END_UNKNOWN));
	assert_null(itrace_end_reason_name(7));
}

/* Compatible features, reserved bytes and a longer fixed part are for
 * later minors: a 1.0 reader reads the file as before and reports the
 * compatible bits (4.1, 4.3). */
static void test_compat_and_reserved_ignored(void **state)
{
	size_t n;
	struct buf b = golden_file(&n);
	struct buf c;
	struct itrace_reader *r;
	uint32_t hs = get_le32(b.data + 16);
	const size_t more = 16;

	(void)state;
	put_le32(b.data + 40, 1u << 3 | 1u << 30);
	b.data[13] = 0x77;
	memset(b.data + 48, 0xa5, 16);
	refresh_header_crc(b.data);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_header(r)->compat_features, 1u << 3 | 1u << 30);
	reader_matches(r, golden, n);
	itrace_reader_close(r);
	/* a fixed part of 80 bytes: the metadata and everything after it
	 * move by 16 bytes, and so do the offsets of the footer's index and
	 * trailer (7.2) */
	c.len = b.len + more;
	c.data = calloc(1, c.len);
	assert_non_null(c.data);
	memcpy(c.data, b.data, 64);
	memset(c.data + 64, 0x3c, more);
	memcpy(c.data + 64 + more, b.data + 64, b.len - 64);
	put_le16(c.data + 14, 64 + more);
	put_le32(c.data + 16, hs + (uint32_t)more);
	refresh_header_crc(c.data);
	{
		uint64_t foff = get_le64(c.data + c.len - 16) + more;
		uint8_t *f = c.data + foff;
		uint64_t nchunks = get_le64(f + 16);

		put_le64(c.data + c.len - 16, foff);
		for (uint64_t i = 0; i < nchunks; i++)
			put_le64(f + 72 + 16 * i, get_le64(f + 72 + 16 * i) + more);
		put_le32(f + 72 + 16 * nchunks, itrace_crc32c(0, f, 72 + 16 * nchunks));
	}
	assert_int_equal(itrace_reader_open_mem(c.data, c.len, &r), 0);
	assert_string_equal(itrace_reader_meta(r, "cmdline"), "prog a b");
	reader_matches(r, golden, n);
	itrace_reader_close(r);
	free(c.data);
	free(b.data);
}

/* mem_table_log2 (offset 12) outside 6..12 is corrupt; 6 and 12 open. */
static void test_mem_table_log2_range(void **state)
{
	size_t n;
	struct buf b = golden_file(&n);
	struct itrace_reader *r;
	char msg[256];

	(void)state;
	assert_int_equal(b.data[12], ITRACE_MEM_TABLE_LOG2_DEFAULT);
	for (unsigned v = 0; v < 256; v++) {
		int ok = v >= ITRACE_MEM_TABLE_LOG2_MIN && v <= ITRACE_MEM_TABLE_LOG2_MAX;

		b.data[12] = (uint8_t)v;
		refresh_header_crc(b.data);
		assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), ok ? 0 : -ITRACE_E_CORRUPT);
		if (ok) {
			assert_int_equal(itrace_reader_header(r)->mem_table_log2, v);
			itrace_reader_close(r);
		}
	}
	b.data[12] = 13;
	refresh_header_crc(b.data);
	assert_int_equal(open_report_bytes(b.data, b.len, msg, sizeof(msg)), -ITRACE_E_CORRUPT);
	assert_string_equal(msg, "offset 12: MEM table of 2^13 entries (readers take 2^6 to 2^12)");
	free(b.data);
}

/*
 * A file of a draft before 1.0 (read version 1, itrace 0.x's first
 * format, kept in tests/data) is refused with one message that says so
 * (ITRACE.md 4.4); so is a read version 5 header.
 */
static void test_refuses_draft(void **state)
{
	struct buf b = slurp_data_file("format_v1.itr");
	struct itrace_reader *r;
	char msg[256];

	(void)state;
	assert_int_equal(get_le16(b.data + 8), 1);
	assert_int_equal(get_le16(b.data + 14), 48);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), -ITRACE_E_VERSION);
	assert_null(r);
	assert_int_equal(open_report_bytes(b.data, b.len, msg, sizeof(msg)), -ITRACE_E_VERSION);
	assert_string_equal(msg, "offset 8: pre-1.0 draft format (read version 1), written by "
				 "itrace before format 1.0; re-record the trace");
	put_le16(b.data + 8, 5); /* the last draft */
	assert_int_equal(open_report_bytes(b.data, b.len, msg, sizeof(msg)), -ITRACE_E_VERSION);
	assert_non_null(strstr(msg, "(read version 5)"));
	/* the first 16 bytes say it: a cut draft header is refused the same way */
	assert_int_equal(open_report_bytes(b.data, 16, msg, sizeof(msg)), -ITRACE_E_VERSION);
	assert_non_null(strstr(msg, "pre-1.0 draft"));
	free(b.data);
}

/*
 * The record's size (itrace.h): smaller than 1.0's is -ITRACE_E_INVAL and
 * writes nothing; larger (a program built with a later, grown header)
 * reads, and the bytes past this library's record are left alone.
 */
static void test_record_size(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_ZSTD, 512, 1);
	struct itrace_reader *r;
	struct {
		struct itrace_record rec;
		uint8_t later[64];
	} big;
	struct itrace_record small;
	uint8_t untouched[64];
	size_t i = 0;
	int rc;

	(void)state;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	memset(&small, 0x5a, sizeof(small));
	assert_int_equal(itrace_reader_next(r, &small, sizeof(small) - 1), -ITRACE_E_INVAL);
	assert_int_equal(itrace_reader_next(r, &small, 0), -ITRACE_E_INVAL);
	assert_int_equal(itrace_reader_next_in_chunk(r, &small, sizeof(small) - 8), -ITRACE_E_INVAL);
	for (size_t k = 0; k < sizeof(small); k++)
		assert_int_equal(((const uint8_t *)&small)[k], 0x5a);
	memset(big.later, 0xc3, sizeof(big.later));
	memcpy(untouched, big.later, sizeof(untouched));
	while ((rc = itrace_reader_next(r, &big.rec, sizeof(big))) == 0) {
		assert_true(i < n);
		assert_same_record(&golden[i++], &big.rec);
	}
	assert_int_equal(rc, ITRACE_EOF);
	assert_int_equal(i, n); /* the refused calls consumed nothing */
	assert_memory_equal(big.later, untouched, sizeof(untouched));
	itrace_reader_close(r);
	free(b.data);
}

/* Build a file by hand whose chunk holds a record of an unknown type. */
static void test_unknown_record_skipped(void **state)
{
	static const uint8_t payload[] = {
		100, 3, 0xaa, 0xbb, 0xcc,		    /* type 100: skipped */
		ITRACE_T_INSN_RUN, 4, 0x80, 0x40, 0x03, 0x01, /* run at +0x1000, n=1, len 1 */
		ITRACE_T_LOST, 4, 1, 1, 5, 0x99,	    /* a trailing byte is ignored */
	};
	struct itrace_record one, rec;
	struct itrace_reader *r;
	uint8_t file[512], *h;
	struct buf b;
	size_t hl;

	(void)state;
	memset(&one, 0, sizeof(one));
	one.type = ITRACE_REC_INSN;
	one.u.insn.addr = 0x1000;
	one.u.insn.len = 1;
	b = write_records(&one, 1, ITRACE_COMPRESS_NONE, 256, 0);
	hl = get_le32(b.data + 16); /* keep the real file header */
	memcpy(file, b.data, hl);
	free(b.data);
	h = file + hl;
	memset(h, 0, ITRACE_CHUNK_HEADER_SIZE);
	memcpy(h, ITRACE_CHUNK_MAGIC, 4);
	put_le32(h + 4, ITRACE_CHUNK_HEADER_SIZE);
	put_le32(h + 16, 3);
	put_le32(h + 20, sizeof(payload));
	put_le32(h + 24, sizeof(payload));
	put_le32(h + 32, itrace_crc32c(0, payload, sizeof(payload)));
	put_le32(h + 68, itrace_crc32c(0, h, 68));
	memcpy(h + ITRACE_CHUNK_HEADER_SIZE, payload, sizeof(payload));
	assert_int_equal(itrace_reader_open_mem(file, hl + ITRACE_CHUNK_HEADER_SIZE + sizeof(payload), &r), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.type, ITRACE_REC_INSN);
	assert_int_equal(rec.u.insn.addr, 0x1000);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.type, ITRACE_REC_LOST);
	assert_int_equal(rec.u.lost.count, 5);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), -ITRACE_E_NOFOOTER);
	itrace_reader_close(r);
}

static void test_no_footer(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_ZSTD, 512, 0);
	int rc;

	(void)state;
	assert_int_equal(read_prefix(b.data, b.len, n, &rc), n);
	assert_int_equal(rc, -ITRACE_E_NOFOOTER);
	free(b.data);
}

static void test_corrupt_chunk_gap(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_NONE, 512, 1);
	struct itrace_reader *r;
	struct itrace_chunk_info c1;
	struct itrace_record rec, gap;
	int rc, saw_gap = 0, saw_err = 0;
	size_t after = 0;

	(void)state;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_chunk_info(r, 1, &c1), 0);
	itrace_reader_close(r);
	b.data[c1.offset + ITRACE_CHUNK_HEADER_SIZE + 3] ^= 0x10; /* payload of chunk 1 */
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF) {
		if (rc < 0) {
			assert_int_equal(rc, -ITRACE_E_CORRUPT);
			assert_non_null(strstr(itrace_reader_error(r), "checksum"));
			saw_err = 1;
			continue;
		}
		if (rec.type == ITRACE_REC_GAP && rec.u.gap.reason == ITRACE_GAP_CORRUPT_CHUNK) {
			assert_int_equal(rec.u.gap.count, 1);
			assert_int_equal(rec.chunk, 1); /* the chunk it stands for */
			gap = rec;
			saw_gap = 1;
		} else if (saw_gap) {
			assert_true(rec.chunk >= 2);
			after++;
		}
	}
	assert_true(saw_err && saw_gap && after > 0);
	itrace_reader_close(r);
	/* Seeking to the damaged chunk gives the same GAP, thread included. */
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_seek_chunk(r, 1), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), -ITRACE_E_CORRUPT);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.type, ITRACE_REC_GAP);
	assert_int_equal(rec.chunk, gap.chunk);
	assert_int_equal(rec.tid, gap.tid);
	assert_int_equal(rec.pid, gap.pid);
	itrace_reader_close(r);
	free(b.data);
}

static void test_seek_chunk(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_ZSTD, 512, 1);
	struct itrace_reader *r;
	struct itrace_record rec;
	int64_t chunks;
	size_t first_of[256] = { 0 }, i = 0;
	uint64_t last = UINT64_MAX;

	(void)state;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	while (itrace_reader_next(r, &rec, sizeof(rec)) == 0) {
		if (rec.chunk != last && rec.chunk < 256)
			first_of[rec.chunk] = i;
		last = rec.chunk;
		i++;
	}
	chunks = itrace_reader_chunk_count(r);
	assert_true(chunks > 4);
	for (int64_t k = chunks - 1; k >= 0; k -= 2) {
		assert_int_equal(itrace_reader_seek_chunk(r, (uint64_t)k), 0);
		assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
		assert_int_equal(rec.chunk, (uint64_t)k);
		assert_same_record(&golden[first_of[k]], &rec);
	}
	assert_int_equal(itrace_reader_seek_chunk(r, (uint64_t)chunks), -ITRACE_E_INVAL);
	itrace_reader_close(r);
	free(b.data);
}

/*
 * itrace_reader_next_in_chunk: exactly one chunk's records, then
 * ITRACE_CHUNK_END; the next call goes on with the next chunk (or ends).
 * A damaged chunk still reports its damage, not a clean end.
 */
static void test_next_in_chunk(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_ZSTD, 512, 1);
	struct itrace_reader *r;
	struct itrace_record rec;
	struct itrace_chunk_info c1;
	int64_t chunks;
	size_t i = 0;

	(void)state;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	chunks = itrace_reader_chunk_count(r);
	assert_true(chunks > 4);
	for (int64_t k = 0; k < chunks; k++) {
		int rc;

		assert_int_equal(itrace_reader_seek_chunk(r, (uint64_t)k), 0);
		while ((rc = itrace_reader_next_in_chunk(r, &rec, sizeof(rec))) == 0) {
			assert_int_equal(rec.chunk, (uint64_t)k);
			assert_same_record(&golden[i++], &rec);
		}
		assert_int_equal(rc, ITRACE_CHUNK_END);
		if (k + 1 < chunks) {
			/* and on: the first record of the next chunk */
			assert_int_equal(itrace_reader_next_in_chunk(r, &rec, sizeof(rec)), 0);
			assert_int_equal(rec.chunk, (uint64_t)k + 1);
			assert_same_record(&golden[i], &rec);
		} else {
			assert_int_equal(itrace_reader_next_in_chunk(r, &rec, sizeof(rec)), ITRACE_EOF);
		}
	}
	assert_int_equal(i, n);
	assert_int_equal(itrace_reader_chunk_info(r, 1, &c1), 0);
	itrace_reader_close(r);
	b.data[c1.offset + ITRACE_CHUNK_HEADER_SIZE + 3] ^= 0x10;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_seek_chunk(r, 1), 0);
	assert_int_equal(itrace_reader_next_in_chunk(r, &rec, sizeof(rec)), -ITRACE_E_CORRUPT);
	assert_int_equal(itrace_reader_next_in_chunk(NULL, &rec, sizeof(rec)), -ITRACE_E_INVAL);
	itrace_reader_close(r);
	free(b.data);
}

static void test_pipe_stream(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_ZSTD, 512, 1);
	int fds[2];
	pid_t pid;
	struct itrace_reader *r;
	struct itrace_record rec;
	size_t i = 0;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		(void)!write(fds[1], b.data, b.len);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(itrace_reader_open_fd(fds[0], &r), 0);
	assert_int_equal(itrace_reader_chunk_count(r), -ITRACE_E_NOTSUP);
	while (itrace_reader_next(r, &rec, sizeof(rec)) == 0)
		assert_same_record(&golden[i++], &rec);
	assert_int_equal(i, n);
	itrace_reader_close(r);
	close(fds[0]);
	free(b.data);
}

static void test_api_misuse(void **state)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_reader *r;
	struct itrace_record rec;
	int fd;

	(void)state;
	itrace_reader_close(NULL);
	itrace_writer_abandon(NULL);
	assert_int_equal(itrace_writer_close(NULL, 0, 0), 0);
	assert_int_equal(itrace_reader_open(NULL, &r), -ITRACE_E_INVAL);
	assert_int_equal(itrace_reader_open("/nonexistent/x.itr", &r), -ITRACE_E_IO);
	assert_int_equal(itrace_reader_next(NULL, &rec, sizeof(rec)), -ITRACE_E_INVAL);
	itrace_writer_options_init(&o);
	o.level = 9;
	assert_int_equal(itrace_writer_open("/tmp/x", &o, &w), -ITRACE_E_INVAL);
	w = open_mem_writer(&fd, 0, 256);
	assert_int_equal(itrace_writer_insn(w, 0x1000, 0, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_insn(w, 0x1000, 16, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_branch(w, 1, 2, 99, 0), -ITRACE_E_INVAL);
	memset(&rec, 0, sizeof(rec));
	rec.type = 99;
	assert_int_equal(itrace_writer_write(w, &rec), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	close(fd);
	assert_string_equal(itrace_errstr(-ITRACE_E_TRUNCATED), "trace is truncated");
	assert_string_equal(itrace_errstr(12345), "unknown error");
}

/* The committed golden file must equal what the writer produces today. */
static void test_golden_file_bytes(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_NONE, 512, 1);
	const char *root = getenv("ITRACE_ROOT");
	char path[4096];
	FILE *f;
	uint8_t *want;
	long len;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/format_golden.itr", root ? root : ".");
	if (getenv("ITRACE_UPDATE_GOLDEN")) {
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
		fclose(f);
	}
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	want = malloc((size_t)len);
	assert_int_equal(fread(want, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_int_equal((size_t)len, b.len);
	assert_memory_equal(want, b.data, b.len);
	free(want);
	free(b.data);
}

static struct buf slurp_data_file(const char *name)
{
	const char *root = getenv("ITRACE_ROOT");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/data/%s", root ? root : ".", name);
	return buf_from_path(path);
}

/*
 * A MEM address is coded against the previous access of the same
 * instruction: a stack slot and a strided store in a loop, interleaved
 * with accesses far away, cost one delta byte each (5-byte records).
 */
static void test_mem_deltas_per_instruction(void **state)
{
	int fd;
	struct itrace_writer *w = open_mem_writer(&fd, ITRACE_COMPRESS_NONE, 1 << 20);
	struct itrace_writer_stats st;
	struct itrace_reader *r;
	struct itrace_record rec;
	struct buf b;
	uint64_t want[3], got = 0;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		assert_int_equal(itrace_writer_insn(w, 0x401000, 4, NULL), 0);
		assert_int_equal(itrace_writer_mem(w, 0x7ffd1000, 8, 0), 0);
		assert_int_equal(itrace_writer_insn(w, 0x401004, 3, NULL), 0);
		assert_int_equal(itrace_writer_mem(w, 0x601000 + 4 * (uint64_t)i, 4, ITRACE_MEM_STORE), 0);
		assert_int_equal(itrace_writer_mem(w, 0x602000 + 8 * (uint64_t)i, 8, 0), 0);
	}
	itrace_writer_stats(w, &st);
	/* 3000 MEM records of 5 bytes, 2000 one-byte repeated runs, and the
	 * first iteration's runs */
	assert_true(st.raw_bytes <= 3000 * 5 + 2000 + 32);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	b = buf_from_fd(fd);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	while (itrace_reader_next(r, &rec, sizeof(rec)) == 0) {
		if (rec.type != ITRACE_REC_MEM)
			continue;
		want[0] = 0x7ffd1000;
		want[1] = 0x601000 + 4 * (got / 3);
		want[2] = 0x602000 + 8 * (got / 3);
		assert_int_equal(rec.u.mem.addr, want[got % 3]);
		got++;
	}
	assert_int_equal(got, 3000);
	itrace_reader_close(r);
	free(b.data);
}

/*
 * A stray "IFTR" met by the resynchronisation scan is taken only if it is
 * a whole valid footer (ITRACE.md 8): here a copy of the real footer with
 * its CRC intact but its trailer magic broken, planted in the payload of a
 * chunk whose header is damaged.  The scan passes over it and reads on.
 */
static void test_resync_passes_stray_footer(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_NONE, 512, 1);
	struct itrace_reader *r;
	struct itrace_chunk_info c1, c2;
	struct itrace_record rec;
	uint64_t foff = get_le64(b.data + b.len - ITRACE_TRAILER_SIZE);
	size_t fsize = b.len - (size_t)foff, after = 0;
	int rc, errors = 0;

	(void)state;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	assert_int_equal(itrace_reader_chunk_info(r, 1, &c1), 0);
	assert_int_equal(itrace_reader_chunk_info(r, 2, &c2), 0);
	itrace_reader_close(r);
	assert_true(c1.offset + ITRACE_CHUNK_HEADER_SIZE + fsize <= c2.offset);
	memcpy(b.data + c1.offset + ITRACE_CHUNK_HEADER_SIZE, b.data + foff, fsize);
	b.data[c1.offset + ITRACE_CHUNK_HEADER_SIZE + fsize - 1] ^= 0xff; /* trailer magic */
	b.data[c1.offset] ^= 0xff; /* chunk 1's magic: a resync from here */
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF) {
		if (rc < 0) {
			assert_int_equal(rc, -ITRACE_E_CORRUPT);
			assert_null(strstr(itrace_reader_error(r), "footer"));
			errors++;
			continue;
		}
		after += rec.chunk >= 2;
	}
	assert_int_equal(errors, 1); /* the bad chunk magic, nothing else */
	assert_true(after > 0);
	itrace_reader_close(r);
	free(b.data);
}

/* first_error_then_gap - read b: the first error's code, and the tid of the
 * GAP delivered after it. */
static int first_error_then_gap(const struct buf *b, uint32_t *gap_tid)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	int rc, err = 0;

	*gap_tid = UINT32_MAX;
	assert_int_equal(itrace_reader_open_mem(b->data, b->len, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF) {
		if (rc < 0 && !err)
			err = rc;
		else if (rc == 0 && err && rec.type == ITRACE_REC_GAP)
			*gap_tid = rec.tid;
		if (rc == -ITRACE_E_NOFOOTER)
			break;
	}
	itrace_reader_close(r);
	return err;
}

/*
 * A malformed record changes no state (ITRACE.md 8): a THREAD SWITCH whose
 * name field is missing does not switch, so the GAP after it names the
 * chunk's thread.  And a 32-bit field whose varint holds more than 32 bits
 * is malformed, not taken modulo 2^32 (6.5).
 */
static void test_malformed_record_changes_nothing(void **state)
{
	/* THREAD switch tid=5 pid=5 other=0, then no name field */
	static const uint8_t cut_switch[] = { 7, 4, 2, 5, 5, 0 };
	/* THREAD switch tid=2^32 pid=1 other=0 name='' */
	static const uint8_t wide_tid[] = { 7, 9, 2, 0x80, 0x80, 0x80, 0x80, 0x10, 1, 0, 0 };
	/* SIGNAL signo=11 code=2^31 (svarint 2^32) addr pc handler 0 */
	static const uint8_t wide_code[] = { 10, 9, 11, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0 };
	/* the same THREAD switch with tid=2^32-1: fits */
	static const uint8_t widest_tid[] = { 7, 9, 2, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 0, 0 };
	struct buf b;
	uint32_t tid;

	(void)state;
	b = one_chunk(0, ITRACE_MEM_TABLE_LOG2_DEFAULT, cut_switch, sizeof(cut_switch), 1);
	assert_int_equal(first_error_then_gap(&b, &tid), -ITRACE_E_CORRUPT);
	assert_int_equal(tid, 0);
	free(b.data);
	b = one_chunk(0, ITRACE_MEM_TABLE_LOG2_DEFAULT, wide_tid, sizeof(wide_tid), 1);
	assert_int_equal(first_error_then_gap(&b, &tid), -ITRACE_E_CORRUPT);
	assert_int_equal(tid, 0);
	free(b.data);
	b = one_chunk(0, ITRACE_MEM_TABLE_LOG2_DEFAULT, wide_code, sizeof(wide_code), 1);
	assert_int_equal(first_error_then_gap(&b, &tid), -ITRACE_E_CORRUPT);
	free(b.data);
	b = one_chunk(0, ITRACE_MEM_TABLE_LOG2_DEFAULT, widest_tid, sizeof(widest_tid), 1);
	assert_int_equal(first_error_then_gap(&b, &tid), -ITRACE_E_NOFOOTER);
	free(b.data);
}

/*
 * A footer listing more chunks than were read (ITRACE.md 8): the chunks
 * were lost without damage met, so it is flagged as damage ("corrupt" at
 * the footer), then a GAP for them, then the end.  Here the last chunk
 * is cut out of the file.
 */
static void test_footer_lists_missing_chunks(void **state)
{
	size_t n = golden_records(golden, MAXREC);
	struct buf b = write_records(golden, n, ITRACE_COMPRESS_NONE, 512, 1);
	struct itrace_reader *r;
	struct itrace_chunk_info last;
	struct itrace_record rec;
	uint64_t foff = get_le64(b.data + b.len - ITRACE_TRAILER_SIZE), chunks;
	size_t fsize = b.len - (size_t)foff;
	char want[128];
	int rc;

	(void)state;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	chunks = itrace_reader_chunk_count(r);
	assert_true(chunks >= 2);
	assert_int_equal(itrace_reader_chunk_info(r, chunks - 1, &last), 0);
	itrace_reader_close(r);
	memmove(b.data + last.offset, b.data + foff, fsize);
	b.len = (size_t)last.offset + fsize;
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0)
		assert_true(rec.type != ITRACE_REC_GAP || rec.u.gap.reason != ITRACE_GAP_CORRUPT_CHUNK);
	assert_int_equal(rc, -ITRACE_E_CORRUPT);
	snprintf(want, sizeof(want), "offset %llu: footer lists %llu chunks, the trace ends after "
		 "%llu chunks", (unsigned long long)last.offset, (unsigned long long)chunks,
		 (unsigned long long)chunks - 1);
	assert_string_equal(itrace_reader_error(r), want);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.type, ITRACE_REC_GAP);
	assert_int_equal(rec.u.gap.reason, ITRACE_GAP_CORRUPT_CHUNK);
	assert_int_equal(rec.u.gap.count, 1);
	assert_int_equal(rec.chunk, chunks - 1);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), ITRACE_EOF);
	itrace_reader_close(r);
	free(b.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint),
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_roundtrip_every_kind),
		cmocka_unit_test(test_thread_state),
		cmocka_unit_test(test_truncation_every_offset),
		cmocka_unit_test(test_truncation_every_offset_zstd),
		cmocka_unit_test(test_truncation_partial_chunk),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_unknown_record_skipped),
		cmocka_unit_test(test_no_footer),
		cmocka_unit_test(test_corrupt_chunk_gap),
		cmocka_unit_test(test_resync_passes_stray_footer),
		cmocka_unit_test(test_malformed_record_changes_nothing),
		cmocka_unit_test(test_footer_lists_missing_chunks),
		cmocka_unit_test(test_seek_chunk),
		cmocka_unit_test(test_next_in_chunk),
		cmocka_unit_test(test_pipe_stream),
		cmocka_unit_test(test_api_misuse),
		cmocka_unit_test(test_reopen_reads_like_open),
		cmocka_unit_test(test_golden_file_bytes),
		cmocka_unit_test(test_unknown_incompat_refused),
		cmocka_unit_test(test_compat_and_reserved_ignored),
		cmocka_unit_test(test_name_fallbacks),
		cmocka_unit_test(test_mem_table_log2_range),
		cmocka_unit_test(test_refuses_draft),
		cmocka_unit_test(test_record_size),
		cmocka_unit_test(test_mem_deltas_per_instruction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
