/*
 * test_qemu_convert.c - collectors/qemu/qemu_convert.c on hand-built slots
 * of the QEMU plugin's words (qemu_wire.h): instructions up to each memory
 * access and the rest at the block's end, QEMU's pieces of one operand
 * joined, a block a fault cut short, a fatal signal, QEMU 7.2's listing of
 * a page-crossing x86 instruction, POWER store-conditionals, an inferred
 * signal delivery whose pc is known only when the handler returns, the
 * address space and threads, and damaged streams.
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

#include "itrace.h"
#include "qemu_convert.h"
#include "qemu_wire.h"
#include "readback_testutil.h"

#define PID 100
#define EXE_BASE 0x10000000ULL

/* ---- Building slots ------------------------------------------------------- */

struct slot {
	uint64_t w[1024];
	size_t n;
};

static void put(struct slot *s, uint64_t x)
{
	assert_true(s->n < sizeof(s->w) / sizeof(s->w[0]));
	s->w[s->n++] = x;
}

static void put_bytes(struct slot *s, const void *b, size_t len)
{
	uint8_t buf[8];

	for (size_t i = 0; i < len; i += 8) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, (const uint8_t *)b + i, len - i < 8 ? len - i : 8);
		put(s, (uint64_t)buf[0] | (uint64_t)buf[1] << 8 | (uint64_t)buf[2] << 16 |
			       (uint64_t)buf[3] << 24 | (uint64_t)buf[4] << 32 | (uint64_t)buf[5] << 40 |
			       (uint64_t)buf[6] << 48 | (uint64_t)buf[7] << 56);
	}
}

static void put_hello(struct slot *s)
{
	put(s, QW_EVENT_WORD(QW_EV_HELLO, QW_HELLO_WORDS));
	put(s, QW_VERSION);
	put(s, PID);
	put(s, QW_LEVEL_INSN);
	put(s, EXE_BASE);	   /* start_code */
	put(s, EXE_BASE + 0x1000); /* end_code */
	put(s, EXE_BASE);	   /* entry */
	put(s, 0);
}

/* A block of `n` instructions with the lengths and bytes given. */
static void put_block_raw(struct slot *s, uint64_t id, uint64_t vaddr, const uint8_t *lens, size_t n,
			  const uint8_t *code, size_t nbytes)
{
	put(s, QW_EVENT_WORD(QW_EV_BLOCK, QW_BLOCK_WORDS + QW_BYTES_WORDS(n) + QW_BYTES_WORDS(nbytes)));
	put(s, id);
	put(s, vaddr);
	put(s, n);
	put(s, nbytes);
	put_bytes(s, lens, n);
	put_bytes(s, code, nbytes);
}

/* A block of POWER instruction words (little-endian). */
static void put_block(struct slot *s, uint64_t id, uint64_t vaddr, const uint32_t *insn, size_t n)
{
	uint8_t lens[16], code[64];

	for (size_t i = 0; i < n; i++) {
		lens[i] = 4;
		for (int k = 0; k < 4; k++)
			code[4 * i + k] = (uint8_t)(insn[i] >> (8 * k));
	}
	put_block_raw(s, id, vaddr, lens, n, code, 4 * n);
}

static void put_syscall(struct slot *s, uint64_t nr, uint64_t a1, uint64_t a2, uint64_t a3,
			uint64_t x1, uint64_t x2)
{
	put(s, QW_EVENT_WORD(QW_EV_SYSCALL, QW_SYSCALL_WORDS));
	put(s, nr);
	put(s, a1);
	put(s, a2);
	put(s, a3);
	put(s, 0);
	put(s, 0);
	put(s, 0);
	put(s, x1);
	put(s, x2);
	put(s, 0);
}

static void put_sysret(struct slot *s, uint64_t nr, int64_t ret, const char *path)
{
	size_t len = path ? strlen(path) : 0;

	put(s, QW_EVENT_WORD(QW_EV_SYSRET, 3 + QW_BYTES_WORDS(len)));
	put(s, nr);
	put(s, (uint64_t)ret);
	put(s, len);
	put_bytes(s, path, len);
}

