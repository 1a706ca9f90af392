/*
 * test_writer.c - the writer's batch and asynchronous paths: both must
 * produce exactly the bytes of the plain, synchronous, one-call-per-
 * instruction writer, and report errors rather than lose them.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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
#include "gen_testutil.h"


static struct itrace_writer *open_writer(int *fd, int async, int compression, size_t chunk)
{
	struct itrace_writer_options o;

	itrace_writer_options_init(&o);
	o.async = async;
	o.compression = compression;
	o.chunk_bytes = chunk;
	return memfd_writer(&o, fd);
}

/* A deterministic pseudo-random stream of blocks, branches and accesses. */
/*
 * emit_stream - blocks of 1..300 instructions (some longer than a run),
 * either through itrace_writer_insns (batch) or one itrace_writer_insn per
 * instruction, with MEM records and branches between them.
 */
static void emit_stream(struct itrace_writer *w, int batch, unsigned blocks)
{
	struct gen g = { 42 };
	uint8_t lens[300];

	for (unsigned b = 0; b < blocks; b++) {
		uint64_t addr = 0x400000 + (next(&g) % 64) * 0x40;
		size_t n = 1 + next(&g) % (b % 17 == 0 ? 300 : 12);
		uint64_t end = addr;

		for (size_t i = 0; i < n; i++) {
			lens[i] = (uint8_t)(1 + next(&g) % 15);
			end += lens[i];
		}
		if (batch) {
			/* split in two calls sometimes: a run continued across calls */
			size_t half = b % 3 == 0 ? n / 2 : n;
			uint64_t mid = addr;

			for (size_t i = 0; i < half; i++)
				mid += lens[i];
			assert_int_equal(itrace_writer_insns(w, addr, half, lens), 0);
			assert_int_equal(itrace_writer_insns(w, mid, n - half, lens + half), 0);
		} else {
			uint64_t a = addr;

			for (size_t i = 0; i < n; i++) {
				assert_int_equal(itrace_writer_insn(w, a, lens[i], NULL), 0);
				a += lens[i];
			}
		}
		if (next(&g) % 2)
			assert_int_equal(itrace_writer_mem(w, 0x7ffd0000 + next(&g) % 4096, 8,
							  next(&g) % 2 ? ITRACE_MEM_STORE : 0), 0);
		if (next(&g) % 4 == 0)
			assert_int_equal(itrace_writer_branch(w, end - 2, 0x400000 + (next(&g) % 64) * 0x40,
							     ITRACE_BRANCH_COND, ITRACE_BRANCH_TAKEN), 0);
	}
}

static struct buf stream_file(int async, int batch, int compression, size_t chunk, unsigned blocks)
{
	int fd;
	struct itrace_writer *w = open_writer(&fd, async, compression, chunk);

	emit_stream(w, batch, blocks);
	return close_and_slurp(w, fd);
}

/* itrace_writer_insns writes the same file as one call per instruction. */
static void test_batch_equals_single(void **state)
{
	struct buf one = stream_file(0, 0, ITRACE_COMPRESS_NONE, 4096, 3000);
	struct buf batch = stream_file(0, 1, ITRACE_COMPRESS_NONE, 4096, 3000);

	(void)state;
	assert_true(one.len > 12 * 4096); /* many chunk boundaries crossed */
	assert_same_bytes(&one, &batch);
	free(one.data);
	free(batch.data);
}

