/*
 * test_emit.c - collectors/emit.c: every emit_* function, into the writer,
 * gives the record it names, read back through libitrace (values and
 * strings as given); into a sink with `put`, the same records reach it,
 * with the sink's thread, and BLOCK and BRANCH_SEQ records still go to
 * the writer; emit_record passes a kept record on; bad arguments are
 * refused.
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

#include "emit.h"
#include "itrace.h"
#include "readback_testutil.h"

struct out {
	char path[64];
	struct itrace_writer *w;
	struct emit_sink sink;
};

/* A writer of an insn-level trace with BLOCK and BRANCH_SEQ records. */
static void out_open(struct out *o)
{
	struct itrace_writer_options opts;
	int fd;

	snprintf(o->path, sizeof(o->path), "/tmp/test_emit.XXXXXX");
	fd = mkstemp(o->path);
	assert_true(fd >= 0);
	close(fd);
	itrace_writer_options_init(&opts);
	opts.flags = ITRACE_FF_MEM | ITRACE_FF_INSN_BYTES;
	opts.features = ITRACE_FEAT_BLOCK | ITRACE_FEAT_BRANCH_SEQ;
	assert_int_equal(itrace_writer_open(o->path, &opts, &o->w), 0);
	o->sink = emit_writer_sink(o->w);
}

static size_t out_close(struct out *o, struct itrace_record *recs, size_t max)
{
	size_t n;

	assert_int_equal(itrace_writer_close(o->w, ITRACE_END_COMPLETE, 0), 0);
	n = readback_all(o->path, recs, max);
	unlink(o->path);
	return n;
}

