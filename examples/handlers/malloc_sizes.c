/*
 * malloc_sizes.c - calls of malloc per call site: a condition on
 * instructions plus a stream (itrace_handler.h).
 *
 *   cc -shared -fPIC -o malloc_sizes.so malloc_sizes.c $(pkg-config --cflags itrace-code)
 *   itrace-run ./malloc_sizes.so[:FUNC] trace.itr
 *
 * The condition: an instruction at the address of FUNC (default "malloc",
 * found with itrace_handler_find_symbol in the mapped files): each entry
 * of FUNC, by a call or a tail call's jump, as callgrind counts calls.
 * Its call site is the thread's previous instruction outside PLT stubs
 * (a call through the PLT counts at the stub's caller).  At stop, to the stream
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

#define RING 8 /* a thread's last instructions: a PLT stub is 1 to 3 */

struct last {
	uint32_t tid;
	uint64_t ring[RING]; /* addresses, ring[n % RING] the oldest */
	unsigned n;
};

struct ms {
	FILE *out;
	uint32_t func_pid;   /* FUNC's address is known for this process */
	uint64_t func_addr;  /* 0: not mapped (yet) */
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

/* is_func - is addr the first instruction of FUNC in process pid?  Its
 * address is looked up again after each MMAP record (libc may come late). */
static int is_func(struct ms *m, uint32_t pid, uint64_t addr)
{
	struct itrace_symbol s;

	if (m->func_pid != pid) {
		m->func_pid = pid;
		m->func_addr = itrace_handler_find_symbol(m->ctx, pid, m->func, &s) == 0 ? s.addr : 0;
	}
	return m->func_addr && addr == m->func_addr;
}

static int ms_mmap(void *data, const struct itrace_record *rec, struct itrace_handler_ctx *ctx)
{
	struct ms *m = data;

	(void)rec, (void)ctx;
	m->func_pid = 0; /* look again */
	return ITRACE_HANDLER_KEEP;
}

/* call_site - the instruction that entered FUNC: the thread's last one
 * outside a PLT stub (the call, or the jump of a tail call). */
static uint64_t call_site(struct ms *m, const struct last *t, uint32_t pid)
{
	for (unsigned k = 1; k <= RING && k <= t->n; k++) {
		uint64_t a = t->ring[(t->n - k) % RING];
		struct itrace_symbol s;

		if (itrace_handler_symbolize(m->ctx, pid, a, ITRACE_SYM_NAME, &s) < 0 || !s.plt)
			return a;
	}
	return 0;
}

static int ms_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	struct ms *m = data;
	const struct itrace_record *r = in->rec;
	struct last *t = thread_of(m, r->tid);

	(void)ctx;
	if (!t)
		return -ITRACE_E_NOMEM;
	if (t->n && is_func(m, r->pid, r->u.insn.addr) && count(m, r->pid, call_site(m, t, r->pid)) < 0)
		return -ITRACE_E_NOMEM;
	t->ring[t->n++ % RING] = r->u.insn.addr;
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
	.name = "malloc_sizes",
	.start = ms_start,
	.stop = ms_stop,
	.insn = ms_insn,
	.mmap = ms_mmap,
};
