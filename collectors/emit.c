/* emit.c - events to records for every collector (see emit.h). */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* A record of `type`, cleared, of the sink's current thread. */
static void start(struct itrace_record *rec, const struct emit_sink *s, int type)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = (uint8_t)type;
	rec->tid = s->tid;
	rec->pid = s->pid;
}

int emit_record(struct emit_sink *s, const struct itrace_record *rec)
{
	if (s->put)
		return s->put(s, rec);
	return itrace_writer_write(s->w, rec);
}

int emit_mmap(struct emit_sink *s, const struct itrace_mmap *m)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_MMAP);
	rec.u.mmap = *m;
	if (rec.u.mmap.buildid_len > sizeof(rec.u.mmap.buildid))
		return -ITRACE_E_INVAL;
	return emit_record(s, &rec);
}

int emit_code(struct emit_sink *s, uint64_t addr, const uint8_t *bytes, size_t len)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_CODE);
	rec.u.code.addr = addr;
	rec.u.code.bytes = bytes;
	rec.u.code.len = len;
	return emit_record(s, &rec);
}

static int thread_rec(struct emit_sink *s, int event, uint32_t tid, uint32_t pid, uint64_t other,
		      const char *name, size_t len)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_THREAD);
	rec.u.thread.event = (uint8_t)event;
	rec.u.thread.tid = tid;
	rec.u.thread.pid = pid;
	rec.u.thread.other = other;
	rec.u.thread.name = name;
	rec.u.thread.name_len = name ? len : 0;
	return emit_record(s, &rec);
}

int emit_thread(struct emit_sink *s, int event, uint32_t tid, uint32_t pid, uint64_t other)
{
	return thread_rec(s, event, tid, pid, other, NULL, 0);
}

int emit_thread_name(struct emit_sink *s, uint32_t tid, uint32_t pid, const char *name, size_t len)
{
	return thread_rec(s, ITRACE_THREAD_NAME, tid, pid, 0, name, len);
}

int emit_process_n(struct emit_sink *s, int event, uint32_t pid, uint64_t other, int64_t status,
		   const char *name, size_t len)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_PROCESS);
	rec.u.process.event = (uint8_t)event;
	rec.u.process.pid = pid;
	rec.u.process.other = other;
	rec.u.process.status = status;
	rec.u.process.name = name;
	rec.u.process.name_len = name ? len : 0;
	return emit_record(s, &rec);
}

int emit_process(struct emit_sink *s, int event, uint32_t pid, uint64_t other, int64_t status,
		 const char *name)
{
	return emit_process_n(s, event, pid, other, status, name, name ? strlen(name) : 0);
}

int emit_syscall_enter(struct emit_sink *s, uint64_t nr, size_t nargs, const uint64_t *args)
{
	struct itrace_record rec;

	if (nargs > ITRACE_SYSCALL_MAX_ARGS)
		return -ITRACE_E_INVAL;
	start(&rec, s, ITRACE_REC_SYSCALL);
	rec.u.syscall.dir = ITRACE_SYSCALL_ENTER;
	rec.u.syscall.nr = nr;
	rec.u.syscall.nargs = (uint8_t)nargs;
	if (nargs)
		memcpy(rec.u.syscall.args, args, nargs * sizeof(args[0]));
	return emit_record(s, &rec);
}

int emit_syscall_exit(struct emit_sink *s, uint64_t nr, int64_t ret)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_SYSCALL);
	rec.u.syscall.dir = ITRACE_SYSCALL_EXIT;
	rec.u.syscall.nr = nr;
	rec.u.syscall.ret = ret;
	return emit_record(s, &rec);
}

int emit_signal(struct emit_sink *s, const struct itrace_signal *sig)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_SIGNAL);
	rec.u.signal = *sig;
	return emit_record(s, &rec);
}

