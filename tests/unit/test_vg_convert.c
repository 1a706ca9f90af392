/*
 * test_vg_convert.c - collectors/valgrind/vg_convert.c on hand-built tool
 * streams (vg_wire.h): every word kind becomes the right record, rep
 * string instructions give one INSN per iteration, THREAD switches are
 * written lazily, an exec followed into a new image, a fatal signal,
 * --only scope changes and what they suppress, records cut at the end of
 * a buffer wait for the next call, the end of a trace (threads killed with
 * the process, execve), GROUP words, paths of branches (BRANCH_SEQ) and
 * damaged streams.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "itrace.h"
#include "vg_convert.h"
#include "vg_wire.h"
#include "gen_testutil.h"
#include "readback_testutil.h"

#define W(tag, aux, addr) \
	(((uint64_t)(tag) << VGW_TAG_SHIFT) | ((uint64_t)(aux) << VGW_AUX_SHIFT) | (uint64_t)(addr))
#define EV(type, n) W(VGW_EVENT, type, n)
/* Branch level: a word of one BSITE unit, and of two (vg_wire.h). */
#define BS(id, way) ((uint64_t)VGW_BSITE_UNIT(id, way))
#define BS2(id0, way0, id1, way1) ((uint64_t)VGW_BSITE_UNIT(id1, way1) << 32 | BS(id0, way0))

struct out {
	char path[64];
	struct itrace_writer *w;
	struct vg_convert c;
};

/* out_open_seqs - out_open(), with BRANCH_SEQ records if `seqs` (as the
 * backend writes them at branch level). */
static void out_open_seqs(struct out *o, int only, int seqs)
{
	struct itrace_writer_options opts;
	int fd;

	snprintf(o->path, sizeof(o->path), "/tmp/test_vg_convert.XXXXXX");
	fd = mkstemp(o->path);
	assert_true(fd >= 0);
	close(fd);
	itrace_writer_options_init(&opts);
	/* as the valgrind backend writes them */
	opts.features = ITRACE_FEAT_BLOCK | (seqs ? ITRACE_FEAT_BRANCH_SEQ : 0);
	opts.mem_table_log2 = ITRACE_MEM_TABLE_LOG2_WIDE;
	assert_int_equal(itrace_writer_open(o->path, &opts, &o->w), 0);
	vg_convert_init(&o->c, o->w, only);
}

static void out_open(struct out *o, int only)
{
	out_open_seqs(o, only, 0);
}

/* Close the writer and read every record back into recs[]. */
static size_t out_close(struct out *o, struct itrace_record *recs, size_t max)
{
	size_t n;

	vg_convert_free(&o->c);
	assert_int_equal(itrace_writer_close(o->w, ITRACE_END_COMPLETE, 0), 0);
	n = readback_all(o->path, recs, max);
	unlink(o->path);
	return n;
}

static void convert_all(struct out *o, const uint64_t *w, size_t n)
{
	size_t used = 0;

	assert_int_equal(vg_convert_words(&o->c, w, n, &used), 0);
	assert_int_equal(used, n);
}

static void test_every_kind(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		W(VGW_INSN, 3, 0x401000),
		W(VGW_LOAD, 8, 0x7fff0000),
		W(VGW_STORE, 4, 0x601000),
		0, /* a guarded access that did not happen */
		W(VGW_INSN_FULL, 5, 0), 0xffffffffff600000ULL,
		W(VGW_BRANCH, 2 | ITRACE_BRANCH_COND << 4, 0x401003), 0x401005, /* not taken */
		W(VGW_BRANCH, 2 | ITRACE_BRANCH_COND << 4, 0x401005), 0x401100, /* taken */
		EV(VGW_EV_SYSCALL_ENTER, 8), 1, 6, 1, 2, 3, 4, 5, 6,
		EV(VGW_EV_SYSCALL_EXIT, 2), 1, (uint64_t)-14,
		EV(VGW_EV_SIGNAL, 5), 11, 1, 0x10, 0x401010, 0x401200,
		EV(VGW_EV_TRACE_CTL, 3), 0, ITRACE_CTL_TRIGGER, 0x401300,
		EV(VGW_EV_EXIT, 1), 7,
	};
	struct itrace_record r[32];
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_true(o.c.hello);
	assert_int_equal(o.c.pid, 42);
	assert_true(o.c.exited);
	assert_int_equal(o.c.exit_code, 7);
	n = out_close(&o, r, 32);
	assert_int_equal(n, 11);
	assert_int_equal(r[0].type, ITRACE_REC_THREAD);
	assert_int_equal(r[0].u.thread.tid, 42);
	assert_int_equal(r[1].type, ITRACE_REC_INSN);
	assert_int_equal(r[1].u.insn.addr, 0x401000);
	assert_int_equal(r[1].u.insn.len, 3);
	assert_int_equal(r[2].type, ITRACE_REC_MEM);
	assert_int_equal(r[2].u.mem.addr, 0x7fff0000);
	assert_int_equal(r[2].u.mem.size, 8);
	assert_int_equal(r[2].u.mem.flags, 0);
	assert_int_equal(r[3].u.mem.flags, ITRACE_MEM_STORE);
	assert_int_equal(r[3].u.mem.size, 4);
	assert_int_equal(r[4].type, ITRACE_REC_INSN);
	assert_true(r[4].u.insn.addr == 0xffffffffff600000ULL);
	assert_int_equal(r[5].type, ITRACE_REC_BRANCH);
	assert_int_equal(r[5].u.branch.flags, 0);
	assert_int_equal(r[6].u.branch.flags, ITRACE_BRANCH_TAKEN);
	assert_int_equal(r[6].u.branch.to, 0x401100);
	assert_int_equal(r[7].type, ITRACE_REC_SYSCALL);
	assert_int_equal(r[7].u.syscall.nargs, 6);
	assert_int_equal(r[7].u.syscall.args[5], 6);
	assert_int_equal(r[8].u.syscall.ret, -14);
	assert_int_equal(r[9].type, ITRACE_REC_SIGNAL);
	assert_int_equal(r[9].u.signal.handler, 0x401200);
	assert_int_equal(r[10].type, ITRACE_REC_TRACE_CTL);
	assert_int_equal(r[10].u.ctl.on, 0);
}

