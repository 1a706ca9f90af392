/*
 * collect_tracecheck.c - collect-tracecheck, an oracle for the collector's tests.
 *
 *   collect-tracecheck agree INSN.itr BRANCH.itr
 *
 * Checks that an insn-level and a branch-level trace of the same
 * deterministic run agree, thread by thread: every branch of the branch
 * trace is an instruction of the insn trace followed by the branch's
 * target (or, for a signal delivery, a SIGNAL record with that pc and
 * handler), and every discontinuity of the insn trace is such a branch.
 * Prints "agree: N branches" or the first disagreement; exits 0/1.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"

/* One event of a thread: an executed instruction, a delivered signal,
 * or a break in the flow (exec, tracing off) where nothing is implied. */
struct ev {
	uint64_t a, b; /* INSN: addr, len; SIGNAL: pc, handler; BRANCH: from, to */
	uint8_t type;  /* 'I', 'S', 'X' (break), 'B' */
	uint8_t taken;
};

struct evlist {
	uint32_t tid;
	struct ev *v;
	size_t n, cap;
};

struct threads {
	struct evlist *t;
	size_t n;
};

static struct evlist *thread_list(struct threads *ts, uint32_t tid)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].tid == tid)
			return &ts->t[i];
	ts->t = realloc(ts->t, (ts->n + 1) * sizeof(*ts->t));
	if (!ts->t)
		abort();
	memset(&ts->t[ts->n], 0, sizeof(ts->t[0]));
	ts->t[ts->n].tid = tid;
	return &ts->t[ts->n++];
}

static void push(struct evlist *l, struct ev e)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	l->v[l->n++] = e;
}

static int load(const char *path, struct threads *ts)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	int rc = itrace_reader_open(path, &r);

	if (rc < 0) {
		fprintf(stderr, "collect-tracecheck: cannot open '%s': %s\n", path, itrace_errstr(rc));
		return -1;
	}
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		struct evlist *l = thread_list(ts, rec.tid);

		switch (rec.type) {
		case ITRACE_REC_INSN:
			push(l, (struct ev){rec.u.insn.addr, rec.u.insn.len, 'I', 0});
			break;
		case ITRACE_REC_BRANCH:
			push(l, (struct ev){rec.u.branch.from, rec.u.branch.to, 'B',
					    (uint8_t)(rec.u.branch.flags & ITRACE_BRANCH_TAKEN)});
			break;
		case ITRACE_REC_SIGNAL:
			if (rec.u.signal.handler)
				push(l, (struct ev){rec.u.signal.pc, rec.u.signal.handler, 'S', 0});
			break;
		case ITRACE_REC_PROCESS:
		case ITRACE_REC_TRACE_CTL:
			push(l, (struct ev){0, 0, 'X', 0});
			break;
		default:
			break;
		}
	}
	itrace_reader_close(r);
	if (rc < 0) {
		fprintf(stderr, "collect-tracecheck: '%s' is damaged: %s\n", path, itrace_errstr(rc));
		return -1;
	}
	return 0;
}

/* Walk one thread's insn events against its branch events. */
static int agree_thread(const struct evlist *in, const struct evlist *br, uint64_t *count)
{
	size_t j = 0;

	for (size_t i = 0; i < in->n; i++) {
		const struct ev *e = &in->v[i], *next = i + 1 < in->n ? &in->v[i + 1] : NULL;
		const struct ev *b;

		while (j < br->n && br->v[j].type != 'B')
			j++;
		b = j < br->n ? &br->v[j] : NULL;
		if (e->type == 'S') {
			if (!b || b->a != e->a || b->b != e->b) {
				printf("tid %u: signal %#" PRIx64 " -> %#" PRIx64 " has no branch\n",
				       in->tid, e->a, e->b);
				return -1;
			}
			j++, (*count)++;
			continue;
		}
		if (e->type != 'I' || !next || next->type != 'I') {
			if (b && e->type == 'I' && b->a == e->a)
				j++, (*count)++; /* last insn before a break: its branch */
			continue;
		}
		if (b && b->a == e->a) {
			if (b->b != next->a) {
				printf("tid %u: branch %#" PRIx64 " -> %#" PRIx64 " but insn trace goes to %#" PRIx64 "\n",
				       in->tid, b->a, b->b, next->a);
				return -1;
			}
			j++, (*count)++;
		} else if (next->a != e->a + e->b && next->a != e->a) {
			printf("tid %u: insn trace jumps %#" PRIx64 " -> %#" PRIx64 " with no branch\n",
			       in->tid, e->a, next->a);
			return -1;
		}
	}
	while (j < br->n && br->v[j].type != 'B')
		j++;
	if (j < br->n) {
		printf("tid %u: branch %#" PRIx64 " -> %#" PRIx64 " not in the insn trace\n", br->tid,
		       br->v[j].a, br->v[j].b);
		return -1;
	}
	return 0;
}

static void free_threads(struct threads *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->t[i].v);
	free(ts->t);
}

/* Threads are matched by order of appearance: tids differ between runs. */
static int compare(struct threads *in, struct threads *br)
{
	uint64_t count = 0;

	if (in->n != br->n) {
		printf("%zu threads in the insn trace, %zu in the branch trace\n", in->n, br->n);
		return 1;
	}
	for (size_t i = 0; i < in->n; i++)
		if (agree_thread(&in->t[i], &br->t[i], &count))
			return 1;
	printf("agree: %" PRIu64 " branches\n", count);
	return 0;
}

static int agree(const char *insn_path, const char *branch_path)
{
	struct threads in = {0}, br = {0};
	int rc = load(insn_path, &in) || load(branch_path, &br) ? 1 : compare(&in, &br);

	free_threads(&in);
	free_threads(&br);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "agree") == 0)
		return agree(argv[2], argv[3]);
	fprintf(stderr, "usage: collect-tracecheck agree INSN.itr BRANCH.itr\n");
	return 2;
}