/* TRACE_CTL with its 1.1 fields (trigger 0: not said, and not written). */
static int ctl(struct emit_sink *s, int on, int reason, uint64_t addr, int by, uint32_t index)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_TRACE_CTL);
	rec.u.ctl.on = (uint8_t)on;
	rec.u.ctl.reason = (uint8_t)reason;
	rec.u.ctl.addr = addr;
	rec.u.ctl.trigger = (uint8_t)by;
	rec.u.ctl.index = index;
	return emit_record(s, &rec);
}

int emit_ctl(struct emit_sink *s, int on, int reason, uint64_t addr)
{
	return ctl(s, on, reason, addr, ITRACE_CTL_BY_NONE, 0);
}

int emit_ctl_trigger(struct emit_sink *s, int on, uint64_t addr, int by, uint32_t index)
{
	return ctl(s, on, ITRACE_CTL_TRIGGER, addr, by, index);
}

int emit_lost(struct emit_sink *s, int reason, int unit, uint64_t count)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_LOST);
	rec.u.lost.reason = (uint8_t)reason;
	rec.u.lost.unit = (uint8_t)unit;
	rec.u.lost.count = count;
	return emit_record(s, &rec);
}

int emit_gap(struct emit_sink *s, int reason, uint64_t addr, uint64_t resume, uint64_t count)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_GAP);
	rec.u.gap.reason = (uint8_t)reason;
	rec.u.gap.addr = addr;
	rec.u.gap.resume = resume;
	rec.u.gap.count = count;
	return emit_record(s, &rec);
}

/* ---- Execution records into a sink that is not the writer ------------- */

/* start_exec - start() for the execution records, which fill their whole
 * union member: the fields outside it cleared, not the 152 bytes (one
 * record per instruction under --handler). */
static void start_exec(struct itrace_record *rec, const struct emit_sink *s, int type)
{
	rec->type = (uint8_t)type;
	rec->raw_type = 0;
	rec->tid = s->tid;
	rec->pid = s->pid;
	rec->time_ns = 0;
	rec->chunk = 0;
	rec->offset = 0;
}

int emit_put_branch(struct emit_sink *s, uint64_t from, uint64_t to, unsigned kind, unsigned flags)
{
	struct itrace_record rec;

	start_exec(&rec, s, ITRACE_REC_BRANCH);
	rec.u.branch = (struct itrace_branch){from, to, (uint8_t)kind, (uint8_t)flags};
	return s->put(s, &rec);
}

int emit_put_insn(struct emit_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	struct itrace_record rec;

	if (len > sizeof(rec.u.insn.bytes))
		return -ITRACE_E_INVAL;
	start_exec(&rec, s, ITRACE_REC_INSN);
	rec.u.insn = (struct itrace_insn){.addr = addr, .len = (uint8_t)len};
	if (bytes) {
		rec.u.insn.has_bytes = 1;
		memcpy(rec.u.insn.bytes, bytes, len);
	}
	return s->put(s, &rec);
}

int emit_put_insns(struct emit_sink *s, uint64_t addr, size_t n, const uint8_t *lens)
{
	for (size_t i = 0; i < n; addr += lens[i++])
		EMIT_TRY(emit_put_insn(s, addr, lens[i], NULL));
	return 0;
}

int emit_put_mem(struct emit_sink *s, uint64_t addr, uint64_t size, unsigned flags)
{
	struct itrace_record rec;

	start_exec(&rec, s, ITRACE_REC_MEM);
	rec.u.mem = (struct itrace_mem){.addr = addr, .size = size, .flags = (uint8_t)flags};
	return s->put(s, &rec);
}

/* ---- The handler pass (itrace-collect --handler) ------------------------ */

const struct emit_pass *emit_pass;

/*
 * The thread records belong to, as a reader of the trace sees it: a
 * THREAD record of event SWITCH names the thread of every record after it
 * (ITRACE.md 6.5.7; the writer ignores a record's own tid and pid, which
 * not every sink sets).  The handlers online see the tid and pid that
 * itrace-run's see over the written trace.
 */