static void test_batch_rejects_bad_lengths(void **state)
{
	static const uint8_t zero[] = { 3, 0, 2 }, big[] = { 3, 16 };
	/* the same faults among eight lengths and more (checked eight at a
	 * time), in every position of the eight */
	uint8_t many[11];
	struct itrace_writer_stats st;
	int fd;
	struct itrace_writer *w = open_writer(&fd, 0, ITRACE_COMPRESS_NONE, 4096);
	struct buf b;

	(void)state;
	assert_int_equal(itrace_writer_insns(w, 0x1000, 3, zero), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_insns(w, 0x1000, 2, big), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_insns(w, 0x1000, 1, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_insns(NULL, 0x1000, 1, zero), -ITRACE_E_INVAL);
	assert_int_equal(itrace_writer_insns(w, 0x1000, 0, NULL), 0);
	for (size_t at = 0; at < sizeof(many); at++) {
		static const uint8_t faults[] = { 0, 16, 17, 0x80, 0xff };

		for (size_t f = 0; f < sizeof(faults); f++) {
			memset(many, 15, sizeof(many));
			many[at] = faults[f];
			assert_int_equal(itrace_writer_insns(w, 0x1000, sizeof(many), many),
					 -ITRACE_E_INVAL);
		}
	}
	itrace_writer_stats(w, &st);
	assert_int_equal(st.insns, 0); /* nothing written by a refused call */
	b = close_and_slurp(w, fd);
	free(b.data);
}

/* The asynchronous writer's file is byte-identical, with and without zstd. */
static void test_async_equals_sync(void **state)
{
	(void)state;
	for (int comp = ITRACE_COMPRESS_NONE; comp <= ITRACE_COMPRESS_ZSTD; comp++) {
		struct buf sync = stream_file(0, 1, comp, 2048, 4000);
		struct buf async = stream_file(1, 1, comp, 2048, 4000);

		assert_same_bytes(&sync, &async);
		free(sync.data);
		free(async.data);
	}
}

/* Statistics and flush: after a flush every chunk is in the file. */
static void test_async_flush_and_stats(void **state)
{
	int fd;
	struct itrace_writer *w = open_writer(&fd, 1, ITRACE_COMPRESS_ZSTD, 1024);
	struct itrace_writer_stats st;
	struct buf b;

	(void)state;
	emit_stream(w, 1, 1000);
	assert_int_equal(itrace_writer_flush(w), 0);
	itrace_writer_stats(w, &st);
	assert_true(st.chunks >= 8);
	assert_int_equal((uint64_t)lseek(fd, 0, SEEK_END), st.file_bytes);
	b = close_and_slurp(w, fd);
	free(b.data);
}

/* A write error on the output thread reaches the caller, and close fails. */
static void test_async_write_error(void **state)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	int p[2], rc = 0;
	struct gen g = { 7 };
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);

	(void)state;
	assert_int_equal(pipe(p), 0);
	itrace_writer_options_init(&o);
	o.async = 1;
	o.chunk_bytes = 1024;
	assert_int_equal(itrace_writer_open_fd(p[1], &o, &w), 0);
	close(p[0]); /* every chunk write now fails with EPIPE */
	for (int i = 0; i < 100000 && rc == 0; i++)
		rc = itrace_writer_branch(w, next(&g), next(&g), ITRACE_BRANCH_UNCOND, ITRACE_BRANCH_TAKEN);
	assert_int_equal(rc, -ITRACE_E_IO);
	/* the output thread's errno, not whatever the caller's thread had */
	assert_int_equal(errno, EPIPE);
	errno = 0;
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), -ITRACE_E_IO);
	assert_int_equal(errno, EPIPE);
	close(p[1]);
	signal(SIGPIPE, old);
}

/* A pipe whose reader left is noticed by a tick, before any write. */
static void test_tick_notices_closed_pipe(void **state)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	itrace_writer_options_init(&o);
	assert_int_equal(itrace_writer_open_fd(p[1], &o, &w), 0);
	assert_int_equal(itrace_writer_tick(w), 0);
	close(p[0]);
	assert_int_equal(itrace_writer_tick(w), -ITRACE_E_IO);
	assert_int_equal(errno, EPIPE);
	itrace_writer_abandon(w);
	close(p[1]);
}

