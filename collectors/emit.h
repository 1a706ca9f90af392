/*
 * emit.h - the one place collectors turn events into records.
 *
 * Every record a collector writes is built here, one function per record
 * type of format/ITRACE.md section 6.4 that a collector writes, and goes
 * into a sink: the trace writer, or anything else that receives records
 * on their way to it (the --ring flight recorder of collect_ring.h, the
 * QEMU converter's records held back until a signal handler returns).
 * Nothing outside emit.c fills a struct itrace_record or calls the
 * writer's record functions: tests/e2e/emit_only.sh fails if a collector
 * does.
 *
 * The records of every executed instruction (BRANCH, INSN, INSN_RUN, MEM,
 * BLOCK, BRANCH_SEQ) are static inline functions that call the writer's
 * fast path directly when the sink is the writer: a converter pays one
 * predictable test for the sink, no record step.
 *
 * Every function returns 0 or a negative ITRACE_E_* error (the writer's,
 * or the sink's).
 */
#ifndef ITRACE_COLLECT_EMIT_H
#define ITRACE_COLLECT_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "itrace.h"

/* Return a negative (writer) error from the enclosing function: the
 * converters' way through a sequence of writes. */
#define EMIT_TRY(call)                    \
	do {                              \
		int try_rc_ = (call);     \
		if (try_rc_ < 0)          \
			return try_rc_;   \
	} while (0)

/*
 * struct emit_sink - where records go.  `put` NULL: straight to the
 * writer `w`.  Otherwise `put` receives each record (its tid and pid set
 * from the sink's, the thread it belongs to, for a sink that keeps records
 * of several threads); `w` is still the writer of the trace, which alone
 * keeps the dictionaries of BLOCK and BRANCH_SEQ records (the emit_block*
 * and emit_branch_id* functions write to it whatever `put` is).
 */
struct emit_sink {
	struct itrace_writer *w;
	int (*put)(struct emit_sink *s, const struct itrace_record *rec);
	uint32_t tid, pid; /* the thread records put now belong to */
	/* 1 under itrace-collect --handler: BLOCK and BRANCH_SEQ calls are
	 * expanded here into the records they stand for and go to `put`
	 * (the handlers see every instruction and branch), with the
	 * definitions kept by the emitter, not the writer. */
	unsigned expand;
};

/*
 * The handler pass (itrace-collect --handler, collect_handlers.c): when
 * set, every record of every sink made by emit_writer_sink() goes to
 * pass(pass_arg, rec) instead of the writer, which then writes what the
 * handlers keep.  Set before the first sink is made; NULL (the default):
 * the writer's fast paths, untouched.
 */
struct emit_pass {
	int (*pass)(void *arg, const struct itrace_record *rec);
	void *arg;
};
extern const struct emit_pass *emit_pass;

/* emit_pass_put - a sink's `put` for the handler pass. */
int emit_pass_put(struct emit_sink *s, const struct itrace_record *rec);

/* emit_writer_sink - the sink that is the writer `w` itself (or, under
 * --handler, the handler pass before it). */
static inline struct emit_sink emit_writer_sink(struct itrace_writer *w)
{
	if (emit_pass)
		return (struct emit_sink){.w = w, .put = emit_pass_put, .expand = 1};
	return (struct emit_sink){.w = w};
}

/*
 * emit_record - pass on a record the emitter built and a sink kept (the
 * ring, a held-back queue): to `put`, or written.
 */
int emit_record(struct emit_sink *s, const struct itrace_record *rec);

/* ---- Context records (6.5.5 to 6.5.14) --------------------------------- */

/* MMAP (6.5.5): the mapping `m` (path and build-id copied from it). */
int emit_mmap(struct emit_sink *s, const struct itrace_mmap *m);

/* CODE (6.5.6): len bytes of code at addr that no file holds. */
int emit_code(struct emit_sink *s, uint64_t addr, const uint8_t *bytes, size_t len);

/* THREAD (6.5.7): event of thread tid of pid; other: new tid or status. */
int emit_thread(struct emit_sink *s, int event, uint32_t tid, uint32_t pid, uint64_t other);

/* THREAD_NAME (6.5.7): thread tid of pid is now called name[0..len). */
int emit_thread_name(struct emit_sink *s, uint32_t tid, uint32_t pid, const char *name,
		     size_t len);

/* PROCESS (6.5.8): event of pid; other: parent or former pid; status of
 * an exit; name (NULL: none) of a start or exec, NUL-terminated. */
int emit_process(struct emit_sink *s, int event, uint32_t pid, uint64_t other, int64_t status,
		 const char *name);

/* emit_process_n - the same with a name of len bytes, not terminated. */
int emit_process_n(struct emit_sink *s, int event, uint32_t pid, uint64_t other, int64_t status,
		   const char *name, size_t len);

/* SYSCALL (6.5.9) entered: number and its nargs (at most
 * ITRACE_SYSCALL_MAX_ARGS) arguments. */
int emit_syscall_enter(struct emit_sink *s, uint64_t nr, size_t nargs, const uint64_t *args);

/* SYSCALL (6.5.9) returned: number and return value. */
int emit_syscall_exit(struct emit_sink *s, uint64_t nr, int64_t ret);

/* SIGNAL (6.5.10). */
int emit_signal(struct emit_sink *s, const struct itrace_signal *sig);

/* TRACE_CTL (6.5.12): tracing on or off, why, where. */
int emit_ctl(struct emit_sink *s, int on, int reason, uint64_t addr);

/* TRACE_CTL (6.5.12) of a window the policy opened or closed: reason
 * TRIGGER, with the option that fired (enum itrace_ctl_trigger, and which
 * --start/--stop: index). */
int emit_ctl_trigger(struct emit_sink *s, int on, uint64_t addr, int by, uint32_t index);

