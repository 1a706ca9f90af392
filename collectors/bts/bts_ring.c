/*
 * bts_ring.c - read what the kernel writes into a perf event's mapped
 * buffers: the data ring (sideband records, AUX records, legacy branch
 * samples) and the AUX area (raw BTS records), as laid out in
 * include/uapi/linux/perf_event.h.  Pure memory processing: the live
 * backend points it at the kernel's mappings, the tests at buffers they
 * fill byte by byte.
 */
#include <stdlib.h>
#include <string.h>

#include "bts.h"

void bts_ring_fini(struct bts_ring *r)
{
	free(r->scratch);
	r->scratch = NULL;
	r->scratch_size = 0;
}

static int scratch_reserve(struct bts_ring *r, size_t n)
{
	uint8_t *p;

	if (n <= r->scratch_size)
		return 0;
	p = realloc(r->scratch, n);
	if (!p)
		return -ITRACE_E_NOMEM;
	r->scratch = p;
	r->scratch_size = n;
	return 0;
}

/* [pos, pos+n) of a ring of `size` bytes (a power of two), contiguous. */
static const uint8_t *ring_bytes(struct bts_ring *r, const uint8_t *ring, size_t size, uint64_t pos,
				 size_t n)
{
	size_t off = (size_t)(pos & (size - 1));

	if (off + n <= size)
		return ring + off;
	if (scratch_reserve(r, n))
		return NULL;
	memcpy(r->scratch, ring + off, size - off);
	memcpy(r->scratch + (size - off), ring, n - (size - off));
	return r->scratch;
}

/* The sample_id trailer is {pid, tid} (TID) then IDENTIFIER: see bts_ring. */
static void trailer_ids(const uint8_t *rec, size_t size, uint32_t *pid, uint32_t *tid)
{
	*pid = size >= PR_HEADER_SIZE + 16 ? bts_le32(rec + size - 16) : 0;
	*tid = size >= PR_HEADER_SIZE + 16 ? bts_le32(rec + size - 12) : 0;
}

static int lost_event(struct bts_ring *r, uint32_t pid, uint32_t tid, uint8_t unit, uint64_t count)
{
	struct bts_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_LOST;
	ev.pid = pid;
	ev.tid = tid;
	ev.u.lost.reason = ITRACE_LOST_OVERFLOW;
	ev.u.lost.unit = unit;
	ev.u.lost.count = count;
	return r->fn(r->ctx, &ev);
}

/*
 * PERF_RECORD_AUX: [offset, offset+size) of the AUX area now holds the
 * thread's records.  In full-trace mode they are converted and the area
 * handed back by advancing aux_tail; a TRUNCATED area is followed by a
 * LOST record (the kernel does not say how many branches were dropped).
 */
static int handle_aux(struct bts_ring *r, const uint8_t *rec, size_t size)
{
	struct perf_aux_info aux;
	uint32_t pid, tid;
	int rc = 0;

	if (perf_record_aux(rec, size, &aux) || !r->aux)
		return 0;
	trailer_ids(rec, size, &pid, &tid);
	if (!r->overwrite && aux.size && aux.size <= r->aux_size) {
		const uint8_t *p = ring_bytes(r, r->aux, r->aux_size, aux.offset, (size_t)aux.size);
		if (!p)
			return -ITRACE_E_NOMEM;
		rc = bts_convert(p, (size_t)aux.size, pid, tid, r->spaces, r->fn, r->ctx, &r->cst);
		__atomic_store_n(&r->pg->aux_tail, aux.offset + aux.size, __ATOMIC_SEQ_CST);
	}
	if (!rc && (aux.flags & PR_AUX_FLAG_TRUNCATED)) {
		r->truncated++;
		rc = lost_event(r, pid, tid, ITRACE_UNIT_RECORDS, 1);
	}
	return rc;
}

/* Legacy path sample: IDENTIFIER, IP (from), TID (pid, tid), ADDR (to). */
static int handle_sample(struct bts_ring *r, const uint8_t *rec, size_t size)
{
	struct bts_event ev;

	if (size < PR_HEADER_SIZE + 32)
		return 0;
	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_BRANCH;
	ev.u.branch.from = bts_le64(rec + 16);
	ev.pid = bts_le32(rec + 24);
	ev.tid = bts_le32(rec + 28);
	ev.u.branch.to = bts_le64(rec + 32);
	r->cst.records++;
	if (!bts_branch_wanted(ev.u.branch.from, ev.u.branch.to, r->spaces)) {
		r->cst.filtered++;
		return 0;
	}
	r->cst.branches++;
	return r->fn(r->ctx, &ev);
}

static int handle_record(struct bts_ring *r, const uint8_t *rec, size_t size)
{
	struct bts_event ev;
	uint32_t type = bts_le32(rec);

	switch (type) {
	case PR_AUX:
		return handle_aux(r, rec, size);
	case PR_SAMPLE:
		return r->legacy ? handle_sample(r, rec, size) : 0;
	case PR_LOST:
		return size >= 24 ? lost_event(r, 0, 0, r->legacy ? ITRACE_UNIT_BRANCHES : ITRACE_UNIT_RECORDS,
					       bts_le64(rec + 16))
				  : 0;
	case PR_LOST_SAMPLES:
		return size >= 16 ? lost_event(r, 0, 0, ITRACE_UNIT_BRANCHES, bts_le64(rec + 8)) : 0;
	default:
		return perf_record_sideband(rec, size, &ev) == 1 ? r->fn(r->ctx, &ev) : 0;
	}
}

int bts_ring_drain(struct bts_ring *r)
{
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail;
	int rc = 0;

	while (tail + PR_HEADER_SIZE <= head) {
		const uint8_t *h = ring_bytes(r, r->data, r->data_size, tail, PR_HEADER_SIZE);
		size_t size = h ? bts_le16(h + 6) : 0;
		const uint8_t *rec;

		if (size < PR_HEADER_SIZE || tail + size > head) {
			rc = size < PR_HEADER_SIZE ? -ITRACE_E_CORRUPT : 0;
			break;
		}
		rec = ring_bytes(r, r->data, r->data_size, tail, size);
		if (!rec)
			return -ITRACE_E_NOMEM;
		rc = handle_record(r, rec, size);
		tail += size;
		if (rc)
			break;
	}
	/* Hand the space back to the kernel only after the records are used. */
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	return rc;
}

int bts_ring_snapshot(struct bts_ring *r, uint32_t pid, uint32_t tid, uint64_t last)
{
	uint64_t head = __atomic_load_n(&r->pg->aux_head, __ATOMIC_ACQUIRE);
	size_t slots = r->aux_size / BTS_RECORD_SIZE, next, n = 0, first;

	if (!r->aux || !slots)
		return 0;
	next = (size_t)(head % r->aux_size) / BTS_RECORD_SIZE;
	if (scratch_reserve(r, slots * BTS_RECORD_SIZE))
		return -ITRACE_E_NOMEM;
	for (size_t k = 0; k < slots; k++) {
		const uint8_t *rec = r->aux + ((next + k) % slots) * BTS_RECORD_SIZE;
		if (!bts_le64(rec) && !bts_le64(rec + 8))
			continue; /* never written, or padding */
		memcpy(r->scratch + n * BTS_RECORD_SIZE, rec, BTS_RECORD_SIZE);
		n++;
	}
	first = last < n ? n - (size_t)last : 0;
	return bts_convert(r->scratch + first * BTS_RECORD_SIZE, (n - first) * BTS_RECORD_SIZE, pid, tid,
			   r->spaces, r->fn, r->ctx, &r->cst);
}
