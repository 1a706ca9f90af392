/*
 * branch_hist.c - taken and not-taken counts per conditional branch site:
 * a handler (itrace_handler.h) that asks for decoded instructions
 * (ITRACE_HANDLER_DECODE) and sees whether each thread's next instruction
 * is the one after the branch in memory.
 *
 *   cc -shared -fPIC -o branch_hist.so branch_hist.c $(pkg-config --cflags itrace-code)
 *   itrace-run ./branch_hist.so[:STREAM] trace.itr
 *
 * At stop, one line per site, sorted by address, to STREAM (default
 * "branch_hist"; "-" for standard output):  ADDR TAKEN NOT_TAKEN
 * A branch that is a thread's last instruction (or whose bytes the
 * decoder could not get) is not counted.  Not shard-safe (totals).
 */
#include <itrace_handler.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct site {
	uint64_t addr, taken, not_taken; /* addr 0: free slot */
};

struct pending {
	uint32_t tid;
	uint64_t addr, next; /* the branch and its fall-through; addr 0: none */
};

struct hist {
	FILE *out;
	struct site *sites;
	size_t cap, n;
	struct pending *threads;
	size_t nthreads;
};

static uint64_t hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	return a ^ (a >> 33);
}

static struct site *site_of(struct hist *h, uint64_t addr)
{
	size_t i;

	if (2 * (h->n + 1) > h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 1024;
		struct site *s = calloc(cap, sizeof(*s));

		if (!s)
			return NULL;
		for (size_t k = 0; k < h->cap; k++)
			if (h->sites[k].addr) {
				for (i = hash(h->sites[k].addr) & (cap - 1); s[i].addr; i = (i + 1) & (cap - 1))
					;
				s[i] = h->sites[k];
			}
		free(h->sites);
		h->sites = s;
		h->cap = cap;
	}
	for (i = hash(addr) & (h->cap - 1); h->sites[i].addr; i = (i + 1) & (h->cap - 1))
		if (h->sites[i].addr == addr)
			return &h->sites[i];
	h->sites[i].addr = addr;
	h->n++;
	return &h->sites[i];
}

static struct pending *thread_of(struct hist *h, uint32_t tid)
{
	struct pending *p;

	for (size_t i = 0; i < h->nthreads; i++)
		if (h->threads[i].tid == tid)
			return &h->threads[i];
	p = realloc(h->threads, (h->nthreads + 1) * sizeof(*p));
	if (!p)
		return NULL;
	h->threads = p;
	p = &h->threads[h->nthreads++];
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	return p;
}

static int bh_start(struct itrace_handler_ctx *ctx, const char *args, void **data)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (!h)
		return -ITRACE_E_NOMEM;
	if (!(h->out = itrace_handler_stream_open(ctx, *args ? args : "branch_hist"))) {
		free(h);
		return -ITRACE_E_IO;
	}
	*data = h;
	return 0;
}

static int bh_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	struct hist *h = data;
	struct pending *p = thread_of(h, in->rec->tid);
	uint64_t addr = in->rec->u.insn.addr;

	(void)ctx;
	if (!p)
		return -ITRACE_E_NOMEM;
	if (p->addr) {
		struct site *s = site_of(h, p->addr);

		if (!s)
			return -ITRACE_E_NOMEM;
		if (addr == p->next)
			s->not_taken++;
		else
			s->taken++;
		p->addr = 0;
	}
	if (in->info && in->info->d.kind == ITRACE_BRANCH_COND) {
		p->addr = addr;
		p->next = addr + in->info->d.len;
	}
	return ITRACE_HANDLER_KEEP;
}

static int by_addr(const void *x, const void *y)
{
	const struct site *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int bh_stop(void *data, struct itrace_handler_ctx *ctx)
{
	struct hist *h = data;
	size_t k = 0;

	(void)ctx;
	for (size_t i = 0; i < h->cap; i++)
		if (h->sites[i].addr)
			h->sites[k++] = h->sites[i];
	if (k)
		qsort(h->sites, k, sizeof(*h->sites), by_addr);
	for (size_t i = 0; i < k; i++)
		fprintf(h->out, "0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", h->sites[i].addr,
			h->sites[i].taken, h->sites[i].not_taken);
	free(h->sites);
	free(h->threads);
	free(h);
	return 0;
}

const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler),
	.abi = ITRACE_HANDLER_ABI,
	.flags = ITRACE_HANDLER_DECODE,
	.name = "branch_hist",
	.start = bh_start,
	.stop = bh_stop,
	.insn = bh_insn,
};
