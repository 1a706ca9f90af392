/*
 * fill.c - branch trace -> instruction trace.
 *
 * For each BRANCH record of a thread, the instructions from the thread's
 * position (the previous branch's target) up to the branch source are
 * recovered by walking the code found through the image.  The walk goes by
 * static blocks (straight-line code up to the first branch), decoded once
 * and cached by (code source, offset), so a loop body costs one hash lookup
 * per iteration instead of one decoder call per instruction.
 *
 * Thread state changes only with input records (a branch sets the position
 * to its target, whatever the walk found), which keeps the walk of one
 * chunk independent of how earlier chunks were walked: fill_par.c relies on
 * that to fill chunks in parallel.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill_int.h"
#include "fill_sink.h"
#include "image_int.h"
#include "itrace_format.h"

/* ---- Threads --------------------------------------------------------- */

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	return x;
}

static struct fill_thread *thread_slot(struct fill_threads *t, uint32_t tid)
{
	size_t mask = t->cap - 1, i = hash32(tid) & mask;

	while (t->slots[i].used && t->slots[i].tid != tid)
		i = (i + 1) & mask;
	return &t->slots[i];
}

static int threads_grow(struct fill_threads *t)
{
	struct fill_threads n = { calloc(t->cap * 2, sizeof(*n.slots)), t->cap * 2, t->count };

	if (!n.slots)
		return -ITRACE_E_NOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].used)
			*thread_slot(&n, t->slots[i].tid) = t->slots[i];
	free(t->slots);
	*t = n;
	return 0; /* callers drop pointers into the old table (last_thread) */
}

/* The state of thread `tid`, created unknown (a GAP at its first branch). */
static struct fill_thread *get_thread(struct fill_ctx *c, uint32_t tid, uint32_t pid)
{
	struct fill_thread *th = c->last_thread;

	/* Records come in runs of one thread: try the last one first. */
	if (th && th->used && th->tid == tid) {
		if (pid)
			th->pid = pid;
		return th;
	}
	th = thread_slot(&c->threads, tid);
	if (th->used) {
		c->last_thread = th;
		if (pid)
			th->pid = pid;
		return th;
	}
	if ((c->threads.count + 1) * 2 > c->threads.cap) {
		c->last_thread = NULL;
		if (threads_grow(&c->threads) < 0)
			return NULL;
		th = thread_slot(&c->threads, tid);
	}
	memset(th, 0, sizeof(*th));
	th->used = 1;
	th->tid = tid;
	th->pid = pid;
	th->pending_reason = ITRACE_GAP_TRACE_OFF;
	c->threads.count++;
	c->last_thread = th;
	return th;
}

/* ---- Output ---------------------------------------------------------- */

static int output(struct fill_ctx *c, const struct itrace_record *rec)
{
	if (c->dry)
		return 0;
	c->st->records_out++;
	return c->sink->ops->record(c->sink, rec);
}

/*
 * Put the output stream on thread tid before its records.  The output's
 * thread is forgotten at every input chunk start (a parallel fill starts
 * each chunk without knowing it), so each chunk's first record may bring a
 * redundant THREAD switch; -j 1 does the same, keeping outputs identical.
 */
static int switch_output(struct fill_ctx *c, uint32_t tid, uint32_t pid)
{
	struct itrace_record rec;

	if (c->out_known && c->out_tid == tid)
		return 0;
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_THREAD;
	rec.u.thread.event = ITRACE_THREAD_SWITCH;
	rec.u.thread.tid = tid;
	rec.u.thread.pid = pid;
	rec.tid = tid;
	rec.pid = pid;
	c->out_tid = tid;
	c->out_pid = pid;
	c->out_known = 1;
	if (c->sink)
		fill_sink_thread(c->sink, tid, pid);
	return output(c, &rec);
}

static int switch_output_to(struct fill_ctx *c, const struct fill_thread *th)
{
	return switch_output(c, th->tid, th->pid);
}

