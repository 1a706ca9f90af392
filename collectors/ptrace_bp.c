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

struct pt_bp *pt_bp_find(struct pt_process *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nbps; i++)
		if (p->bps[i].addr == addr)
			return &p->bps[i];
	return NULL;
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
	*bp = p->bps[--p->nbps];
}

void pt_bp_remove_all(struct pt_process *p)
{
	for (size_t i = 0; i < p->nbps; i++)
		pt_bp_lift(p, &p->bps[i]);
	p->nbps = 0;
}

void pt_bp_overlay(const struct pt_process *p, uint64_t addr, uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < p->nbps; i++) {
		const struct pt_bp *bp = &p->bps[i];

		if (bp->inserted && bp->addr >= addr && bp->addr < addr + len)
			buf[bp->addr - addr] = bp->orig;
	}
}
