/* collect_ring.c - the --ring flight recorder (see collect_ring.h). */
#include "collect_ring.h"

#include <stdlib.h>
#include <string.h>

#include "emit.h"

int collect_ring_init(struct collect_ring *r, uint64_t branches)
{
	memset(r, 0, sizeof(*r));
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

static int write_switch(struct itrace_writer *w, const struct collect_ring_entry *e,
			uint32_t *last_tid)
{
	struct itrace_record rec;

	if (e->tid == *last_tid)
		return 0;
	emit_thread(&rec, ITRACE_THREAD_SWITCH, e->tid, e->pid, 0);
	*last_tid = e->tid;
	return itrace_writer_write(w, &rec);
}

static int write_entry(struct itrace_writer *w, const struct collect_ring_entry *e,
		       uint32_t *last_tid)
{
	struct itrace_record rec;
	int rc = write_switch(w, e, last_tid);

	if (rc < 0)
		return rc;
	if (e->type == ITRACE_REC_BRANCH)
		return itrace_writer_branch(w, e->u.branch.from, e->u.branch.to, e->u.branch.kind,
					   e->u.branch.flags);
	emit_signal(&rec, &e->u.signal);
	return itrace_writer_write(w, &rec);
}

static int write_lost(struct itrace_writer *w, uint8_t unit, uint64_t count)
{
	struct itrace_record rec;

	emit_lost(&rec, ITRACE_LOST_OVERFLOW, unit, count);
	return itrace_writer_write(w, &rec);
}

int collect_ring_write(const struct collect_ring *r, struct itrace_writer *w, uint32_t *last_tid)
{
	uint64_t first = r->head > r->cap ? r->head - r->cap : 0; /* oldest branch kept */
	uint64_t s = r->nsig > COLLECT_RING_SIGNALS ? r->nsig - COLLECT_RING_SIGNALS : 0;
	int rc = 0;

	/* signals before the oldest kept branch go with the branches before it */
	while (s < r->nsig && r->sig[s % COLLECT_RING_SIGNALS].pos < first)
		s++;
	if (first)
		rc = write_lost(w, ITRACE_UNIT_BRANCHES, first);
	/* more signals among the kept branches than the ring holds: how many
	 * is unknown (count 0) */
	if (rc >= 0 && r->sig_overwritten && r->sig_overwritten_pos >= first)
		rc = write_lost(w, ITRACE_UNIT_RECORDS, 0);
	for (uint64_t i = first; rc >= 0 && i <= r->head; i++) {
		for (; rc >= 0 && s < r->nsig && r->sig[s % COLLECT_RING_SIGNALS].pos == i; s++)
			rc = write_entry(w, &r->sig[s % COLLECT_RING_SIGNALS].e, last_tid);
		if (rc >= 0 && i < r->head)
			rc = write_entry(w, &r->e[i % r->cap], last_tid);
	}
	return rc < 0 ? rc : 0;
}