int fill_emit_record(struct fill_ctx *c, const struct itrace_record *rec)
{
	if (rec->type == ITRACE_REC_THREAD && rec->u.thread.event == ITRACE_THREAD_SWITCH) {
		c->out_tid = rec->u.thread.tid;
		c->out_pid = rec->u.thread.pid;
		c->out_known = 1;
		if (c->sink)
			fill_sink_thread(c->sink, c->out_tid, c->out_pid);
	} else if (rec->tid) {
		int rc = switch_output(c, rec->tid, rec->pid);

		if (rc < 0)
			return rc;
	}
	return output(c, rec);
}

/* The sink's chunk boundary (a writer ends its output chunk there). */
static int end_output_chunk(struct fill_ctx *c)
{
	if (c->dry || !c->sink->ops->chunk_end)
		return 0;
	return c->sink->ops->chunk_end(c->sink);
}

int fill_chunk_start(struct fill_ctx *c)
{
	c->out_known = 0;
	return end_output_chunk(c);
}

static inline int emit_insn(struct fill_ctx *c, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	c->st->insns++;
	c->st->records_out++;
	return c->sink->ops->insn(c->sink, addr, len, c->with_bytes ? bytes : NULL);
}

/* Remember which file the first gap of a reason was in, for messages. */
static void note_gap_module(struct fill_ctx *c, uint32_t pid, int reason, uint64_t addr)
{
	struct itrace_image_loc loc;

	if (!c->gap_module || c->dry)
		return;
	itrace_image_lookup(c->img, pid, addr, &loc);
	snprintf(c->gap_module[reason], sizeof(c->gap_module[reason]), "%s", loc.path ? loc.path : "");
}

static int emit_gap(struct fill_ctx *c, struct fill_thread *th, int reason, uint64_t addr,
		    uint64_t resume, uint64_t count)
{
	struct itrace_record rec;
	int rc = switch_output_to(c, th);

	if (rc < 0)
		return rc;
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_GAP;
	rec.tid = th->tid;
	rec.pid = th->pid;
	rec.u.gap.reason = (uint8_t)reason;
	rec.u.gap.addr = addr;
	rec.u.gap.resume = resume;
	rec.u.gap.count = count;
	c->st->gaps++;
	if (reason > 0 && reason < 16) {
		if (!c->st->gap_reason[reason]) {
			c->st->first_gap_addr[reason] = addr;
			note_gap_module(c, th->pid, reason, addr);
		}
		c->st->gap_reason[reason]++;
	}
	return output(c, &rec);
}

/* ---- Block cache ----------------------------------------------------- */

static size_t block_hash(uint32_t module, uint64_t offset, size_t mask)
{
	uint64_t x = offset * 0x9e3779b97f4a7c15ull ^ (uint64_t)module * 0xc2b2ae3d27d4eb4full;

	return (size_t)(x ^ (x >> 29)) & mask;
}

static struct fill_block *cache_find(struct fill_cache *k, uint32_t module, uint64_t offset)
{
	struct fill_block *b = k->buckets[block_hash(module, offset, k->nbuckets - 1)];

	while (b && (b->offset != offset || b->module != module))
		b = b->next;
	return b;
}

static int cache_grow(struct fill_cache *k)
{
	size_t n = k->nbuckets * 2;
	struct fill_block **nb = calloc(n, sizeof(*nb));

	if (!nb)
		return -ITRACE_E_NOMEM;
	for (size_t i = 0; i < k->nbuckets; i++) {
		struct fill_block *b = k->buckets[i], *next;

		for (; b; b = next) {
			size_t h = block_hash(b->module, b->offset, n - 1);

			next = b->next;
			b->next = nb[h];
			nb[h] = b;
		}
	}
	free(k->buckets);
	k->buckets = nb;
	k->nbuckets = n;
	return 0;
}

static int cache_add(struct fill_cache *k, struct fill_block *b)
{
	size_t h;

	if (k->count >= k->nbuckets && cache_grow(k) < 0)
		return -ITRACE_E_NOMEM;
	h = block_hash(b->module, b->offset, k->nbuckets - 1);
	b->next = k->buckets[h];
	k->buckets[h] = b;
	k->count++;
	return 0;
}

static void cache_free(struct fill_cache *k)
{
	for (size_t i = 0; i < k->nbuckets; i++) {
		struct fill_block *b = k->buckets[i], *next;

		for (; b; b = next) {
			next = b->next;
			free(b);
		}
	}
	free(k->buckets);
	k->buckets = NULL;
}