#define BLK(id) ((uint64_t)QW_BLOCK << QW_TAG_SHIFT | (id))
#define PART(k) ((uint64_t)QW_PARTIAL << QW_TAG_SHIFT | (k))
#define MEMW(insn, store, shift, addr)                                                     \
	((uint64_t)QW_MEM << QW_TAG_SHIFT | (uint64_t)(insn) << QW_MEM_INDEX_SHIFT |      \
	 (uint64_t)(store) << QW_MEM_STORE_BIT | (uint64_t)(shift) << QW_MEM_SHIFT_SHIFT | \
	 (uint64_t)(addr))

/* POWER instruction words. */
#define LD_R3 0xe8640000u      /* ld r3,0(r4) */
#define STW_R3 0x90640000u     /* stw r3,0(r4) */
#define NOP 0x60000000u	       /* ori 0,0,0 */
#define B_BACK8 0x4bfffff8u    /* b .-8 */
#define CMPWI 0x2c030000u      /* cmpwi r3,0 */
#define BNE_BACK4 0x4082fffcu  /* bne .-4 */
#define BLR 0x4e800020u	       /* blr */
#define LI_R0_172 0x380000acu  /* li r0,172 (rt_sigreturn) */
#define SC 0x44000002u	       /* sc */
#define LWARX 0x7d205028u      /* lwarx r9,0,r10 */
#define STWCX 0x7d20512du      /* stwcx. r9,0,r10 */

/* ---- Converting and reading back --------------------------------------------- */

struct out {
	char path[64];
	struct itrace_writer *w;
	struct qemu_conv *c;
	struct qemu_elf exe;
};

/* A converter writing BLOCK records (format 3.0) where it can when `blocks`. */
static void out_open_blocks(struct out *o, int level, uint16_t machine, int blocks)
{
	struct itrace_writer_options opts;
	struct qc_options q;
	int fd;

	snprintf(o->path, sizeof(o->path), "/tmp/test_qemu_convert.XXXXXX");
	fd = mkstemp(o->path);
	assert_true(fd >= 0);
	close(fd);
	itrace_writer_options_init(&opts);
	opts.machine = machine;
	opts.level = (uint8_t)level;
	opts.features = blocks ? ITRACE_FEAT_BLOCK : 0;
	assert_int_equal(itrace_writer_open(o->path, &opts, &o->w), 0);
	memset(&o->exe, 0, sizeof(o->exe));
	o->exe.machine = machine;
	o->exe.endian = 1;
	o->exe.is64 = o->exe.is_exec = 1;
	o->exe.entry = EXE_BASE;
	o->exe.load[0] = (struct qemu_elf_load){EXE_BASE, 0x1000, 0, PROT_READ | PROT_EXEC};
	o->exe.n_load = 1;
	memset(&q, 0, sizeof(q));
	q.level = level;
	q.exe = "/nonexistent/prog";
	q.exe_elf = &o->exe;
	q.interp = "";
	assert_int_equal(qc_alloc(&q, machine, 1, o->w, &o->c), 0);
}

static void out_open(struct out *o, int level, uint16_t machine)
{
	out_open_blocks(o, level, machine, 0);
}

static int feed(struct out *o, uint32_t tid, const struct slot *s)
{
	struct qw_note note = {0, (uint32_t)s->n, PID, tid};

	return qc_slot(o->c, &note, s->w, s->n);
}

/* Finish with `status`, close, and read every record back into recs[]. */
static size_t out_close(struct out *o, int64_t status, struct itrace_record *recs, size_t max)
{
	size_t n;

	assert_int_equal(qc_finish(o->c, status), 0);
	qc_free(o->c);
	assert_int_equal(itrace_writer_close(o->w, ITRACE_END_COMPLETE, 0), 0);
	n = readback_all(o->path, recs, max);
	unlink(o->path);
	return n;
}