static void test_context_records(void **state)
{
	static const uint8_t code[] = {0x0f, 0x05, 0xc3};
	const uint64_t args[6] = {1, 2, 3, 4, 5, 6};
	struct itrace_mmap m = {.start = 0x400000, .len = 0x3000, .pgoff = 0x1000, .pid = 7,
				.prot = 5, .buildid_len = 4, .buildid = {0xde, 0xad, 0xbe, 0xef},
				.path = "/bin/with space", .path_len = 15};
	struct itrace_signal sig = {.signo = 11, .code = 1, .addr = 0x10, .pc = 0x401000,
				    .handler = 0x402000};
	struct itrace_record r[32];
	struct out o;
	size_t n;

	(void)state;
	out_open(&o);
	assert_int_equal(emit_process(&o.sink, ITRACE_PROCESS_START, 7, 0, 0, "/bin/prog"), 0);
	assert_int_equal(emit_thread(&o.sink, ITRACE_THREAD_SWITCH, 8, 7, 0), 0);
	assert_int_equal(emit_mmap(&o.sink, &m), 0);
	assert_int_equal(emit_code(&o.sink, 0x7000, code, sizeof(code)), 0);
	assert_int_equal(emit_thread_name(&o.sink, 8, 7, "worker-with-a-long-name", 6), 0);
	assert_int_equal(emit_thread(&o.sink, ITRACE_THREAD_CREATE, 9, 7, 8), 0);
	assert_int_equal(emit_process_n(&o.sink, ITRACE_PROCESS_EXEC, 7, 8, 0, "/bin/nextXXX", 9), 0);
	assert_int_equal(emit_syscall_enter(&o.sink, 1, 6, args), 0);
	assert_int_equal(emit_syscall_enter(&o.sink, 39, 0, NULL), 0);
	assert_int_equal(emit_syscall_exit(&o.sink, 1, -14), 0);
	assert_int_equal(emit_signal(&o.sink, &sig), 0);
	assert_int_equal(emit_ctl(&o.sink, 1, ITRACE_CTL_TRIGGER, 0x401300), 0);
	assert_int_equal(emit_lost(&o.sink, ITRACE_LOST_OVERFLOW, ITRACE_UNIT_BRANCHES, 12345), 0);
	assert_int_equal(emit_gap(&o.sink, ITRACE_GAP_TRACE_OFF, 0x401000, 0x402000, 3), 0);
	assert_int_equal(emit_thread(&o.sink, ITRACE_THREAD_EXIT, 8, 7, 3), 0);
	assert_int_equal(emit_process(&o.sink, ITRACE_PROCESS_EXIT, 7, 0, -9, NULL), 0);
	assert_int_equal(emit_ctl_trigger(&o.sink, 0, 0x401310, ITRACE_CTL_BY_STOP, 300), 0);
	n = out_close(&o, r, 32);
	assert_int_equal(n, 17);

	assert_int_equal(r[0].type, ITRACE_REC_PROCESS);
	assert_int_equal(r[0].u.process.event, ITRACE_PROCESS_START);
	assert_int_equal(r[0].u.process.pid, 7);
	assert_int_equal(r[0].u.process.name_len, 9);
	assert_memory_equal(r[0].u.process.name, "/bin/prog", 9);

	assert_int_equal(r[1].type, ITRACE_REC_THREAD);
	assert_int_equal(r[1].u.thread.event, ITRACE_THREAD_SWITCH);
	assert_int_equal(r[1].u.thread.tid, 8);
	assert_int_equal(r[1].u.thread.pid, 7);
	assert_int_equal(r[1].u.thread.name_len, 0);

	assert_int_equal(r[2].type, ITRACE_REC_MMAP);
	assert_true(r[2].u.mmap.start == 0x400000 && r[2].u.mmap.len == 0x3000);
	assert_int_equal(r[2].u.mmap.pgoff, 0x1000);
	assert_int_equal(r[2].u.mmap.pid, 7);
	assert_int_equal(r[2].u.mmap.prot, 5);
	assert_int_equal(r[2].u.mmap.buildid_len, 4);
	assert_memory_equal(r[2].u.mmap.buildid, m.buildid, 4);
	assert_int_equal(r[2].u.mmap.path_len, 15);
	assert_memory_equal(r[2].u.mmap.path, "/bin/with space", 15);

	assert_int_equal(r[3].type, ITRACE_REC_CODE);
	assert_int_equal(r[3].u.code.addr, 0x7000);
	assert_int_equal(r[3].u.code.len, sizeof(code));
	assert_memory_equal(r[3].u.code.bytes, code, sizeof(code));

	assert_int_equal(r[4].type, ITRACE_REC_THREAD);
	assert_int_equal(r[4].u.thread.event, ITRACE_THREAD_NAME);
	assert_int_equal(r[4].u.thread.tid, 8);
	assert_int_equal(r[4].u.thread.name_len, 6);
	assert_memory_equal(r[4].u.thread.name, "worker", 6);

	assert_int_equal(r[5].u.thread.event, ITRACE_THREAD_CREATE);
	assert_int_equal(r[5].u.thread.tid, 9);
	assert_int_equal(r[5].u.thread.other, 8);

	assert_int_equal(r[6].type, ITRACE_REC_PROCESS);
	assert_int_equal(r[6].u.process.event, ITRACE_PROCESS_EXEC);
	assert_int_equal(r[6].u.process.other, 8);
	assert_int_equal(r[6].u.process.name_len, 9);
	assert_memory_equal(r[6].u.process.name, "/bin/next", 9);

	assert_int_equal(r[7].type, ITRACE_REC_SYSCALL);
	assert_int_equal(r[7].u.syscall.dir, ITRACE_SYSCALL_ENTER);
	assert_int_equal(r[7].u.syscall.nr, 1);
	assert_int_equal(r[7].u.syscall.nargs, 6);
	assert_memory_equal(r[7].u.syscall.args, args, sizeof(args));
	assert_int_equal(r[8].u.syscall.nr, 39);
	assert_int_equal(r[8].u.syscall.nargs, 0);
	assert_int_equal(r[9].u.syscall.dir, ITRACE_SYSCALL_EXIT);
	assert_int_equal(r[9].u.syscall.ret, -14);

	assert_int_equal(r[10].type, ITRACE_REC_SIGNAL);
	assert_memory_equal(&r[10].u.signal, &sig, sizeof(sig));

	assert_int_equal(r[11].type, ITRACE_REC_TRACE_CTL);
	assert_int_equal(r[11].u.ctl.on, 1);
	assert_int_equal(r[11].u.ctl.reason, ITRACE_CTL_TRIGGER);
	assert_int_equal(r[11].u.ctl.addr, 0x401300);
	assert_int_equal(r[11].u.ctl.trigger, ITRACE_CTL_BY_NONE); /* 1.0's payload */
	/* 1.1's appended fields: which option (ITRACE.md 6.5.12) */
	assert_int_equal(r[16].type, ITRACE_REC_TRACE_CTL);
	assert_int_equal(r[16].u.ctl.on, 0);
	assert_int_equal(r[16].u.ctl.reason, ITRACE_CTL_TRIGGER);
	assert_int_equal(r[16].u.ctl.addr, 0x401310);
	assert_int_equal(r[16].u.ctl.trigger, ITRACE_CTL_BY_STOP);
	assert_int_equal(r[16].u.ctl.index, 300);

	assert_int_equal(r[12].type, ITRACE_REC_LOST);
	assert_int_equal(r[12].u.lost.reason, ITRACE_LOST_OVERFLOW);
	assert_int_equal(r[12].u.lost.unit, ITRACE_UNIT_BRANCHES);
	assert_int_equal(r[12].u.lost.count, 12345);

	assert_int_equal(r[13].type, ITRACE_REC_GAP);
	assert_int_equal(r[13].u.gap.reason, ITRACE_GAP_TRACE_OFF);
	assert_int_equal(r[13].u.gap.addr, 0x401000);
	assert_int_equal(r[13].u.gap.resume, 0x402000);
	assert_int_equal(r[13].u.gap.count, 3);

	assert_int_equal(r[14].u.thread.event, ITRACE_THREAD_EXIT);
	assert_int_equal(r[14].u.thread.other, 3);
	assert_int_equal(r[15].u.process.event, ITRACE_PROCESS_EXIT);
	assert_int_equal(r[15].u.process.status, -9);
	assert_int_equal(r[15].u.process.name_len, 0);
}