/*
 * Decode straight-line code at `addr` (bytes, avail) into `b` (room for
 * `max` instructions): up to and including the first branch.
 */
static void decode_block(struct fill_ctx *c, struct fill_block *b, const uint8_t *bytes,
			 size_t avail, uint64_t addr, uint32_t max)
{
	size_t off = 0;

	b->bytes = bytes;
	b->ninsn = 0;
	b->nbytes = b->last_off = 0;
	b->end = BLOCK_END_LIMIT;
	b->kind = ITRACE_INSN_NOT_BRANCH;
	b->dflags = 0;
	b->target_rel = 0;
	while (b->ninsn < max) {
		struct itrace_decoded d;

		if (off == avail) {
			b->end = BLOCK_END_CODE;
			return;
		}
		if (itrace_decoder_decode(c->dec, bytes + off, avail - off, addr + off, &d) < 0) {
			b->end = BLOCK_END_DECODE;
			return;
		}
		b->lens[b->ninsn++] = d.len;
		b->last_off = (uint32_t)off;
		off += d.len;
		b->nbytes = (uint32_t)off;
		if (d.kind != ITRACE_INSN_NOT_BRANCH) {
			b->end = BLOCK_END_BRANCH;
			b->kind = d.kind;
			b->dflags = d.flags;
			b->target_rel = (int64_t)(d.target - addr);
			return;
		}
	}
}

/* ---- Image lookups --------------------------------------------------- */

static int gap_reason_of(int rc)
{
	switch (rc) {
	case -ITRACE_E_NOENT:
		return ITRACE_GAP_NO_MAPPING;
	case -ITRACE_E_BUILDID:
		return ITRACE_GAP_BUILDID;
	default:
		return ITRACE_GAP_NO_BINARY;
	}
}

/*
 * Code at pc of process pid: fills *module, *offset, *bytes, *avail.
 * Returns 0 or a GAP reason (> 0).
 */
static int code_at(struct fill_ctx *c, uint32_t pid, uint64_t pc, uint32_t *module,
		   uint64_t *offset, const uint8_t **bytes, size_t *avail)
{
	struct fill_loc_cache *l = &c->loc;
	uint64_t gen = image_generation(c->img);

	if (!l->valid || l->pid != pid || l->generation != gen || pc < l->start || pc >= l->end) {
		struct itrace_image_loc loc;
		int rc = itrace_image_lookup(c->img, pid, pc, &loc);

		if (rc < 0)
			return gap_reason_of(rc);
		l->valid = 1;
		l->pid = pid;
		l->generation = gen;
		l->start = loc.start;
		l->end = loc.end;
		l->off0 = loc.offset - (pc - loc.start);
		l->bytes0 = loc.bytes - (pc - loc.start);
		l->bytes_end = loc.bytes + loc.avail;
		l->module = loc.module;
	}
	*bytes = l->bytes0 + (pc - l->start);
	if (*bytes >= l->bytes_end)
		return ITRACE_GAP_NO_BINARY; /* past the end of the file */
	*module = l->module;
	*offset = l->off0 + (pc - l->start);
	*avail = (size_t)(l->bytes_end - *bytes);
	return 0;
}

/* The block at pc; NULL with *reason set when there is no code. */
static const struct fill_block *block_at(struct fill_ctx *c, uint32_t pid, uint64_t pc,
					 int *reason)
{
	struct fill_recent *rec = &c->recent[(pc ^ (pc >> 9)) & (FILL_RECENT - 1)];
	uint64_t gen = image_generation(c->img);
	struct fill_block *b;
	const uint8_t *bytes;
	uint64_t offset;
	uint32_t module;
	size_t avail;

	if (rec->block && rec->pc == pc && rec->pid == pid && rec->generation == gen) {
		c->st->blocks_reused++;
		return rec->block;
	}
	*reason = code_at(c, pid, pc, &module, &offset, &bytes, &avail);
	if (*reason)
		return NULL;
	if (c->opts->flags & ITRACE_FILL_NO_CACHE) {
		/* The naive fill: the decoder on every executed instruction. */
		decode_block(c, c->scratch, bytes, avail, pc, 1);
		c->st->blocks_decoded++;
		return c->scratch;
	}
	b = cache_find(&c->cache, module, offset);
	if (b) {
		c->st->blocks_reused++;
		*rec = (struct fill_recent){ pc, gen, pid, b };
		return b;
	}
	b = malloc(sizeof(*b) + FILL_BLOCK_MAX);
	if (!b) {
		*reason = -ITRACE_E_NOMEM;
		return NULL;
	}
	decode_block(c, b, bytes, avail, pc, FILL_BLOCK_MAX);
	b->module = module;
	b->offset = offset;
	if (cache_add(&c->cache, b) < 0) {
		free(b);
		*reason = -ITRACE_E_NOMEM;
		return NULL;
	}
	c->st->blocks_decoded++;
	*rec = (struct fill_recent){ pc, gen, pid, b };
	return b;
}