/* One INSN per entry of a rep string instruction (ITRACE.md 6.5.2): per
 * iteration, with its accesses, and the final check of the count. */
static void test_rep_per_iteration(void **state)
{
	const uint64_t words[] = {
		W(VGW_INSN, 2 | VGW_INSN_REP, 0x401000), W(VGW_LOAD, 1, 0x1000), W(VGW_STORE, 1, 0x2000),
		W(VGW_INSN, 2 | VGW_INSN_REP, 0x401000), W(VGW_LOAD, 1, 0x1001), W(VGW_STORE, 1, 0x2001),
		W(VGW_INSN, 2 | VGW_INSN_REP, 0x401000), /* the count ran out */
		W(VGW_INSN, 1, 0x401002),
		W(VGW_INSN, 2 | VGW_INSN_REP, 0x401000), /* executed again, count zero */
	};
	struct itrace_record r[16];
	struct out o;
	size_t n, insns = 0, mems = 0;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	n = out_close(&o, r, 16);
	for (size_t i = 0; i < n; i++) {
		insns += r[i].type == ITRACE_REC_INSN;
		mems += r[i].type == ITRACE_REC_MEM;
	}
	assert_int_equal(insns, 5);
	assert_int_equal(mems, 4);
}

/* A switch is written before the thread's next record, not when announced. */
static void test_lazy_switch(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 10, 10, 0,
		W(VGW_INSN, 1, 0x1000),
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 11, 10, 0,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 10, 10, 0, /* 11 ran nothing */
		W(VGW_INSN, 1, 0x1001),
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 11, 10, 0,
		W(VGW_INSN, 1, 0x2000),
	};
	struct itrace_record r[16];
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	n = out_close(&o, r, 16);
	assert_int_equal(n, 5);
	assert_int_equal(r[0].type, ITRACE_REC_THREAD);
	assert_int_equal(r[0].u.thread.tid, 10);
	assert_int_equal(r[1].type, ITRACE_REC_INSN);
	assert_int_equal(r[2].type, ITRACE_REC_INSN);
	assert_int_equal(r[3].type, ITRACE_REC_THREAD);
	assert_int_equal(r[3].u.thread.tid, 11);
	assert_int_equal(r[4].tid, 11);
}

/* --only: leaving is a TRACE_OFF once, the way back a TRACE_ON at the
 * first instruction; system calls made outside are not recorded. */
static void test_scope(void **state)
{
	const uint64_t words[] = {
		W(VGW_INSN, 1, 0x1000),
		W(VGW_SCOPE_OUT, 0, 0x7000),
		W(VGW_SCOPE_OUT, 0, 0x7100),
		EV(VGW_EV_SYSCALL_ENTER, 8), 1, 6, 0, 0, 0, 0, 0, 0,
		EV(VGW_EV_SYSCALL_EXIT, 2), 1, 0,
		W(VGW_INSN, 1, 0x1001),
	};
	struct itrace_record r[16];
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, 1);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	n = out_close(&o, r, 16);
	assert_int_equal(n, 4);
	assert_int_equal(r[1].type, ITRACE_REC_TRACE_CTL);
	assert_int_equal(r[1].u.ctl.on, 0);
	assert_int_equal(r[1].u.ctl.reason, ITRACE_CTL_SCOPE);
	assert_int_equal(r[1].u.ctl.addr, 0x7000);
	assert_int_equal(r[2].u.ctl.on, 1);
	assert_int_equal(r[2].u.ctl.addr, 0x1001);
	assert_int_equal(r[3].type, ITRACE_REC_INSN);
}

/* A record cut by the end of the buffer is left for the next call. */
static void test_cut_record(void **state)
{
	const uint64_t words[] = {
		W(VGW_INSN, 1, 0x1000),
		EV(VGW_EV_SIGNAL, 5), 10, 0, 0, 0x1001, 0,
	};
	struct itrace_record r[8];
	struct out o;
	size_t used = 99;

	(void)state;
	out_open(&o, 0);
	assert_int_equal(vg_convert_words(&o.c, words, 4, &used), 0);
	assert_int_equal(used, 1);
	assert_int_equal(vg_convert_words(&o.c, words + 1, 6, &used), 0);
	assert_int_equal(used, 6);
	assert_int_equal(out_close(&o, r, 8), 2);
	assert_int_equal(r[1].type, ITRACE_REC_SIGNAL);
}

/* At the end: exits of threads killed with the process get waitpid's
 * status; an execve that worked ends the trace, one that failed does not. */
static void test_finish(void **state)
{
	const uint64_t words[] = {
		W(VGW_INSN, 1, 0x1000),
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_EXIT, 43, 42, VGW_STATUS_UNKNOWN,
		EV(VGW_EV_EXEC, 3), VGW_EXEC_FOLLOW, 7, 0x6f6e2f6e69622fULL, /* "/bin/no" */
		EV(VGW_EV_EXEC_FAILED, 0),
		/* "/no/such": not followed (set-user-ID, say), so the trace ends */
		EV(VGW_EV_EXEC, 3), VGW_EXEC_SETUID, 8, 0x686375732f6f6e2fULL,
	};
	struct itrace_record r[8];
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(vg_convert_finish(&o.c, -11), 0);
	n = out_close(&o, r, 8);
	assert_int_equal(n, 4);
	assert_int_equal(r[1].type, ITRACE_REC_THREAD);
	assert_int_equal(r[1].u.thread.event, ITRACE_THREAD_EXIT);
	assert_int_equal(r[1].u.thread.tid, 43);
	assert_true(r[1].u.thread.other == (uint64_t)-11);
	assert_int_equal(r[2].type, ITRACE_REC_PROCESS);
	assert_int_equal(r[2].u.process.event, ITRACE_PROCESS_EXEC);
	assert_int_equal(r[2].u.process.name_len, 8);
	assert_memory_equal(r[2].u.process.name, "/no/such", 8);
	assert_int_equal(r[3].type, ITRACE_REC_TRACE_CTL);
	assert_int_equal(r[3].u.ctl.reason, ITRACE_CTL_DETACH);
}

/* An exec the tool followed: the old image's killed threads exit with 0,
 * PROCESS exec, and the new image's records name their thread again. */