/* The records of one type, as "addr size" or similar short lines. */
static size_t pick(const struct itrace_record *r, size_t n, int type, const struct itrace_record **out,
		   size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < max; i++)
		if (r[i].type == type)
			out[k++] = &r[i];
	return k;
}

static void expect_insns(const struct itrace_record *r, size_t n, const uint64_t *want, size_t nwant)
{
	const struct itrace_record *p[64];
	size_t k = pick(r, n, ITRACE_REC_INSN, p, 64);

	assert_int_equal(k, nwant);
	for (size_t i = 0; i < k; i++)
		assert_true(p[i]->u.insn.addr == want[i]);
}

/* ---- Tests ------------------------------------------------------------------------ */

/*
 * Instructions up to each access, the rest at the block's end; the two
 * 8-byte halves of one operand are one 16-byte access; a block cut short
 * by a fault ends before the faulting instruction, where the fatal
 * signal's SIGNAL points.
 */
static void test_insns_and_accesses(void **state)
{
	static const uint32_t b0[] = {LD_R3, NOP, B_BACK8};
	static const uint32_t b1[] = {NOP, STW_R3, NOP};
	static const uint64_t want[] = {EXE_BASE, EXE_BASE + 4, EXE_BASE + 8, EXE_BASE,
					EXE_BASE + 4, EXE_BASE + 8, EXE_BASE + 0x100};
	struct itrace_record r[64];
	const struct itrace_record *m[8] = {0}, *sig[2] = {0};
	struct slot d = {0}, t = {0};
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, ITRACE_LEVEL_INSN, 21);
	put_hello(&d);
	put_block(&d, 0, EXE_BASE, b0, 3);
	put_block(&d, 1, EXE_BASE + 0x100, b1, 3);
	assert_int_equal(feed(&o, 0, &d), 0);
	put(&t, BLK(0));
	put(&t, MEMW(0, 0, 3, 0x2008)); /* halves, high one first */
	put(&t, MEMW(0, 0, 3, 0x2000));
	put(&t, BLK(0));
	put(&t, MEMW(0, 0, 3, 0x3000));
	put(&t, BLK(1));
	put(&t, PART(1)); /* the stw faulted */
	assert_int_equal(feed(&o, PID, &t), 0);
	n = out_close(&o, -11, r, 64);
	expect_insns(r, n, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(pick(r, n, ITRACE_REC_MEM, m, 8), 2);
	assert_true(m[0]->u.mem.addr == 0x2000 && m[0]->u.mem.size == 16 && m[0]->u.mem.flags == 0);
	assert_true(m[1]->u.mem.addr == 0x3000 && m[1]->u.mem.size == 8);
	assert_int_equal(pick(r, n, ITRACE_REC_SIGNAL, sig, 2), 1);
	assert_int_equal(sig[0]->u.signal.signo, 11);
	assert_true(sig[0]->u.signal.pc == EXE_BASE + 0x104);
	assert_true(sig[0]->u.signal.handler == 0);
	assert_int_equal(r[0].type, ITRACE_REC_MMAP); /* the program, from HELLO */
	assert_true(r[0].u.mmap.start == EXE_BASE);
	assert_int_equal(r[0].u.mmap.prot, PROT_READ | PROT_EXEC);
}

/* A store-conditional is a store, though QEMU reports a load too. */
static void test_store_conditional(void **state)
{
	static const uint32_t b0[] = {LWARX, STWCX};
	struct itrace_record r[32];
	const struct itrace_record *m[8] = {0};
	struct slot d = {0}, t = {0};
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, ITRACE_LEVEL_INSN, 21);
	put_hello(&d);
	put_block(&d, 0, EXE_BASE, b0, 2);
	assert_int_equal(feed(&o, 0, &d), 0);
	put(&t, BLK(0));
	put(&t, MEMW(0, 0, 2, 0x5000));
	put(&t, MEMW(1, 0, 2, 0x5000));
	put(&t, MEMW(1, 1, 2, 0x5000));
	assert_int_equal(feed(&o, PID, &t), 0);
	n = out_close(&o, 0, r, 32);
	assert_int_equal(pick(r, n, ITRACE_REC_MEM, m, 8), 2);
	assert_int_equal(m[0]->u.mem.flags, 0);
	assert_int_equal(m[1]->u.mem.flags, ITRACE_MEM_STORE);
	assert_int_equal(m[1]->u.mem.size, 4);
}

