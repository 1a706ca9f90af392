/* qemu_convert.c - the QEMU plugin's words -> itrace records (see qemu_convert.h). */
#include "qemu_convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect_ring.h"
#include "emit.h"
#include "itrace_code.h"
#include "itrace_format.h"
#include "qemu_space.h"
#include "trigger.h"

#define SIG_MAX 65		 /* signals 1..64 */
#define SA_RESETHAND_ 0x80000000ULL /* the same value on ppc64 and x86-64 */
#define CLONE_THREAD_ 0x00010000ULL
#define SI_USER_ 0
#define SI_TKILL_ (-6)
#define MAX_FRAMES 16		 /* nested signal deliveries a thread may hold back */
#define DEFER_DEFAULT (1u << 20) /* records a thread may hold back */
#define MERGE_MAX 4096		 /* bytes one joined memory access may span */
#define EM_PPC64_ 21

/*
 * x86 rep string instructions: QEMU runs each iteration as a block of its
 * own, and, after the iteration that ran the count out, the block once
 * more to find the count zero (a run without access).  Each run is one
 * instruction record (ITRACE.md 6.5.2), at branch level after a COND
 * branch from the instruction to itself.
 */

/* ---- Blocks ----------------------------------------------------------------- */

/*
 * The memory accesses one complete execution of a block made, learnt from
 * its first (QEMU's callbacks for one translation come in the same order
 * every time, but for instructions whose accesses depend on data: a
 * store-conditional that fails, x86 string operations): the words' bits
 * but the address, and the records they make.  An execution whose words
 * match it is written from it without looking at each word again
 * (qc_fast_words); any other goes the general way.
 */
struct qc_access {
	uint16_t insns_from;	/* instructions written before it: insns_from.. */
	uint16_t n_insns;	/* .. n_insns of them (its own included) */
	uint16_t first, pieces;	/* QEMU's pieces: words first .. first + pieces */
	uint32_t size;		/* the pieces' sizes added */
	uint8_t store;
};

enum { SHAPE_UNKNOWN, SHAPE_KNOWN, SHAPE_NONE };
#define SHAPE_MAX 256	   /* accesses in a learnt shape */
#define SHAPE_RELEARN 64   /* executions that do not match before learning again */
#define PAIRS_MAX 4	   /* pairs a block without accesses may be defined in */

struct qc_shape {
	uint32_t n_words;	/* words (QEMU's pieces) */
	uint32_t n_acc;		/* records */
	uint16_t tail_from;	/* instructions after the last access */
	uint16_t n_tail;
	const uint64_t *hi;	/* n_words: each word but its address */
	const struct qc_access *acc;
};

/* One translation of guest code, as the plugin described it. */
struct qc_block {
	/* what the plain case reads, first */
	uint64_t vaddr;
	uint32_t n;		/* instructions */
	uint32_t gen;
	uint8_t fast;		/* its start is the plain case (for gen): not slow, no rep */
	uint8_t shape_state;	/* SHAPE_* */
	uint8_t last_call;	/* the last instruction is a call */
	uint8_t pieces;		/* an access of the shape is made of several words */
	uint16_t misses;	/* executions that did not match the shape */
	int wid;		/* the writer's definition of block + shape; -1: none */
	struct qc_shape shape;
	uint32_t shape_ver;	/* shapes learnt */
	uint32_t id;
	/* without accesses: written with the block that follows (pair_of) */
	uint32_t pair_next;	/* that block's id + 1 (0: none) ... */
	uint32_t pair_ver;	/* ... and shape */
	int pair_wid;		/* their writer block */
	uint32_t pairs;		/* pairs defined */
	uint8_t *lens;		/* n lengths */
	uint16_t *off;		/* n + 1 byte offsets */
	/* the rest */
	uint32_t code_len;
	uint8_t *kind;		/* n decoder kinds (ITRACE_INSN_NOT_BRANCH, ...) */
	uint8_t *code;		/* the bytes */
	void *shape_mem;	/* shape.hi and shape.acc */
	uint64_t target;	/* direct target of the last instruction */
	uint8_t has_target;
	uint8_t first_rep;	/* x86: the first instruction is a rep string op */
	uint8_t last_rep;	/* ... the last one */
	uint8_t mid_branch;	/* a branch before the last instruction */
	uint8_t in_scope;	/* --only (valid for generation gen) */
	uint8_t has_trigger;	/* a trigger address inside (valid for gen) */
	uint8_t slow;		/* a handler's address, a trigger, rep, --only (for gen):
				 * its start is not the plain case */
};

/* The last instruction a thread executed. */
struct qc_prev {
	uint64_t addr, target;
	uint8_t len, kind, has_target, rep;
	uint8_t partial;	/* it was the last to start in a block cut short */
	uint8_t valid;
};

/* ---- Records a thread holds back (see qemu_convert.h) ---------------------------- */

enum op_type { OP_INSNS, OP_INSN, OP_MEM, OP_BRANCH, OP_REC, OP_SIGNAL };

struct qc_op {
	uint8_t type, kind, flags;
	uint32_t n;
	uint64_t a, b;
	size_t data; /* arena offset (lengths, bytes) or record / frame index */
};

/* A signal delivery whose interrupted pc is not known yet. */
struct qc_frame {
	uint32_t depth;	     /* the thread's delivery depth inside the handler */
	uint32_t signo;
	int32_t code;
	uint64_t handler;
	struct qc_prev prev; /* what ran before it: its branch waits for the pc too */
	int branch_pending;
	int resolved;
	uint64_t pc;
};

struct qc_thread {
	uint32_t tid;
	int live;
	struct qc_block *blk;	/* open block */
	uint32_t done;		/* its instructions consumed */
	int insn_out;		/* the last instruction consumed was written */
	const struct qc_block *prev_blk; /* what ran last: a block until prev_stop */
	uint32_t prev_stop;		 /* (see set_prev) */
	/* the memory access being joined from QEMU's pieces */
	int mem_on, mem_store;
	uint32_t mem_insn;
	uint64_t mem_addr, mem_size;
	/* recording */
	int started;		/* its first block was seen */
	int recording;		/* armed, inside a window (always without --start) */
	int out_of_scope;	/* --only: running outside the module */
	int window;		/* inside a --start window */
	uint64_t window_ret;	/* --start alone: returning here ends the window */
	uint64_t call_ret;	/* the address after the last call executed */
	/* system calls */
	int64_t sys_nr;
	uint64_t sys_arg[6], sys_x[2];
	int sys_restart;	/* the last system call returned -ERESTARTSYS: QEMU re-runs it */
	int exit_known;
	int64_t exit_code;
	int resume;		/* an rt_sigreturn ran: the next block is where it returns */
	uint32_t sig_depth;	/* signal handlers entered and not returned from */
	uint32_t self_signal;	/* a signal the thread just sent itself */
	int32_t self_code;
	/* held-back records */
	struct qc_frame frames[MAX_FRAMES];
	int n_frames;
	struct qc_op *ops;
	size_t n_ops, cap_ops;
	struct itrace_record *recs;
	size_t n_recs, cap_recs;
	uint8_t *arena;
	size_t n_arena, cap_arena;
};

struct qemu_conv {
	struct qc_options o;
	struct itrace_writer *w;
	struct emit_sink out;	/* w as the sink of emit.h */
	struct itrace_decoder *dec;
	const struct qw_sysnums *sys;
	uint16_t machine;
	uint8_t endian;
	struct qemu_space space;
	struct qc_block **blocks;
	size_t n_blocks, cap_blocks;
	struct qc_thread **threads;
	size_t n_threads, cap_threads;
	struct qc_thread *last_thread;
	uint32_t pid;
	uint32_t written_tid;	/* thread of the last THREAD switch written */
	int hello, ended, exec_pending;
	uint32_t exit_tid;	/* the thread that ended the process */
	char exec_path[ITRACE_PATH_MAX];
	uint64_t words;
	/* triggers */
	int use_triggers, armed;
	uint64_t entry;		/* the program's entry point (AT_ENTRY) */
	uint64_t start[2], stop[2];
	int n_start, n_stop, has_start, has_stop;
	uint64_t only_lo, only_hi;
	uint32_t gen;
	/* signals */
	uint64_t handler[SIG_MAX], sa_flags[SIG_MAX];
	uint64_t handler_bits;	/* a filter of the handler addresses */
	/* code without a file, already in a CODE record: hashes */
	uint64_t *code_seen;
	size_t code_cap, n_code;
	struct collect_ring ring;
	int ring_on;
	/* the words of the block fast_words is reading: addresses, and the
	 * rest of each word while the block's shape is being learnt */
	uint64_t fast_addr[SHAPE_MAX], fast_hi[SHAPE_MAX];
	uint64_t fast_joined[SHAPE_MAX]; /* their accesses' addresses (join_pieces) */
	char error[300];
};

static int fail(struct qemu_conv *c, int rc, const char *fmt, unsigned long long v)
{
	snprintf(c->error, sizeof(c->error), fmt, v);
	return rc;
}

#define TRY(call) EMIT_TRY(call)

/* ---- Output: the writer, the ring, or a thread's held-back records -------------- */

static int switch_to(struct qemu_conv *c, const struct qc_thread *t)
{
	if (c->written_tid == t->tid)
		return 0;
	c->written_tid = t->tid;
	return emit_thread(&c->out, ITRACE_THREAD_SWITCH, t->tid, c->pid, 0);
}