static void test_exec_followed(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		W(VGW_INSN, 1, 0x1000),
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_EXIT, 43, 42, VGW_STATUS_UNKNOWN,
		EV(VGW_EV_EXEC, 3), VGW_EXEC_FOLLOW, 8, 0x686375732f6f6e2fULL, /* "/no/such" */
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		W(VGW_INSN, 1, 0x2000),
	};
	struct itrace_record r[8];
	struct out o;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(o.c.images, 2);
	assert_int_equal(vg_convert_finish(&o.c, 0), 0);
	assert_int_equal(out_close(&o, r, 8), 6);
	assert_int_equal(r[2].type, ITRACE_REC_THREAD);
	assert_int_equal(r[2].u.thread.event, ITRACE_THREAD_EXIT);
	assert_int_equal(r[2].u.thread.tid, 43);
	assert_int_equal(r[2].u.thread.other, 0);
	assert_int_equal(r[3].type, ITRACE_REC_PROCESS);
	assert_int_equal(r[3].u.process.event, ITRACE_PROCESS_EXEC);
	assert_int_equal(r[4].type, ITRACE_REC_THREAD);
	assert_int_equal(r[4].u.thread.event, ITRACE_THREAD_SWITCH);
	assert_int_equal(r[5].type, ITRACE_REC_INSN);
	assert_int_equal(r[5].u.insn.addr, 0x2000);
}

/* A second HELLO without an execve is damage; ENTRY and FATAL are noted;
 * the fatal signal's record is in the thread that got it, at its pc. */
static void test_entry_fatal(void **state)
{
	const uint64_t hello_twice[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
	};
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_MMAP, 6), 0x400000, 0x1000, 0, 5, 8, 0x686375732f6f6e2fULL,
		EV(VGW_EV_ENTRY, 0),
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 44, 42, 0,
		W(VGW_INSN, 1, 0x400000),
		EV(VGW_EV_FATAL, 2), 44, 0x400001,
	};
	struct itrace_signal sig = { .signo = 11, .code = 1, .addr = 0x10 };
	struct itrace_record r[8];
	struct out o;
	size_t used;

	(void)state;
	out_open(&o, 0);
	assert_int_equal(vg_convert_words(&o.c, hello_twice, 10, &used), -ITRACE_E_CORRUPT);
	out_close(&o, r, 8);

	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(o.c.at_entry, 1);
	assert_int_equal(o.c.n_code_files, 1);
	assert_string_equal(o.c.code_files[0], "/no/such");
	assert_int_equal(o.c.fatal, 1);
	assert_int_equal(vg_convert_fatal_signal(&o.c, &sig), 0);
	assert_int_equal(out_close(&o, r, 8), 4);
	assert_int_equal(r[3].type, ITRACE_REC_SIGNAL);
	assert_int_equal(r[3].tid, 44);
	assert_int_equal(r[3].u.signal.signo, 11);
	assert_int_equal(r[3].u.signal.code, 1);
	assert_int_equal(r[3].u.signal.addr, 0x10);
	assert_int_equal(r[3].u.signal.pc, 0x400001);
	assert_int_equal(r[3].u.signal.handler, 0);
}

/*
 * A GROUP event (made at translation: instructions and their accesses)
 * and the GROUP words that stand for its instructions each time they run,
 * followed by their access words: whole, with a guarded access that did
 * not happen (0), cut short by a fault (another word, or the end of the
 * slot, where an access word was due), and followed by a MEM word beyond
 * the group's accesses.  Damaged groups are refused.
 */
static void test_groups(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		/* lengths 3, 2, 5; a load of 8 by instruction 2 */
		EV(VGW_EV_GROUP, 5), 0, 0x401000, 3, 1, 0x0000080002050203ull,
		EV(VGW_EV_GROUP, 5), 1, 0x402000, 1, 0, 0x07,
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7fff0000),
		W(VGW_GROUP, 0, 1),
		W(VGW_GROUP, 0, 0), 0,
		W(VGW_GROUP, 0, 0), /* cut: the next word is not its access */
		W(VGW_GROUP, 0, 1),
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7fff0010), W(VGW_STORE, 4, 0x600000),
		W(VGW_GROUP, 0, 0), /* cut by the end of the slot */
	};
	const uint64_t hello[] = { EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1 };
	const uint64_t skipped_id[] = { EV(VGW_EV_GROUP, 5), 1, 0x401000, 1, 0, 0x01 };
	const uint64_t no_event[] = { W(VGW_GROUP, 0, 0) };
	const uint64_t zero_len[] = { EV(VGW_EV_GROUP, 5), 0, 0x401000, 2, 0, 0x0001 };
	const uint64_t too_many[] = { EV(VGW_EV_GROUP, 5), 0, 0x401000, 200, 0, 0x01 };
	const uint64_t bad_index[] = { EV(VGW_EV_GROUP, 5), 0, 0x401000, 1, 1, 0x0000000008000501ull };
	const uint64_t *bad[] = { skipped_id, no_event, zero_len, too_many, bad_index };
	const size_t bad_len[] = { 6, 1, 6, 6, 6 };
	/* instruction address (length from the group), or a MEM: 1 = load at
	 * 0x7fff0000, 2 = load at 0x7fff0010, 3 = store at 0x600000 */
	static const uint64_t want[] = {
		0x401000, 0x401003, 0x401005, 1, 0x402000,
		0x401000, 0x401003, 0x401005,
		0x401000, 0x401003,
		0x402000,
		0x401000, 0x401003, 0x401005, 2, 3,
		0x401000, 0x401003,
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	struct itrace_record r[32];
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	n = out_close(&o, r, 32);
	assert_int_equal(n, 1 + nwant);
	assert_int_equal(r[0].type, ITRACE_REC_THREAD);
	for (size_t i = 0; i < nwant; i++) {
		const struct itrace_record *x = &r[1 + i];

		if (want[i] < 4) {
			assert_int_equal(x->type, ITRACE_REC_MEM);
			assert_int_equal(x->u.mem.addr, want[i] == 1 ? 0x7fff0000 : want[i] == 2 ? 0x7fff0010 : 0x600000);
			assert_int_equal(x->u.mem.flags, want[i] == 3 ? ITRACE_MEM_STORE : 0);
			assert_int_equal(x->u.mem.size, want[i] == 3 ? 4 : 8);
			continue;
		}
		assert_int_equal(x->type, ITRACE_REC_INSN);
		assert_int_equal(x->u.insn.addr, want[i]);
		assert_int_equal(x->u.insn.len, want[i] == 0x402000 ? 7 : want[i] == 0x401000 ? 3 :
						want[i] == 0x401003 ? 2 : 5);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t used;

		out_open(&o, 0);
		convert_all(&o, hello, 5);
		assert_int_equal(vg_convert_words(&o.c, bad[i], bad_len[i], &used), -ITRACE_E_CORRUPT);
		assert_true(strstr(o.c.error, "GROUP") != NULL);
		out_close(&o, r, 16);
	}
}