/*
 * QEMU 7.2 lists an x86 instruction that crosses into the next page as
 * the block's last, cut at the page's end, and runs it in the next block.
 */
static void test_page_crossing_x86(void **state)
{
	/* mov %eax,%edx; and $3,%eax; sub $1,%eax; and $3,%edx; cmp $1,%eax (cut) */
	static const uint8_t code0[] = {0x89, 0xc2, 0x83, 0xe0, 0x03, 0x83, 0xe8, 0x01,
					0x83, 0xe2, 0x03, 0x83};
	static const uint8_t lens0[] = {2, 3, 3, 3, 1};
	static const uint8_t code1[] = {0x83, 0xf8, 0x01};
	static const uint8_t lens1[] = {3};
	static const uint64_t want[] = {0x10000ff4, 0x10000ff6, 0x10000ff9, 0x10000ffc, 0x10000fff};
	struct itrace_record r[32];
	const struct itrace_record *p[8] = {0};
	struct slot d = {0}, t = {0};
	struct out o;
	size_t n;

	(void)state;
	out_open(&o, ITRACE_LEVEL_INSN, 62);
	put_hello(&d);
	put_block_raw(&d, 0, 0x10000ff4, lens0, 5, code0, sizeof(code0));
	put_block_raw(&d, 1, 0x10000fff, lens1, 1, code1, sizeof(code1));
	assert_int_equal(feed(&o, 0, &d), 0);
	put(&t, BLK(0));
	put(&t, PART(3)); /* the plugin never saw the cut instruction start */
	put(&t, BLK(1));
	put(&t, QW_EVENT_WORD(QW_EV_EXIT, 0)); /* exit_group after it */
	assert_int_equal(feed(&o, PID, &t), 0);
	n = out_close(&o, 0, r, 32);
	expect_insns(r, n, want, 5);
	pick(r, n, ITRACE_REC_INSN, p, 8);
	assert_int_equal(p[4]->u.insn.len, 3);
	assert_int_equal(pick(r, n, ITRACE_REC_SIGNAL, p, 8), 0);
}

/*
 * A signal arrives after a conditional branch: whether it was taken is
 * known when the handler returns (rt_sigreturn goes back to it), and only
 * then are the branch, the SIGNAL and the handler's records written, in
 * that order.
 */
static void test_signal_held_back(void **state)
{
	static const uint32_t loop[] = {CMPWI, BNE_BACK4};
	static const uint32_t handler[] = {NOP, BLR};
	static const uint32_t tramp[] = {LI_R0_172, SC};
	const uint64_t h = EXE_BASE + 0x200, tr = EXE_BASE + 0x300;
	struct itrace_record r[64];
	struct slot d = {0}, t = {0};
	struct out o;
	size_t n, i;

	(void)state;
	out_open(&o, ITRACE_LEVEL_BRANCH, 21);
	put_hello(&d);
	put_block(&d, 0, EXE_BASE, loop, 2);
	put_block(&d, 1, h, handler, 2);
	put_block(&d, 2, tr, tramp, 2);
	assert_int_equal(feed(&o, 0, &d), 0);
	put_syscall(&t, 173, 10, 0x7000, 0, h, 0); /* rt_sigaction(SIGUSR1, handler) */
	put_sysret(&t, 173, 0, NULL);
	put(&t, BLK(0));
	put(&t, BLK(0)); /* bne taken */
	put(&t, BLK(1)); /* SIGUSR1 */
	put(&t, BLK(2)); /* blr to the trampoline */
	put_syscall(&t, 172, 0, 0, 0, 0, 0);
	put(&t, BLK(0)); /* back where it was interrupted: the loop's head */
	assert_int_equal(feed(&o, PID, &t), 0);
	n = out_close(&o, 0, r, 64);
	for (i = 0; i < n && r[i].type != ITRACE_REC_SIGNAL; i++)
		;
	assert_true(i < n && i >= 2);
	assert_int_equal(r[i].u.signal.signo, 10);
	assert_true(r[i].u.signal.pc == EXE_BASE);
	assert_true(r[i].u.signal.handler == h);
	/* before it: the interrupted branch, resolved as taken */
	assert_int_equal(r[i - 1].type, ITRACE_REC_BRANCH);
	assert_true(r[i - 1].u.branch.from == EXE_BASE + 4 && r[i - 1].u.branch.to == EXE_BASE);
	assert_int_equal(r[i - 1].u.branch.flags, ITRACE_BRANCH_TAKEN);
	/* after it: into the handler, its return, rt_sigreturn back */
	assert_true(r[i + 1].u.branch.kind == ITRACE_BRANCH_INTERRUPT && r[i + 1].u.branch.to == h);
	assert_true(r[i + 2].u.branch.kind == ITRACE_BRANCH_RETURN && r[i + 2].u.branch.to == tr);
	assert_int_equal(r[i + 3].type, ITRACE_REC_SYSCALL);
	assert_true(r[i + 4].u.branch.kind == ITRACE_BRANCH_SIGRETURN &&
		    r[i + 4].u.branch.from == tr + 4 && r[i + 4].u.branch.to == EXE_BASE);
}