/* ---- The walk -------------------------------------------------------- */

enum walk_mode {
	WALK_TO_INCL,	 /* up to and including `to` */
	WALK_TO_EXCL,	 /* up to `to`, which has not run (interrupt) */
	WALK_TO_SYSCALL, /* up to and including the next syscall instruction */
};

struct walk {
	enum walk_mode mode;
	uint64_t to;
	uint64_t steps;
	int silent;	   /* pass over the instructions without emitting */
	int reason;	   /* GAP reason when the walk failed */
	uint64_t gap_addr; /* where it failed */
};

/*
 * After a block that ended in a branch which is not the walk's goal:
 * where does execution continue?  Returns 0 with *pc updated, or a GAP
 * reason.
 */
static int continue_after(struct fill_ctx *c, const struct fill_block *b, uint64_t start,
			  uint64_t last, uint64_t next, uint64_t *pc)
{
	switch (b->kind) {
	case ITRACE_BRANCH_COND:
		if (!c->taken_only)
			return ITRACE_GAP_BRANCH_NOT_REACHED;
		*pc = next; /* absent from a taken-only trace: not taken */
		return 0;
	case ITRACE_BRANCH_UNCOND:
	case ITRACE_BRANCH_CALL:
		if (!(b->dflags & ITRACE_DECODED_HAS_TARGET))
			return ITRACE_GAP_BRANCH_NOT_REACHED;
		*pc = start + (uint64_t)b->target_rel;
		return 0;
	case ITRACE_BRANCH_SYSCALL:
		*pc = next;
		return 0;
	default:
		(void)last;
		return ITRACE_GAP_BRANCH_NOT_REACHED;
	}
}

/*
 * Walk thread th from its pc according to w, emitting instructions.
 * Returns 0 (w->reason 0 on success, else the walk failed at
 * w->gap_addr), or a negative code from the output.  On success th->pc is
 * where the walk ended: after the goal instruction (or at it for
 * WALK_TO_EXCL).
 */
static int walk_blocks(struct fill_ctx *c, struct fill_thread *th, struct walk *w);

static int walk(struct fill_ctx *c, struct fill_thread *th, struct walk *w)
{
	int rc;

	w->reason = 0;
	if (c->dry)
		return 0;
	while (th->skip_syscalls) {
		/* A new thread starts after its parent's clone/fork syscall. */
		struct walk skip = { .mode = WALK_TO_SYSCALL, .silent = 1 };

		th->skip_syscalls--;
		rc = walk_blocks(c, th, &skip);
		if (rc < 0 || skip.reason) {
			*w = skip;
			return rc;
		}
	}
	rc = switch_output_to(c, th);
	if (rc < 0)
		return rc;
	return walk_blocks(c, th, w);
}

/*
 * Emit the first n instructions of block b, which starts at pc.  Cached
 * blocks live as long as the fill, so a sink may keep the block and count
 * (a parallel worker's buffer); the one-instruction scratch block does not.
 */
static int emit_range(struct fill_ctx *c, const struct fill_block *b, uint64_t pc, uint32_t n)
{
	c->st->insns += n;
	c->st->records_out += n;
	return c->sink->ops->block(c->sink, pc, b, n, c->with_bytes, b != c->scratch);
}

enum { SCAN_THROUGH, SCAN_GOAL, SCAN_LIMIT };

/*
 * How far a walk goes into block b (at pc): through it, to the goal (index
 * *ip, at *ap), or to the step limit (index *ip).  Steps count the
 * instructions before the goal.  Mostly the goal is the block's last
 * instruction or lies outside it, which needs no scan.
 */