/*
 * Chains: groups that ran one after the other, each starting where the
 * one before it ended, are written with one block (struct vg_chain).  The
 * records read back are those of the groups one by one: a chain grows by
 * the first group seen to follow it in memory and only once (another
 * group at that address later is written on its own), and it stops at a
 * group that is not its successor, at a word that is not an access (a
 * guarded access that did not happen, an event), and where the slot ends.
 */
static void test_chains(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		/* A: lengths 3, 2, a load of 8 by its instruction 1 */
		EV(VGW_EV_GROUP, 5), 0, 0x401000, 2, 1, 0x0000000800010203ull,
		/* B: length 4, a store of 4 */
		EV(VGW_EV_GROUP, 5), 1, 0x401005, 1, 1, 0x0000000004010004ull,
		EV(VGW_EV_GROUP, 5), 2, 0x401009, 1, 0, 0x01, /* C */
		EV(VGW_EV_GROUP, 5), 3, 0x500000, 1, 0, 0x02, /* D */
		EV(VGW_EV_GROUP, 5), 4, 0x401005, 1, 0, 0x04, /* E, where B is */
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0000), W(VGW_GROUP, 0, 1),
		W(VGW_STORE, 4, 0x600000), W(VGW_GROUP, 0, 2),
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0010), W(VGW_GROUP, 0, 1),
		W(VGW_STORE, 4, 0x600008), W(VGW_GROUP, 0, 2),
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0020), W(VGW_GROUP, 0, 1),
		W(VGW_STORE, 4, 0x600010), W(VGW_GROUP, 0, 3),
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0030), W(VGW_GROUP, 0, 4),
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0040), W(VGW_GROUP, 0, 1), 0,
		W(VGW_GROUP, 0, 1), W(VGW_STORE, 4, 0x600018), W(VGW_GROUP, 0, 2),
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0050),
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 43, 42, 0,
		W(VGW_GROUP, 0, 1), W(VGW_STORE, 4, 0x600020),
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0060), W(VGW_GROUP, 0, 1),
	};
	/* an instruction's address, or a MEM record's (0x600000 up: stores) */
	static const uint64_t want[] = {
		0x401000, 0x401003, 0x7f0000, 0x401005, 0x600000, 0x401009,
		0x401000, 0x401003, 0x7f0010, 0x401005, 0x600008, 0x401009,
		0x401000, 0x401003, 0x7f0020, 0x401005, 0x600010, 0x500000,
		0x401000, 0x401003, 0x7f0030, 0x401005,
		0x401000, 0x401003, 0x7f0040, 0x401005,
		0x401005, 0x600018, 0x401009,
		0x401000, 0x401003, 0x7f0050,
		0x401005, 0x600020, /* thread 43 */
		0x401000, 0x401003, 0x7f0060, /* B cut by the end of the slot */
	};
	const uint64_t unknown[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_GROUP, 5), 0, 0x401000, 1, 0, 0x01,
		W(VGW_GROUP, 0, 0), W(VGW_GROUP, 0, 7),
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	struct itrace_record r[64];
	struct out o;
	size_t n, k = 0, used;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	/* A, B, C, D, E alone; AB, ABC; BC */
	assert_int_equal(o.c.n_chains, 8);
	n = out_close(&o, r, 64);
	assert_int_equal(n, nwant + 2);
	for (size_t i = 0; i < n; i++) {
		if (r[i].type == ITRACE_REC_THREAD)
			continue;
		assert_true(k < nwant);
		if (want[k] >= 0x600000 && want[k] < 0x800000) {
			assert_int_equal(r[i].type, ITRACE_REC_MEM);
			assert_int_equal(r[i].u.mem.addr, want[k]);
			assert_int_equal(r[i].u.mem.flags, want[k] < 0x7f0000 ? ITRACE_MEM_STORE : 0);
		} else {
			assert_int_equal(r[i].type, ITRACE_REC_INSN);
			assert_int_equal(r[i].u.insn.addr, want[k]);
		}
		assert_int_equal(r[i].tid, k >= 32 ? 43 : 42);
		k++;
	}
	assert_int_equal(k, nwant);

	/* a GROUP word without its event after a group: refused */
	out_open(&o, 0);
	assert_int_equal(vg_convert_words(&o.c, unknown, sizeof(unknown) / sizeof(unknown[0]), &used),
			 -ITRACE_E_CORRUPT);
	assert_true(strstr(o.c.error, "GROUP word without its event") != NULL);
	out_close(&o, r, 64);
}

/*
 * Valgrind unrolls a short loop into one superblock: the same
 * instructions come as several GROUP events.  They are one block of the
 * writer (so that each execution repeats it in its slot); a group that
 * differs in anything (an access's size, a length) is another block.
 */
