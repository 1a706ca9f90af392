/*
 * malloc_sizes.c - calls of malloc per call site: a condition on
 * instructions plus a stream (itrace_handler.h).
 *
 *   cc -shared -fPIC -o malloc_sizes.so malloc_sizes.c $(pkg-config --cflags itrace-code)
 *   itrace-run ./malloc_sizes.so[:FUNC] trace.itr
 *
 * The condition: an instruction that is the first of FUNC (default
 * "malloc": the address of the symbol the driver's symbolizer gives) and
 * whose thread's previous instruction was a call (ITRACE_HANDLER_DECODE:
 * the decoder says call or indirect call).  A call through the PLT counts
 * at the PLT stub's caller, as the stub jumps on.  At stop, to the stream
 * "malloc_sizes", one line per call site sorted by count, then address:
 *   CALLS CALL_SITE_ADDR SYMBOL+OFFSET
 *
 * Why call sites and not sizes: an itrace records no register values
 * (format/ITRACE.md: INSN, MEM, BRANCH carry addresses only), so malloc's
 * argument (rdi on x86-64) is not in the trace.  The sizes need a
 * collector that records arguments at a trigger (issue 34's
 * `FUNC if argK OP VALUE` conditions are evaluated online for that
 * reason).  Not shard-safe (totals).
 */
#include <itrace_handler.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct callsite {
	uint64_t addr, calls;
	uint32_t pid;
};

struct last {
	uint32_t tid;
	uint64_t addr; /* the thread's last instruction if it was a call, else 0 */
	uint64_t from; /* the call site (kept through PLT stubs) */
};

struct ms {
	FILE *out;
	const char *func;
	struct callsite *sites;
	size_t n;
	struct last *threads;
	size_t nthreads;
	struct itrace_handler_ctx *ctx;
};

static int ms_start(struct itrace_handler_ctx *ctx, const char *args, void **data)
{
	struct ms *m = calloc(1, sizeof(*m));

	if (!m)
		return -ITRACE_E_NOMEM;
	m->ctx = ctx;
	m->func = *args ? args : "malloc";
	if (!(m->out = itrace_handler_stream_open(ctx, "malloc_sizes"))) {
		free(m);
		return -ITRACE_E_IO;
	}
	*data = m;
	return 0;
}

static struct last *thread_of(struct ms *m, uint32_t tid)
{
	struct last *p;

	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == tid)
			return &m->threads[i];
	p = realloc(m->threads, (m->nthreads + 1) * sizeof(*p));
	if (!p)
		return NULL;
	m->threads = p;
	p = &m->threads[m->nthreads++];
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	return p;
}

static int count(struct ms *m, uint32_t pid, uint64_t site)
{
	struct callsite *s;

	for (size_t i = 0; i < m->n; i++)
		if (m->sites[i].addr == site && m->sites[i].pid == pid) {
			m->sites[i].calls++;
			return 0;
		}
	s = realloc(m->sites, (m->n + 1) * sizeof(*s));
	if (!s)
		return -ITRACE_E_NOMEM;
	m->sites = s;
	m->sites[m->n++] = (struct callsite){ .addr = site, .calls = 1, .pid = pid };
	return 0;
}

static int ms_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	struct ms *m = data;
	const struct itrace_record *r = in->rec;
	struct last *t = thread_of(m, r->tid);
	int is_call;

	if (!t)
		return -ITRACE_E_NOMEM;
	if (t->addr) {
		struct itrace_symbol s;
		int plt = 0;

		/* entered something by a call: FUNC itself, or a PLT stub on the way */
		if (itrace_handler_symbolize(ctx, r->pid, r->u.insn.addr, ITRACE_SYM_NAME, &s) == 0) {
			if (s.name && !s.plt && s.offset == 0 && strcmp(s.name, m->func) == 0 &&
			    count(m, r->pid, t->from) < 0)
				return -ITRACE_E_NOMEM;
			plt = s.plt;
		}
		if (!plt)
			t->from = 0;
	}
	is_call = in->info && (in->info->d.kind == ITRACE_BRANCH_CALL ||
			       in->info->d.kind == ITRACE_BRANCH_INDIRECT_CALL);
	if (is_call) {
		t->addr = r->u.insn.addr;
		t->from = r->u.insn.addr;
	} else if (!t->from) {
		t->addr = 0;
	}
	return ITRACE_HANDLER_KEEP;
}

static int by_calls(const void *x, const void *y)
{
	const struct callsite *a = x, *b = y;

	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int ms_stop(void *data, struct itrace_handler_ctx *ctx)
{
	struct ms *m = data;

	if (m->n)
		qsort(m->sites, m->n, sizeof(*m->sites), by_calls);
	for (size_t i = 0; i < m->n; i++) {
		struct itrace_symbol s;

		if (itrace_handler_symbolize(ctx, m->sites[i].pid, m->sites[i].addr, ITRACE_SYM_NAME, &s) == 0 &&
		    s.name)
			fprintf(m->out, "%" PRIu64 " 0x%" PRIx64 " %s+0x%" PRIx64 "\n", m->sites[i].calls,
				m->sites[i].addr, s.name, s.offset);
		else
			fprintf(m->out, "%" PRIu64 " 0x%" PRIx64 " ?\n", m->sites[i].calls, m->sites[i].addr);
	}
	free(m->sites);
	free(m->threads);
	free(m);
	return 0;
}

const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler),
	.abi = ITRACE_HANDLER_ABI,
	.flags = ITRACE_HANDLER_DECODE,
	.name = "malloc_sizes",
	.start = ms_start,
	.stop = ms_stop,
	.insn = ms_insn,
};