static int scan_block(const struct fill_ctx *c, const struct fill_block *b, uint64_t pc,
		      struct walk *w, uint32_t *ip, uint64_t *ap)
{
	int seek = w->mode != WALK_TO_SYSCALL;
	uint64_t a = pc;

	if (w->steps + b->ninsn <= c->opts->max_walk && b->ninsn &&
	    (!seek || w->to < pc || w->to - pc >= b->nbytes || w->to - pc == b->last_off)) {
		if (seek && w->to >= pc && w->to - pc == b->last_off) {
			w->steps += b->ninsn - 1;
			*ip = b->ninsn - 1;
			*ap = w->to;
			return SCAN_GOAL;
		}
		w->steps += b->ninsn;
		*ip = b->ninsn;
		*ap = pc + b->nbytes;
		return SCAN_THROUGH;
	}
	for (uint32_t i = 0; i < b->ninsn; i++) {
		*ip = i;
		*ap = a;
		if (seek && a == w->to)
			return SCAN_GOAL;
		if (++w->steps > c->opts->max_walk)
			return SCAN_LIMIT;
		a += b->lens[i];
	}
	*ip = b->ninsn;
	*ap = a;
	return SCAN_THROUGH;
}

static int walk_blocks(struct fill_ctx *c, struct fill_thread *th, struct walk *w)
{
	uint64_t pc = th->pc;
	int rc;

	w->reason = 0;
	for (;;) {
		int reason, stop = 0;
		const struct fill_block *b = block_at(c, th->pid, pc, &reason);
		uint64_t a = pc;
		uint32_t i;

		if (!b) {
			if (reason < 0)
				return reason;
			w->reason = reason;
			w->gap_addr = pc;
			return 0;
		}
		stop = scan_block(c, b, pc, w, &i, &a);
		if (stop == SCAN_GOAL) {
			int incl = w->mode == WALK_TO_INCL;

			if (!w->silent && (rc = emit_range(c, b, pc, i + incl)) < 0)
				return rc;
			th->pc = a + (incl ? b->lens[i] : 0);
			return 0;
		}
		if (stop == SCAN_LIMIT) {
			if (!w->silent && (rc = emit_range(c, b, pc, i + 1)) < 0)
				return rc;
			w->reason = ITRACE_GAP_BRANCH_NOT_REACHED;
			w->gap_addr = a;
			return 0;
		}
		if (!w->silent && (rc = emit_range(c, b, pc, b->ninsn)) < 0)
			return rc;
		if (b->end == BLOCK_END_DECODE) {
			w->reason = ITRACE_GAP_UNDECODABLE;
			w->gap_addr = a;
			return 0;
		}
		if (b->end != BLOCK_END_BRANCH) {
			pc = a;
			continue;
		}
		if (w->mode == WALK_TO_SYSCALL && b->kind == ITRACE_BRANCH_SYSCALL) {
			th->pc = a;
			return 0;
		}
		reason = continue_after(c, b, pc, a - b->lens[b->ninsn - 1], a, &pc);
		if (reason) {
			w->reason = reason;
			w->gap_addr = a - b->lens[b->ninsn - 1];
			return 0;
		}
	}
}