/* mmap of a file, a thread created, its first instruction, its exit. */
static void test_space_and_threads(void **state)
{
	static const uint32_t b0[] = {SC};
	static const uint32_t b1[] = {NOP, NOP};
	struct itrace_record r[64];
	const struct itrace_record *p[16] = {0};
	struct slot d = {0}, t = {0}, u = {0};
	struct out o;
	size_t n, k;

	(void)state;
	out_open(&o, ITRACE_LEVEL_INSN, 21);
	put_hello(&d);
	put_block(&d, 0, EXE_BASE, b0, 1);
	put_block(&d, 1, EXE_BASE + 0x40, b1, 2);
	assert_int_equal(feed(&o, 0, &d), 0);
	put(&t, BLK(0));
	put_syscall(&t, 90, 0, 0x2000, 5, 0, 0); /* mmap(0, 0x2000, r-x, ...) */
	put_sysret(&t, 90, 0x20000000, "/nonexistent/libx.so");
	put(&t, BLK(0));
	put_syscall(&t, 120, 0x3d0f00, 0, 0, 0, 0); /* clone(CLONE_VM|...|CLONE_THREAD) */
	put_sysret(&t, 120, 101, NULL);
	assert_int_equal(feed(&o, PID, &t), 0);
	put(&u, BLK(1));
	put_syscall(&u, 1, 3, 0, 0, 0, 0); /* exit(3) */
	put(&u, QW_EVENT_WORD(QW_EV_THREAD_EXIT, 0));
	assert_int_equal(feed(&o, 101, &u), 0);
	n = out_close(&o, 0, r, 64);
	k = pick(r, n, ITRACE_REC_MMAP, p, 16);
	assert_int_equal(k, 2);
	assert_true(p[1]->u.mmap.start == 0x20000000 && p[1]->u.mmap.len == 0x2000);
	assert_int_equal(p[1]->u.mmap.path_len, strlen("/nonexistent/libx.so"));
	assert_memory_equal(p[1]->u.mmap.path, "/nonexistent/libx.so", p[1]->u.mmap.path_len);
	k = pick(r, n, ITRACE_REC_THREAD, p, 16);
	for (size_t i = 0, creates = 0, exits = 0; i < k; i++) {
		if (p[i]->u.thread.event == ITRACE_THREAD_CREATE) {
			assert_int_equal(p[i]->u.thread.tid, 101);
			assert_int_equal(p[i]->u.thread.other, PID);
			assert_int_equal(++creates, 1);
		}
		if (p[i]->u.thread.event == ITRACE_THREAD_EXIT && p[i]->u.thread.tid == 101)
			assert_int_equal(p[i]->u.thread.other, 3), assert_int_equal(++exits, 1);
	}
	/* each thread's recording starts at its first instruction */
	k = pick(r, n, ITRACE_REC_TRACE_CTL, p, 16);
	assert_int_equal(k, 2);
	assert_true(p[1]->tid == 101 && p[1]->u.ctl.on && p[1]->u.ctl.addr == EXE_BASE + 0x40);
}