/* LOST (6.5.13): count units lost, and why. */
int emit_lost(struct emit_sink *s, int reason, int unit, uint64_t count);

/* GAP (6.5.14): execution from addr to resume (0: unknown) is missing;
 * count: what was skipped, if known. */
int emit_gap(struct emit_sink *s, int reason, uint64_t addr, uint64_t resume, uint64_t count);

/* ---- Execution records (6.5.1 to 6.5.4, 6.5.15, 6.5.16) ----------------- */

/* The same records for a sink that is not the writer (emit.c). */
int emit_put_branch(struct emit_sink *s, uint64_t from, uint64_t to, unsigned kind,
		    unsigned flags);
int emit_put_insn(struct emit_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes);
int emit_put_insns(struct emit_sink *s, uint64_t addr, size_t n, const uint8_t *lens);
int emit_put_mem(struct emit_sink *s, uint64_t addr, uint64_t size, unsigned flags);

/* BRANCH (6.5.1): enum itrace_branch_kind, enum itrace_branch_flags. */
static inline int emit_branch(struct emit_sink *s, uint64_t from, uint64_t to, unsigned kind,
			      unsigned flags)
{
	if (!s->put)
		return itrace_writer_branch(s->w, from, to, kind, flags);
	return emit_put_branch(s, from, to, kind, flags);
}

/* INSN (6.5.3) of len bytes at addr; bytes NULL: without its bytes, which
 * the writer packs into INSN_RUN records (6.5.2). */
static inline int emit_insn(struct emit_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	if (!s->put)
		return itrace_writer_insn(s->w, addr, len, bytes);
	return emit_put_insn(s, addr, len, bytes);
}

/* n sequential instructions from addr, of lengths lens[0..n) (INSN_RUN). */
static inline int emit_insns(struct emit_sink *s, uint64_t addr, size_t n, const uint8_t *lens)
{
	if (!s->put)
		return itrace_writer_insns(s->w, addr, n, lens);
	return emit_put_insns(s, addr, n, lens);
}

/* MEM (6.5.4): enum itrace_mem_flags. */
static inline int emit_mem(struct emit_sink *s, uint64_t addr, uint64_t size, unsigned flags)
{
	if (!s->put)
		return itrace_writer_mem(s->w, addr, size, flags);
	return emit_put_mem(s, addr, size, flags);
}

/*
 * The same definitions and executions kept by the emitter and expanded
 * into INSN, MEM and BRANCH records to `put` (a sink with `expand`: the
 * handler pass); ids are the emitter's, one numbering per process.
 */
int emit_x_block_define(uint64_t addr, size_t n, const uint8_t *lens, size_t m,
			const struct itrace_block_access *acc);
int emit_x_block(struct emit_sink *s, int id, const uint64_t *addrs);
int emit_x_blocks(struct emit_sink *s, size_t n, const int *ids, const uint64_t *addrs);
int emit_x_block_partial(struct emit_sink *s, int id, size_t ninsns, const uint64_t *addrs,
			 const uint8_t *skip);
int emit_x_branch_define(uint64_t from, uint64_t to, unsigned kind, unsigned flags);
int emit_x_branch_seq_define(size_t k, const int *ids);
int emit_x_branch_ids(struct emit_sink *s, size_t n, const int *ids);

/*
 * BLOCK (6.5.15) and BRANCH_SEQ (6.5.16) name what the writer's
 * dictionaries hold: they go to the writer, whatever the sink's `put`
 * (but for a sink with `expand`, above).  The same arguments and results
 * as the writer's functions of these names (itrace.h).
 */
static inline int emit_block_define(struct emit_sink *s, uint64_t addr, size_t n,
				    const uint8_t *lens, size_t m, const struct itrace_block_access *acc)
{
	if (s->expand)
		return emit_x_block_define(addr, n, lens, m, acc);
	return itrace_writer_block_define(s->w, addr, n, lens, m, acc);
}

static inline int emit_block(struct emit_sink *s, int id, const uint64_t *addrs)
{
	if (s->expand)
		return emit_x_block(s, id, addrs);
	return itrace_writer_block(s->w, id, addrs);
}

static inline int emit_blocks(struct emit_sink *s, size_t n, const int *ids, const uint64_t *addrs)
{
	if (s->expand)
		return emit_x_blocks(s, n, ids, addrs);
	return itrace_writer_blocks(s->w, n, ids, addrs);
}

static inline int emit_block_partial(struct emit_sink *s, int id, size_t ninsns,
				     const uint64_t *addrs, const uint8_t *skip)
{
	if (s->expand)
		return emit_x_block_partial(s, id, ninsns, addrs, skip);
	return itrace_writer_block_partial(s->w, id, ninsns, addrs, skip);
}

static inline int emit_branch_define(struct emit_sink *s, uint64_t from, uint64_t to,
				     unsigned kind, unsigned flags)
{
	if (s->expand)
		return emit_x_branch_define(from, to, kind, flags);
	return itrace_writer_branch_define(s->w, from, to, kind, flags);
}

static inline int emit_branch_seq_define(struct emit_sink *s, size_t k, const int *ids)
{
	if (s->expand)
		return emit_x_branch_seq_define(k, ids);
	return itrace_writer_branch_seq_define(s->w, k, ids);
}

static inline int emit_branch_id(struct emit_sink *s, int id)
{
	if (s->expand)
		return emit_x_branch_ids(s, 1, &id);
	return itrace_writer_branch_id(s->w, id);
}

static inline int emit_branch_ids(struct emit_sink *s, size_t n, const int *ids)
{
	if (s->expand)
		return emit_x_branch_ids(s, n, ids);
	return itrace_writer_branch_ids(s->w, n, ids);
}

#endif