static struct qc_op *new_op(struct qc_thread *t, uint8_t type)
{
	if (t->n_ops == t->cap_ops) {
		size_t cap = t->cap_ops ? 2 * t->cap_ops : 256;
		struct qc_op *v = realloc(t->ops, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->ops = v;
		t->cap_ops = cap;
	}
	memset(&t->ops[t->n_ops], 0, sizeof(t->ops[0]));
	t->ops[t->n_ops].type = type;
	return &t->ops[t->n_ops++];
}

/* Copy `len` bytes into the thread's arena; returns the offset or SIZE_MAX. */
static size_t keep_bytes(struct qc_thread *t, const void *p, size_t len)
{
	size_t at = t->n_arena;

	if (t->n_arena + len > t->cap_arena) {
		size_t cap = t->cap_arena ? 2 * t->cap_arena : 4096;
		uint8_t *a;

		while (cap < t->n_arena + len)
			cap *= 2;
		a = realloc(t->arena, cap);
		if (!a)
			return SIZE_MAX;
		t->arena = a;
		t->cap_arena = cap;
	}
	memcpy(t->arena + at, p, len);
	t->n_arena += len;
	return at;
}

static int hold_rec(struct qc_thread *t, const struct itrace_record *rec)
{
	struct qc_op *op;

	if (t->n_recs == t->cap_recs) {
		size_t cap = t->cap_recs ? 2 * t->cap_recs : 64;
		struct itrace_record *v = realloc(t->recs, cap * sizeof(*v));

		if (!v)
			return -ITRACE_E_NOMEM;
		t->recs = v;
		t->cap_recs = cap;
	}
	op = new_op(t, OP_REC);
	if (!op)
		return -ITRACE_E_NOMEM;
	t->recs[t->n_recs] = *rec; /* the records held back have no pointers */
	op->data = t->n_recs++;
	return 0;
}

/* A record of thread t (SYSCALL, SIGNAL, TRACE_CTL, THREAD, PROCESS, LOST). */
static int out_rec(struct qemu_conv *c, struct qc_thread *t, const struct itrace_record *rec)
{
	if (t->n_frames)
		return hold_rec(t, rec);
	if (c->ring_on && rec->type == ITRACE_REC_SIGNAL)
		return emit_record(collect_ring_sink(&c->ring, t->tid, c->pid), rec);
	TRY(switch_to(c, t));
	return emit_record(&c->out, rec);
}

/*
 * OUT(c, t) - the sink of thread t's records (emit.h): out_rec, which
 * holds them back while t runs a signal handler whose interrupted pc is
 * not known yet, keeps signals in the ring, or writes them.
 */
struct qc_out {
	struct emit_sink sink; /* first: qc_put's sink is the qc_out */
	struct qemu_conv *c;
	struct qc_thread *t;
};

static int qc_put(struct emit_sink *s, const struct itrace_record *rec)
{
	struct qc_out *o = (struct qc_out *)s;

	return out_rec(o->c, o->t, rec);
}

#define OUT(c_, t_) \
	(&(struct qc_out){{.w = (c_)->w, .put = qc_put, .tid = (t_)->tid, .pid = (c_)->pid,        \
			   .expand = (c_)->out.expand}, (c_), (t_)}.sink)

static int out_branch(struct qemu_conv *c, struct qc_thread *t, uint64_t from, uint64_t to,
		      unsigned kind, unsigned flags)
{
	if (t->n_frames) {
		struct qc_op *op = new_op(t, OP_BRANCH);

		if (!op)
			return -ITRACE_E_NOMEM;
		*op = (struct qc_op){.type = OP_BRANCH, .kind = (uint8_t)kind, .flags = (uint8_t)flags,
				     .a = from, .b = to};
		return 0;
	}
	if (c->ring_on)
		return emit_branch(collect_ring_sink(&c->ring, t->tid, c->pid), from, to, kind, flags);
	TRY(switch_to(c, t));
	return emit_branch(&c->out, from, to, kind, flags);
}

static int out_insns(struct qemu_conv *c, struct qc_thread *t, uint64_t addr, size_t n,
		     const uint8_t *lens)
{
	if (t->n_frames) {
		struct qc_op *op = new_op(t, OP_INSNS);
		size_t at = keep_bytes(t, lens, n);

		if (!op || at == SIZE_MAX)
			return -ITRACE_E_NOMEM;
		op->a = addr;
		op->n = (uint32_t)n;
		op->data = at;
		return 0;
	}
	TRY(switch_to(c, t));
	return emit_insns(&c->out, addr, n, lens);
}

static int out_insn_bytes(struct qemu_conv *c, struct qc_thread *t, uint64_t addr, unsigned len,
			  const uint8_t *bytes)
{
	if (t->n_frames) {
		struct qc_op *op = new_op(t, OP_INSN);
		size_t at = keep_bytes(t, bytes, len);

		if (!op || at == SIZE_MAX)
			return -ITRACE_E_NOMEM;
		op->a = addr;
		op->n = len;
		op->data = at;
		return 0;
	}
	TRY(switch_to(c, t));
	return emit_insn(&c->out, addr, len, bytes);
}

static int out_mem(struct qemu_conv *c, struct qc_thread *t, uint64_t addr, uint64_t size,
		   int store)
{
	if (t->n_frames) {
		struct qc_op *op = new_op(t, OP_MEM);

		if (!op)
			return -ITRACE_E_NOMEM;
		op->a = addr;
		op->b = size;
		op->flags = (uint8_t)store;
		return 0;
	}
	TRY(switch_to(c, t));
	return emit_mem(&c->out, addr, size, store ? ITRACE_MEM_STORE : 0);
}

static int write_ctl(struct qemu_conv *c, struct qc_thread *t, int on, int reason, uint64_t addr)
{
	return emit_ctl(OUT(c, t), on, reason, addr);
}

static int recording(const struct qc_thread *t)
{
	return t->recording && !t->out_of_scope;
}

/* ---- Memory accesses -------------------------------------------------------- */

static int flush_mem(struct qemu_conv *c, struct qc_thread *t)
{
	if (!t->mem_on)
		return 0;
	t->mem_on = 0;
	return out_mem(c, t, t->mem_addr, t->mem_size, t->mem_store);
}

/*
 * QEMU reports the pieces of one operand separately (a 16-byte vector as
 * two 8-byte halves, lmw's words, x87's 10 bytes as 8 + 2): contiguous
 * pieces of the same direction of one instruction, in one execution of
 * its block, make one access, as the other backends record it.
 */
static int add_mem(struct qemu_conv *c, struct qc_thread *t, uint32_t insn, uint64_t addr,
		   uint64_t size, int store)
{
	/*
	 * POWER has no instruction that reads and writes the same bytes but
	 * the store-conditionals, which QEMU runs as a compare-and-swap and
	 * reports as a load and a store: the instruction stores.
	 */
	if (c->machine == EM_PPC64_ && t->mem_on && t->mem_insn == insn && !t->mem_store &&
	    store && t->mem_addr == addr && t->mem_size == size) {
		t->mem_store = 1;
		return 0;
	}
	if (t->mem_on && t->mem_insn == insn && t->mem_store == store &&
	    t->mem_size + size <= MERGE_MAX) {
		if (addr == t->mem_addr + t->mem_size) {
			t->mem_size += size;
			return 0;
		}
		if (addr + size == t->mem_addr) {
			t->mem_addr = addr;
			t->mem_size += size;
			return 0;
		}
	}
	TRY(flush_mem(c, t));
	t->mem_on = 1;
	t->mem_insn = insn;
	t->mem_addr = addr;
	t->mem_size = size;
	t->mem_store = store;
	return 0;
}

/* ---- Triggers and scope ------------------------------------------------------- */

static int addr_in(const uint64_t *set, int n, uint64_t a)
{
	for (int i = 0; i < n; i++)
		if (set[i] == a)
			return 1;
	return 0;
}

static int is_trigger(const struct qemu_conv *c, uint64_t a)
{
	if (!c->armed)
		return a == c->entry;
	return addr_in(c->start, c->n_start, a) || addr_in(c->stop, c->n_stop, a);
}

static uint64_t handler_bit(uint64_t addr)
{
	return 1ULL << ((addr >> 2) & 63);
}

/* Trigger and scope facts of block b, for the current generation. */
static void refresh_block(struct qemu_conv *c, struct qc_block *b)
{
	if (b->gen == c->gen)
		return;
	b->gen = c->gen;
	b->has_trigger = 0;
	if (c->use_triggers)
		for (uint32_t i = 0; i < b->n && !b->has_trigger; i++)
			b->has_trigger = (uint8_t)is_trigger(c, b->vaddr + b->off[i]);
	b->in_scope = !c->only_hi || (b->vaddr >= c->only_lo && b->vaddr < c->only_hi);
	b->slow = b->has_trigger || b->first_rep || c->only_hi ||
		  (c->handler_bits & handler_bit(b->vaddr));
	b->fast = !b->slow && !b->last_rep;
}

static int resolve_trigger(struct qemu_conv *c, const char *func, int has_addr, uint64_t addr,
			   const char *opt, uint64_t out[2], int *n)
{
	if (trigger_fixed(func, has_addr, addr, out, n))
		return 0;
	*n = qs_find_function(&c->space, func, out);
	if (*n == 0) {
		snprintf(c->error, sizeof(c->error),
			 "%s: no function '%s' in the program or its libraries "
			 "(check the name with nm; static functions need a symbol table)",
			 opt, func);
		return -ITRACE_E_NOENT;
	}
	return 0;
}

/* At the program's entry point: libraries are loaded, names can be resolved. */
static int arm(struct qemu_conv *c, struct qc_thread *t, uint64_t pc)
{
	const struct qc_options *o = &c->o;

	TRY(resolve_trigger(c, o->start_func, o->has_start_addr, o->start_addr, "--start",
			    c->start, &c->n_start));
	TRY(resolve_trigger(c, o->stop_func, o->has_stop_addr, o->stop_addr, "--stop", c->stop,
			    &c->n_stop));
	if (o->only_module && qs_find_module(&c->space, o->only_module, &c->only_lo, &c->only_hi)) {
		snprintf(c->error, sizeof(c->error), "--only: no executable mapping of '%s'",
			 o->only_module);
		return -ITRACE_E_NOENT;
	}
	c->armed = 1;
	c->gen++;
	if (!c->has_start) {
		t->recording = 1;
		TRY(write_ctl(c, t, 1, ITRACE_CTL_START, pc));
		/* --only another module: out of it from the start */
		if (c->only_hi && (pc < c->only_lo || pc >= c->only_hi)) {
			TRY(write_ctl(c, t, 0, ITRACE_CTL_SCOPE, pc));
			t->out_of_scope = 1;
		}
	}
	return 0;
}

/* The instruction at `a` is about to run in thread t: triggers fire. */
static int check_trigger(struct qemu_conv *c, struct qc_thread *t, uint64_t a)
{
	if (!c->armed)
		return a == c->entry ? arm(c, t, a) : 0;
	if (!t->window && addr_in(c->start, c->n_start, a)) {
		t->window = 1;
		t->recording = 1;
		t->out_of_scope = 0;
		t->window_ret = c->has_stop ? 0 : t->call_ret;
		return write_ctl(c, t, 1, ITRACE_CTL_TRIGGER, a);
	}
	if (t->recording && addr_in(c->stop, c->n_stop, a)) {
		TRY(flush_mem(c, t));
		TRY(recording(t) ? write_ctl(c, t, 0, ITRACE_CTL_TRIGGER, a) : 0);
		t->window = 0;
		t->recording = 0;
		t->window_ret = 0;
	}
	return 0;
}

/* ---- Instructions ------------------------------------------------------------- */

/* Branch level: a branch before the block's end did not leave it. */
static int mid_branch(struct qemu_conv *c, struct qc_thread *t, const struct qc_block *b, uint32_t i)
{
	unsigned kind = b->kind[i];
	uint64_t at = b->vaddr + b->off[i];

	if (kind == ITRACE_INSN_NOT_BRANCH || kind == ITRACE_BRANCH_SYSCALL)
		return 0;
	return out_branch(c, t, at, at + b->lens[i], kind, 0);
}

/* The slow way: one instruction at a time (triggers, bytes, branch level). */
static int emit_each(struct qemu_conv *c, struct qc_thread *t, const struct qc_block *b,
		     uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i <= to; i++) {
		uint64_t a = b->vaddr + b->off[i];

		if (b->has_trigger)
			TRY(check_trigger(c, t, a));
		t->insn_out = recording(t);
		if (!t->insn_out)
			continue;
		if (c->o.level == ITRACE_LEVEL_BRANCH) {
			if (i + 1 < b->n && b->mid_branch)
				TRY(mid_branch(c, t, b, i));
		} else if (c->o.insn_bytes) {
			TRY(out_insn_bytes(c, t, a, b->lens[i], b->code + b->off[i]));
		} else {
			TRY(out_insns(c, t, a, 1, b->lens + i));
		}
	}
	return 0;
}

