/*
 * fill_par.c - filling chunks in parallel, with output identical to -j 1.
 *
 * The input is handled in windows of a few chunks, in three steps:
 *  1. read (workers): each chunk is read by a worker with its own reader
 *     into a compact in-memory copy, plus a summary of the records that
 *     change thread state (runs of branches of one thread reduced to their
 *     first and last);
 *  2. compose (main thread): the summaries are replayed in order on a
 *     "dry" fill context (state transitions only: fill.c makes them depend
 *     on records, never on walks), giving each chunk's starting thread
 *     states, and the image records are appended to a log;
 *  3. fill (workers): each chunk is filled from its starting state, with
 *     the worker's image brought up to date from the log, into a buffer
 *     that the main thread hands to the output in chunk order.
 * A read error (damage) stops the parallel path at its window: from there
 * the fill goes on sequentially, exactly as -j 1 would.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fill_int.h"

/* ---- Deep copies of records ----------------------------------------- */

/* Copy rec into *dst with its pointed-to data in one malloc'd blob. */
static int copy_record(struct itrace_record *dst, void **blob, const struct itrace_record *src)
{
	const void *data = NULL;
	size_t len = 0;
	char *p;

	*dst = *src;
	*blob = NULL;
	switch (src->type) {
	case ITRACE_REC_MMAP: data = src->u.mmap.path, len = src->u.mmap.path_len; break;
	case ITRACE_REC_CODE: data = src->u.code.bytes, len = src->u.code.len; break;
	case ITRACE_REC_THREAD: data = src->u.thread.name, len = data ? src->u.thread.name_len : 0; break;
	case ITRACE_REC_PROCESS: data = src->u.process.name, len = data ? src->u.process.name_len : 0; break;
	default: return 0;
	}
	if (!data)
		return 0;
	p = malloc(len + 1);
	if (!p)
		return -ITRACE_E_NOMEM;
	memcpy(p, data, len);
	p[len] = 0;
	*blob = p;
	switch (src->type) {
	case ITRACE_REC_MMAP: dst->u.mmap.path = p; break;
	case ITRACE_REC_CODE: dst->u.code.bytes = (const uint8_t *)p; break;
	case ITRACE_REC_THREAD: dst->u.thread.name = p; break;
	default: dst->u.process.name = p; break;
	}
	return 0;
}

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 256;
	p = realloc(*v, ncap * elem);
	if (!p)
		return -ITRACE_E_NOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

/* ---- Output buffers -------------------------------------------------- */

struct fill_buffer {
	uint8_t *data;
	size_t len, cap;
	void **blobs; /* deep copies owned by buffered records */
	size_t nblobs, capblobs;
};

enum { BUF_INSN = 'I', BUF_BLOCK = 'B', BUF_RECORD = 'R' };

