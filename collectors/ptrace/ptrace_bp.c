/*
 * ptrace_bp.c - int3 breakpoints of the ptrace backend.  The program
 * never sees them: code is read through pt_bp_overlay(), a thread that
 * must execute the instruction under one lifts it for a single step, and
 * their SIGTRAPs are consumed by the backend.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptrace_internal.h"

#define INT3 0xcc

/*
 * The index: open addressing over bps[] by address, a slot holding index
 * + 1 (0: empty), at least twice as many slots as breakpoints.  --only
 * sets one on every way into the module (thousands), and every step looks
 * its pc up.
 */
static size_t bp_hash(uint64_t addr, size_t nslots)
{
	return (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 20) & (nslots - 1);
}

static const struct pt_bp *bp_lookup(const struct pt_process *p, uint64_t addr)
{
	if (!p->bp_nslots)
		return NULL;
	for (size_t h = bp_hash(addr, p->bp_nslots);; h = (h + 1) & (p->bp_nslots - 1)) {
		size_t v = p->bp_slots[h];

		if (!v)
			return NULL;
		if (p->bps[v - 1].addr == addr)
			return &p->bps[v - 1];
	}
}

/* The slot holding addr's index (it must be there). */
static size_t bp_slot_of(const struct pt_process *p, uint64_t addr)
{
	size_t h = bp_hash(addr, p->bp_nslots);

	while (p->bps[p->bp_slots[h] - 1].addr != addr)
		h = (h + 1) & (p->bp_nslots - 1);
	return h;
}

/*
 * Empty addr's slot, moving later entries of its probe run back into the
 * hole (backward-shift deletion of linear probing: an entry moves if the
 * hole lies between its home slot and where it is).
 */
static void bp_index_remove(struct pt_process *p, uint64_t addr)
{
	size_t mask = p->bp_nslots - 1, hole = bp_slot_of(p, addr);

	p->bp_slots[hole] = 0;
	for (size_t j = (hole + 1) & mask; p->bp_slots[j]; j = (j + 1) & mask) {
		size_t home = bp_hash(p->bps[p->bp_slots[j] - 1].addr, p->bp_nslots);

		if (((j - home) & mask) >= ((j - hole) & mask)) {
			p->bp_slots[hole] = p->bp_slots[j];
			p->bp_slots[j] = 0;
			hole = j;
		}
	}
}

static void bp_index_put(struct pt_process *p, size_t i)
{
	size_t h = bp_hash(p->bps[i].addr, p->bp_nslots);

	while (p->bp_slots[h])
		h = (h + 1) & (p->bp_nslots - 1);
	p->bp_slots[h] = i + 1;
}

int pt_bp_reindex(struct pt_process *p)
{
	size_t n = p->bp_nslots ? p->bp_nslots : 16;

	while (n < 2 * p->nbps + 2)
		n *= 2;
	if (n != p->bp_nslots) { /* it only grows: a rebuild after a removal cannot fail */
		size_t *v = realloc(p->bp_slots, n * sizeof(*v));

		if (!v)
			return -1;
		p->bp_slots = v;
		p->bp_nslots = n;
	}
	memset(p->bp_slots, 0, n * sizeof(*p->bp_slots));
	for (size_t i = 0; i < p->nbps; i++)
		bp_index_put(p, i);
	return 0;
}

struct pt_bp *pt_bp_find(struct pt_process *p, uint64_t addr)
{
	return (struct pt_bp *)bp_lookup(p, addr);
}

static int write_byte(struct pt_process *p, uint64_t addr, uint8_t b)
{
	return pwrite(p->mem_fd, &b, 1, (off_t)addr) == 1 ? 0 : -1;
}

int pt_bp_insert(struct pt_process *p, struct pt_bp *bp)
{
	if (bp->inserted)
		return 0;
	if (pread(p->mem_fd, &bp->orig, 1, (off_t)bp->addr) != 1 ||
	    write_byte(p, bp->addr, INT3))
		return -1;
	bp->inserted = 1;
	return 0;
}

int pt_bp_lift(struct pt_process *p, struct pt_bp *bp)
{
	if (!bp->inserted)
		return 0;
	if (write_byte(p, bp->addr, bp->orig))
		return -1;
	bp->inserted = 0;
	return 0;
}

/* Add role `kind` at `addr`, inserting the int3 if it is new. */
int pt_bp_add(struct pt_process *p, uint64_t addr, unsigned kind)
{
	struct pt_bp *bp = pt_bp_find(p, addr);

	if (!bp) {
		if (p->nbps == p->capbps) {
			size_t cap = p->capbps ? 2 * p->capbps : 8;
			struct pt_bp *n = realloc(p->bps, cap * sizeof(*n));

			if (!n)
				return -1;
			p->bps = n;
			p->capbps = cap;
		}
		bp = &p->bps[p->nbps++];
		memset(bp, 0, sizeof(*bp));
		bp->addr = addr;
		if (2 * p->nbps + 2 <= p->bp_nslots) {
			bp_index_put(p, p->nbps - 1);
		} else if (pt_bp_reindex(p)) {
			p->nbps--;
			return -1;
		}
	}
	bp->kinds |= kind;
	return pt_bp_insert(p, bp);
}

/* Drop role `kind`; the breakpoint goes when it has no role left. */
void pt_bp_drop_kind(struct pt_process *p, uint64_t addr, unsigned kind)
{
	struct pt_bp *bp = pt_bp_find(p, addr);

	if (!bp)
		return;
	bp->kinds &= ~kind;
	if (bp->kinds)
		return;
	pt_bp_lift(p, bp);
	/* the last breakpoint fills its place in bps[], and the index follows */
	bp_index_remove(p, addr);
	if (bp != &p->bps[p->nbps - 1]) {
		p->bp_slots[bp_slot_of(p, p->bps[p->nbps - 1].addr)] = (size_t)(bp - p->bps) + 1;
		*bp = p->bps[p->nbps - 1];
	}
	p->nbps--;
}

void pt_bp_remove_all(struct pt_process *p)
{
	for (size_t i = 0; i < p->nbps; i++)
		pt_bp_lift(p, &p->bps[i]);
	p->nbps = 0;
	pt_bp_reindex(p);
}

void pt_bp_overlay(const struct pt_process *p, uint64_t addr, uint8_t *buf, size_t len)
{
	if (len <= 64) { /* an instruction's bytes: look each address up */
		for (size_t k = 0; k < len; k++) {
			const struct pt_bp *bp = bp_lookup(p, addr + k);

			if (bp && bp->inserted)
				buf[k] = bp->orig;
		}
		return;
	}
	for (size_t i = 0; i < p->nbps; i++) {
		const struct pt_bp *bp = &p->bps[i];

		if (bp->inserted && bp->addr >= addr && bp->addr < addr + len)
			buf[bp->addr - addr] = bp->orig;
	}
}
