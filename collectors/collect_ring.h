/*
 * collect_ring.h - flight recorder (--ring N): the last N branches, with
 * the signals among them, kept in memory and written when the program
 * ends, so a crash trace shows how the program got there without the
 * cost of writing every branch.
 */
#ifndef ITRACE_COLLECT_RING_H
#define ITRACE_COLLECT_RING_H

#include <stdint.h>

#include "emit.h"
#include "itrace.h"

struct collect_ring_entry {
	uint32_t tid, pid;
	uint8_t type; /* ITRACE_REC_BRANCH or ITRACE_REC_SIGNAL */
	union {
		struct itrace_branch branch;
		struct itrace_signal signal;
	} u;
};

/* Signals kept beside the branches (the last ones, with where they came). */
#define COLLECT_RING_SIGNALS 256

struct collect_ring {
	/* the ring as a sink (set by collect_ring_init): BRANCH and SIGNAL
	 * records of thread sink.tid of sink.pid are pushed; it takes no
	 * other record (-ITRACE_E_INVAL) */
	struct emit_sink sink;
	struct collect_ring_entry *e; /* the branches */
	uint64_t cap;	   /* branches kept: exactly the last `cap` */
	uint64_t head;	   /* branches pushed so far */
	struct {
		uint64_t pos;	/* branches pushed before it */
		struct collect_ring_entry e;
	} sig[COLLECT_RING_SIGNALS];
	uint64_t nsig;	   /* signals pushed so far */
	int sig_overwritten; /* a signal was overwritten by a later one, */
	uint64_t sig_overwritten_pos; /* the last of them came after this many branches */
};

/* collect_ring_init - room for `branches` branches (signals take no room
 * from them).  Returns 0 or -ITRACE_E_NOMEM. */
int collect_ring_init(struct collect_ring *r, uint64_t branches);
void collect_ring_free(struct collect_ring *r);

/* collect_ring_sink - the ring as a sink, for what thread tid of pid
 * does next. */
static inline struct emit_sink *collect_ring_sink(struct collect_ring *r, uint32_t tid, uint32_t pid)
{
	r->sink.tid = tid;
	r->sink.pid = pid;
	return &r->sink;
}

/* collect_ring_push - append a branch (overwriting the oldest when full)
 * or a signal. */
void collect_ring_push(struct collect_ring *r, const struct collect_ring_entry *e);

/*
 * collect_ring_write - write into `out` a LOST record for the overwritten branches,
 * then the last `cap` branches oldest first, with the signals among them
 * (those that came after the oldest kept branch's predecessor) in their
 * place, and THREAD switch records where the thread changes.  *last_tid is
 * the writer's current thread (updated).  Returns 0 or the writer's
 * negative error.
 */
int collect_ring_write(const struct collect_ring *r, struct emit_sink *out, uint32_t *last_tid);

#endif