/* Words the plugin never writes, and a block nobody described. */
static void test_damage(void **state)
{
	static const uint32_t b0[] = {NOP};
	struct slot d = {0}, t = {0};
	struct out o;

	(void)state;
	out_open(&o, ITRACE_LEVEL_INSN, 21);
	put_block(&d, 0, EXE_BASE, b0, 1); /* before HELLO */
	assert_int_equal(feed(&o, 0, &d), -ITRACE_E_CORRUPT);
	d.n = 0;
	put_hello(&d);
	put_block(&d, 0, EXE_BASE, b0, 1);
	assert_int_equal(feed(&o, 0, &d), 0);
	put(&t, BLK(7));
	assert_int_equal(feed(&o, PID, &t), -ITRACE_E_CORRUPT);
	assert_non_null(strstr(qc_error(o.c), "block 7 was never described"));
	t.n = 0;
	put(&t, QW_EVENT_WORD(QW_EV_SYSCALL, QW_SYSCALL_WORDS)); /* cut */
	assert_int_equal(feed(&o, PID, &t), -ITRACE_E_CORRUPT);
	t.n = 0;
	put(&t, MEMW(0, 0, 3, 0x1000)); /* no block open */
	assert_int_equal(feed(&o, 42, &t), -ITRACE_E_CORRUPT);
	t.n = 0;
	put(&t, 0x7ULL << QW_TAG_SHIFT);
	assert_int_equal(feed(&o, PID, &t), -ITRACE_E_CORRUPT);
	qc_free(o.c);
	itrace_writer_abandon(o.w);
	unlink(o.path);
}

/* The same instructions and accesses, and the same types of records. */
static void expect_same(const struct itrace_record *a, size_t na, const struct itrace_record *b,
			size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].type, b[i].type);
		if (a[i].type == ITRACE_REC_INSN) {
			assert_true(a[i].u.insn.addr == b[i].u.insn.addr);
			assert_int_equal(a[i].u.insn.len, b[i].u.insn.len);
		} else if (a[i].type == ITRACE_REC_MEM) {
			assert_true(a[i].u.mem.addr == b[i].u.mem.addr);
			assert_true(a[i].u.mem.size == b[i].u.mem.size);
			assert_int_equal(a[i].u.mem.flags, b[i].u.mem.flags);
		}
	}
}

/*
 * Blocks whose accesses match the shape learnt from their first execution
 * are written from it, as BLOCK records (format 3.0) when the writer
 * takes them: the records read back are those of the general way, through matching
 * executions, a block without accesses, executions that leave the shape
 * (an access missing, another direction), QEMU's pieces joined either way
 * round or not contiguous, a store-conditional, a block without accesses
 * running into the next (written with it), and a block a fault cut short.
 */