static void test_same_groups(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		/* lengths 3, 2, a load of 8 by instruction 1: three times */
		EV(VGW_EV_GROUP, 5), 0, 0x401000, 2, 1, 0x0000000800010203ull,
		EV(VGW_EV_GROUP, 5), 1, 0x401000, 2, 1, 0x0000000800010203ull,
		EV(VGW_EV_GROUP, 5), 2, 0x401000, 2, 1, 0x0000000800010203ull,
		/* a load of 4, a store of 8, another length, another start */
		EV(VGW_EV_GROUP, 5), 3, 0x401000, 2, 1, 0x0000000400010203ull,
		EV(VGW_EV_GROUP, 5), 4, 0x401000, 2, 1, 0x0000000801010203ull,
		EV(VGW_EV_GROUP, 5), 5, 0x401000, 2, 1, 0x0000000800010303ull,
		EV(VGW_EV_GROUP, 5), 6, 0x402000, 2, 1, 0x0000000800010203ull,
		W(VGW_GROUP, 0, 0), W(VGW_LOAD, 8, 0x7f0000), W(VGW_GROUP, 0, 1),
		W(VGW_LOAD, 8, 0x7f0008), W(VGW_GROUP, 0, 2), W(VGW_LOAD, 8, 0x7f0010),
	};
	struct itrace_record r[16];
	struct out o;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(o.c.groups[1].block, o.c.groups[0].block);
	assert_int_equal(o.c.groups[2].block, o.c.groups[0].block);
	for (int i = 3; i < 7; i++)
		for (int j = 0; j < i; j++)
			if (j == 0 || j >= 3)
				assert_int_not_equal(o.c.groups[i].block, o.c.groups[j].block);
	assert_int_equal(out_close(&o, r, 16), 1 + 9);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r[1 + 3 * i].u.insn.addr, 0x401000);
		assert_int_equal(r[2 + 3 * i].u.insn.addr, 0x401003);
		assert_int_equal(r[3 + 3 * i].type, ITRACE_REC_MEM);
		assert_int_equal(r[3 + 3 * i].u.mem.addr, 0x7f0000 + 8 * i);
	}
}

/* bsite_def - the writer's definition of way t of BSITE event id. */
static int bsite_def(const struct vg_convert *c, size_t id, int t)
{
	return c->paths[c->bsites[id].path[t]].branch;
}

/*
 * An unrolled loop's branch comes in several BSITE events: each way of it
 * is one definition of the writer (so that it repeats in its slot); a
 * branch that differs in its kind, its source or a target is another.
 */
static void test_same_bsites(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_BSITE, 5), 1, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_BSITE, 5), 2, 0x401000, 0x02 | ITRACE_BRANCH_UNCOND << 4, 0x401002, 0x401100,
		EV(VGW_EV_BSITE, 5), 3, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401200,
		EV(VGW_EV_BSITE, 5), 4, 0x401004, 0x02 | ITRACE_BRANCH_COND << 4, 0x401006, 0x401100,
		BS(0, 1), BS(1, 1), BS(1, 0), BS(3, 1),
	};
	struct itrace_record r[8];
	struct out o;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(bsite_def(&o.c, 1, 0), bsite_def(&o.c, 0, 0));
	assert_int_equal(bsite_def(&o.c, 1, 1), bsite_def(&o.c, 0, 1));
	assert_int_not_equal(bsite_def(&o.c, 0, 0), bsite_def(&o.c, 0, 1));
	assert_int_not_equal(bsite_def(&o.c, 2, 1), bsite_def(&o.c, 0, 1));
	assert_int_equal(bsite_def(&o.c, 3, 0), bsite_def(&o.c, 0, 0)); /* the same way */
	assert_int_not_equal(bsite_def(&o.c, 3, 1), bsite_def(&o.c, 0, 1));
	assert_int_not_equal(bsite_def(&o.c, 4, 1), bsite_def(&o.c, 0, 1));
	assert_int_equal(o.c.n_defs, 7); /* branches only here */
	assert_int_equal(out_close(&o, r, 8), 5);
	assert_int_equal(r[1].u.branch.to, 0x401100);
	assert_int_equal(r[2].u.branch.to, 0x401100);
	assert_int_equal(r[3].u.branch.to, 0x401002);
	assert_int_equal(r[4].u.branch.to, 0x401200);
	for (int i = 1; i < 5; i++) {
		assert_int_equal(r[i].u.branch.from, 0x401000);
		assert_int_equal(r[i].u.branch.kind, ITRACE_BRANCH_COND);
		assert_int_equal(r[i].u.branch.flags, i == 3 ? 0 : ITRACE_BRANCH_TAKEN);
	}
}

/*
 * A chain holds at most VG_CHAIN_GROUPS groups and one block's worth of
 * instructions (ITRACE_RUN_MAX): twenty groups of one instruction after
 * each other make chains of 16 and 4; five groups of 64 instructions,
 * chains of three and two.  Every instruction is read back, in order.
 */
static void test_chain_limits(void **state)
{
	static uint64_t words[5 + 20 * 6 + 2 * 20]; /* the larger of the two */
	static struct itrace_record r[2 * 5 * 64];
	const size_t sizes[] = { 1, 64 }, ngroups[] = { 20, 5 }, nchains[] = { 20 + 15 + 3, 5 + 2 + 1 };
	struct out o;
	size_t n, nw;

	(void)state;
	for (int t = 0; t < 2; t++) {
		const size_t len = sizes[t], count = ngroups[t];

		nw = 0;
		words[nw++] = EV(VGW_EV_HELLO, 4);
		words[nw++] = VGW_VERSION;
		words[nw++] = 42;
		words[nw++] = VGW_LEVEL_INSN;
		words[nw++] = 1;
		for (size_t g = 0; g < count; g++) {
			words[nw++] = EV(VGW_EV_GROUP, 4 + VGW_BYTES_WORDS(len));
			words[nw++] = g;
			words[nw++] = 0x401000 + g * len;
			words[nw++] = len;
			words[nw++] = 0;
			for (size_t b = 0; b < VGW_BYTES_WORDS(len); b++)
				words[nw++] = len - b * 8 >= 8 ? 0x0101010101010101ull
							     : 0x0101010101010101ull >> (64 - 8 * (len - b * 8));
		}
		for (int pass = 0; pass < 2; pass++)
			for (size_t g = 0; g < count; g++)
				words[nw++] = W(VGW_GROUP, 0, g);
		assert_true(nw <= sizeof(words) / sizeof(words[0]));
		out_open(&o, 0);
		convert_all(&o, words, nw);
		assert_int_equal(o.c.n_chains, nchains[t]);
		n = out_close(&o, r, sizeof(r) / sizeof(r[0]));
		assert_int_equal(n, 2 * len * count);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(r[i].type, ITRACE_REC_INSN);
			assert_int_equal(r[i].u.insn.addr, 0x401000 + i % (len * count));
			assert_int_equal(r[i].u.insn.len, 1);
		}
	}
}