static int buffer_reserve(struct fill_buffer *b, size_t n)
{
	size_t ncap;
	uint8_t *p;

	if (b->len + n <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 1 << 16;
	while (ncap < b->len + n)
		ncap *= 2;
	p = realloc(b->data, ncap);
	if (!p)
		return -ITRACE_E_NOMEM;
	b->data = p;
	b->cap = ncap;
	return 0;
}

int fill_buffer_insn(struct fill_buffer *b, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	uint8_t *p;

	if (buffer_reserve(b, 10 + (bytes ? len : 0)) < 0)
		return -ITRACE_E_NOMEM;
	p = b->data + b->len;
	p[0] = BUF_INSN;
	memcpy(p + 1, &addr, 8);
	p[9] = (uint8_t)len;
	if (bytes)
		memcpy(p + 10, bytes, len);
	b->len += 10 + (bytes ? len : 0);
	return 0;
}

/* The first n instructions of cached block blk, starting at addr. */
int fill_buffer_block(struct fill_buffer *b, uint64_t addr, const struct fill_block *blk, uint32_t n)
{
	uint8_t *p;

	if (n == 0)
		return 0;
	if (buffer_reserve(b, 21) < 0)
		return -ITRACE_E_NOMEM;
	p = b->data + b->len;
	p[0] = BUF_BLOCK;
	memcpy(p + 1, &addr, 8);
	memcpy(p + 9, &blk, sizeof(blk));
	memcpy(p + 17, &n, 4);
	b->len += 21;
	return 0;
}

int fill_buffer_append(struct fill_buffer *b, const struct itrace_record *rec)
{
	struct itrace_record copy;
	void *blob;

	if (rec->type == ITRACE_REC_INSN)
		return fill_buffer_insn(b, rec->u.insn.addr, rec->u.insn.len,
					rec->u.insn.has_bytes ? rec->u.insn.bytes : NULL);
	if (copy_record(&copy, &blob, rec) < 0 ||
	    grow((void **)&b->blobs, &b->capblobs, b->nblobs, sizeof(void *)) < 0 ||
	    buffer_reserve(b, 1 + sizeof(copy)) < 0) {
		free(blob);
		return -ITRACE_E_NOMEM;
	}
	if (blob)
		b->blobs[b->nblobs++] = blob;
	b->data[b->len] = BUF_RECORD;
	memcpy(b->data + b->len + 1, &copy, sizeof(copy));
	b->len += 1 + sizeof(copy);
	return 0;
}

static void buffer_clear(struct fill_buffer *b)
{
	for (size_t i = 0; i < b->nblobs; i++)
		free(b->blobs[i]);
	b->nblobs = 0;
	b->len = 0;
}

static void buffer_free(struct fill_buffer *b)
{
	buffer_clear(b);
	free(b->data);
	free(b->blobs);
}

/* One instruction to the output; straight to the writer when it is one. */
static int replay_insn(struct itrace_record *insn, uint64_t addr, unsigned len, const uint8_t *bytes,
		       itrace_fill_output_fn out, void *arg)
{
	if (out == itrace_fill_output_writer)
		return itrace_write_insn(arg, addr, len, insn->u.insn.has_bytes ? bytes : NULL);
	insn->u.insn.addr = addr;
	insn->u.insn.len = (uint8_t)len;
	if (insn->u.insn.has_bytes)
		memcpy(insn->u.insn.bytes, bytes, len);
	return out(arg, insn);
}

/* Hand a chunk's buffered output to the caller's output function. */
static int buffer_replay(const struct fill_buffer *b, int with_bytes, itrace_fill_output_fn out,
			 void *arg)
{
	struct itrace_record insn, rec;
	size_t i = 0;
	int rc = 0;

	memset(&insn, 0, sizeof(insn));
	insn.type = ITRACE_REC_INSN;
	insn.u.insn.has_bytes = (uint8_t)with_bytes;
	while (i < b->len && rc >= 0) {
		uint64_t addr;

		if (b->data[i] == BUF_BLOCK) {
			const struct fill_block *blk;
			const uint8_t *p;
			uint32_t n;

			memcpy(&addr, b->data + i + 1, 8);
			memcpy(&blk, b->data + i + 9, sizeof(blk));
			memcpy(&n, b->data + i + 17, 4);
			i += 21;
			p = blk->bytes;
			if (out == itrace_fill_output_writer && !with_bytes) {
				rc = itrace_write_insns(arg, addr, n, blk->lens);
				continue;
			}
			for (uint32_t k = 0; k < n && rc >= 0; k++) {
				rc = replay_insn(&insn, addr, blk->lens[k], p, out, arg);
				addr += blk->lens[k];
				p += blk->lens[k];
			}
		} else if (b->data[i] == BUF_INSN) {
			unsigned len = b->data[i + 9];

			memcpy(&addr, b->data + i + 1, 8);
			rc = replay_insn(&insn, addr, len, b->data + i + 10, out, arg);
			i += 10 + (with_bytes ? len : 0);
		} else {
			memcpy(&rec, b->data + i + 1, sizeof(rec));
			i += 1 + sizeof(rec);
			if (rec.type == ITRACE_REC_THREAD && rec.u.thread.event == ITRACE_THREAD_SWITCH) {
				insn.tid = rec.u.thread.tid;
				insn.pid = rec.u.thread.pid;
			}
			rc = out(arg, &rec);
		}
	}
	return rc < 0 ? rc : 0;
}

/* ---- Chunks ---------------------------------------------------------- */

/* A compact record: branches inline, everything else in `full`. */
struct crec {
	uint64_t from, to;
	uint32_t tid, pid;
	uint8_t type, kind, flags;
	uint32_t full;
};

struct pchunk {
	uint64_t index;
	struct crec *recs;
	size_t nrecs, caprecs;
	struct itrace_record *full;
	void **blobs;
	size_t nfull, capfull;
	uint32_t *summary; /* indices into recs */
	size_t nsum, capsum;
	int read_rc;	   /* 0, or the reader's error for this chunk */
	/* fill */
	struct fill_thread *start;
	size_t start_cap, start_count;
	size_t log_start, log_end; /* image log entries before / through it */
	struct fill_buffer out;
	int end_out_known; /* the output's thread at the chunk's end */
	uint32_t end_out_tid, end_out_pid;
	struct itrace_fill_stats st;
	char gap_module[16][256];
	int fill_rc;
	int done;
};

static void chunk_reset(struct pchunk *k)
{
	for (size_t i = 0; i < k->nfull; i++)
		free(k->blobs[i]);
	k->nrecs = k->nfull = k->nsum = 0;
	free(k->start);
	k->start = NULL;
	buffer_clear(&k->out);
	memset(&k->st, 0, sizeof(k->st));
	memset(k->gap_module, 0, sizeof(k->gap_module));
	k->read_rc = k->fill_rc = 0;
	k->done = 0;
}

static void chunk_free(struct pchunk *k)
{
	chunk_reset(k);
	free(k->recs);
	free(k->full);
	free(k->blobs);
	free(k->summary);
	buffer_free(&k->out);
}

/* Small map tid -> summary position of its last entry. */
struct run_slot {
	uint32_t tid;
	uint8_t used;
	uint8_t run;	/* entries at the end of its run of branches (0..2) */
	size_t last;	/* summary index of its last entry */
};

struct run_map {
	struct run_slot *slots;
	size_t cap, count;
	int nomem;
};

static struct run_slot *run_find(struct run_slot *slots, size_t cap, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (cap - 1);

	while (slots[i].used && slots[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static struct run_slot *run_slot(struct run_map *m, uint32_t tid)
{
	struct run_slot *s = run_find(m->slots, m->cap, tid);

	if (s->used)
		return s;
	if ((m->count + 1) * 2 > m->cap) {
		size_t ncap = m->cap * 2;
		struct run_slot *n = calloc(ncap, sizeof(*n));

		if (!n) {
			m->nomem = 1;
			return s; /* still usable: the table is only half full */
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].used)
				*run_find(n, ncap, m->slots[i].tid) = m->slots[i];
		free(m->slots);
		m->slots = n;
		m->cap = ncap;
		s = run_find(n, ncap, tid);
	}
	s->used = 1;
	s->tid = tid;
	s->run = 0;
	m->count++;
	return s;
}

/* A record other than a branch touching thread tid ends its branch run. */
static void run_break(struct run_map *m, uint32_t tid)
{
	if (tid)
		run_slot(m, tid)->run = 0;
}

static int summarize(struct pchunk *k, struct run_map *m, uint32_t idx)
{
	const struct crec *c = &k->recs[idx];

	if (c->type == ITRACE_REC_BRANCH) {
		struct run_slot *s = run_slot(m, c->tid);

		/* Of a run of branches only the first and last change state. */
		if (s->run == 2) {
			k->summary[s->last] = idx;
			return 0;
		}
		if (grow((void **)&k->summary, &k->capsum, k->nsum, sizeof(*k->summary)) < 0)
			return -ITRACE_E_NOMEM;
		s->last = k->nsum;
		s->run++;
		k->summary[k->nsum++] = idx;
		return 0;
	}
	if (c->type != ITRACE_REC_UNKNOWN) {
		const struct itrace_record *r = &k->full[c->full];

		run_break(m, c->tid);
		if (r->type == ITRACE_REC_THREAD) {
			run_break(m, r->u.thread.tid);
			run_break(m, (uint32_t)r->u.thread.other);
		} else if (r->type == ITRACE_REC_PROCESS) {
			run_break(m, r->u.process.pid);
			run_break(m, (uint32_t)r->u.process.other);
		}
	}
	if (grow((void **)&k->summary, &k->capsum, k->nsum, sizeof(*k->summary)) < 0)
		return -ITRACE_E_NOMEM;
	k->summary[k->nsum++] = idx;
	return 0;
}

static int store_record(struct pchunk *k, const struct itrace_record *rec)
{
	struct crec *c;

	if (grow((void **)&k->recs, &k->caprecs, k->nrecs, sizeof(*k->recs)) < 0)
		return -ITRACE_E_NOMEM;
	c = &k->recs[k->nrecs];
	c->type = rec->type;
	c->tid = rec->tid;
	c->pid = rec->pid;
	if (rec->type == ITRACE_REC_BRANCH) {
		c->from = rec->u.branch.from;
		c->to = rec->u.branch.to;
		c->kind = rec->u.branch.kind;
		c->flags = rec->u.branch.flags;
	} else {
		size_t cap = k->capfull;

		if (grow((void **)&k->full, &cap, k->nfull, sizeof(*k->full)) < 0)
			return -ITRACE_E_NOMEM;
		cap = k->capfull;
		if (grow((void **)&k->blobs, &cap, k->nfull, sizeof(*k->blobs)) < 0)
			return -ITRACE_E_NOMEM;
		k->capfull = cap;
		if (copy_record(&k->full[k->nfull], &k->blobs[k->nfull], rec) < 0)
			return -ITRACE_E_NOMEM;
		c->full = (uint32_t)k->nfull++;
	}
	k->nrecs++;
	return 0;
}

/* Step 1: read chunk k (its records only) into memory. */
static int read_chunk(struct itrace_reader *r, struct pchunk *k)
{
	struct itrace_chunk_info ci;
	struct itrace_record rec;
	struct run_map m;
	int rc;

	m.cap = 64;
	m.count = 0;
	m.nomem = 0;
	m.slots = calloc(m.cap, sizeof(*m.slots));
	if (!m.slots)
		return -ITRACE_E_NOMEM;
	rc = itrace_reader_chunk_info(r, k->index, &ci);
	if (rc == 0)
		rc = itrace_reader_seek_chunk(r, k->index);
	while (rc == 0) {
		rc = itrace_reader_next(r, &rec);
		if (rc == ITRACE_EOF || rc == -ITRACE_E_NOFOOTER) {
			rc = 0;
			break;
		}
		if (rc < 0 || rec.chunk != ci.seq)
			break;
		rc = store_record(k, &rec);
		if (rc == 0)
			rc = summarize(k, &m, (uint32_t)(k->nrecs - 1));
		if (rc == 0 && m.nomem)
			rc = -ITRACE_E_NOMEM;
	}
	free(m.slots);
	return rc > 0 ? 0 : rc;
}

/* Rebuild the reader's record from a compact one. */
static void expand(const struct pchunk *k, const struct crec *c, struct itrace_record *rec)
{
	if (c->type != ITRACE_REC_BRANCH) {
		*rec = k->full[c->full];
		return;
	}
	rec->type = ITRACE_REC_BRANCH;
	rec->tid = c->tid;
	rec->pid = c->pid;
	rec->u.branch.from = c->from;
	rec->u.branch.to = c->to;
	rec->u.branch.kind = c->kind;
	rec->u.branch.flags = c->flags;
}

/* ---- Workers --------------------------------------------------------- */

enum job_kind { JOB_READ, JOB_FILL };

struct job {
	enum job_kind kind;
	struct pchunk *chunk;
};

struct par {
	const struct itrace_fill_options *opts;
	const struct itrace_header *hdr;
	const char *path;
	pthread_mutex_t mu;
	pthread_cond_t wake, done;
	int quit;
	struct job *queue; /* FIFO, ring of qcap */
	size_t qhead, qlen, qcap;
	struct pchunk *chunks[2]; /* two windows: one filled while the next is read */
	/* image log: deep copies of MMAP/CODE/PROCESS records in order */
	struct itrace_record *log;
	void **log_blobs;
	size_t nlog, caplog;
	/* where the output stream was at the end of the last chunk */
	int out_known;
	uint32_t out_tid, out_pid;
};

struct worker {
	struct par *p;
	pthread_t thread;
	struct itrace_reader *r;
	struct fill_ctx ctx;
	struct itrace_fill_stats dummy;
	size_t applied; /* image log entries applied to ctx.img */
	int started;
};

static int fill_chunk(struct worker *w, struct pchunk *k)
{
	struct fill_ctx *c = &w->ctx;
	int rc = 0;

	for (; w->applied < k->log_start && rc >= 0; w->applied++)
		rc = itrace_image_apply(c->img, &w->p->log[w->applied]);
	if (rc < 0)
		return rc;
	free(c->threads.slots);
	c->threads.slots = k->start;
	c->threads.cap = k->start_cap;
	c->threads.count = k->start_count;
	c->last_thread = NULL;
	k->start = NULL;
	c->st = &k->st;
	c->gap_module = k->gap_module;
	c->buf = &k->out;
	fill_chunk_start(c);
	for (size_t i = 0; i < k->nrecs && rc >= 0; i++) {
		struct itrace_record rec;

		expand(k, &k->recs[i], &rec);
		rc = fill_record(c, &rec);
	}
	w->applied = k->log_end;
	k->end_out_known = c->out_known;
	k->end_out_tid = c->out_tid;
	k->end_out_pid = c->out_pid;
	return rc < 0 ? rc : 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct par *p = w->p;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct job j;

		while (!p->quit && p->qlen == 0)
			pthread_cond_wait(&p->wake, &p->mu);
		if (p->quit)
			break;
		j = p->queue[p->qhead];
		p->qhead = (p->qhead + 1) % p->qcap;
		p->qlen--;
		pthread_mutex_unlock(&p->mu);
		if (j.kind == JOB_READ)
			j.chunk->read_rc = read_chunk(w->r, j.chunk);
		else
			j.chunk->fill_rc = fill_chunk(w, j.chunk);
		pthread_mutex_lock(&p->mu);
		j.chunk->done = 1;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Queue `kind` for chunks[0, n); returns at once. */
static void start_jobs(struct par *p, enum job_kind kind, struct pchunk *chunks, size_t n)
{
	pthread_mutex_lock(&p->mu);
	for (size_t i = 0; i < n; i++) {
		chunks[i].done = 0;
		p->queue[(p->qhead + p->qlen++) % p->qcap] = (struct job){ kind, &chunks[i] };
	}
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
}

static void wait_chunk(struct par *p, struct pchunk *k)
{
	pthread_mutex_lock(&p->mu);
	while (!k->done)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* ---- Main thread ----------------------------------------------------- */

static int log_image_record(struct par *p, const struct itrace_record *rec)
{
	size_t cap = p->caplog;

	if (grow((void **)&p->log, &cap, p->nlog, sizeof(*p->log)) < 0)
		return -ITRACE_E_NOMEM;
	cap = p->caplog;
	if (grow((void **)&p->log_blobs, &cap, p->nlog, sizeof(*p->log_blobs)) < 0)
		return -ITRACE_E_NOMEM;
	p->caplog = cap;
	if (copy_record(&p->log[p->nlog], &p->log_blobs[p->nlog], rec) < 0)
		return -ITRACE_E_NOMEM;
	p->nlog++;
	return 0;
}

static int is_image_record(const struct itrace_record *rec)
{
	return rec->type == ITRACE_REC_MMAP || rec->type == ITRACE_REC_CODE ||
	       (rec->type == ITRACE_REC_PROCESS && (rec->u.process.event == ITRACE_PROCESS_FORK ||
						    rec->u.process.event == ITRACE_PROCESS_EXEC));
}

/* Step 2: starting states of chunk k, then its effect on the dry context. */
static int compose(struct par *p, struct fill_ctx *dry, struct pchunk *k)
{
	size_t bytes = dry->threads.cap * sizeof(*dry->threads.slots);

	k->start = malloc(bytes);
	if (!k->start)
		return -ITRACE_E_NOMEM;
	memcpy(k->start, dry->threads.slots, bytes);
	k->start_cap = dry->threads.cap;
	k->start_count = dry->threads.count;
	k->log_start = p->nlog;
	fill_chunk_start(dry);
	for (size_t i = 0; i < k->nsum; i++) {
		struct itrace_record rec;
		int rc;

		expand(k, &k->recs[k->summary[i]], &rec);
		rc = fill_record(dry, &rec);
		if (rc == 0 && is_image_record(&rec))
			rc = log_image_record(p, &rec);
		if (rc < 0)
			return rc;
	}
	k->log_end = p->nlog;
	return 0;
}

static void merge_stats(struct itrace_fill_stats *dst, char (*dst_mod)[256], const struct pchunk *k)
{
	const struct itrace_fill_stats *s = &k->st;

	dst->records_in += s->records_in;
	dst->branches += s->branches;
	dst->insns += s->insns;
	dst->records_out += s->records_out;
	dst->gaps += s->gaps;
	dst->blocks_decoded += s->blocks_decoded;
	dst->blocks_reused += s->blocks_reused;
	dst->unknown_dropped += s->unknown_dropped;
	for (int i = 0; i < 16; i++) {
		if (s->gap_reason[i] && !dst->gap_reason[i]) {
			dst->first_gap_addr[i] = s->first_gap_addr[i];
			memcpy(dst_mod[i], k->gap_module[i], sizeof(dst_mod[i]));
		}
		dst->gap_reason[i] += s->gap_reason[i];
	}
}

static int workers_start(struct par *p, struct worker *ws, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &ws[i];
		int rc;

		w->p = p;
		rc = itrace_reader_open(p->path, &w->r);
		if (rc == 0)
			rc = fill_ctx_init(&w->ctx, p->opts, p->hdr, &w->dummy);
		if (rc < 0)
			return rc;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
			return -ITRACE_E_NOMEM;
		w->started = 1;
	}
	return 0;
}

static void workers_stop(struct par *p, struct worker *ws, unsigned n)
{
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < n; i++) {
		if (ws[i].started)
			pthread_join(ws[i].thread, NULL);
		if (ws[i].ctx.dec)
			fill_ctx_fini(&ws[i].ctx);
		itrace_reader_close(ws[i].r);
	}
}

static void start_reads(struct par *p, struct pchunk *win, uint64_t first, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		chunk_reset(&win[i]);
		win[i].index = first + i;
	}
	start_jobs(p, JOB_READ, win, n);
}

/* Wait for a window's reads; 1 if one of them met damage. */
static int wait_reads(struct par *p, struct pchunk *win, size_t n)
{
	int damaged = 0;

	for (size_t i = 0; i < n; i++) {
		wait_chunk(p, &win[i]);
		if (win[i].read_rc < 0)
			damaged = 1;
	}
	return damaged;
}

/* Hand a filled window to the output, chunk by chunk as they finish. */
static int emit_window(struct par *p, struct fill_par_args *a, int with_bytes,
		       struct pchunk *win, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct pchunk *k = &win[i];

		wait_chunk(p, k);
		if (rc == 0)
			rc = k->fill_rc;
		if (rc == 0)
			rc = buffer_replay(&k->out, with_bytes, a->out, a->out_arg);
		buffer_clear(&k->out);
		if (rc == 0) {
			p->out_known = k->end_out_known;
			p->out_tid = k->end_out_tid;
			p->out_pid = k->end_out_pid;
			merge_stats(a->st, a->gap_module, k);
			if (a->opts->progress)
				a->opts->progress(a->opts->progress_arg, a->st->records_in);
		}
	}
	return rc;
}

/*
 * Windows go: read(w+1) is queued behind fill(w), so workers read ahead
 * while the main thread writes window w out.  Returns 0, 1 with *resume
 * set to the first chunk not filled (damage found: go on sequentially),
 * or a negative error.
 */
static int run_windows(struct par *p, struct fill_par_args *a, struct fill_ctx *dry,
		       uint64_t nchunks, size_t window, uint64_t *resume)
{
	uint64_t first = 0;
	size_t n = nchunks < window ? (size_t)nchunks : window;
	int cur = 0, rc = 0;

	start_reads(p, p->chunks[cur], first, n);
	while (n) {
		struct pchunk *win = p->chunks[cur];
		uint64_t next_first = first + n;
		size_t next_n = nchunks - next_first < window ? (size_t)(nchunks - next_first) : window;

		if (wait_reads(p, win, n)) {
			*resume = first;
			return 1;
		}
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = compose(p, dry, &win[i]);
		if (rc < 0)
			return rc;
		start_jobs(p, JOB_FILL, win, n);
		if (next_n)
			start_reads(p, p->chunks[!cur], next_first, next_n);
		rc = emit_window(p, a, dry->with_bytes, win, n);
		if (rc < 0) {
			if (next_n)
				wait_reads(p, p->chunks[!cur], next_n);
			return rc;
		}
		first = next_first;
		n = next_n;
		cur = !cur;
	}
	return 0;
}

/*
 * Parallel fill of a seekable trace with a chunk index.  Returns
 * -ITRACE_E_NOTSUP (nothing emitted) when the input does not allow it;
 * otherwise what a sequential fill returns.
 */
int fill_parallel(struct itrace_filler *f, struct itrace_reader *r, const char *path,
		  struct fill_par_args *a)
{
	int64_t nchunks = itrace_reader_chunk_count(r);
	struct itrace_footer foot;
	unsigned jobs = a->opts->jobs;
	size_t window = (size_t)jobs * 2;	/* chunks per window */
	struct worker *ws;
	struct fill_ctx dry;
	struct par p;
	uint64_t resume = 0;
	int rc;

	if (nchunks < 2 || itrace_reader_footer(r, &foot) < 0)
		return -ITRACE_E_NOTSUP;
	memset(&p, 0, sizeof(p));
	memset(&dry, 0, sizeof(dry));
	p.opts = a->opts;
	p.hdr = itrace_reader_header(r);
	p.path = path;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.wake, NULL);
	pthread_cond_init(&p.done, NULL);
	p.qcap = 2 * window;
	p.queue = calloc(p.qcap, sizeof(*p.queue));
	p.chunks[0] = calloc(window, sizeof(struct pchunk));
	p.chunks[1] = calloc(window, sizeof(struct pchunk));
	ws = calloc(jobs, sizeof(*ws));
	rc = p.queue && p.chunks[0] && p.chunks[1] && ws ? fill_ctx_init(&dry, a->opts, p.hdr, &a->dry_stats)
							   : -ITRACE_E_NOMEM;
	if (rc == 0) {
		dry.dry = 1;
		rc = workers_start(&p, ws, jobs);
	}
	if (rc == 0)
		rc = run_windows(&p, a, &dry, (uint64_t)nchunks, window, &resume);
	if (ws)
		workers_stop(&p, ws, jobs);
	if (rc >= 0) {
		/* The end (or the rest, after damage) on the dry context made real. */
		dry.dry = 0;
		dry.st = a->st;
		dry.gap_module = a->gap_module;
		dry.out = a->out;
		dry.out_arg = a->out_arg;
		dry.out_known = p.out_known;
		dry.out_tid = dry.insn_rec.tid = p.out_tid;
		dry.out_pid = dry.insn_rec.pid = p.out_pid;
		if (rc == 1) {
			rc = itrace_reader_seek_chunk(r, resume);
			if (rc == 0)
				rc = fill_sequential(f, &dry, r);
		} else {
			rc = fill_finish(&dry);
		}
	}
	if (dry.dec)
		fill_ctx_fini(&dry);
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; p.chunks[w] && i < window; i++)
			chunk_free(&p.chunks[w][i]);
	for (size_t i = 0; i < p.nlog; i++)
		free(p.log_blobs[i]);
	free(p.log);
	free(p.log_blobs);
	free(p.chunks[0]);
	free(p.chunks[1]);
	free(p.queue);
	free(ws);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.wake);
	pthread_cond_destroy(&p.done);
	return rc;
}
