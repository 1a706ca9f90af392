/*
 * collect_ring.h - flight recorder (--ring N): the last N branches, with
 * the signals among them, kept in memory and written when the program
 * ends, so a crash trace shows how the program got there without the
 * cost of writing every branch.
 */
#ifndef ITRACE_COLLECT_RING_H
#define ITRACE_COLLECT_RING_H

#include <stdint.h>

#include "itrace.h"

struct collect_ring_entry {
	uint32_t tid, pid;
	uint8_t type; /* ITRACE_REC_BRANCH or ITRACE_REC_SIGNAL */
	union {
		struct itrace_branch branch;
		struct itrace_signal signal;
	} u;
};

struct collect_ring {
	struct collect_ring_entry *e;
	uint64_t cap;	   /* branches kept */
	uint64_t head;	   /* entries pushed so far */
	uint64_t dropped;  /* branches overwritten */
};

/* collect_ring_init - room for `branches` entries.  Returns 0 or -ITRACE_E_NOMEM. */
int collect_ring_init(struct collect_ring *r, uint64_t branches);
void collect_ring_free(struct collect_ring *r);

/* collect_ring_push - append, overwriting the oldest entry when full. */
void collect_ring_push(struct collect_ring *r, const struct collect_ring_entry *e);

/*
 * collect_ring_write - write a LOST record for the overwritten branches,
 * then the kept entries oldest first, with THREAD switch records where
 * the thread changes.  *last_tid is the writer's current thread (updated).
 * Returns 0 or the writer's negative error.
 */
int collect_ring_write(const struct collect_ring *r, struct itrace_writer *w, uint32_t *last_tid);

#endif