/*
 * Branch level: a BSITE event (a branch with its two targets, made at
 * translation) and the BSITE units that name the target taken, one or
 * two to a word, a zero unit padding; a conditional branch to the next
 * instruction is not taken.  The same records whether the units come
 * alone (packed 0), two to a word (1) or with padding (2).
 */
static void test_branch_units(void **state)
{
	(void)state;
	for (int packed = 0; packed < 3; packed++) {
		const uint64_t words[] = {
			EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
			EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
			EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002,
			0x401100,
			EV(VGW_EV_BSITE, 5), 1, 0x401100, 0x05 | ITRACE_BRANCH_CALL << 4, 0x402000,
			0x402000,
			packed == 0 ? BS(0, 1) : packed == 1 ? BS2(0, 1, 0, 0) : BS(0, 1) << 32,
			packed == 0 ? BS(0, 0) : packed == 1 ? BS2(1, 0, 0, 1) : 0,
			packed == 0 ? BS(1, 0) : packed == 1 ? 0 : BS2(0, 0, 1, 0),
			packed == 0 ? BS(0, 1) : packed == 1 ? 0 : BS(0, 1),
		};
		struct itrace_record r[8];
		struct out o;

		out_open(&o, 0);
		convert_all(&o, words, sizeof(words) / sizeof(words[0]));
		assert_int_equal(out_close(&o, r, 8), 5);
		for (int i = 0; i < 4; i++) {
			static const uint64_t to[] = { 0x401100, 0x401002, 0x402000, 0x401100 };

			assert_int_equal(r[1 + i].u.branch.to, to[i]);
			assert_int_equal(r[1 + i].u.branch.flags, i == 1 ? 0 : ITRACE_BRANCH_TAKEN);
		}
	}
}

/* The same, one unit a word; and bad events and units. */
static void test_branch_sites(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_BSITE, 5), 1, 0x401100, 0x05 | ITRACE_BRANCH_CALL << 4, 0x402000, 0x402000,
		BS(0, 1), BS(0, 0), BS(1, 0), BS(0, 1),
	};
	const uint64_t hello[] = { EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1 };
	const uint64_t no_event[] = { BS(0, 0) };
	const uint64_t skipped_id[] = { EV(VGW_EV_BSITE, 5), 1, 0x401000, 0x02, 1, 2 };
	const uint64_t bad_kind[] = { EV(VGW_EV_BSITE, 5), 0, 0x401000, 0xf2, 1, 2 };
	const uint64_t *bad[] = { no_event, skipped_id, bad_kind };
	const size_t bad_len[] = { 1, 6, 6 };
	static const uint64_t to[] = { 0x401100, 0x401002, 0x402000, 0x401100 };
	struct itrace_record r[8];
	struct out o;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(out_close(&o, r, 8), 5);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(r[1 + i].type, ITRACE_REC_BRANCH);
		assert_int_equal(r[1 + i].u.branch.from, i == 2 ? 0x401100 : 0x401000);
		assert_int_equal(r[1 + i].u.branch.to, to[i]);
		assert_int_equal(r[1 + i].u.branch.kind, i == 2 ? ITRACE_BRANCH_CALL : ITRACE_BRANCH_COND);
		assert_int_equal(r[1 + i].u.branch.flags, i == 1 ? 0 : ITRACE_BRANCH_TAKEN);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t used;

		out_open(&o, 0);
		convert_all(&o, hello, 5);
		assert_int_equal(vg_convert_words(&o.c, bad[i], bad_len[i], &used), -ITRACE_E_CORRUPT);
		assert_true(strstr(o.c.error, "BSITE") != NULL);
		out_close(&o, r, 8);
	}
	/* A bad unit in a run of BSITE units (converted a run at a time),
	 * alone in its word or the second of two: the branches of the words
	 * before it are written, the error names that word. */
	for (unsigned bad_second = 0; bad_second < 2; bad_second++) {
		const uint64_t run[] = {
			EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002,
			0x401100,
			BS(0, 1), BS(0, 0),
			bad_second ? BS2(0, 1, 5, 0) : BS(1, 0), BS(0, 1),
		};
		size_t used;

		out_open(&o, 0);
		convert_all(&o, hello, 5);
		assert_int_equal(vg_convert_words(&o.c, run, 10, &used), -ITRACE_E_CORRUPT);
		assert_int_equal(used, 9); /* up to the bad word, as for any word */
		assert_true(strstr(o.c.error, "BSITE") != NULL);
		assert_int_equal(out_close(&o, r, 8), 2);
		assert_int_equal(r[0].u.branch.to, 0x401100);
		assert_int_equal(r[1].u.branch.to, 0x401002);
	}
}

/* The branches of a path test: from, to, kind, flags. */
struct pbranch {
	uint64_t from, to;
	unsigned kind, flags;
};

/*
 * convert_paths - at branch level, `n` branches of a loop with a rare
 * detour (random but the same for a seed), as BSITE units (of a site and
 * of its copy from an unrolled loop) and BRANCH words (an indirect
 * return), each followed now and then by a THREAD switch, converted in
 * calls that cut the stream at random (a BRANCH word's pair waits for
 * the next call); `want` receives the branches that ran.  Returns the
 * records read back (at most max).
 */
static size_t convert_paths(int seqs, unsigned seed, size_t n, struct pbranch *want,
			    struct itrace_record *r, size_t max, uint32_t *paths)
{
	enum { HEAD = 5 + 3 * 6 + 5 };
	static uint64_t words[HEAD + 6 * 4096];
	struct gen g = { seed };
	uint64_t tid = 42;
	size_t nw = 0, at = 0;
	struct out o;