/* The records of executed code, every way the emitter writes them. */
static void test_execution_records(void **state)
{
	static const uint8_t lens[3] = {1, 2, 3};
	static const uint8_t bytes[2] = {0x48, 0x90};
	const struct itrace_block_access acc[1] = {{.size = 8, .insn = 1, .flags = ITRACE_MEM_STORE}};
	const uint64_t addr[1] = {0x7fff1000};
	struct itrace_record r[64];
	int blk, b1, b2, seq, ids[2];
	struct out o;
	size_t n, i = 0;

	(void)state;
	out_open(&o);
	assert_int_equal(emit_thread(&o.sink, ITRACE_THREAD_SWITCH, 8, 7, 0), 0);
	assert_int_equal(emit_insn(&o.sink, 0x401000, 2, bytes), 0);
	assert_int_equal(emit_mem(&o.sink, 0x601000, 4, 0), 0);
	assert_int_equal(emit_insns(&o.sink, 0x401002, 3, lens), 0);
	assert_int_equal(emit_branch(&o.sink, 0x401007, 0x401100, ITRACE_BRANCH_CALL, ITRACE_BRANCH_TAKEN), 0);
	blk = emit_block_define(&o.sink, 0x401100, 2, lens, 1, acc);
	assert_true(blk >= 0);
	assert_int_equal(emit_block(&o.sink, blk, addr), 0);
	assert_int_equal(emit_blocks(&o.sink, 1, &blk, addr), 0);
	assert_int_equal(emit_block_partial(&o.sink, blk, 1, addr, NULL), 0);
	b1 = emit_branch_define(&o.sink, 0x401103, 0x401200, ITRACE_BRANCH_UNCOND, ITRACE_BRANCH_TAKEN);
	b2 = emit_branch_define(&o.sink, 0x401203, 0x401100, ITRACE_BRANCH_RETURN, ITRACE_BRANCH_TAKEN);
	assert_true(b1 >= 0 && b2 >= 0);
	ids[0] = b1;
	ids[1] = b2;
	seq = emit_branch_seq_define(&o.sink, 2, ids);
	assert_true(seq >= 0);
	assert_int_equal(emit_branch_id(&o.sink, b1), 0);
	assert_int_equal(emit_branch_ids(&o.sink, 2, ids), 0);
	assert_int_equal(emit_branch_id(&o.sink, seq), 0);
	n = out_close(&o, r, 64);

	assert_int_equal(r[i++].type, ITRACE_REC_THREAD);
	assert_int_equal(r[i].type, ITRACE_REC_INSN);
	assert_int_equal(r[i].u.insn.addr, 0x401000);
	assert_int_equal(r[i].u.insn.len, 2);
	assert_true(r[i].u.insn.has_bytes);
	assert_memory_equal(r[i++].u.insn.bytes, bytes, 2);
	assert_int_equal(r[i].type, ITRACE_REC_MEM);
	assert_int_equal(r[i].u.mem.addr, 0x601000);
	assert_int_equal(r[i].u.mem.size, 4);
	assert_int_equal(r[i++].u.mem.flags, 0);
	for (uint64_t a = 0x401002, k = 0; k < 3; a += lens[k++], i++) {
		assert_int_equal(r[i].type, ITRACE_REC_INSN);
		assert_int_equal(r[i].u.insn.addr, a);
		assert_int_equal(r[i].u.insn.len, lens[k]);
		assert_false(r[i].u.insn.has_bytes);
	}
	assert_int_equal(r[i].type, ITRACE_REC_BRANCH);
	assert_int_equal(r[i].u.branch.from, 0x401007);
	assert_int_equal(r[i].u.branch.to, 0x401100);
	assert_int_equal(r[i].u.branch.kind, ITRACE_BRANCH_CALL);
	assert_int_equal(r[i++].u.branch.flags, ITRACE_BRANCH_TAKEN);
	/* the block twice in full (emit_block, emit_blocks): insn, insn, its store */
	for (int k = 0; k < 2; k++) {
		assert_int_equal(r[i].type, ITRACE_REC_INSN);
		assert_int_equal(r[i++].u.insn.addr, 0x401100);
		assert_int_equal(r[i].type, ITRACE_REC_INSN);
		assert_int_equal(r[i++].u.insn.addr, 0x401101);
		assert_int_equal(r[i].type, ITRACE_REC_MEM);
		assert_int_equal(r[i].u.mem.addr, 0x7fff1000);
		assert_int_equal(r[i].u.mem.size, 8);
		assert_int_equal(r[i++].u.mem.flags, ITRACE_MEM_STORE);
	}
	/* emit_block_partial: its first instruction only */
	assert_int_equal(r[i].type, ITRACE_REC_INSN);
	assert_int_equal(r[i++].u.insn.addr, 0x401100);
	/* the branches of ids: b1; b1 b2; the sequence b1 b2 */
	{
		const uint64_t from[5] = {0x401103, 0x401103, 0x401203, 0x401103, 0x401203};

		for (int k = 0; k < 5; k++, i++) {
			assert_int_equal(r[i].type, ITRACE_REC_BRANCH);
			assert_int_equal(r[i].u.branch.from, from[k]);
		}
	}
	assert_int_equal(n, i);
}