/* Instructions from..to of the open block ran: write them. */
static int emit_range(struct qemu_conv *c, struct qc_thread *t, uint32_t from, uint32_t to)
{
	const struct qc_block *b = t->blk;

	TRY(flush_mem(c, t));
	t->done = to + 1;
	if (!b->has_trigger && c->o.level == ITRACE_LEVEL_INSN && !c->o.insn_bytes) {
		t->insn_out = recording(t);
		if (!t->insn_out)
			return 0;
		/* the common case: one call for the whole stretch */
		return out_insns(c, t, b->vaddr + b->off[from], to - from + 1, b->lens + from);
	}
	return emit_each(c, t, b, from, to);
}

/* What ran last in thread t: block b until instruction `stop` (see close_block). */
static void set_prev(struct qc_thread *t, const struct qc_block *b, uint32_t stop)
{
	t->prev_blk = b;
	t->prev_stop = stop;
	if (stop == b->n && b->last_call)
		t->call_ret = b->vaddr + b->off[b->n];
}

/* The last instruction thread t ran (or was running when it stopped). */
static struct qc_prev prev_of(const struct qc_thread *t)
{
	const struct qc_block *b = t->prev_blk;
	uint32_t stop = t->prev_stop, last;
	struct qc_prev p = {0};

	if (!b)
		return p;
	last = stop < b->n ? stop : b->n - 1;
	p = (struct qc_prev){.addr = b->vaddr + b->off[last], .len = b->lens[last],
			     .kind = b->kind[last], .valid = 1, .partial = (uint8_t)(stop < b->n),
			     .rep = (uint8_t)((last == 0 && b->first_rep) ||
					      (last + 1 == b->n && b->last_rep))};
	if (stop == b->n && b->has_target) {
		p.has_target = 1;
		p.target = b->target;
	}
	return p;
}

/*
 * The open block ran until instruction `stop` (its end: b->n), which
 * started but did not complete when a fault or a fatal signal stopped
 * it: like the ptrace backend, the trace holds the instructions that
 * completed; the interrupted one is where the signal came (prev).
 */
static int close_block(struct qemu_conv *c, struct qc_thread *t, uint32_t stop)
{
	struct qc_block *b = t->blk;
	if (!b)
		return 0;
	if (stop > b->n)
		stop = b->n;
	if (t->done < stop)
		TRY(emit_range(c, t, t->done, stop - 1));
	TRY(flush_mem(c, t));
	set_prev(t, b, stop);
	t->blk = NULL;
	return 0;
}

/* ---- Signals ------------------------------------------------------------------ */

static int is_fault_signal(uint32_t s)
{
	return s == 11 || s == 7 || s == 4 || s == 8 || s == 5; /* SEGV BUS ILL FPE TRAP */
}

/*
 * Did the thread enter a signal handler at `s` rather than branch there?
 * A handler's entry reached otherwise than as the successor of the last
 * instruction: after a fault (a block cut short), after a non-branch or a
 * system call that does not fall through to it, after a direct branch
 * with another target, or after a return.  Indirect jumps and calls may
 * call a handler as a function: those are taken as calls.  Returns the
 * signal (0: none); *pc the interrupted instruction, *known whether that
 * is certain now.
 */
static uint32_t delivery(const struct qemu_conv *c, const struct qc_thread *t, uint64_t s,
			 uint64_t *pc, int *known)
{
	struct qc_prev prev = prev_of(t);
	const struct qc_prev *p = &prev;
	uint64_t fall = p->addr + p->len;
	uint32_t sig = 0, first = 0;

	if (!(c->handler_bits & handler_bit(s)))
		return 0;
	for (uint32_t i = 1; i < SIG_MAX; i++)
		if (c->handler[i] == s && s > 1) {
			if (!first)
				first = i;
			if (i == t->self_signal || (p->partial && is_fault_signal(i) && !sig))
				sig = i;
		}
	if (!first || !p->valid)
		return 0;
	*known = 1;
	if (p->partial) {
		*pc = p->addr; /* the faulting instruction */
	} else if (p->kind == ITRACE_INSN_NOT_BRANCH || p->kind == ITRACE_BRANCH_SYSCALL) {
		if (s == fall)
			return 0;
		/* ITRACE.md 6.5.10: a call QEMU restarts resumes at its syscall insn */
		*pc = p->kind == ITRACE_BRANCH_SYSCALL && t->sys_restart ? p->addr : fall;
	} else if (p->kind == ITRACE_BRANCH_INDIRECT || p->kind == ITRACE_BRANCH_INDIRECT_CALL) {
		return 0;
	} else if (s == fall || (p->has_target && s == p->target)) {
		return 0;
	} else if ((p->kind == ITRACE_BRANCH_UNCOND || p->kind == ITRACE_BRANCH_CALL) &&
		   p->has_target) {
		*pc = p->target;
	} else {
		*pc = 0;
		*known = 0;
	}
	return sig ? sig : first;
}

static int write_signal(struct qemu_conv *c, struct qc_thread *t, uint32_t signo, int32_t code,
			uint64_t pc, uint64_t handler)
{
	struct itrace_signal sig = {.signo = signo, .code = code, .pc = pc, .handler = handler};

	TRY(emit_signal(OUT(c, t), &sig));
	/* At branch level the delivery is also a branch into the handler. */
	if (c->o.level == ITRACE_LEVEL_BRANCH && pc && handler)
		return out_branch(c, t, pc, handler, ITRACE_BRANCH_INTERRUPT, ITRACE_BRANCH_TAKEN);
	return 0;
}

/*
 * Can a branch of this kind go on to the next instruction without being
 * taken?  Conditional branches; on POWER also the conditional forms of
 * blr/bctr(l), which the decoder classifies by their unconditional
 * meaning (return, indirect).  The others are taken even to the next
 * instruction (x86 "jmp *%rax" to the following address, as ptrace says).
 */
static int may_fall_through(const struct qemu_conv *c, unsigned kind)
{
	return kind == ITRACE_BRANCH_COND ||
	       (c->machine == EM_PPC64_ &&
		(kind == ITRACE_BRANCH_RETURN || kind == ITRACE_BRANCH_INDIRECT ||
		 kind == ITRACE_BRANCH_INDIRECT_CALL));
}