/* Walk to the syscall instructions the thread entered but has not walked. */
static int walk_lazy_syscalls(struct fill_ctx *c, struct fill_thread *th, uint32_t keep)
{
	while (th->lazy_syscalls > keep) {
		struct walk w = { .mode = WALK_TO_SYSCALL };
		int rc;

		th->lazy_syscalls--;
		if (!th->known)
			continue;
		rc = walk(c, th, &w);
		if (rc < 0)
			return rc;
		if (w.reason) {
			th->known = 0;
			th->pending_reason = 0; /* reported now */
			rc = emit_gap(c, th, w.reason, w.gap_addr, 0, 0);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int on_branch(struct fill_ctx *c, struct fill_thread *th, const struct itrace_branch *b);

/*
 * Is the thread just past the syscall instruction at `at`, which a SIGNAL
 * names as its pc?  Then the kernel restarts that system call after the
 * handler (ITRACE.md 6.5.10): the instruction ran once (its SYSCALL ENTER
 * is walked), the thread is back at it, and there is nothing to walk.  A
 * dry context walks nothing anyway and its pc follows records only.
 */
static int restarts_syscall(struct fill_ctx *c, const struct fill_thread *th, uint64_t at)
{
	const struct fill_block *b;
	int reason;

	if (c->dry || !th->known || at >= th->pc || th->pc - at > ITRACE_INSN_MAX_LEN)
		return 0;
	b = block_at(c, th->pid, at, &reason);
	return b && b->ninsn == 1 && b->end == BLOCK_END_BRANCH && b->kind == ITRACE_BRANCH_SYSCALL &&
	       at + b->nbytes == th->pc;
}

/*
 * A signal interrupted the thread before signal->pc: walk up to it (a
 * fatal signal has no branch to the handler after it), or, when pc is the
 * system call just entered, back to it (restarts_syscall).  The branch to
 * the handler that follows, if any, then walks nothing.
 */
static int on_signal(struct fill_ctx *c, struct fill_thread *th, const struct itrace_signal *sig)
{
	struct itrace_branch b = { sig->pc, sig->pc, ITRACE_BRANCH_INTERRUPT, ITRACE_BRANCH_TAKEN };
	int rc;

	if (!sig->pc)
		return 0;
	rc = on_branch(c, th, &b);
	c->st->branches--; /* not a branch of the input */
	return rc;
}

static int on_branch(struct fill_ctx *c, struct fill_thread *th, const struct itrace_branch *b)
{
	struct walk w = { .mode = b->kind == ITRACE_BRANCH_INTERRUPT ? WALK_TO_EXCL : WALK_TO_INCL,
			  .to = b->from };
	/* sigreturn and execve are syscalls that branch; their SYSCALL record follows. */
	int is_syscall = b->kind == ITRACE_BRANCH_SYSCALL || b->kind == ITRACE_BRANCH_SIGRETURN;
	int rc;

	c->st->branches++;
	/* A syscall branch is the walk to the syscall its SYSCALL record announced. */
	rc = walk_lazy_syscalls(c, th, is_syscall && th->lazy_syscalls ? 1 : 0);
	if (rc < 0)
		return rc;
	th->syscall_branch = is_syscall && !th->lazy_syscalls;
	th->lazy_syscalls = 0;
	if (!th->known) {
		if (th->pending_reason) {
			rc = emit_gap(c, th, th->pending_reason, th->pending_addr, b->to,
				      th->pending_count);
			if (rc < 0)
				return rc;
		}
	} else if (b->kind != ITRACE_BRANCH_INTERRUPT || !restarts_syscall(c, th, b->from)) {
		rc = walk(c, th, &w);
		if (rc < 0)
			return rc;
		if (w.reason && (rc = emit_gap(c, th, w.reason, w.gap_addr, b->to, 0)) < 0)
			return rc;
	}
	th->pc = b->to;
	th->known = 1;
	th->pending_reason = 0;
	th->pending_count = 0;
	th->skip_syscalls = 0;
	return 0;
}

/* The thread's position is lost until its next branch. */
static void lose_position(struct fill_thread *th, int reason, uint64_t count)
{
	if (th->known || !th->pending_reason) {
		th->pending_addr = th->known ? th->pc : 0;
		th->pending_count = 0;
	}
	th->known = 0;
	th->pending_reason = (uint8_t)reason;
	th->pending_count += count;
	th->lazy_syscalls = 0;
	th->skip_syscalls = 0;
}

/*
 * A new thread (or the first thread of a forked process) continues where
 * its parent is: after the parent's syscalls not yet walked and the clone
 * or fork itself.
 */
static int inherit_position(struct fill_ctx *c, uint32_t parent_tid, uint32_t tid, uint32_t pid)
{
	struct fill_thread *parent = get_thread(c, parent_tid, 0), *child;
	uint64_t pc;
	uint32_t skip;
	int known;

	if (!parent)
		return -ITRACE_E_NOMEM;
	known = parent->known && parent->skip_syscalls == 0;
	pc = parent->pc;
	skip = parent->lazy_syscalls + 1;
	child = get_thread(c, tid, pid);
	if (!child)
		return -ITRACE_E_NOMEM;
	if (!known || child->known)
		return 0;
	child->pc = pc;
	child->known = 1;
	child->pending_reason = 0;
	child->lazy_syscalls = 0;
	child->skip_syscalls = skip;
	return 0;
}

static int on_trace_ctl(struct fill_ctx *c, struct fill_thread *th, const struct itrace_trace_ctl *t)
{
	int rc;

	if (t->on) {
		rc = walk_lazy_syscalls(c, th, 0);
		th->pc = t->addr;
		th->known = t->addr != 0;
		th->skip_syscalls = 0;
		th->pending_reason = th->known ? 0 : ITRACE_GAP_TRACE_OFF;
		th->pending_count = 0;
		return rc;
	}
	rc = walk_lazy_syscalls(c, th, 0);
	if (rc == 0 && th->known && t->addr) {
		struct walk w = { .mode = WALK_TO_EXCL, .to = t->addr };

		rc = walk(c, th, &w);
		if (rc == 0 && w.reason)
			rc = emit_gap(c, th, w.reason, w.gap_addr, 0, 0);
	}
	lose_position(th, ITRACE_GAP_TRACE_OFF, 0);
	th->pending_addr = t->addr;
	return rc;
}

static int on_thread_end(struct fill_ctx *c, struct fill_thread *th)
{
	int rc = walk_lazy_syscalls(c, th, 0);

	th->known = 0;
	th->pending_reason = ITRACE_GAP_TRACE_OFF;
	th->pending_addr = 0;
	th->skip_syscalls = 0;
	return rc;
}

/* Records that change thread state, before they are passed on. */
static int update_state(struct fill_ctx *c, const struct itrace_record *rec)
{
	struct fill_thread *th = get_thread(c, rec->tid, rec->pid);
	int rc = 0;

	if (!th)
		return -ITRACE_E_NOMEM;
	switch (rec->type) {
	case ITRACE_REC_SYSCALL:
		if (rec->u.syscall.dir != ITRACE_SYSCALL_ENTER)
			break;
		if (th->syscall_branch)
			th->syscall_branch = 0; /* its branch came first */
		else
			th->lazy_syscalls++;
		break;
	case ITRACE_REC_TRACE_CTL:
		rc = on_trace_ctl(c, th, &rec->u.ctl);
		break;
	case ITRACE_REC_SIGNAL:
		rc = on_signal(c, th, &rec->u.signal);
		break;
	case ITRACE_REC_LOST:
		lose_position(th, ITRACE_GAP_LOST_INPUT, rec->u.lost.count);
		break;
	case ITRACE_REC_GAP:
		/* The input explains this gap itself: no second GAP. */
		th->pc = rec->u.gap.resume;
		th->known = rec->u.gap.resume != 0;
		th->pending_reason = 0;
		th->lazy_syscalls = 0;
		th->skip_syscalls = 0;
		break;
	case ITRACE_REC_THREAD:
		if (rec->u.thread.event == ITRACE_THREAD_CREATE && rec->u.thread.other)
			rc = inherit_position(c, (uint32_t)rec->u.thread.other, rec->u.thread.tid,
					      rec->u.thread.pid);
		if (rec->u.thread.event == ITRACE_THREAD_EXIT) {
			struct fill_thread *ex = get_thread(c, rec->u.thread.tid, rec->u.thread.pid);

			rc = ex ? on_thread_end(c, ex) : -ITRACE_E_NOMEM;
		}
		break;
	case ITRACE_REC_PROCESS:
		if (rec->u.process.event == ITRACE_PROCESS_EXIT ||
		    rec->u.process.event == ITRACE_PROCESS_EXEC)
			rc = on_thread_end(c, th);
		else if (rec->u.process.event == ITRACE_PROCESS_FORK)
			rc = inherit_position(c, rec->tid, (uint32_t)rec->u.process.other,
					      (uint32_t)rec->u.process.other);
		break;
	default:
		break;
	}
	return rc;
}

int fill_branch(struct fill_ctx *c, uint32_t tid, uint32_t pid, const struct itrace_branch *b)
{
	struct fill_thread *th = get_thread(c, tid, pid);

	c->st->records_in++;
	if (!th)
		return -ITRACE_E_NOMEM;
	return on_branch(c, th, b);
}

int fill_record(struct fill_ctx *c, const struct itrace_record *rec)
{
	struct fill_thread *th;
	int rc;

	c->st->records_in++;
	switch (rec->type) {
	case ITRACE_REC_BRANCH:
		th = get_thread(c, rec->tid, rec->pid);
		if (!th)
			return -ITRACE_E_NOMEM;
		return on_branch(c, th, &rec->u.branch);
	case ITRACE_REC_UNKNOWN:
		c->st->unknown_dropped++;
		return 0;
	case ITRACE_REC_MMAP:
	case ITRACE_REC_CODE:
		rc = itrace_image_apply(c->img, rec);
		if (rc < 0)
			return rc;
		return fill_emit_record(c, rec);
	default:
		rc = update_state(c, rec);
		if (rc < 0)
			return rc;
		if (rec->type == ITRACE_REC_PROCESS && (rc = itrace_image_apply(c->img, rec)) < 0)
			return rc;
		return fill_emit_record(c, rec);
	}
}

static int tid_cmp(const void *a, const void *b)
{
	uint32_t x = (*(const struct fill_thread *const *)a)->tid;
	uint32_t y = (*(const struct fill_thread *const *)b)->tid;

	return x < y ? -1 : x > y;
}

int fill_finish(struct fill_ctx *c)
{
	struct fill_thread **list;
	size_t n = 0;
	int rc = end_output_chunk(c);

	if (rc < 0)
		return rc;
	list = malloc((c->threads.count + 1) * sizeof(*list));
	if (!list)
		return -ITRACE_E_NOMEM;
	for (size_t i = 0; i < c->threads.cap; i++)
		if (c->threads.slots[i].used && c->threads.slots[i].lazy_syscalls)
			list[n++] = &c->threads.slots[i];
	/* tid order: the same output whatever the table's layout. */
	qsort(list, n, sizeof(*list), tid_cmp);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = walk_lazy_syscalls(c, list[i], 0);
	free(list);
	return rc;
}

void fill_forget_positions(struct fill_ctx *c)
{
	for (size_t i = 0; i < c->threads.cap; i++) {
		struct fill_thread *th = &c->threads.slots[i];

		if (th->used) {
			lose_position(th, 0, 0);
			th->pending_reason = 0;
		}
	}
}

uint64_t fill_thread_position(struct fill_ctx *c, uint32_t tid)
{
	struct fill_thread *th = thread_slot(&c->threads, tid);

	return th->used && th->known ? th->pc : 0;
}

/* ---- Context --------------------------------------------------------- */

int fill_ctx_init(struct fill_ctx *c, const struct itrace_fill_options *o,
		  const struct itrace_header *h, struct itrace_fill_stats *st)
{
	struct itrace_image_options io;
	int rc;

	memset(c, 0, sizeof(*c));
	c->opts = o;
	c->st = st;
	c->taken_only = !!(h->flags & ITRACE_FF_TAKEN_ONLY);
	c->with_bytes = !!(o->flags & ITRACE_FILL_BYTES);
	rc = itrace_decoder_alloc(h->machine, h->target_endian, &c->dec);
	if (rc < 0)
		return rc;
	itrace_image_options_init(&io);
	io.sysroot = o->sysroot;
	io.debug_dir = o->debug_dir;
	rc = itrace_image_alloc(&io, &c->img);
	c->cache.nbuckets = 1024;
	c->cache.buckets = calloc(c->cache.nbuckets, sizeof(*c->cache.buckets));
	c->threads.cap = 16;
	c->threads.slots = calloc(c->threads.cap, sizeof(*c->threads.slots));
	c->scratch = malloc(sizeof(*c->scratch) + 1);
	if (rc == 0 && (!c->cache.buckets || !c->threads.slots || !c->scratch))
		rc = -ITRACE_E_NOMEM;
	if (rc < 0)
		fill_ctx_fini(c);
	return rc;
}

void fill_ctx_fini(struct fill_ctx *c)
{
	cache_free(&c->cache);
	free(c->threads.slots);
	free(c->scratch);
	itrace_image_free(c->img);
	itrace_decoder_free(c->dec);
	memset(c, 0, sizeof(*c));
}