/* A sink of its own: what it was given. */
struct capture {
	struct emit_sink sink; /* first: put's sink is the capture */
	struct itrace_record recs[32];
	size_t n;
	int fail;
};

static int capture_put(struct emit_sink *s, const struct itrace_record *rec)
{
	struct capture *c = (struct capture *)s;

	if (c->fail)
		return -ITRACE_E_IO;
	assert_true(c->n < 32);
	c->recs[c->n++] = *rec;
	return 0;
}

static void test_put_sink(void **state)
{
	static const uint8_t lens[2] = {3, 4};
	static const uint8_t bytes[3] = {1, 2, 3};
	struct capture c = {.sink = {.put = capture_put, .tid = 8, .pid = 7}};

	(void)state;
	assert_int_equal(emit_branch(&c.sink, 0x10, 0x20, ITRACE_BRANCH_COND, 0), 0);
	assert_int_equal(emit_insn(&c.sink, 0x20, 3, bytes), 0);
	assert_int_equal(emit_insns(&c.sink, 0x23, 2, lens), 0);
	assert_int_equal(emit_mem(&c.sink, 0x1000, 2, ITRACE_MEM_STORE), 0);
	assert_int_equal(emit_ctl(&c.sink, 0, ITRACE_CTL_SCOPE, 0x30), 0);
	c.sink.tid = 9;
	assert_int_equal(emit_signal(&c.sink, &(struct itrace_signal){.signo = 2}), 0);
	assert_int_equal(c.n, 7);
	for (size_t i = 0; i < c.n; i++) {
		assert_int_equal(c.recs[i].tid, i < 6 ? 8 : 9);
		assert_int_equal(c.recs[i].pid, 7);
	}
	assert_int_equal(c.recs[0].type, ITRACE_REC_BRANCH);
	assert_int_equal(c.recs[0].u.branch.from, 0x10);
	assert_int_equal(c.recs[0].u.branch.to, 0x20);
	assert_int_equal(c.recs[0].u.branch.kind, ITRACE_BRANCH_COND);
	assert_int_equal(c.recs[0].u.branch.flags, 0);
	assert_int_equal(c.recs[1].type, ITRACE_REC_INSN);
	assert_int_equal(c.recs[1].u.insn.len, 3);
	assert_true(c.recs[1].u.insn.has_bytes);
	assert_memory_equal(c.recs[1].u.insn.bytes, bytes, 3);
	/* a run: one INSN each, without bytes */
	assert_int_equal(c.recs[2].u.insn.addr, 0x23);
	assert_int_equal(c.recs[2].u.insn.len, 3);
	assert_false(c.recs[2].u.insn.has_bytes);
	assert_int_equal(c.recs[3].u.insn.addr, 0x26);
	assert_int_equal(c.recs[3].u.insn.len, 4);
	assert_int_equal(c.recs[4].type, ITRACE_REC_MEM);
	assert_int_equal(c.recs[4].u.mem.flags, ITRACE_MEM_STORE);
	assert_int_equal(c.recs[5].type, ITRACE_REC_TRACE_CTL);
	assert_int_equal(c.recs[5].u.ctl.reason, ITRACE_CTL_SCOPE);
	assert_int_equal(c.recs[6].type, ITRACE_REC_SIGNAL);
	assert_int_equal(c.recs[6].u.signal.signo, 2);

	/* the sink's error is the emitter's */
	c.fail = 1;
	assert_int_equal(emit_branch(&c.sink, 1, 2, 0, 0), -ITRACE_E_IO);
	assert_int_equal(emit_insns(&c.sink, 0x23, 2, lens), -ITRACE_E_IO);
	assert_int_equal(emit_lost(&c.sink, 0, 0, 1), -ITRACE_E_IO);
}