/* Branch level: the branch p made, now that the next pc is known. */
static int prev_branch(struct qemu_conv *c, struct qc_thread *t, const struct qc_prev *p,
		       uint64_t next, unsigned jump_kind)
{
	uint64_t fall = p->addr + p->len;
	unsigned kind = p->kind;

	if (c->o.level != ITRACE_LEVEL_BRANCH || !p->valid || p->partial)
		return 0;
	if (p->rep && next == p->addr) /* the next iteration, or the count's final check */
		return out_branch(c, t, p->addr, p->addr, ITRACE_BRANCH_COND, ITRACE_BRANCH_TAKEN);
	if (kind == ITRACE_INSN_NOT_BRANCH || kind == ITRACE_BRANCH_SYSCALL) {
		/* (a delivery at the syscall insn itself: the call restarts, no branch) */
		if (next == fall || (next == p->addr && jump_kind == ITRACE_BRANCH_INTERRUPT))
			return 0;
		/* flow went elsewhere without a branch: a signal, or a system
		 * call that does not return to the next instruction */
		if (kind == ITRACE_INSN_NOT_BRANCH || jump_kind == ITRACE_BRANCH_SIGRETURN)
			kind = jump_kind;
	}
	return out_branch(c, t, p->addr, next, kind,
			  next != fall || !may_fall_through(c, kind) ? ITRACE_BRANCH_TAKEN : 0);
}

/* A held-back delivery: its branch, SIGNAL and the branch into the handler. */
static int write_frame(struct qemu_conv *c, struct qc_thread *t, const struct qc_frame *f)
{
	if (f->branch_pending) {
		if (f->resolved) {
			TRY(prev_branch(c, t, &f->prev, f->pc, ITRACE_BRANCH_INTERRUPT));
		} else {
			TRY(emit_lost(OUT(c, t), ITRACE_LOST_DECODE, ITRACE_UNIT_BRANCHES, 1));
		}
	}
	return write_signal(c, t, f->signo, f->code, f->resolved ? f->pc : 0, f->handler);
}

/* Write what thread t held back, in order, and stop holding back. */
static int replay(struct qemu_conv *c, struct qc_thread *t)
{
	size_t n = t->n_ops;
	int rc = 0;

	t->n_frames = 0; /* the out_* functions now write */
	for (size_t i = 0; i < n && rc >= 0; i++) {
		const struct qc_op *op = &t->ops[i];

		switch (op->type) {
		case OP_INSNS:
			rc = out_insns(c, t, op->a, op->n, t->arena + op->data);
			break;
		case OP_INSN:
			rc = out_insn_bytes(c, t, op->a, op->n, t->arena + op->data);
			break;
		case OP_MEM:
			rc = out_mem(c, t, op->a, op->b, op->flags);
			break;
		case OP_BRANCH:
			rc = out_branch(c, t, op->a, op->b, op->kind, op->flags);
			break;
		case OP_REC:
			rc = out_rec(c, t, &t->recs[op->data]);
			break;
		case OP_SIGNAL:
			rc = write_frame(c, t, &t->frames[op->data]);
			break;
		}
	}
	t->n_ops = t->n_recs = t->n_arena = 0;
	return rc;
}

/* Give up waiting: unknown pcs are written as 0. */
static int release(struct qemu_conv *c, struct qc_thread *t)
{
	return t->n_frames ? replay(c, t) : 0;
}

static int deliver(struct qemu_conv *c, struct qc_thread *t, uint32_t signo, uint64_t handler,
		   uint64_t pc, int known)
{
	int32_t code = signo == t->self_signal ? t->self_code : 0;
	int rec = recording(t);

	t->sig_depth++;
	if (c->sa_flags[signo] & SA_RESETHAND_)
		c->handler[signo] = 0;
	if (!rec)
		return 0;
	if (known) {
		struct qc_prev p = prev_of(t);

		TRY(prev_branch(c, t, &p, pc, ITRACE_BRANCH_INTERRUPT));
		return write_signal(c, t, signo, code, pc, handler);
	}
	if (t->n_frames == MAX_FRAMES)
		TRY(release(c, t));
	struct qc_frame *f = &t->frames[t->n_frames];
	struct qc_op *op = new_op(t, OP_SIGNAL);

	if (!op)
		return -ITRACE_E_NOMEM;
	*f = (struct qc_frame){.depth = t->sig_depth, .signo = signo, .code = code,
			       .handler = handler, .prev = prev_of(t), .branch_pending = 1};
	op->data = (size_t)t->n_frames++;
	return 0;
}

/* After rt_sigreturn: `s` is where the interrupted code goes on. */
static int resumed(struct qemu_conv *c, struct qc_thread *t, uint64_t s)
{
	uint32_t depth = t->sig_depth;
	int rc = 0;

	t->resume = 0;
	if (t->sig_depth)
		t->sig_depth--;
	for (int i = t->n_frames - 1; i >= 0; i--)
		if (t->frames[i].depth == depth && !t->frames[i].resolved) {
			t->frames[i].resolved = 1;
			t->frames[i].pc = s;
			break;
		}
	/* the sigreturn itself, then the outermost resolved: write it all */
	if (recording(t)) {
		struct qc_prev p = prev_of(t);

		rc = prev_branch(c, t, &p, s, ITRACE_BRANCH_SIGRETURN);
	}
	if (rc >= 0 && t->n_frames && t->frames[0].resolved)
		rc = replay(c, t);
	return rc;
}

/* ---- Blocks starting --------------------------------------------------------- */

static int enter_block(struct qemu_conv *c, struct qc_thread *t, struct qc_block *b)
{
	uint64_t s = b->vaddr, pc = 0;
	uint32_t signo;
	int known;

	refresh_block(c, b);
	if (t->resume) {
		TRY(resumed(c, t, s));
	} else if ((signo = delivery(c, t, s, &pc, &known)) != 0) {
		TRY(deliver(c, t, signo, s, pc, known));
	} else if (recording(t) && c->o.level == ITRACE_LEVEL_BRANCH) {
		struct qc_prev p = prev_of(t);

		TRY(prev_branch(c, t, &p, s, ITRACE_BRANCH_INTERRUPT));
	}
	t->self_signal = 0;
	/* --start alone: the window ends when the function returns */
	if (t->window && t->window_ret == s && prev_of(t).kind == ITRACE_BRANCH_RETURN &&
	    !prev_of(t).partial) {
		TRY(recording(t) ? write_ctl(c, t, 0, ITRACE_CTL_TRIGGER, s) : 0);
		t->window = t->recording = 0;
		t->window_ret = 0;
	}
	/* --only: leaving and re-entering the module */
	if (c->only_hi && t->recording && (!b->in_scope) != t->out_of_scope) {
		if (b->in_scope) {
			t->out_of_scope = 0;
			TRY(write_ctl(c, t, 1, ITRACE_CTL_SCOPE, s));
		} else {
			TRY(write_ctl(c, t, 0, ITRACE_CTL_SCOPE, s));
			t->out_of_scope = 1;
		}
	}
	/* Where a thread's recording begins: its first instruction (readers
	 * that rebuild instructions from branches start there). */
	if (!t->started) {
		t->started = 1;
		if (recording(t))
			TRY(write_ctl(c, t, 1, ITRACE_CTL_START, s));
	}
	t->blk = b;
	t->done = 0;
	return 0;
}

/* ---- Threads ------------------------------------------------------------------- */

static struct qc_thread *find_thread(struct qemu_conv *c, uint32_t tid)
{
	if (c->last_thread && c->last_thread->tid == tid)
		return c->last_thread;
	for (size_t i = 0; i < c->n_threads; i++)
		if (c->threads[i]->tid == tid && c->threads[i]->live)
			return c->last_thread = c->threads[i];
	return NULL;
}

static struct qc_thread *get_thread(struct qemu_conv *c, uint32_t tid)
{
	struct qc_thread *t = find_thread(c, tid);