	const uint64_t head[HEAD] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
		EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_BSITE, 5), 1, 0x401100, 0x05 | ITRACE_BRANCH_UNCOND << 4, 0x401000, 0x401000,
		EV(VGW_EV_BSITE, 5), 2, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
	};
	assert_true(n <= 4096);
	memcpy(words, head, sizeof(head));
	nw = HEAD;
	for (size_t i = 0; i < n; i++) {
		unsigned pick;

		pick = (unsigned)(next(&g) % 16);
		if (pick == 0) { /* the detour: not taken, then a return */
			words[nw++] = BS(0, 0);
			want[i] = (struct pbranch){ 0x401000, 0x401002, ITRACE_BRANCH_COND, 0 };
			if (++i == n)
				break;
			words[nw++] = W(VGW_BRANCH, 0x01 | ITRACE_BRANCH_RETURN << 4, 0x401010);
			words[nw++] = 0x401100;
			want[i] = (struct pbranch){ 0x401010, 0x401100, ITRACE_BRANCH_RETURN,
						    ITRACE_BRANCH_TAKEN };
		} else if (i % 2 == 0) {
			words[nw++] = BS(pick == 1 ? 2 : 0, 1);
			want[i] = (struct pbranch){ 0x401000, 0x401100, ITRACE_BRANCH_COND,
						    ITRACE_BRANCH_TAKEN };
		} else {
			words[nw++] = BS(1, 0);
			want[i] = (struct pbranch){ 0x401100, 0x401000, ITRACE_BRANCH_UNCOND,
						    ITRACE_BRANCH_TAKEN };
		}
		if (pick == 2) { /* another thread ran in between: the same code */
			tid = tid == 42 ? 43 : 42;
			words[nw++] = EV(VGW_EV_THREAD, 4);
			words[nw++] = ITRACE_THREAD_SWITCH;
			words[nw++] = tid;
			words[nw++] = 42;
			words[nw++] = 0;
		}
	}
	out_open_seqs(&o, 0, seqs);
	while (at < nw) {
		size_t cut, used;

		cut = at + 1 + (size_t)(next(&g) % 700);
		if (cut > nw)
			cut = nw;
		assert_int_equal(vg_convert_words(&o.c, words + at, cut - at, &used), 0);
		/* a record cut by the call's end (a BRANCH word without its
		 * target, a THREAD event in part) waits for the next call */
		assert_true(used + 5 > cut - at);
		at += used;
	}
	*paths = (uint32_t)o.c.n_paths;
	for (size_t p = 0; p < o.c.n_paths; p++)
		assert_true(o.c.paths[p].k <= VG_PATH_BRANCHES);
	return out_close(&o, r, max);
}

/*
 * Branch level with BRANCH_SEQ records: the branches that run one after
 * the other become paths, written as sequences, and read back as the very
 * branches of a trace without them, in order, with their threads; the
 * paths stop growing at VG_PATH_BRANCHES.
 */
static void test_paths(void **state)
{
	static struct pbranch want[3000];
	static struct itrace_record with[4000], without[4000];
	size_t nw, nwo, b = 0;
	uint32_t paths_with, paths_without;

	(void)state;
	for (unsigned seed = 1; seed < 4; seed++) {
		nw = convert_paths(1, seed, 3000, want, with, 4000, &paths_with);
		nwo = convert_paths(0, seed, 3000, want, without, 4000, &paths_without);
		assert_int_equal(nw, nwo);
		assert_true(paths_with > 4 + 3); /* grown, beyond the 4 branches alone */
		assert_int_equal(paths_without, 1 + 4); /* no path grows without sequences */
		b = 0;
		for (size_t i = 0; i < nw; i++) {
			assert_int_equal(with[i].type, without[i].type);
			assert_int_equal(with[i].tid, without[i].tid);
			if (with[i].type != ITRACE_REC_BRANCH)
				continue;
			assert_true(b < 3000);
			assert_int_equal(with[i].u.branch.from, want[b].from);
			assert_int_equal(with[i].u.branch.to, want[b].to);
			assert_int_equal(with[i].u.branch.kind, want[b].kind);
			assert_int_equal(with[i].u.branch.flags, want[b].flags);
			assert_int_equal(without[i].u.branch.from, want[b].from);
			assert_int_equal(without[i].u.branch.to, want[b].to);
			b++;
		}
		assert_int_equal(b, 3000);
	}
}

/*
 * Branch level: a return to a place not seen before gets a path of its
 * own, and growing the paths may move them all (realloc) just before the
 * path that ran until then ends: that end must read the paths where they
 * are now.  One call converts all of it, so every return lands in the
 * middle of a path; under ASan (make SANITIZE=1 check) or memcheck
 * (tests/e2e/memcheck.sh) a read of the old paths fails here.
 */
static void test_paths_move(void **state)
{
	enum { N = 2000, HEAD = 5 + 6 + 5 };
	static uint64_t words[HEAD + 3 * N];
	static struct itrace_record r[2 * N + 16];
	const uint64_t head[HEAD] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
		EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
	};
	size_t nw = HEAD, nr, b = 0;
	struct out o;

	(void)state;
	memcpy(words, head, sizeof(head));
	for (size_t i = 0; i < N; i++) {
		words[nw++] = BS(0, 1); /* taken: 0x401000 -> 0x401100 */
		words[nw++] = W(VGW_BRANCH, 0x01 | ITRACE_BRANCH_RETURN << 4, 0x401010);
		words[nw++] = 0x500000 + 16 * i;
	}
	out_open_seqs(&o, 0, 1);
	convert_all(&o, words, nw);
	assert_true(o.c.n_paths > N); /* a path for every return */
	nr = out_close(&o, r, 2 * N + 16);
	for (size_t i = 0; i < nr; i++) {
		if (r[i].type != ITRACE_REC_BRANCH)
			continue;
		assert_true(b < 2 * N);
		if (b % 2 == 0) {
			assert_int_equal(r[i].u.branch.from, 0x401000);
			assert_int_equal(r[i].u.branch.to, 0x401100);
		} else {
			assert_int_equal(r[i].u.branch.from, 0x401010);
			assert_int_equal(r[i].u.branch.to, 0x500000 + 16 * (b / 2));
			assert_int_equal(r[i].u.branch.kind, ITRACE_BRANCH_RETURN);
		}
		b++;
	}
	assert_int_equal(b, 2 * N);
}

/*
 * Branch level, an exec the tool followed: BSITE ids start again in the
 * new image, so a unit that made a path longer in the old one may name
 * another branch now.  Here id 1 is 0x401100 -> 0x401000 before and
 * 0x401100 -> 0x402000 after, behind the same first branch (id 0).
 */