/* A record a sink kept goes on to the writer unchanged (the hold-back
 * queue's and the ring's way). */
static void test_record_passed_on(void **state)
{
	struct capture c = {.sink = {.put = capture_put, .tid = 8, .pid = 7}};
	struct itrace_record r[8];
	struct out o;

	(void)state;
	assert_int_equal(emit_syscall_exit(&c.sink, 60, 3), 0);
	assert_int_equal(emit_branch(&c.sink, 0x10, 0x20, ITRACE_BRANCH_UNCOND, ITRACE_BRANCH_TAKEN), 0);
	out_open(&o);
	assert_int_equal(emit_thread(&o.sink, ITRACE_THREAD_SWITCH, 8, 7, 0), 0);
	for (size_t i = 0; i < c.n; i++)
		assert_int_equal(emit_record(&o.sink, &c.recs[i]), 0);
	assert_int_equal(out_close(&o, r, 8), 3);
	assert_int_equal(r[1].type, ITRACE_REC_SYSCALL);
	assert_int_equal(r[1].u.syscall.nr, 60);
	assert_int_equal(r[1].u.syscall.ret, 3);
	assert_int_equal(r[2].type, ITRACE_REC_BRANCH);
	assert_int_equal(r[2].u.branch.to, 0x20);
}

static void test_refused(void **state)
{
	const uint64_t args[ITRACE_SYSCALL_MAX_ARGS + 1] = {0};
	const uint8_t bytes[16] = {0};
	struct capture c = {.sink = {.put = capture_put}};
	struct itrace_mmap m = {.buildid_len = ITRACE_BUILDID_MAX + 1, .path = "x", .path_len = 1};

	(void)state;
	assert_int_equal(emit_syscall_enter(&c.sink, 1, ITRACE_SYSCALL_MAX_ARGS + 1, args),
			 -ITRACE_E_INVAL);
	assert_int_equal(emit_insn(&c.sink, 0x10, 16, bytes), -ITRACE_E_INVAL);
	assert_int_equal(emit_mmap(&c.sink, &m), -ITRACE_E_INVAL);
	assert_int_equal(c.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_context_records),
		cmocka_unit_test(test_execution_records),
		cmocka_unit_test(test_put_sink),
		cmocka_unit_test(test_record_passed_on),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