	if (t)
		return t;
	if (c->n_threads == c->cap_threads) {
		size_t cap = c->cap_threads ? 2 * c->cap_threads : 16;
		struct qc_thread **v = realloc(c->threads, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->threads = v;
		c->cap_threads = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->live = 1;
	t->sys_nr = -1;
	/* A new thread records if the program's does (ptrace's rule). */
	t->recording = !c->use_triggers || (c->armed && !c->has_start);
	c->threads[c->n_threads++] = t;
	return c->last_thread = t;
}

static void free_thread(struct qc_thread *t)
{
	free(t->ops);
	free(t->recs);
	free(t->arena);
	free(t);
}

static int write_thread(struct qemu_conv *c, struct qc_thread *t, int event, uint32_t tid,
			uint64_t other)
{
	return emit_thread(OUT(c, t), event, tid, c->pid, other);
}

static int write_process(struct qemu_conv *c, struct qc_thread *t, int event, uint64_t other,
			 int64_t status, const char *name)
{
	if (name) { /* (held-back records carry no strings) */
		TRY(release(c, t));
		TRY(switch_to(c, t));
		return emit_process(&c->out, event, c->pid, other, status, name);
	}
	return emit_process(OUT(c, t), event, c->pid, other, status, NULL);
}

int qc_write_process(struct qemu_conv *c, int event, uint32_t pid, int64_t status,
		     const char *name)
{
	return emit_process(&c->out, event, pid, 0, status, name);
}

/* The thread is gone: THREAD exit with `status`. */
static int thread_gone(struct qemu_conv *c, struct qc_thread *t, int64_t status)
{
	if (!t->live)
		return 0;
	TRY(close_block(c, t, t->done));
	TRY(release(c, t));
	t->live = 0;
	if (c->last_thread == t)
		c->last_thread = NULL;
	return write_thread(c, t, ITRACE_THREAD_EXIT, t->tid, (uint64_t)status);
}

/* ---- Events ------------------------------------------------------------------------ */

static int on_hello(struct qemu_conv *c, const uint64_t *p, size_t n)
{
	const struct qc_options *o = &c->o;
	uint64_t start_code, entry_code, bias;

	if (n < QW_HELLO_WORDS || p[0] != QW_VERSION)
		return fail(c, -ITRACE_E_CORRUPT, "plugin of another version (%llu)", n ? p[0] : 0);
	if (c->hello)
		return fail(c, -ITRACE_E_CORRUPT, "second HELLO event", 0);
	c->hello = 1;
	c->pid = (uint32_t)p[1];
	c->space.pid = c->pid;
	start_code = p[3];
	entry_code = p[5];
	/* QEMU reports where the program's lowest executable segment went
	 * (start_code) and where execution begins (the dynamic loader's
	 * entry, or the program's): the two load biases. */
	bias = start_code - qemu_elf_min_exec_vaddr(o->exe_elf);
	c->entry = bias + o->exe_elf->entry;
	TRY(qs_load_image(&c->space, o->exe, o->exe_elf, bias, 1));
	if (o->interp && *o->interp && o->interp_elf)
		TRY(qs_load_image(&c->space, o->interp, o->interp_elf,
				  entry_code - o->interp_elf->entry, 0));
	return 0;
}

/* A hash of code at an address, for CODE records written once. */
static uint64_t code_hash(uint64_t addr, const uint8_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ull ^ (addr * 0x9E3779B97F4A7C15ull);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h ? h : 1;
}

/* Returns 1 if `h` was new (and remembers it). */
static int code_new(struct qemu_conv *c, uint64_t h)
{
	size_t i;

	if (2 * (c->n_code + 1) > c->code_cap) {
		size_t cap = c->code_cap ? 2 * c->code_cap : 1024;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return 1;
		for (size_t k = 0; k < c->code_cap; k++)
			if (c->code_seen[k]) {
				for (i = c->code_seen[k] & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
					;
				v[i] = c->code_seen[k];
			}
		free(c->code_seen);
		c->code_seen = v;
		c->code_cap = cap;
	}
	for (i = h & (c->code_cap - 1); c->code_seen[i]; i = (i + 1) & (c->code_cap - 1))
		if (c->code_seen[i] == h)
			return 0;
	c->code_seen[i] = h;
	c->n_code++;
	return 1;
}

/* Code that no file holds (a signal trampoline on the stack, JIT code). */
static int write_code(struct qemu_conv *c, const struct qc_block *b)
{
	if (qs_file_at(&c->space, b->vaddr) && qs_file_at(&c->space, b->vaddr + b->code_len - 1))
		return 0;
	if (!code_new(c, code_hash(b->vaddr, b->code, b->code_len)))
		return 0;
	TRY(qs_anon_code(&c->space, b->vaddr, b->vaddr + b->code_len));
	return emit_code(&c->out, b->vaddr, b->code, b->code_len);
}

/* Branch facts of each instruction, from libitrace's decoder. */
static void classify(struct qemu_conv *c, struct qc_block *b)
{
	for (uint32_t i = 0; i < b->n; i++) {
		struct itrace_decoded d;
		uint64_t a = b->vaddr + b->off[i];

		b->kind[i] = ITRACE_INSN_NOT_BRANCH;
		if (itrace_decoder_decode(c->dec, b->code + b->off[i], b->lens[i], a, &d) != 0) {
			if (i + 1 == b->n)
				b->kind[i] = ITRACE_BRANCH_UNKNOWN;
			continue;
		}
		b->kind[i] = d.kind;
		if (i == 0 && (d.flags & ITRACE_DECODED_REP))
			b->first_rep = 1;
		if (i + 1 == b->n && (d.flags & ITRACE_DECODED_REP))
			b->last_rep = 1;
		if (i + 1 < b->n && d.kind != ITRACE_INSN_NOT_BRANCH)
			b->mid_branch = 1;
		if (i + 1 == b->n && (d.flags & ITRACE_DECODED_HAS_TARGET)) {
			b->has_target = 1;
			b->target = d.target;
		}
	}
	b->last_call = b->kind[b->n - 1] == ITRACE_BRANCH_CALL ||
		       b->kind[b->n - 1] == ITRACE_BRANCH_INDIRECT_CALL;
}

/*
 * QEMU 7.2 (x86) ends a block before an instruction that crosses into
 * the next page, but still lists that instruction for plugins, cut at the
 * page's end, without running or instrumenting it there: it starts the
 * next block.  Such a last instruction ends exactly at a page boundary
 * and does not decode in the bytes listed.
 */
static int page_crosser(struct qemu_conv *c, uint64_t vaddr, uint64_t n, const uint8_t *lens,
			const uint8_t *code, uint64_t nbytes)
{
	struct itrace_decoded d;
	uint8_t len = lens[n - 1];
	uint64_t at = vaddr + nbytes - len;

	if (n < 2 || ((at + len) & 4095) != 0)
		return 0;
	return itrace_decoder_decode(c->dec, code + nbytes - len, len, at, &d) != 0 || d.len != len;
}

static int on_block_def(struct qemu_conv *c, const uint64_t *p, size_t n)
{
	uint64_t id, nins, nbytes;
	const uint8_t *lens, *code;
	struct qc_block *b;
	size_t sum = 0;

	if (n < QW_BLOCK_WORDS)
		return fail(c, -ITRACE_E_CORRUPT, "short BLOCK event (%llu words)", n);
	id = p[0];
	nins = p[2];
	nbytes = p[3];
	if (nins == 0 || nins > QW_MAX_BLOCK_INSNS || nbytes > 16 * QW_MAX_BLOCK_INSNS ||
	    n < QW_BLOCK_WORDS + QW_BYTES_WORDS(nins) + QW_BYTES_WORDS(nbytes) || id != c->n_blocks)
		return fail(c, -ITRACE_E_CORRUPT, "bad BLOCK event (id %llu)", id);
	lens = (const uint8_t *)(p + QW_BLOCK_WORDS);
	code = lens + QW_BYTES_WORDS(nins) * 8;
	for (uint64_t i = 0; i < nins; i++) {
		if (lens[i] == 0 || lens[i] > ITRACE_INSN_MAX_LEN)
			return fail(c, -ITRACE_E_CORRUPT, "instruction length %llu", lens[i]);
		sum += lens[i];
	}
	if (sum != nbytes)
		return fail(c, -ITRACE_E_CORRUPT, "BLOCK event lengths do not add up (id %llu)", id);
	if (page_crosser(c, p[1], nins, lens, code, nbytes)) {
		nbytes -= lens[nins - 1];
		nins--;
	}
	b = calloc(1, sizeof(*b) + nins * (2 + sizeof(uint16_t)) + sizeof(uint16_t) + nbytes);
	if (!b)
		return -ITRACE_E_NOMEM;
	b->vaddr = p[1];
	b->n = (uint32_t)nins;
	b->code_len = (uint32_t)nbytes;
	b->off = (uint16_t *)(b + 1);
	b->lens = (uint8_t *)(b->off + nins + 1);
	b->kind = b->lens + nins;
	b->code = b->kind + nins;
	memcpy(b->lens, lens, nins);
	memcpy(b->code, code, nbytes);
	for (uint32_t i = 0; i < nins; i++)
		b->off[i + 1] = (uint16_t)(b->off[i] + lens[i]);
	b->gen = UINT32_MAX;
	b->wid = -1;
	b->id = (uint32_t)id;
	classify(c, b);
	if (c->n_blocks == c->cap_blocks) {
		size_t cap = c->cap_blocks ? 2 * c->cap_blocks : 4096;
		struct qc_block **v = realloc(c->blocks, cap * sizeof(*v));

		if (!v) {
			free(b);
			return -ITRACE_E_NOMEM;
		}
		c->blocks = v;
		c->cap_blocks = cap;
	}
	c->blocks[c->n_blocks++] = b;
	return write_code(c, b);
}

static int write_syscall(struct qemu_conv *c, struct qc_thread *t, int dir, int64_t ret)
{
	if (!recording(t))
		return 0;
	if (dir == ITRACE_SYSCALL_ENTER)
		return emit_syscall_enter(OUT(c, t), (uint64_t)t->sys_nr, 6, t->sys_arg);
	return emit_syscall_exit(OUT(c, t), (uint64_t)t->sys_nr, ret);
}

static int on_syscall(struct qemu_conv *c, struct qc_thread *t, const uint64_t *p, size_t n)
{
	const struct qw_sysnums *s = c->sys;
	int64_t nr;

	if (n < QW_SYSCALL_WORDS || p[9] > (n - QW_SYSCALL_WORDS) * 8)
		return fail(c, -ITRACE_E_CORRUPT, "short SYSCALL event (%llu words)", n);
	nr = (int64_t)p[0];
	t->sys_nr = nr;
	memcpy(t->sys_arg, p + 1, sizeof(t->sys_arg));
	t->sys_x[0] = p[7];
	t->sys_x[1] = p[8];
	if (nr == s->exit || nr == s->exit_group) {
		t->exit_known = 1;
		t->exit_code = (int64_t)(int32_t)p[1];
	} else if (nr == s->rt_sigreturn || (s->sigreturn && nr == s->sigreturn)) {
		t->resume = 1;
	} else if (nr == s->tgkill && (uint32_t)p[1] == c->pid && (uint32_t)p[2] == t->tid) {
		t->self_signal = (uint32_t)p[3], t->self_code = SI_TKILL_;
	} else if (nr == s->tkill && (uint32_t)p[1] == t->tid) {
		t->self_signal = (uint32_t)p[2], t->self_code = SI_TKILL_;
	} else if (nr == s->kill && (uint32_t)p[1] == c->pid) {
		t->self_signal = (uint32_t)p[2], t->self_code = SI_USER_;
	} else if (nr == s->execve || nr == s->execveat) {
		size_t len = p[9] < sizeof(c->exec_path) ? (size_t)p[9] : sizeof(c->exec_path) - 1;

		memcpy(c->exec_path, p + QW_SYSCALL_WORDS, len);
		c->exec_path[len] = '\0';
		c->exec_pending = 1;
	}
	return write_syscall(c, t, ITRACE_SYSCALL_ENTER, 0);
}

/* The effects of a system call that returned `ret` on the address space. */
static int space_effects(struct qemu_conv *c, const struct qc_thread *t, int64_t ret,
			 const char *path)
{
	const struct qw_sysnums *s = c->sys;
	const uint64_t *a = t->sys_arg;
	int64_t nr = t->sys_nr;

	if (nr == s->brk)
		return qs_brk(&c->space, (uint64_t)ret);
	if (ret < 0 && ret >= -4095)
		return 0;
	if (nr == s->mmap)
		return qs_mmap(&c->space, (uint64_t)ret, a[1], path && *path ? a[5] : 0, (uint8_t)a[2],
			       path);
	if (nr == s->munmap)
		return qs_munmap(&c->space, a[0], a[1]);
	if (nr == s->mprotect)
		return qs_mprotect(&c->space, a[0], a[1], (uint8_t)a[2]);
	if (nr == s->mremap)
		return qs_mremap(&c->space, a[0], a[1], (uint64_t)ret, a[2]);
	return 0;
}

static int on_sysret(struct qemu_conv *c, struct qc_thread *t, const uint64_t *p, size_t n)
{
	const struct qw_sysnums *s = c->sys;
	char path[ITRACE_PATH_MAX];
	int64_t nr, ret;
	size_t len;

	if (n < 3 || p[2] > (n - 3) * 8)
		return fail(c, -ITRACE_E_CORRUPT, "short SYSRET event (%llu words)", n);
	nr = (int64_t)p[0];
	ret = (int64_t)p[1];
	/* QEMU's cpu loops step the pc back over the syscall instruction on
	 * -QEMU_ERESTARTSYS (512, the kernel's ERESTARTSYS) */
	t->sys_restart = ret == -512;
	if (nr != t->sys_nr)
		return fail(c, -ITRACE_E_CORRUPT, "system call %llu returns without an entry",
			    (unsigned long long)nr);
	len = p[2] < sizeof(path) ? (size_t)p[2] : sizeof(path) - 1;
	memcpy(path, p + 3, len);
	path[len] = '\0';
	if (nr != s->rt_sigreturn && (!s->sigreturn || nr != s->sigreturn))
		TRY(write_syscall(c, t, ITRACE_SYSCALL_EXIT, ret));
	TRY(space_effects(c, t, ret, path));
	if (nr == s->rt_sigaction && ret == 0 && t->sys_arg[1] && t->sys_arg[0] < SIG_MAX) {
		c->handler[t->sys_arg[0]] = t->sys_x[0];
		c->sa_flags[t->sys_arg[0]] = t->sys_x[1];
		c->handler_bits |= handler_bit(t->sys_x[0]);
		c->gen++; /* blocks look again whether they start a handler */
	} else if ((nr == s->execve || nr == s->execveat) && ret < 0) {
		c->exec_pending = 0;
	}
	/* (rt_sigreturn does not return: its "result" is the resumed code) */
	if (ret > 0 && (nr == s->clone || nr == s->clone3 || nr == s->fork || nr == s->vfork)) {
		if (nr == s->clone && (t->sys_arg[0] & CLONE_THREAD_))
			return write_thread(c, t, ITRACE_THREAD_CREATE, (uint32_t)ret, t->tid);
		if (nr != s->clone3)
			return write_process(c, t, ITRACE_PROCESS_FORK, (uint64_t)ret, 0, NULL);
		/* clone3: the flags are in memory; a process if its tid is new */
		return write_thread(c, t, ITRACE_THREAD_CREATE, (uint32_t)ret, t->tid);
	}
	return 0;
}

static int on_event(struct qemu_conv *c, struct qc_thread *t, unsigned type, const uint64_t *p,
		    size_t n)
{
	if (!t) { /* the descriptions' slot */
		if (type == QW_EV_HELLO)
			return on_hello(c, p, n);
		if (type == QW_EV_BLOCK)
			return c->hello ? on_block_def(c, p, n)
					: fail(c, -ITRACE_E_CORRUPT, "BLOCK before HELLO", 0);
		return fail(c, -ITRACE_E_CORRUPT, "event %llu in the descriptions", type);
	}
	/* The plugin ends the block before an event (a PARTIAL came first if
	 * it stopped early): the block ran to its end. */
	TRY(close_block(c, t, QW_MAX_BLOCK_INSNS));
	switch (type) {
	case QW_EV_SYSCALL:
		return on_syscall(c, t, p, n);
	case QW_EV_SYSRET:
		return on_sysret(c, t, p, n);
	case QW_EV_THREAD_EXIT:
		return thread_gone(c, t, t->exit_known ? t->exit_code : 0);
	case QW_EV_EXIT:
		c->ended = 1;
		c->exit_tid = t->tid;
		return 0;
	default:
		return fail(c, -ITRACE_E_CORRUPT, "unknown event %llu", type);
	}
}

/* ---- The words of a slot ---------------------------------------------------------- */

static int on_mem(struct qemu_conv *c, struct qc_thread *t, uint32_t insn, uint64_t addr,
		  uint64_t size, int store)
{
	if (!t->blk || insn >= t->blk->n)
		return fail(c, -ITRACE_E_CORRUPT, "memory access outside a block (insn %llu)", insn);
	if (insn >= t->done)
		TRY(emit_range(c, t, t->done, insn));
	if (!t->insn_out)
		return 0;
	return add_mem(c, t, insn, addr, size, store);
}

/* The block stopped after instruction `last` started (PARTIAL). */
static int on_partial(struct qemu_conv *c, struct qc_thread *t, uint32_t last)
{
	/* the last instruction (of those QEMU really translated) completes it */
	if (t->blk && last + 1 >= t->blk->n)
		last = t->blk->n;
	return close_block(c, t, last);
}

static int on_block(struct qemu_conv *c, struct qc_thread *t, uint64_t id)
{
	if (id >= c->n_blocks)
		return fail(c, -ITRACE_E_CORRUPT, "block %llu was never described", id);
	TRY(close_block(c, t, QW_MAX_BLOCK_INSNS));
	return enter_block(c, t, c->blocks[id]);
}

/* Can the words of thread t go the plain way (fast_words, plain_branch_words) now? */
static int plain_thread(const struct qemu_conv *c, const struct qc_thread *t)
{
	if (!recording(t) || t->n_frames || t->resume || t->window || c->ring_on || !t->started)
		return 0;
	if (c->o.level == ITRACE_LEVEL_BRANCH)
		return t->blk && !t->blk->has_trigger && !t->blk->first_rep && !t->blk->last_rep;
	return !c->o.insn_bytes;
}

/* ---- The plain case: blocks whose accesses match their shape ------------------------ */

/*
 * The accesses of block b's shape as a writer block's, its instructions
 * counted from `first`; -1 if an access joins pieces past MERGE_MAX
 * (add_mem would not join them) or there are too many.
 */
static int shape_accesses(const struct qc_block *b, uint32_t first, struct itrace_block_access *acc)
{
	const struct qc_shape *s = &b->shape;

	if (s->n_acc > ITRACE_BLOCK_ACCESS_MAX)
		return -1;
	for (uint32_t j = 0; j < s->n_acc; j++) {
		const struct qc_access *a = &s->acc[j];

		if (a->pieces > 1 && a->size > MERGE_MAX)
			return -1;
		acc[j] = (struct itrace_block_access){
			.size = a->size, .insn = (uint8_t)(first + QW_MEM_INDEX(s->hi[a->first])),
			.flags = a->store ? ITRACE_MEM_STORE : 0};
	}
	return 0;
}

/*
 * The block and its shape as a writer block (format 3.0, ITRACE.md
 * 6.5.15): one record per execution, its accesses' addresses only.  Not
 * for blocks longer than a block record holds, nor for accesses joined
 * from pieces past MERGE_MAX (add_mem would not join them).
 */
static int define_block(struct qemu_conv *c, struct qc_block *b)
{
	struct itrace_block_access acc[SHAPE_MAX];
	int id;

	if (b->n > ITRACE_RUN_MAX || shape_accesses(b, 0, acc) < 0)
		return 0;
	id = emit_block_define(&c->out, b->vaddr, b->n, b->lens, b->shape.n_acc, acc);
	if (id < 0)
		return id;
	b->wid = id;
	return 0;
}

/*
 * A block without accesses that runs into the next one (`b` starts where
 * `a` ends: a conditional branch not taken) is written together with it,
 * as one writer block: the writer would otherwise end an instruction run
 * before each BLOCK record.  *wid is the pair's definition, or -1 if
 * they are not to be written together.  Returns 0 or a writer error.
 */
static int pair_of(struct qemu_conv *c, struct qc_block *a, const struct qc_block *b, int *wid)
{
	struct itrace_block_access acc[SHAPE_MAX];
	uint8_t lens[ITRACE_RUN_MAX];
	int id;

	*wid = -1;
	if (a->pair_next == b->id + 1 && a->pair_ver == b->shape_ver) {
		*wid = a->pair_wid;
		return 0;
	}
	if (b->wid < 0 || a->vaddr + a->code_len != b->vaddr || a->n + b->n > ITRACE_RUN_MAX ||
	    a->pairs >= PAIRS_MAX || shape_accesses(b, a->n, acc) < 0)
		return 0;
	memcpy(lens, a->lens, a->n);
	memcpy(lens + a->n, b->lens, b->n);
	id = emit_block_define(&c->out, a->vaddr, a->n + b->n, lens, b->shape.n_acc, acc);
	if (id < 0)
		return id;
	a->pairs++;
	a->pair_next = b->id + 1;
	a->pair_ver = b->shape_ver;
	a->pair_wid = *wid = id;
	return 0;
}

/*
 * learn_shape - block b's shape from the `n` words (but their addresses)
 * of one complete execution: the records they make, as on_mem and add_mem
 * make them.  A block whose words need add_mem's POWER rule (a
 * store-conditional's load and store) or whose execution makes more than
 * SHAPE_MAX words gets none, and goes the general way.
 */
static int learn_shape(struct qemu_conv *c, struct qc_block *b, const uint64_t *hi, uint32_t n)
{
	struct qc_access acc[SHAPE_MAX], *a = NULL;
	uint32_t n_acc = 0, next = 0; /* the first instruction not written yet */
	uint64_t *mem;

	b->shape_state = SHAPE_NONE;
	b->wid = -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = QW_MEM_INDEX(hi[i]);
		uint8_t store = (uint8_t)QW_MEM_IS_STORE(hi[i]);

		if (k >= b->n || k + 1 < next)
			return 0;
		if (a && k + 1 == next && store == a->store) {
			a->pieces++; /* joined per execution (add_mem) */
			a->size += QW_MEM_SIZE(hi[i]);
			continue;
		}
		if (a && k + 1 == next && c->machine == EM_PPC64_ && store && !a->store)
			return 0;
		a = &acc[n_acc++];
		*a = (struct qc_access){.insns_from = (uint16_t)next, .n_insns = (uint16_t)(k + 1 - next),
					.first = (uint16_t)i, .pieces = 1, .size = QW_MEM_SIZE(hi[i]),
					.store = store};
		next = k + 1;
	}
	mem = malloc(n * sizeof(*hi) + n_acc * sizeof(*acc) + 1);
	if (!mem)
		return -ITRACE_E_NOMEM;
	memcpy(mem, hi, n * sizeof(*hi));
	memcpy(mem + n, acc, n_acc * sizeof(*acc));
	free(b->shape_mem);
	b->shape_mem = mem;
	b->shape = (struct qc_shape){.n_words = n, .n_acc = n_acc, .tail_from = (uint16_t)next,
				     .n_tail = (uint16_t)(b->n - next), .hi = mem,
				     .acc = (const struct qc_access *)(mem + n)};
	b->shape_state = SHAPE_KNOWN;
	b->shape_ver++;
	b->misses = 0;
	b->pieces = n != n_acc;
	return define_block(c, b);
}

/*
 * The address of each access of shape s whose pieces (addresses `addr`)
 * add_mem joins into one, in joined[]; 0 if some are not contiguous
 * (add_mem would write them as several records).
 */
static int join_pieces(const struct qc_shape *s, const uint64_t *addr, uint64_t *joined)
{
	for (uint32_t j = 0; j < s->n_acc; j++) {
		const struct qc_access *a = &s->acc[j];
		uint64_t lo = addr[a->first], size = QW_MEM_SIZE(s->hi[a->first]);

		for (uint32_t p = a->first + 1; p < a->first + a->pieces; p++) {
			uint64_t piece = QW_MEM_SIZE(s->hi[p]);

			if (addr[p] == lo + size)
				size += piece;
			else if (addr[p] + piece == lo)
				lo = addr[p], size += piece;
			else
				return 0;
		}
		joined[j] = lo;
	}
	return 1;
}

/*
 * A complete execution of block b whose words matched its shape
 * (addresses in c->fast_addr): the records on_mem, add_mem and
 * close_block would write, without deciding them again.
 */
static int write_shape(struct qemu_conv *c, struct qc_thread *t, const struct qc_block *b)
{
	const struct qc_shape *s = &b->shape;
	const uint64_t *addr = c->fast_addr;
	struct emit_sink *w = &c->out;

	t->insn_out = 1;
	if (b->wid >= 0 && !b->pieces)
		return emit_block(w, b->wid, addr);
	if (b->wid >= 0 && join_pieces(s, addr, c->fast_joined))
		return emit_block(w, b->wid, c->fast_joined);
	for (uint32_t j = 0; j < s->n_acc; j++) {
		const struct qc_access *a = &s->acc[j];
		uint32_t k = QW_MEM_INDEX(s->hi[a->first]);

		if (a->n_insns)
			TRY(emit_insns(w, b->vaddr + b->off[a->insns_from], a->n_insns,
				       b->lens + a->insns_from));
		if (a->pieces == 1) {
			TRY(emit_mem(w, addr[a->first], a->size, a->store ? ITRACE_MEM_STORE : 0));
			continue;
		}
		/* QEMU's pieces of one operand: joined if contiguous */
		t->mem_on = 1;
		t->mem_insn = k;
		t->mem_addr = addr[a->first];
		t->mem_size = QW_MEM_SIZE(s->hi[a->first]);
		t->mem_store = a->store;
		for (uint32_t p = a->first + 1; p < a->first + a->pieces; p++)
			TRY(add_mem(c, t, k, addr[p], QW_MEM_SIZE(s->hi[p]), a->store));
		TRY(flush_mem(c, t));
	}
	if (s->n_tail)
		TRY(emit_insns(w, b->vaddr + b->off[s->tail_from], s->n_tail, b->lens + s->tail_from));
	return 0;
}

/*
 * Block b ran to its end after `a`, a block without accesses that ran
 * to its end and is not written yet: the two, as one writer block if
 * they make a pair.
 */
static int write_pair(struct qemu_conv *c, struct qc_thread *t, struct qc_block *a,
		      const struct qc_block *b)
{
	const uint64_t *addr = c->fast_addr;
	int wid = -1;

	if (b->pieces)
		addr = b->wid >= 0 && join_pieces(&b->shape, addr, c->fast_joined) ? c->fast_joined
									     : NULL;
	if (addr)
		TRY(pair_of(c, a, b, &wid));
	if (wid >= 0)
		return emit_block(&c->out, wid, addr);
	TRY(emit_block(&c->out, a->wid, NULL));
	return write_shape(c, t, b);
}

/*
 * Leaving the plain case inside block b, `n` words read: they go the
 * general way (on_mem), as if read there.  A block whose executions keep
 * leaving its shape learns it again.
 */
static int leave_shape(struct qemu_conv *c, struct qc_thread *t, struct qc_block *b, uint32_t n)
{
	const uint64_t *hi = b->shape_state == SHAPE_KNOWN ? b->shape.hi : c->fast_hi;

	t->blk = b;
	t->done = 0;
	for (uint32_t j = 0; j < n; j++)
		TRY(on_mem(c, t, QW_MEM_INDEX(hi[j]), c->fast_addr[j], QW_MEM_SIZE(hi[j]),
			   (int)QW_MEM_IS_STORE(hi[j])));
	if (b->shape_state == SHAPE_KNOWN && b->misses >= SHAPE_RELEARN) {
		b->shape_state = SHAPE_UNKNOWN;
		b->misses = 0;
	}
	return 0;
}

/*
 * The plain case, most of a trace: a recording thread at instruction
 * level with nothing held back (plain_thread), in blocks that start
 * nothing special (b->fast), and whose words match the shape of their
 * block: the same as the general loop (on_block, enter_block, on_mem,
 * close_block), a block at a time.  It starts at a BLOCK word (the
 * block open before goes the general way); the first word it cannot take
 * is left to the general loop, the block it is in handed over as if the
 * general loop had read its words.  Returns the words consumed.
 */
static size_t fast_words(struct qemu_conv *c, struct qc_thread *t, const uint64_t *w, size_t n,
			 int *rc)
{
	struct qc_block *b = NULL; /* the block being read here (none yet) */
	struct qc_block *pend = NULL; /* the one before, not written yet */
	const uint64_t *hi = NULL; /* its shape's words, if known */
	uint32_t j = 0, n_hi = 0;  /* its words so far; in its shape */
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t x = w[i];

		if (QW_TAG(x) == QW_MEM && b) {
			if (j < n_hi && (x & ~QW_MEM_ADDR_MASK) == hi[j]) {
				c->fast_addr[j++] = x & QW_MEM_ADDR_MASK;
				continue;
			}
			if (b->shape_state == SHAPE_UNKNOWN && j < SHAPE_MAX) {
				c->fast_hi[j] = x & ~QW_MEM_ADDR_MASK;
				c->fast_addr[j++] = x & QW_MEM_ADDR_MASK;
				continue;
			}
			if (b->shape_state == SHAPE_UNKNOWN)
				b->shape_state = SHAPE_NONE;
			else
				b->misses++;
			break;
		}
		if (QW_TAG(x) != QW_BLOCK)
			break;
		uint64_t id = x & ((1ULL << QW_TAG_SHIFT) - 1);
		struct qc_block *nb = id < c->n_blocks ? c->blocks[id] : NULL;

		if (!nb)
			break;
		if (nb->gen != c->gen)
			refresh_block(c, nb);
		if (!nb->fast)
			break;
		if (b) {
			/* b ran to its end */
			if (b->shape_state == SHAPE_UNKNOWN && (*rc = learn_shape(c, b, c->fast_hi, j)) < 0)
				return i;
			if (b->shape_state != SHAPE_KNOWN || j != b->shape.n_words) {
				b->misses++;
				break;
			}
			/* a block without accesses waits for the next one (write_pair) */
			if (pend && b->shape.n_acc) {
				*rc = write_pair(c, t, pend, b);
				pend = NULL;
			} else {
				if (pend)
					*rc = emit_block(&c->out, pend->wid, NULL);
				pend = NULL;
				if (*rc >= 0 && !b->shape.n_acc && b->wid >= 0)
					pend = b;
				else if (*rc >= 0)
					*rc = write_shape(c, t, b);
			}
			if (*rc < 0)
				return i;
			t->insn_out = 1;
			set_prev(t, b, b->n);
		} else {
			/* the block open before: the general way */
			if ((*rc = close_block(c, t, QW_MAX_BLOCK_INSNS)) < 0)
				return i;
			if (!plain_thread(c, t))
				break; /* (a trigger in it stopped the recording) */
		}
		t->self_signal = 0;
		b = nb;
		j = 0;
		n_hi = b->shape_state == SHAPE_KNOWN ? b->shape.n_words : 0;
		hi = b->shape.hi;
	}
	if (pend && (*rc = emit_block(&c->out, pend->wid, NULL)) < 0)
		return i;
	if (b && (*rc = leave_shape(c, t, b, j)) < 0)
		return i;
	return i;
}

/*
 * The same at branch level: each block's last instruction branched to the
 * next block (enter_block, prev_branch).  Returns the words consumed.
 */
static size_t plain_branch_words(struct qemu_conv *c, struct qc_thread *t, const uint64_t *w,
				 size_t n, int *rc)
{
	struct qc_block *b = t->blk;
	size_t i;

	for (i = 0; i < n && *rc >= 0; i++) {
		uint64_t id = w[i] & ((1ULL << QW_TAG_SHIFT) - 1);
		struct qc_block *nb;
		uint64_t from, fall, to;
		unsigned kind;

		if (QW_TAG(w[i]) != QW_BLOCK || id >= c->n_blocks || b->mid_branch)
			break;
		nb = c->blocks[id];
		if (nb->gen != c->gen)
			refresh_block(c, nb);
		if (nb->slow)
			break;
		kind = b->kind[b->n - 1];
		from = b->vaddr + b->off[b->n - 1];
		fall = b->vaddr + b->off[b->n];
		to = nb->vaddr;
		if (kind == ITRACE_INSN_NOT_BRANCH || kind == ITRACE_BRANCH_SYSCALL) {
			if (to != fall)
				break; /* flow went elsewhere without a branch */
		} else {
			*rc = emit_branch(&c->out, from, to, kind,
					  to != fall || !may_fall_through(c, kind) ? ITRACE_BRANCH_TAKEN : 0);
		}
		set_prev(t, b, b->n);
		t->self_signal = 0;
		b = nb;
	}
	t->blk = b;
	t->done = 0;
	return i;
}

int qc_slot(struct qemu_conv *c, const struct qw_note *note, const uint64_t *w, size_t n)
{
	struct qc_thread *t = NULL;
	size_t i = 0;
	int rc = 0;

	if (note->tid) {
		t = get_thread(c, note->tid);
		if (!t)
			return -ITRACE_E_NOMEM;
	}
	while (i < n && rc >= 0) {
		if (t && plain_thread(c, t) && (rc = switch_to(c, t)) >= 0) {
			i += c->o.level == ITRACE_LEVEL_BRANCH ? plain_branch_words(c, t, w + i, n - i, &rc)
							       : fast_words(c, t, w + i, n - i, &rc);
			if (i == n || rc < 0)
				break;
		}
		uint64_t x = w[i++];
		unsigned tag = QW_TAG(x);

		if (!t && tag != QW_EVENT)
			return fail(c, -ITRACE_E_CORRUPT, "execution word in the descriptions (%#llx)",
				    x);
		switch (tag) {
		case QW_BLOCK:
			rc = on_block(c, t, x & ((1ULL << QW_TAG_SHIFT) - 1));
			break;
		case QW_MEM:
			rc = on_mem(c, t, QW_MEM_INDEX(x), x & QW_MEM_ADDR_MASK, QW_MEM_SIZE(x),
				    (int)QW_MEM_IS_STORE(x));
			break;
		case QW_MEM_FULL:
			if (i == n)
				return fail(c, -ITRACE_E_CORRUPT, "memory access cut (%#llx)", x);
			rc = on_mem(c, t, QW_MEM_INDEX(x), w[i++], QW_MEM_SIZE(x),
				    (int)QW_MEM_IS_STORE(x));
			break;
		case QW_PARTIAL:
			rc = on_partial(c, t, (uint32_t)(x & 0x3ff));
			break;
		case QW_EVENT:
			if (QW_EVENT_WORDS(x) > n - i)
				return fail(c, -ITRACE_E_CORRUPT, "event cut at the end of a slot (%#llx)",
					    x);
			rc = on_event(c, t, QW_EVENT_TYPE(x), w + i, QW_EVENT_WORDS(x));
			i += QW_EVENT_WORDS(x);
			break;
		default:
			rc = fail(c, -ITRACE_E_CORRUPT, "unknown word %#llx", x);
			break;
		}
	}
	c->words += i;
	/* the writer may move to another thread next: no access left open */
	if (rc >= 0 && t)
		rc = flush_mem(c, t);
	/* a handler that never returns (longjmp) cannot hold records forever */
	if (rc >= 0 && t && t->n_frames && t->n_ops > c->o.defer_max)
		rc = release(c, t);
	if (rc < 0 && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s", itrace_errstr(rc));
	return rc;
}

/* ---- The end --------------------------------------------------------------------------- */

/* The fatal signal, where the thread that took it was. */
static int fatal_signal(struct qemu_conv *c, struct qc_thread *t, uint32_t signo)
{
	struct qc_prev prev = prev_of(t);
	const struct qc_prev *p = &prev;
	uint64_t pc = 0;

	if (!recording(t) || !p->valid)
		return 0;
	if (p->partial)
		pc = p->addr;
	else if (p->kind == ITRACE_INSN_NOT_BRANCH || p->kind == ITRACE_BRANCH_SYSCALL)
		pc = p->addr + p->len;
	else if ((p->kind == ITRACE_BRANCH_UNCOND || p->kind == ITRACE_BRANCH_CALL) && p->has_target)
		pc = p->target;
	return write_signal(c, t, signo, 0, pc, 0);
}

int qc_finish(struct qemu_conv *c, int64_t status)
{
	struct qc_thread *ender = NULL;
	uint32_t last_tid = c->written_tid;

	for (size_t i = 0; i < c->n_threads; i++) {
		struct qc_thread *t = c->threads[i];

		if (t->live && t->blk)
			TRY(close_block(c, t, t->done));
		TRY(release(c, t));
		if (t->live && t->tid == c->exit_tid)
			ender = t;
	}
	if (!ender && c->n_threads && c->threads[0]->live)
		ender = c->threads[0];
	if (status < 0 && ender && !c->exec_pending)
		TRY(fatal_signal(c, ender, (uint32_t)-status));
	for (size_t i = 0; i < c->n_threads; i++)
		if (c->threads[i] != ender && c->threads[i]->live && !c->exec_pending)
			TRY(thread_gone(c, c->threads[i], status));
	if (ender && !c->exec_pending)
		TRY(thread_gone(c, ender, status));
	if (c->ring_on) {
		TRY(collect_ring_write(&c->ring, &c->out, &last_tid));
		c->written_tid = last_tid;
	}
	if (c->exec_pending && ender) {
		TRY(write_process(c, ender, ITRACE_PROCESS_EXEC, 0, 0, c->exec_path));
		TRY(write_ctl(c, ender, 0, ITRACE_CTL_DETACH, 0));
	}
	return 0;
}

/* ---- Set-up ---------------------------------------------------------------------------- */

int qc_alloc(const struct qc_options *o, uint16_t machine, uint8_t endian,
	     struct itrace_writer *w, struct qemu_conv **cp)
{
	struct qemu_conv *c = calloc(1, sizeof(*c));
	int rc;

	*cp = NULL;
	if (!c)
		return -ITRACE_E_NOMEM;
	c->o = *o;
	if (!c->o.defer_max)
		c->o.defer_max = DEFER_DEFAULT;
	c->w = w;
	c->out = emit_writer_sink(w);
	c->machine = machine;
	c->endian = endian;
	c->sys = qw_sysnums_for(NULL, machine);
	if (!c->sys) {
		free(c);
		return -ITRACE_E_NOTSUP;
	}
	rc = itrace_decoder_alloc(machine, endian, &c->dec);
	if (rc < 0) {
		free(c);
		return rc;
	}
	qs_init(&c->space, &c->out, 0);
	c->has_start = o->start_func || o->has_start_addr;
	c->has_stop = o->stop_func || o->has_stop_addr;
	c->use_triggers = c->has_start || c->has_stop || o->only_module;
	if (o->ring) {
		rc = collect_ring_init(&c->ring, o->ring);
		if (rc < 0) {
			qc_free(c);
			return rc;
		}
		c->ring_on = 1;
	}
	*cp = c;
	return 0;
}

void qc_free(struct qemu_conv *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_blocks; i++) {
		free(c->blocks[i]->shape_mem);
		free(c->blocks[i]);
	}
	free(c->blocks);
	for (size_t i = 0; i < c->n_threads; i++)
		free_thread(c->threads[i]);
	free(c->threads);
	free(c->code_seen);
	qs_free(&c->space);
	itrace_decoder_free(c->dec);
	if (c->ring_on)
		collect_ring_free(&c->ring);
	free(c);
}

void qc_set_ender(struct qemu_conv *c, uint32_t tid)
{
	if (!c->ended)
		c->exit_tid = tid;
}

void qc_state(const struct qemu_conv *c, struct qc_state *st)
{
	st->hello = c->hello;
	st->ended = c->ended;
	st->exec_pending = c->exec_pending;
	st->pid = c->pid;
	st->words = c->words;
}

const char *qc_error(const struct qemu_conv *c)
{
	return c->error;
}