/* read_all - the file at path (NULL data if it does not exist). */
static struct buf read_all(const char *path)
{
	struct buf b = { NULL, 0 };
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		b = buf_from_fd(fd);
		close(fd);
	}
	return b;
}

/* A pid that is not running now, for a temporary "left by a kill". */
static int dead_pid(void)
{
	for (int pid = 4000000; pid > 300; pid -= 997)
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return pid;
	return 0;
}

/*
 * The output file: nothing appears before the commit, then the file at
 * once; a discard leaves the previous file; --no-clobber refuses an
 * existing one; a flush (or a tick after flush_ms) publishes a trace
 * early, and what it holds is readable if the writer dies; the next open
 * removes the temporaries of dead processes, and only those.
 */
static void test_output_file(void **state)
{
	char dir[] = "/tmp/itrace-outfile.XXXXXX", path[256], stale[300], live[300];
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_outfile *f;
	struct itrace_reader *r;
	struct itrace_record rec;
	struct buf b;
	int n = 0, rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.itr", dir);
	snprintf(stale, sizeof(stale), "%s/.x.itrace-tmp.%d.1234abcd", dir, dead_pid());
	snprintf(live, sizeof(live), "%s/.y.itrace-tmp.%d.1234abcd", dir, (int)getppid());
	close(open(stale, O_WRONLY | O_CREAT, 0600));
	close(open(live, O_WRONLY | O_CREAT, 0600));

	/* open: the stale temporary is swept, the live one stays */
	itrace_writer_options_init(&o);
	assert_int_equal(itrace_writer_open(path, &o, &w), 0);
	assert_int_equal(access(stale, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(itrace_writer_insn(w, 0x1000, 4, NULL), 0);
	assert_int_equal(access(path, F_OK), -1); /* not before the commit */
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	b = read_all(path);
	assert_true(b.len > 0);
	free(b.data);

	/* abandoned before any flush: the previous file stays */
	assert_int_equal(itrace_writer_open(path, &o, &w), 0);
	assert_int_equal(itrace_writer_insn(w, 0x2000, 4, NULL), 0);
	itrace_writer_abandon(w);
	assert_int_equal(itrace_reader_open(path, &r), 0);
	assert_int_equal(itrace_reader_next(r, &rec, sizeof(rec)), 0);
	assert_int_equal(rec.u.insn.addr, 0x1000);
	itrace_reader_close(r);

	/* no clobbering */
	o.out_flags = ITRACE_OUT_NO_CLOBBER;
	assert_int_equal(itrace_writer_open(path, &o, &w), -ITRACE_E_IO);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(itrace_outfile_open(path, ITRACE_OUT_NO_CLOBBER, &f), -ITRACE_E_IO);
	o.out_flags = 0;

	/* a recorder: the tick after flush_ms publishes what was written */
	o.flush_ms = 1;
	assert_int_equal(itrace_writer_open(path, &o, &w), 0);
	assert_int_equal(itrace_writer_insn(w, 0x3000, 4, NULL), 0);
	assert_int_equal(itrace_writer_tick(w), 0); /* notes the waiting record */
	usleep(20000);
	assert_int_equal(itrace_writer_tick(w), 0); /* flushes and publishes */
	assert_int_equal(itrace_reader_open(path, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0)
		n += rec.type == ITRACE_REC_INSN && rec.u.insn.addr == 0x3000;
	assert_int_equal(rc, -ITRACE_E_NOFOOTER); /* as if the writer had died */
	assert_int_equal(n, 1);
	itrace_reader_close(r);
	itrace_writer_abandon(w); /* published: the chunks stay */
	b = read_all(path);
	assert_true(b.len > 0);
	free(b.data);

	unlink(path);
	unlink(live);
	assert_int_equal(rmdir(dir), 0); /* nothing else was left */
}

/* Abandoning an asynchronous writer with a chunk in flight is clean. */
static void test_async_abandon(void **state)
{
	int fd;
	struct itrace_writer *w = open_writer(&fd, 1, ITRACE_COMPRESS_ZSTD, 1024);

	(void)state;
	emit_stream(w, 1, 300);
	itrace_writer_abandon(w);
	close(fd);
}

/*
 * A part of a record stream: the output of one input chunk in a fill.
 * Thread switches in some parts (not at their start in every one: chunks
 * before a part's first switch inherit the thread), TIMESTAMPs in others,
 * gaps and losses counted by the footer.
 */
static void emit_part(struct itrace_writer *w, unsigned part, uint64_t *time)
{
	struct itrace_record r;

	memset(&r, 0, sizeof(r));
	if (part % 3 == 1) {
		r.type = ITRACE_REC_TIMESTAMP;
		r.time_ns = *time = 1000000 * (uint64_t)part + 17;
		assert_int_equal(itrace_writer_write(w, &r), 0);
	}
	emit_stream(w, 1, 40 + 35 * (part % 4));
	if (part % 2 == 0) {
		memset(&r, 0, sizeof(r));
		r.type = ITRACE_REC_THREAD;
		r.u.thread.event = ITRACE_THREAD_SWITCH;
		r.u.thread.tid = r.u.thread.pid = r.tid = r.pid = 100 + part;
		assert_int_equal(itrace_writer_write(w, &r), 0);
	}
	if (part % 5 == 3) {
		memset(&r, 0, sizeof(r));
		r.type = ITRACE_REC_GAP;
		r.u.gap.reason = ITRACE_GAP_UNDECODABLE;
		r.u.gap.addr = 0x1234;
		assert_int_equal(itrace_writer_write(w, &r), 0);
		r.type = ITRACE_REC_LOST;
		r.u.lost.count = part;
		assert_int_equal(itrace_writer_write(w, &r), 0);
	}
	if (part % 3 == 2) {
		memset(&r, 0, sizeof(r));
		r.type = ITRACE_REC_TIMESTAMP;
		r.time_ns = *time += 5;
		assert_int_equal(itrace_writer_write(w, &r), 0);
	}
	emit_stream(w, 1, 20);
}

#define SEGMENT_PARTS 12

/* The parts written in order, a chunk ended after each. */
static struct buf parts_in_order(int async, int comp)
{
	uint64_t time = 0;
	int fd;
	struct itrace_writer *w = open_writer(&fd, async, comp, 1024);

	for (unsigned i = 0; i < SEGMENT_PARTS; i++) {
		emit_part(w, i, &time);
		assert_int_equal(writer_end_chunk(w), 0);
	}
	return close_and_slurp(w, fd);
}

/* The parts encoded into segments (two writers in turn), then spliced. */
static struct buf parts_as_segments(int async, int comp)
{
	struct writer_segment segs[SEGMENT_PARTS];
	struct itrace_writer *seg[2];
	uint64_t time = 0;
	int fd;
	struct itrace_writer *w = open_writer(&fd, async, comp, 1024);

	memset(segs, 0, sizeof(segs));
	assert_int_equal(writer_segment_open(w, &seg[0]), 0);
	assert_int_equal(writer_segment_open(w, &seg[1]), 0);
	for (unsigned i = 0; i < SEGMENT_PARTS; i++) {
		writer_segment_begin(seg[i % 2], time, &segs[i]);
		emit_part(seg[i % 2], i, &time);
		assert_int_equal(writer_segment_end(seg[i % 2]), 0);
	}
	for (unsigned i = 0; i < SEGMENT_PARTS; i++) {
		assert_true(segs[i].nchunks >= 1);
		assert_int_equal(writer_append_segment(w, &segs[i]), 0);
		writer_segment_release(&segs[i]);
	}
	writer_segment_free(seg[0]);
	writer_segment_free(seg[1]);
	writer_segment_free(NULL);
	return close_and_slurp(w, fd);
}

/*
 * Segments encoded apart and spliced give the bytes of one writer that
 * ends a chunk at every part: sequence numbers, counts, the inherited
 * thread in chunk headers, TIMESTAMP deltas, the index and the footer.
 */
static void test_segments_equal_sequential(void **state)
{
	(void)state;
	for (int comp = ITRACE_COMPRESS_NONE; comp <= ITRACE_COMPRESS_ZSTD; comp++) {
		for (int async = 0; async <= 1; async++) {
			struct buf seq = parts_in_order(async, comp);
			struct buf spliced = parts_as_segments(async, comp);

			assert_same_bytes(&seq, &spliced);
			free(seq.data);
			free(spliced.data);
		}
	}
}

/* The spliced file reads back whole: every chunk checks, every record. */
static void test_segments_read_back(void **state)
{
	struct buf b = parts_as_segments(0, ITRACE_COMPRESS_ZSTD);
	struct itrace_reader *r;
	struct itrace_record rec;
	struct itrace_footer foot;
	uint64_t n = 0, switches = 0;
	uint32_t tid = 0;
	int rc, fd = memfd_create("itrace-segment-test", 0);

	(void)state;
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(itrace_reader_open_fd(fd, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		n++;
		/* each record carries the thread: chunk headers name the right one */
		if (rec.type == ITRACE_REC_THREAD) {
			switches++;
			tid = rec.u.thread.tid;
		} else {
			assert_int_equal(rec.tid, tid);
		}
	}
	assert_int_equal(rc, ITRACE_EOF);
	assert_int_equal(itrace_reader_footer(r, &foot), 0);
	assert_int_equal(foot.record_count, n);
	assert_int_equal(switches, SEGMENT_PARTS / 2);
	assert_true(itrace_reader_chunk_count(r) > SEGMENT_PARTS);
	for (int64_t i = 0; i < itrace_reader_chunk_count(r); i++) {
		struct itrace_chunk_info ci;

		assert_int_equal(itrace_reader_chunk_info(r, (uint64_t)i, &ci), 0);
		assert_int_equal(ci.seq, (uint64_t)i);
	}
	itrace_reader_close(r);
	close(fd);
	free(b.data);
}

/* The footer of a trace closed with `end`/`status` after n instructions,
 * m lost branches and g GAP records, as a reader sees it. */
static struct itrace_footer footer_of(int end, int status, int n, uint64_t lost, int g)
{
	struct itrace_record rec;
	struct itrace_reader *r;
	struct itrace_footer f;
	int fd;
	struct itrace_writer *w = open_writer(&fd, 0, ITRACE_COMPRESS_NONE, 4096);
	struct buf b;

	for (int i = 0; i < n; i++)
		assert_int_equal(itrace_writer_insn(w, 0x1000 + 4 * (uint64_t)i, 4, NULL), 0);
	memset(&rec, 0, sizeof(rec));
	if (lost) {
		rec.type = ITRACE_REC_LOST;
		rec.u.lost.reason = ITRACE_LOST_OVERFLOW;
		rec.u.lost.unit = ITRACE_UNIT_BRANCHES;
		rec.u.lost.count = lost;
		assert_int_equal(itrace_writer_write(w, &rec), 0);
	}
	for (int i = 0; i < g; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.type = ITRACE_REC_GAP;
		rec.u.gap.reason = ITRACE_GAP_TRACE_OFF;
		assert_int_equal(itrace_writer_write(w, &rec), 0);
	}
	assert_int_equal(itrace_writer_close(w, end, status), 0);
	b = buf_from_fd(fd);
	assert_int_equal(itrace_reader_open_mem(b.data, b.len, &r), 0);
	while (itrace_reader_next(r, &rec, sizeof(rec)) == 0)
		;
	assert_int_equal(itrace_reader_footer(r, &f), 0);
	itrace_reader_close(r);
	free(b.data);
	return f;
}

/* ITRACE.md 7.3, 7.4: how a trace ended, and when it is complete. */
static void test_end_reasons(void **state)
{
	static const struct {
		int end, status, insns;
		uint64_t lost;
		int gaps, complete;
		const char *how; /* NULL: not checked */
	} cases[] = {
		{ITRACE_END_COMPLETE, 3, 5, 0, 0, 1, "the program exited with status 3"},
		{ITRACE_END_CRASHED, 11, 5, 0, 0, 1, "the program was killed by signal 11"},
		/* each reason's status has one meaning, whatever its value (7.3) */
		{ITRACE_END_COMPLETE, -3, 5, 0, 0, 1, "the program exited with status -3"},
		{ITRACE_END_CRASHED, 0, 5, 0, 0, 1, "the program was killed by signal 0"},
		{ITRACE_END_CRASHED, -6, 5, 0, 0, 1, "the program was killed by signal -6"},
		{ITRACE_END_UNKNOWN, 0, 5, 0, 0, 0, "the end is unknown (reason 0)"},
		{ITRACE_END_NOT_TRIGGERED, 0, 0, 0, 0, 0,
		 "the start trigger never fired, nothing of the requested window or scope ran "
		 "(the program exited with status 0); nothing recorded"},
		{ITRACE_END_NOT_TRIGGERED, -9, 0, 0, 0, 0,
		 "the start trigger never fired, nothing of the requested window or scope ran "
		 "(the program was killed by signal 9); nothing recorded"},
		{ITRACE_END_COMPLETE, 0, 0, 0, 0, 0, "the program exited with status 0; nothing recorded"},
		{ITRACE_END_COMPLETE, 0, 5, 40, 0, 0, "the program exited with status 0; 40 lost (LOST records)"},
		{ITRACE_END_COMPLETE, 0, 5, 0, 2, 0, "the program exited with status 0; 2 gaps"},
		{ITRACE_END_INTERRUPTED, 2, 5, 0, 0, 0, "the collector was interrupted by signal 2"},
		{ITRACE_END_DETACHED, 0, 5, 0, 0, 0, "the collector detached; the program went on untraced"},
		{ITRACE_END_ERROR, ENOSPC, 5, 0, 0, 0, "the collector failed: No space left on device"},
	};
	struct itrace_footer f;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = footer_of(cases[i].end, cases[i].status, cases[i].insns, cases[i].lost, cases[i].gaps);
		/* written and read back as itself (6 too, not as UNKNOWN) */
		assert_int_equal(f.end_reason, cases[i].end);
		assert_int_equal(f.end_status, cases[i].status);
		assert_int_equal(itrace_footer_is_complete(&f), cases[i].complete);
		assert_string_equal(itrace_footer_describe(&f, why, sizeof(why)), cases[i].how);
	}
	f = footer_of(99, 0, 5, 0, 0); /* outside the known values: written as UNKNOWN */
	assert_int_equal(f.end_reason, ITRACE_END_UNKNOWN);
	assert_false(itrace_footer_is_complete(&f));
	assert_false(itrace_footer_is_complete(NULL));
	assert_string_equal(itrace_footer_describe(NULL, why, sizeof(why)),
			    "truncated: no footer (the writer was killed, or the file was cut)");
	/* a short buffer is cut, never overrun */
	f = footer_of(ITRACE_END_COMPLETE, 0, 5, 40, 0);
	assert_string_equal(itrace_footer_describe(&f, why, 12), "the program");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_equals_single),
		cmocka_unit_test(test_batch_rejects_bad_lengths),
		cmocka_unit_test(test_async_equals_sync),
		cmocka_unit_test(test_async_flush_and_stats),
		cmocka_unit_test(test_async_write_error),
		cmocka_unit_test(test_tick_notices_closed_pipe),
		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_async_abandon),
		cmocka_unit_test(test_segments_equal_sequential),
		cmocka_unit_test(test_segments_read_back),
		cmocka_unit_test(test_end_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