static void test_blocks_same_records(void **state)
{
	static const uint32_t b0[] = {LD_R3, NOP, STW_R3, B_BACK8};
	static const uint32_t b1[] = {NOP, NOP, BLR};
	static const uint32_t b2[] = {LD_R3, NOP};
	static const uint32_t b3[] = {LWARX, STWCX};
	static const uint32_t b4[] = {NOP, CMPWI};
	static const uint32_t b5[] = {LD_R3, B_BACK8};
	static struct itrace_record r[3][512];
	struct slot d = {0}, t = {0};
	size_t n[3];

	(void)state;
	put_hello(&d);
	put_block(&d, 0, EXE_BASE, b0, 4);
	put_block(&d, 1, EXE_BASE + 0x100, b1, 3);
	put_block(&d, 2, EXE_BASE + 0x200, b2, 2);
	put_block(&d, 3, EXE_BASE + 0x300, b3, 2);
	put_block(&d, 4, EXE_BASE + 0x400, b4, 2);
	put_block(&d, 5, EXE_BASE + 0x408, b5, 2);
	for (int k = 0; k < 3; k++) { /* learnt, then matching */
		put(&t, BLK(0));
		put(&t, MEMW(0, 0, 3, 0x1000 + 8 * k));
		put(&t, MEMW(2, 1, 2, 0x2000 + 4 * k));
		put(&t, BLK(1));
	}
	put(&t, BLK(0)); /* the store missing */
	put(&t, MEMW(0, 0, 3, 0x1100));
	put(&t, BLK(0)); /* a store where the load was */
	put(&t, MEMW(0, 1, 3, 0x1108));
	put(&t, MEMW(2, 1, 2, 0x2100));
	put(&t, BLK(2)); /* halves, high one first */
	put(&t, MEMW(0, 0, 3, 0x3008));
	put(&t, MEMW(0, 0, 3, 0x3000));
	put(&t, BLK(2)); /* low one first */
	put(&t, MEMW(0, 0, 3, 0x3010));
	put(&t, MEMW(0, 0, 3, 0x3018));
	put(&t, BLK(2)); /* not contiguous: two accesses */
	put(&t, MEMW(0, 0, 3, 0x4000));
	put(&t, MEMW(0, 0, 3, 0x5000));
	for (int k = 0; k < 2; k++) {
		put(&t, BLK(3));
		put(&t, MEMW(0, 0, 2, 0x6000));
		put(&t, MEMW(1, 0, 2, 0x6000));
		put(&t, MEMW(1, 1, 2, 0x6000));
	}
	for (int k = 0; k < 3; k++) { /* no access, running into the next */
		put(&t, BLK(4));
		put(&t, BLK(5));
		put(&t, MEMW(0, 0, 3, 0x7000 + 8 * k));
	}
	put(&t, BLK(4)); /* the next one leaving its shape */
	put(&t, BLK(5));
	put(&t, MEMW(0, 1, 3, 0x7100));
	put(&t, BLK(4)); /* followed by others */
	put(&t, BLK(1));
	put(&t, BLK(4));
	put(&t, BLK(0)); /* matching again, after the others */
	put(&t, MEMW(0, 0, 3, 0x1200));
	put(&t, MEMW(2, 1, 2, 0x2200));
	put(&t, BLK(1));
	put(&t, BLK(4)); /* the next one cut short */
	put(&t, BLK(5));
	put(&t, PART(0));
	put(&t, BLK(0)); /* the stw faulted */
	put(&t, MEMW(0, 0, 3, 0x1300));
	put(&t, PART(2));
	/* 0: a block's words per slot, the general way (the plain case
	 * starts at a block's start and gives a slot's last block to the
	 * general way); 1, 2: whole, without and with BLOCK records */
	for (int way = 0; way < 3; way++) {
		struct out o;

		out_open_blocks(&o, ITRACE_LEVEL_INSN, 21, way == 2);
		assert_int_equal(feed(&o, 0, &d), 0);
		if (way == 0) {
			for (size_t i = 0, k; i < t.n; i = k) {
				struct qw_note note = {0, 0, PID, PID};

				for (k = i + 1; k < t.n && QW_TAG(t.w[k]) != QW_BLOCK; k++)
					;
				note.words = (uint32_t)(k - i);
				assert_int_equal(qc_slot(o.c, &note, &t.w[i], k - i), 0);
			}
		} else {
			assert_int_equal(feed(&o, PID, &t), 0);
		}
		n[way] = out_close(&o, -11, r[way], 512);
	}
	for (int way = 1; way < 3; way++)
		expect_same(r[0], n[0], r[way], n[way]);
	assert_true(n[0] > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insns_and_accesses), cmocka_unit_test(test_store_conditional),
		cmocka_unit_test(test_page_crossing_x86), cmocka_unit_test(test_signal_held_back),
		cmocka_unit_test(test_space_and_threads), cmocka_unit_test(test_damage),
		cmocka_unit_test(test_blocks_same_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