static uint32_t pass_tid, pass_pid;

int emit_pass_put(struct emit_sink *s, const struct itrace_record *rec)
{
	/* Every record reaching a sink is one the emitter built (on its
	 * stack, or kept by the ring or QEMU's queue): never a const object,
	 * so its thread is set in place, without a copy of 152 bytes per
	 * record (bench/handler_speed.sh). */
	struct itrace_record *r = (struct itrace_record *)(uintptr_t)rec;

	(void)s;
	if (r->type == ITRACE_REC_THREAD && r->u.thread.event == ITRACE_THREAD_SWITCH) {
		pass_tid = r->u.thread.tid;
		pass_pid = r->u.thread.pid;
	}
	r->tid = pass_tid;
	r->pid = pass_pid;
	return emit_pass->pass(emit_pass->arg, r);
}

/*
 * The definitions a sink with `expand` stands for, kept here instead of
 * in the writer: the handlers must see each instruction, access and
 * branch of a BLOCK or BRANCH_SEQ, and with -o none there is no writer
 * to keep them.  One numbering for the process (the converters only
 * give back the ids they were given).
 */
struct x_block {
	uint64_t addr;
	uint32_t n, m;
	uint8_t *lens;			   /* n lengths */
	struct itrace_block_access *acc; /* m accesses */
};

struct x_branch {
	uint64_t from, to;
	uint8_t kind, flags;
	uint32_t k;   /* 0: one branch; else a sequence of ids[0..k) */
	int *ids;
};

static struct x_block *x_blocks;
static size_t x_nblocks, x_capblocks;
static struct x_branch *x_branches;
static size_t x_nbranches, x_capbranches;

/* x_grow - room for one more element in *v (cap *cap, elements of size). */
static int x_grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n < *cap)
		return 0;
	if (n >= (size_t)INT32_MAX || !(p = realloc(*v, (*cap ? *cap * 2 : 256) * size)))
		return -ITRACE_E_NOMEM;
	*v = p;
	*cap = *cap ? *cap * 2 : 256;
	return 0;
}

int emit_x_block_define(uint64_t addr, size_t n, const uint8_t *lens, size_t m,
			const struct itrace_block_access *acc)
{
	struct x_block *b;

	if (n == 0 || n > ITRACE_RUN_MAX || m > ITRACE_BLOCK_ACCESS_MAX)
		return -ITRACE_E_INVAL;
	for (size_t i = 0; i < n; i++)
		if (lens[i] == 0 || lens[i] > ITRACE_INSN_MAX_LEN)
			return -ITRACE_E_INVAL;
	for (size_t k = 0; k < m; k++)
		if (acc[k].insn >= n || (k && acc[k].insn < acc[k - 1].insn) ||
		    (acc[k].flags & ~(unsigned)ITRACE_MEM_STORE))
			return -ITRACE_E_INVAL;
	if (x_grow((void **)&x_blocks, &x_capblocks, x_nblocks, sizeof(*x_blocks)) < 0)
		return -ITRACE_E_NOMEM;
	b = &x_blocks[x_nblocks];
	b->acc = malloc(m * sizeof(*acc) + n);
	if (!b->acc)
		return -ITRACE_E_NOMEM;
	b->lens = (uint8_t *)(b->acc + m);
	if (m)
		memcpy(b->acc, acc, m * sizeof(*acc));
	memcpy(b->lens, lens, n);
	b->addr = addr;
	b->n = (uint32_t)n;
	b->m = (uint32_t)m;
	return (int)x_nblocks++;
}

/* x_run - the first ninsns instructions of block b, each followed by its
 * accesses at addrs[k] (those with skip[k] set left out). */
