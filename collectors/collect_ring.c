/* collect_ring.c - the --ring flight recorder (see collect_ring.h). */
#include "collect_ring.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The ring as a sink: its branches and signals. */
static int ring_put(struct emit_sink *s, const struct itrace_record *rec)
{
	struct collect_ring *r = (struct collect_ring *)((char *)s - offsetof(struct collect_ring, sink));
	struct collect_ring_entry e = {.tid = s->tid, .pid = s->pid, .type = rec->type};

	if (rec->type == ITRACE_REC_BRANCH)
		e.u.branch = rec->u.branch;
	else if (rec->type == ITRACE_REC_SIGNAL)
		e.u.signal = rec->u.signal;
	else
		return -ITRACE_E_INVAL;
	collect_ring_push(r, &e);
	return 0;
}

int collect_ring_init(struct collect_ring *r, uint64_t branches)
{
	memset(r, 0, sizeof(*r));
	r->sink.put = ring_put;
	if (branches == 0 || branches > SIZE_MAX / sizeof(*r->e))
		return -ITRACE_E_INVAL;
	r->e = calloc((size_t)branches, sizeof(*r->e));
	if (!r->e)
		return -ITRACE_E_NOMEM;
	r->cap = branches;
	return 0;
}

void collect_ring_free(struct collect_ring *r)
{
	free(r->e);
	r->e = NULL;
}

void collect_ring_push(struct collect_ring *r, const struct collect_ring_entry *e)
{
	if (e->type != ITRACE_REC_BRANCH) {
		uint64_t k = r->nsig % COLLECT_RING_SIGNALS;

		if (r->nsig >= COLLECT_RING_SIGNALS) {
			r->sig_overwritten = 1;
			r->sig_overwritten_pos = r->sig[k].pos;
		}
		r->sig[k].pos = r->head;
		r->sig[k].e = *e;
		r->nsig++;
		return;
	}
	r->e[r->head % r->cap] = *e;
	r->head++;
}

static int write_switch(struct emit_sink *out, const struct collect_ring_entry *e,
			uint32_t *last_tid)
{
	if (e->tid == *last_tid)
		return 0;
	*last_tid = e->tid;
	return emit_thread(out, ITRACE_THREAD_SWITCH, e->tid, e->pid, 0);
}

static int write_entry(struct emit_sink *out, const struct collect_ring_entry *e,
		       uint32_t *last_tid)
{
	EMIT_TRY(write_switch(out, e, last_tid));
	if (e->type == ITRACE_REC_BRANCH)
		return emit_branch(out, e->u.branch.from, e->u.branch.to, e->u.branch.kind,
				   e->u.branch.flags);
	return emit_signal(out, &e->u.signal);
}

int collect_ring_write(const struct collect_ring *r, struct emit_sink *out, uint32_t *last_tid)
{
	uint64_t first = r->head > r->cap ? r->head - r->cap : 0; /* oldest branch kept */
	uint64_t s = r->nsig > COLLECT_RING_SIGNALS ? r->nsig - COLLECT_RING_SIGNALS : 0;
	int rc = 0;

	/* signals before the oldest kept branch go with the branches before it */
	while (s < r->nsig && r->sig[s % COLLECT_RING_SIGNALS].pos < first)
		s++;
	if (first)
		rc = emit_lost(out, ITRACE_LOST_OVERFLOW, ITRACE_UNIT_BRANCHES, first);
	/* more signals among the kept branches than the ring holds: how many
	 * is unknown (count 0) */
	if (rc >= 0 && r->sig_overwritten && r->sig_overwritten_pos >= first)
		rc = emit_lost(out, ITRACE_LOST_OVERFLOW, ITRACE_UNIT_RECORDS, 0);
	for (uint64_t i = first; rc >= 0 && i <= r->head; i++) {
		for (; rc >= 0 && s < r->nsig && r->sig[s % COLLECT_RING_SIGNALS].pos == i; s++)
			rc = write_entry(out, &r->sig[s % COLLECT_RING_SIGNALS].e, last_tid);
		if (rc >= 0 && i < r->head)
			rc = write_entry(out, &r->e[i % r->cap], last_tid);
	}
	return rc < 0 ? rc : 0;
}