static void test_paths_exec(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_BSITE, 5), 1, 0x401100, 0x05 | ITRACE_BRANCH_UNCOND << 4, 0x401000, 0x401000,
		BS2(0, 1, 1, 0), BS2(0, 1, 1, 0), BS2(0, 1, 1, 0),
		EV(VGW_EV_EXEC, 3), VGW_EXEC_FOLLOW, 8, 0x686375732f6f6e2fULL, /* "/no/such" */
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		EV(VGW_EV_BSITE, 5), 0, 0x401000, 0x02 | ITRACE_BRANCH_COND << 4, 0x401002, 0x401100,
		EV(VGW_EV_BSITE, 5), 1, 0x401100, 0x05 | ITRACE_BRANCH_UNCOND << 4, 0x402000, 0x402000,
		BS2(0, 1, 1, 0), BS(0, 1), BS(1, 0),
	};
	static const uint64_t to[] = { 0x401100, 0x401000, 0x401100, 0x401000, 0x401100, 0x401000,
				       0x401100, 0x402000, 0x401100, 0x402000 };
	struct itrace_record r[32];
	size_t n, b = 0;
	struct out o;

	(void)state;
	for (int seqs = 0; seqs < 2; seqs++) {
		out_open_seqs(&o, 0, seqs);
		convert_all(&o, words, sizeof(words) / sizeof(words[0]));
		n = out_close(&o, r, 32);
		b = 0;
		for (size_t i = 0; i < n; i++) {
			if (r[i].type != ITRACE_REC_BRANCH)
				continue;
			assert_true(b < 10);
			assert_int_equal(r[i].u.branch.to, to[b]);
			b++;
		}
		assert_int_equal(b, 10);
	}
}

/*
 * Branch level: a delivery to a handler is also a branch into it, where
 * the thread records; outside a --start window (the event's last word 0)
 * only the SIGNAL record is written, as the ptrace backend does.
 */
static void test_signal_branch(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_BRANCH, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		EV(VGW_EV_SIGNAL, 6), 10, 0, 0, 0x401010, 0x401200, 1,
		EV(VGW_EV_SIGNAL, 6), 10, 0, 0, 0x401020, 0x401200, 0,
	};
	struct itrace_record r[8];
	struct out o;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(out_close(&o, r, 8), 4);
	assert_int_equal(r[1].type, ITRACE_REC_SIGNAL);
	assert_int_equal(r[2].type, ITRACE_REC_BRANCH);
	assert_int_equal(r[2].u.branch.from, 0x401010);
	assert_int_equal(r[2].u.branch.to, 0x401200);
	assert_int_equal(r[2].u.branch.kind, ITRACE_BRANCH_INTERRUPT);
	assert_int_equal(r[3].type, ITRACE_REC_SIGNAL);
	assert_int_equal(r[3].u.signal.pc, 0x401020);
	assert_int_equal(r[3].u.signal.handler, 0x401200);
}

/*
 * Where Valgrind's siginfo differs from the kernel's, the record says the
 * kernel's: a division fault at its pc (not the host address Valgrind
 * gives), an int3's SIGTRAP SI_KERNEL (not TRAP_BRKPT); others as given.
 */
static void test_signal_as_kernel(void **state)
{
	const uint64_t words[] = {
		EV(VGW_EV_HELLO, 4), VGW_VERSION, 42, VGW_LEVEL_INSN, 1,
		EV(VGW_EV_THREAD, 4), ITRACE_THREAD_SWITCH, 42, 42, 0,
		EV(VGW_EV_SIGNAL, 6), SIGFPE, FPE_INTDIV, 0x1003141516, 0x401010, 0x401200, 1,
		EV(VGW_EV_SIGNAL, 6), SIGTRAP, TRAP_BRKPT, 0, 0x401020, 0x401300, 1,
		EV(VGW_EV_SIGNAL, 6), SIGSEGV, SEGV_MAPERR, 0x10, 0x401030, 0x401400, 1,
	};
	struct itrace_record r[8];
	struct out o;

	(void)state;
	out_open(&o, 0);
	convert_all(&o, words, sizeof(words) / sizeof(words[0]));
	assert_int_equal(out_close(&o, r, 8), 4);
	assert_int_equal(r[1].u.signal.code, FPE_INTDIV);
	assert_int_equal(r[1].u.signal.addr, 0x401010);
	assert_int_equal(r[2].u.signal.code, SI_KERNEL);
	assert_int_equal(r[3].u.signal.code, SEGV_MAPERR);
	assert_int_equal(r[3].u.signal.addr, 0x10);
}

/* Words the tool never writes are refused with a message. */
static void test_damage(void **state)
{
	const uint64_t bad_tag[] = { W(VGW_INSN, 1, 0x1000), W(12, 0, 0x1234) };
	const uint64_t bad_event[] = { EV(99, 0) };
	const uint64_t bad_version[] = { EV(VGW_EV_HELLO, 4), 999, 1, 2, 1 };
	const uint64_t *cases[] = { bad_tag, bad_event, bad_version };
	const size_t lens[] = { 2, 1, 5 };
	struct itrace_record r[4];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct out o;
		size_t used;

		out_open(&o, 0);
		assert_int_equal(vg_convert_words(&o.c, cases[i], lens[i], &used), -ITRACE_E_CORRUPT);
		assert_true(strstr(o.c.error, "tool stream") != NULL);
		out_close(&o, r, 4);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind), cmocka_unit_test(test_rep_per_iteration),
		cmocka_unit_test(test_exec_followed), cmocka_unit_test(test_entry_fatal),
		cmocka_unit_test(test_lazy_switch), cmocka_unit_test(test_scope),
		cmocka_unit_test(test_cut_record), cmocka_unit_test(test_finish),
		cmocka_unit_test(test_damage), cmocka_unit_test(test_groups),
		cmocka_unit_test(test_chains), cmocka_unit_test(test_chain_limits),
		cmocka_unit_test(test_same_groups), cmocka_unit_test(test_same_bsites),
		cmocka_unit_test(test_branch_sites),
		cmocka_unit_test(test_branch_units),
		cmocka_unit_test(test_paths_exec),
		cmocka_unit_test(test_paths), cmocka_unit_test(test_paths_move),
		cmocka_unit_test(test_signal_branch),
		cmocka_unit_test(test_signal_as_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