static int x_run(struct emit_sink *s, const struct x_block *b, size_t ninsns,
		 const uint64_t *addrs, const uint8_t *skip)
{
	uint64_t pc = b->addr;
	size_t k = 0;

	for (size_t i = 0; i < ninsns; pc += b->lens[i++]) {
		EMIT_TRY(emit_put_insn(s, pc, b->lens[i], NULL));
		for (; k < b->m && b->acc[k].insn == i; k++)
			if (!skip || !skip[k])
				EMIT_TRY(emit_put_mem(s, addrs[k], b->acc[k].size, b->acc[k].flags));
	}
	return 0;
}

int emit_x_block(struct emit_sink *s, int id, const uint64_t *addrs)
{
	if (id < 0 || (size_t)id >= x_nblocks)
		return -ITRACE_E_INVAL;
	return x_run(s, &x_blocks[id], x_blocks[id].n, addrs, NULL);
}

int emit_x_blocks(struct emit_sink *s, size_t n, const int *ids, const uint64_t *addrs)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] < 0 || (size_t)ids[i] >= x_nblocks)
			return -ITRACE_E_INVAL; /* nothing written, as the writer's */
	for (size_t i = 0; i < n; i++) {
		const struct x_block *b = &x_blocks[ids[i]];

		EMIT_TRY(x_run(s, b, b->n, addrs, NULL));
		if (addrs)
			addrs += b->m;
	}
	return 0;
}

int emit_x_block_partial(struct emit_sink *s, int id, size_t ninsns, const uint64_t *addrs,
			 const uint8_t *skip)
{
	if (id < 0 || (size_t)id >= x_nblocks || ninsns > x_blocks[id].n)
		return -ITRACE_E_INVAL;
	return x_run(s, &x_blocks[id], ninsns, addrs, skip);
}

int emit_x_branch_define(uint64_t from, uint64_t to, unsigned kind, unsigned flags)
{
	if (kind > 255 || flags > 255 ||
	    x_grow((void **)&x_branches, &x_capbranches, x_nbranches, sizeof(*x_branches)) < 0)
		return kind > 255 || flags > 255 ? -ITRACE_E_INVAL : -ITRACE_E_NOMEM;
	x_branches[x_nbranches] = (struct x_branch){from, to, (uint8_t)kind, (uint8_t)flags, 0, NULL};
	return (int)x_nbranches++;
}

int emit_x_branch_seq_define(size_t k, const int *ids)
{
	int *copy;

	if (k == 0 || k > ITRACE_SEQ_MAX)
		return -ITRACE_E_INVAL;
	for (size_t i = 0; i < k; i++)
		if (ids[i] < 0 || (size_t)ids[i] >= x_nbranches || x_branches[ids[i]].k)
			return -ITRACE_E_INVAL; /* branches, not sequences */
	if (x_grow((void **)&x_branches, &x_capbranches, x_nbranches, sizeof(*x_branches)) < 0 ||
	    !(copy = malloc(k * sizeof(*ids))))
		return -ITRACE_E_NOMEM;
	memcpy(copy, ids, k * sizeof(*ids));
	x_branches[x_nbranches] = (struct x_branch){.k = (uint32_t)k, .ids = copy};
	return (int)x_nbranches++;
}

/* x_branch - the BRANCH record of branch definition b. */
static int x_branch(struct emit_sink *s, const struct x_branch *b)
{
	return emit_put_branch(s, b->from, b->to, b->kind, b->flags);
}

int emit_x_branch_ids(struct emit_sink *s, size_t n, const int *ids)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] < 0 || (size_t)ids[i] >= x_nbranches)
			return -ITRACE_E_INVAL;
	for (size_t i = 0; i < n; i++) {
		const struct x_branch *b = &x_branches[ids[i]];

		if (!b->k)
			EMIT_TRY(x_branch(s, b));
		for (uint32_t j = 0; j < b->k; j++)
			EMIT_TRY(x_branch(s, &x_branches[b->ids[j]]));
	}
	return 0;
}
