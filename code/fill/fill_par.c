/*
 * fill_par.c - filling chunks in parallel, with output identical to -j 1.
 *
 * Each chunk of the input goes through four steps:
 *  1. read: the chunk is read with a thread's own reader into a compact
 *     in-memory copy, plus a summary of the records that change thread
 *     state (runs of branches of one thread reduced to their first and
 *     last);
 *  2. compose (in chunk order): the summary is replayed on a "dry" fill
 *     context (state transitions only: fill.c makes them depend on
 *     records, never on walks), giving the chunk's starting thread states,
 *     and its image records are appended to a log;
 *  3. fill: the chunk is filled from its starting state, with the thread's
 *     image brought up to date from the log.  When the output is a writer,
 *     the thread encodes the chunk's output into complete chunks itself (a
 *     segment: compressed and checksummed); for any other output it fills
 *     a buffer;
 *  4. emit (in chunk order): the segment is spliced into the file,
 *     patching what depends on the chunks before (writer_append_segment());
 *     -j 1 ends an output chunk at every input chunk, so the bytes are the
 *     same.  A buffer is replayed to the caller's output function, on the
 *     caller's thread.
 * The steps form a pipeline over a ring of chunk slots, run by N threads,
 * the caller's one of them: each thread does whichever step is ready,
 * emit and compose (one thread at a time each) before fills, fills before
 * reads, and reads run ahead as far as free slots allow.  No thread hands
 * work to another, so N threads on N cores run without switching.
 * A read error (damage) stops the pipeline at that chunk: everything
 * before it is emitted, and from there the fill goes on sequentially,
 * exactly as -j 1 would.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fill_int.h"
#include "fill_sink.h"

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

static int buffer_insn(struct fill_buffer *b, uint64_t addr, unsigned len, const uint8_t *bytes)
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
static int buffer_block(struct fill_buffer *b, uint64_t addr, const struct fill_block *blk, uint32_t n)
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

static int buffer_append(struct fill_buffer *b, const struct itrace_record *rec)
{
	struct itrace_record copy;
	void *blob;

	if (rec->type == ITRACE_REC_INSN)
		return buffer_insn(b, rec->u.insn.addr, rec->u.insn.len,
					rec->u.insn.has_bytes ? rec->u.insn.bytes : NULL);
	if (copy_record(&copy, &blob, rec) < 0 ||
	    itrace_reserve((void **)&b->blobs, &b->capblobs, b->nblobs + 1, sizeof(void *)) < 0 ||
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

/* The buffer as a sink: what a worker's fill produces when the output is
 * not a writer.  Cached blocks are kept as (block, count). */
static int sink_buffer_record(struct fill_sink *s, const struct itrace_record *rec)
{
	return buffer_append(s->arg, rec);
}

static int sink_buffer_insn(struct fill_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	return buffer_insn(s->arg, addr, len, bytes);
}

static int sink_buffer_block(struct fill_sink *s, uint64_t addr, const struct fill_block *b,
			     uint32_t n, int with_bytes, int stable)
{
	const uint8_t *p = b->bytes;
	int rc;

	if (stable)
		return buffer_block(s->arg, addr, b, n);
	for (uint32_t i = 0; i < n; i++) {
		if ((rc = buffer_insn(s->arg, addr, b->lens[i], with_bytes ? p : NULL)) < 0)
			return rc;
		addr += b->lens[i];
		p += b->lens[i];
	}
	return 0;
}

static const struct fill_sink_ops buffer_ops = {
	sink_buffer_record, sink_buffer_insn, sink_buffer_block, NULL,
};

/* Hand a chunk's buffered output on to the caller's sink. */
static int buffer_replay(const struct fill_buffer *b, int with_bytes, struct fill_sink *out)
{
	struct itrace_record rec;
	size_t i = 0;
	int rc = 0;

	while (i < b->len && rc >= 0) {
		uint64_t addr;

		if (b->data[i] == BUF_BLOCK) {
			const struct fill_block *blk;
			uint32_t n;

			memcpy(&addr, b->data + i + 1, 8);
			memcpy(&blk, b->data + i + 9, sizeof(blk));
			memcpy(&n, b->data + i + 17, 4);
			i += 21;
			rc = out->ops->block(out, addr, blk, n, with_bytes, 1);
		} else if (b->data[i] == BUF_INSN) {
			unsigned len = b->data[i + 9];

			memcpy(&addr, b->data + i + 1, 8);
			rc = out->ops->insn(out, addr, len, with_bytes ? b->data + i + 10 : NULL);
			i += 10 + (with_bytes ? len : 0);
		} else {
			memcpy(&rec, b->data + i + 1, sizeof(rec));
			i += 1 + sizeof(rec);
			if (rec.type == ITRACE_REC_THREAD && rec.u.thread.event == ITRACE_THREAD_SWITCH)
				fill_sink_thread(out, rec.u.thread.tid, rec.u.thread.pid);
			rc = out->ops->record(out, &rec);
		}
	}
	return rc < 0 ? rc : 0;
}

/* ---- Chunks ---------------------------------------------------------- */

/*
 * Between reading and filling, a chunk's records are kept compact: the
 * parallel fill's own cost is mostly this memory traffic (a loop-heavy
 * chunk holds some 65k branches), so a branch takes 8 bytes, its source
 * relative to the previous branch's target (within 32 KB: a basic block)
 * and its target relative to its source.  Its thread is not kept: the
 * reader gives every record its current thread (the chunk header's, then
 * each THREAD switch's), which a sequential walk over the records
 * recovers.  Branches too far apart keep
 * both addresses aside; other records are deep copies.
 */
enum crec_type { CREC_BRANCH, CREC_FAR, CREC_FULL };

struct crec {
	int32_t b;	/* BRANCH: to - from; FAR, FULL: index into far, full */
	int16_t a;	/* BRANCH: from - previous to */
	uint8_t type;	/* enum crec_type */
	uint8_t kf;	/* branch kind | flags << 4 */
};

struct far_branch {
	uint64_t from, to;
};

/* A summary entry: a record as the dry context replays it. */
#define SREC_BRANCH UINT32_MAX

struct srec {
	uint64_t from, to;
	uint32_t tid, pid;
	uint32_t full;	/* index into full, or SREC_BRANCH */
	uint8_t kf;	/* branch kind | flags << 4 */
};

struct pchunk {
	uint64_t index;
	struct crec *recs;
	size_t nrecs, caprecs;
	uint32_t tid0, pid0;	/* the thread of its first record */
	uint64_t last_to;	/* reading: the last branch's target */
	struct far_branch *far;
	size_t nfar, capfar;
	struct itrace_record *full;
	void **blobs;
	size_t nfull, capfull;
	struct srec *summary;
	size_t nsum, capsum;
	int read_rc;	   /* 0, or the reader's error for this chunk */
	/* fill */
	struct fill_thread *start;
	size_t start_cap, start_count;
	size_t log_start, log_end; /* image log entries before / through it */
	struct fill_buffer out;
	uint64_t start_time;	    /* the writer's time at the chunk's start */
	struct writer_segment enc;  /* the chunk's output, encoded */
	int end_out_known; /* the output's thread at the chunk's end */
	uint32_t end_out_tid, end_out_pid;
	struct itrace_fill_stats st;
	char gap_module[16][256];
	int fill_rc;
	int read, filled;	/* jobs done (under the mutex) */
};

static void chunk_reset(struct pchunk *k)
{
	for (size_t i = 0; i < k->nfull; i++)
		free(k->blobs[i]);
	k->nrecs = k->nfar = k->nfull = k->nsum = 0;
	k->last_to = 0;
	free(k->start);
	k->start = NULL;
	buffer_clear(&k->out);
	memset(&k->st, 0, sizeof(k->st));
	memset(k->gap_module, 0, sizeof(k->gap_module));
	k->read_rc = k->fill_rc = 0;
}

static void chunk_free(struct pchunk *k)
{
	chunk_reset(k);
	free(k->recs);
	free(k->far);
	free(k->full);
	free(k->blobs);
	free(k->summary);
	buffer_free(&k->out);
	writer_segment_release(&k->enc);
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
	struct run_slot *last;	/* the last answer: most branches repeat it */
	int nomem;
};

static struct run_slot *run_find(struct run_slot *slots, size_t cap, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (cap - 1);

	while (slots[i].used && slots[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static struct run_slot *tid_run_slot(struct run_map *m, uint32_t tid)
{
	struct run_slot *s = run_find(m->slots, m->cap, tid);

	if (s->used)
		return m->last = s;
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
	return m->last = s;
}

/* A record other than a branch touching thread tid ends its branch run. */
static void run_break(struct run_map *m, uint32_t tid)
{
	if (tid)
		tid_run_slot(m, tid)->run = 0;
}

/* A branch's kind and flags in one byte, as compact records keep them. */
static uint8_t branch_kf(const struct itrace_branch *b)
{
	return (uint8_t)(b->kind | b->flags << 4);
}

/*
 * Summary entries of branches are set from the branch's parts in
 * registers, never copied from the record: the reader stores kind and
 * flags a byte at a time, and a copy of the pair compiles to one 16-bit
 * load, which cannot be forwarded from two stores and stalled every
 * branch of the read (most of the parallel fill's cost over -j 1).
 */
static void srec_set_branch(struct srec *s, uint64_t from, uint64_t to, uint8_t kf)
{
	s->from = from;
	s->to = to;
	s->kf = kf;
}

static struct srec *summary_append(struct pchunk *k, uint32_t tid, uint32_t pid, uint32_t full)
{
	struct srec *s;

	if (itrace_reserve((void **)&k->summary, &k->capsum, k->nsum + 1, sizeof(*k->summary)) < 0)
		return NULL;
	s = &k->summary[k->nsum++];
	s->tid = tid;
	s->pid = pid;
	s->full = full;
	return s;
}

/* Add a branch of thread tid to the summary; returns its thread's run
 * slot, or NULL when out of memory. */
static struct run_slot *summarize_branch(struct pchunk *k, struct run_map *m, uint32_t tid,
					 uint32_t pid, uint64_t from, uint64_t to, uint8_t kf)
{
	struct run_slot *r = m->last && m->last->tid == tid ? m->last : tid_run_slot(m, tid);
	struct srec *s;

	/* Of a run of branches only the first and last change state; the
	 * last keeps its entry's thread. */
	if (r->run == 2) {
		srec_set_branch(&k->summary[r->last], from, to, kf);
		return r;
	}
	r->last = k->nsum;
	r->run++;
	s = summary_append(k, tid, pid, SREC_BRANCH);
	if (!s)
		return NULL;
	srec_set_branch(s, from, to, kf);
	return r;
}

/*
 * The run of branches being read, once it is two long: each further
 * branch of its thread only replaces its last, and while the run is open
 * that is the last compact record, so its summary entry is only set when
 * another record closes the run.  Per branch, this is most of the cost.
 */
struct open_run {
	int open;
	uint32_t tid;
	size_t at;	/* its last entry in the summary */
};

/* The branch of the last compact record. */
static void last_branch(const struct pchunk *k, uint64_t *from, uint64_t *to, uint8_t *kf)
{
	const struct crec *c = &k->recs[k->nrecs - 1];

	if (c->type == CREC_FAR) {
		*from = k->far[c->b].from;
		*to = k->far[c->b].to;
	} else {
		*to = k->last_to;
		*from = *to - (uint64_t)(int64_t)c->b;
	}
	*kf = c->kf;
}

static void run_close(struct pchunk *k, struct open_run *run)
{
	uint64_t from, to;
	uint8_t kf;

	if (!run->open)
		return;
	last_branch(k, &from, &to, &kf);
	srec_set_branch(&k->summary[run->at], from, to, kf);
	run->open = 0;
}

/* Add rec, not a branch, to the summary; full is its index in k->full. */
static int summarize_other(struct pchunk *k, struct run_map *m, const struct itrace_record *rec,
			   uint32_t full)
{
	if (rec->type != ITRACE_REC_UNKNOWN) {
		run_break(m, rec->tid);
		if (rec->type == ITRACE_REC_THREAD) {
			run_break(m, rec->u.thread.tid);
			run_break(m, (uint32_t)rec->u.thread.other);
		} else if (rec->type == ITRACE_REC_PROCESS) {
			run_break(m, rec->u.process.pid);
			run_break(m, (uint32_t)rec->u.process.other);
		}
	}
	return summary_append(k, rec->tid, rec->pid, full) ? 0 : -ITRACE_E_NOMEM;
}

/* Room for one more compact record in k, for a record of rec's thread. */
static int reserve_crec(struct pchunk *k, const struct itrace_record *rec)
{
	if (itrace_reserve((void **)&k->recs, &k->caprecs, k->nrecs + 1, sizeof(*k->recs)) < 0)
		return -ITRACE_E_NOMEM;
	if (k->nrecs == 0) {
		k->tid0 = rec->tid;
		k->pid0 = rec->pid;
	}
	return 0;
}

/*
 * Keep a branch near the one before as a compact record, when there is
 * room for it (inline: this is the common case of reading).  Returns 0
 * when it is too far or there is no room.
 */
static int append_near_branch(struct pchunk *k, uint64_t from, uint64_t to, uint8_t kf)
{
	int64_t a = (int64_t)(from - k->last_to), d = (int64_t)(to - from);
	struct crec *c;

	if (k->nrecs == k->caprecs || a != (int16_t)a || d != (int32_t)d)
		return 0;
	c = &k->recs[k->nrecs++];
	c->b = (int32_t)d;
	c->a = (int16_t)a;
	c->type = CREC_BRANCH;
	c->kf = kf;
	k->last_to = to;
	return 1;
}

/* Keep a branch in k, far ones aside. */
static int store_branch(struct pchunk *k, const struct itrace_record *rec, uint64_t from,
			uint64_t to, uint8_t kf)
{
	struct crec *c;

	if (reserve_crec(k, rec) < 0)
		return -ITRACE_E_NOMEM;
	if (append_near_branch(k, from, to, kf))
		return 0;
	if (itrace_reserve((void **)&k->far, &k->capfar, k->nfar + 1, sizeof(*k->far)) < 0)
		return -ITRACE_E_NOMEM;
	k->far[k->nfar].from = from;
	k->far[k->nfar].to = to;
	c = &k->recs[k->nrecs++];
	c->type = CREC_FAR;
	c->kf = kf;
	c->b = (int32_t)k->nfar++;
	k->last_to = to;
	return 0;
}

/* Keep a deep copy of rec, not a branch, in k; *full is its index in k->full. */
static int store_full(struct pchunk *k, const struct itrace_record *rec, uint32_t *full)
{
	size_t cap = k->capfull;
	struct crec *c;

	if (reserve_crec(k, rec) < 0 ||
	    itrace_reserve((void **)&k->full, &cap, k->nfull + 1, sizeof(*k->full)) < 0)
		return -ITRACE_E_NOMEM;
	cap = k->capfull;
	if (itrace_reserve((void **)&k->blobs, &cap, k->nfull + 1, sizeof(*k->blobs)) < 0)
		return -ITRACE_E_NOMEM;
	k->capfull = cap;
	if (copy_record(&k->full[k->nfull], &k->blobs[k->nfull], rec) < 0)
		return -ITRACE_E_NOMEM;
	c = &k->recs[k->nrecs++];
	c->type = CREC_FULL;
	c->b = (int32_t)k->nfull;
	*full = (uint32_t)k->nfull++;
	return 0;
}

/* Keep rec in k and add it to the summary. */
static int read_record(struct pchunk *k, struct run_map *m, struct open_run *run,
		       const struct itrace_record *rec)
{
	uint32_t full;
	int rc;

	if (rec->type == ITRACE_REC_BRANCH) {
		uint64_t from = rec->u.branch.from, to = rec->u.branch.to;
		uint8_t kf = branch_kf(&rec->u.branch);
		struct run_slot *slot;

		if (run->open && run->tid == rec->tid)
			return store_branch(k, rec, from, to, kf);
		run_close(k, run);
		rc = store_branch(k, rec, from, to, kf);
		if (rc < 0)
			return rc;
		slot = summarize_branch(k, m, rec->tid, rec->pid, from, to, kf);
		if (!slot)
			return -ITRACE_E_NOMEM;
		if (slot->run == 2)
			*run = (struct open_run){ 1, rec->tid, slot->last };
		return 0;
	}
	run_close(k, run);
	rc = store_full(k, rec, &full);
	return rc < 0 ? rc : summarize_other(k, m, rec, full);
}

/* Step 1: read chunk k (its records only) into memory. */
static int read_chunk(struct itrace_reader *r, struct pchunk *k)
{
	struct itrace_chunk_info ci;
	struct itrace_record rec;
	struct open_run run = { 0 };
	struct run_map m;
	int rc;

	m.cap = 64;
	m.count = 0;
	m.last = NULL;
	m.nomem = 0;
	m.slots = calloc(m.cap, sizeof(*m.slots));
	if (!m.slots)
		return -ITRACE_E_NOMEM;
	rc = itrace_reader_chunk_info(r, k->index, &ci);
	if (rc == 0)
		rc = itrace_reader_seek_chunk(r, k->index);
	while (rc == 0) {
		rc = itrace_reader_next_in_chunk(r, &rec, sizeof(rec));
		if (rc != 0 || rec.chunk != ci.seq)
			break;
		if (rec.type == ITRACE_REC_BRANCH && run.open && rec.tid == run.tid &&
		    append_near_branch(k, rec.u.branch.from, rec.u.branch.to, branch_kf(&rec.u.branch)))
			continue;
		rc = read_record(k, &m, &run, &rec);
		if (rc == 0 && m.nomem)
			rc = -ITRACE_E_NOMEM;
	}
	run_close(k, &run);
	free(m.slots);
	if (rc == ITRACE_CHUNK_END || rc == ITRACE_EOF || rc == -ITRACE_E_NOFOOTER)
		rc = 0;
	return rc > 0 ? 0 : rc;
}

/*
 * fill_records - fill_record() for each of a chunk's compact records, in
 * order: branches go straight to fill_branch(), with the thread the
 * reader gave them (the chunk's first record's, then each full record's).
 */
static int fill_records(struct fill_ctx *c, const struct pchunk *k)
{
	uint64_t last_to = 0;
	uint32_t tid = k->tid0, pid = k->pid0;
	const struct crec *r = k->recs, *end = k->recs + k->nrecs;
	struct itrace_branch b;
	int rc = 0;

	for (; r < end && rc >= 0; r++) {
		const struct itrace_record *full;

		switch (r->type) {
		case CREC_BRANCH:
			b.from = last_to + (uint64_t)(int64_t)r->a;
			b.to = b.from + (uint64_t)(int64_t)r->b;
			break;
		case CREC_FAR:
			b.from = k->far[r->b].from;
			b.to = k->far[r->b].to;
			break;
		default:
			full = &k->full[r->b];
			tid = full->tid;
			pid = full->pid;
			rc = fill_record(c, full);
			continue;
		}
		b.kind = r->kf & 0xf;
		b.flags = r->kf >> 4;
		last_to = b.to;
		rc = fill_branch(c, tid, pid, &b);
	}
	return rc;
}

/* A summary entry as a record. */
static void expand_summary(const struct pchunk *k, const struct srec *s, struct itrace_record *rec)
{
	if (s->full != SREC_BRANCH) {
		*rec = k->full[s->full];
		return;
	}
	rec->type = ITRACE_REC_BRANCH;
	rec->tid = s->tid;
	rec->pid = s->pid;
	rec->u.branch.from = s->from;
	rec->u.branch.to = s->to;
	rec->u.branch.kind = s->kf & 0xf;
	rec->u.branch.flags = s->kf >> 4;
}

/* ---- Workers --------------------------------------------------------- */

/* The image log (MMAP, CODE, FORK/EXEC records in order) in blocks that
 * never move: fills read published entries while a compose appends
 * more. */
#define LOG_BLOCK 64

struct log_block {
	struct log_block *next;
	struct itrace_record recs[LOG_BLOCK];
	void *blobs[LOG_BLOCK];
};

/* A FIFO of chunks waiting for one kind of job. */
struct job_queue {
	struct pchunk **v;
	size_t head, len, cap;
};

/* Where the pipeline is: chunks [emitted, composed) are queued or filled,
 * [composed, queued) queued or read; each holds a slot. */
struct pipeline {
	uint64_t n, queued, composed, emitted;
	int stop;	/* damage: queue and compose nothing more */
	uint64_t resume; /* then: the first chunk not filled */
};

struct par {
	const struct itrace_fill_options *opts;
	const struct itrace_header *hdr;
	const char *path;
	struct fill_par_args *a;
	struct fill_ctx *dry;	/* composing: the state transitions so far */
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* something changed */
	int quit;
	struct pipeline pl;
	int rc;			/* the first error */
	int composing, emitting; /* one thread at a time does each, in order */
	uint64_t records_done, records_reported; /* progress, for the caller */
	struct job_queue fills, reads; /* workers take fills first */
	struct pchunk *slots;	/* chunk i lives in slots[i % nslots] */
	size_t nslots;
	struct log_block *log_head, *log_tail;
	size_t nlog;
	/* where the output stream was at the end of the last chunk */
	int out_known;
	uint32_t out_tid, out_pid;
	/* encoding in the workers: the file's writer, its time as composed */
	struct itrace_writer *writer;	/* NULL: buffers replayed to out */
	uint64_t time;
};

/* A thread of the pipeline; the first is the caller's own. */
struct worker {
	struct par *p;
	pthread_t thread;
	int caller;
	struct itrace_reader *r;
	struct itrace_writer *seg;	/* encodes chunks when p->writer */
	struct fill_ctx ctx;
	struct fill_sink sink;		/* ctx's output: seg, or the chunk's buffer */
	struct itrace_fill_stats dummy;
	size_t applied;			/* image log entries applied to ctx.img */
	struct log_block *log_at;	/* the block holding entry log_first.. */
	size_t log_first;
	int started;
};

/* Image log entry i, which a queued fill has published; i only grows. */
static const struct itrace_record *log_entry(struct worker *w, size_t i)
{
	if (!w->log_at) {
		w->log_at = w->p->log_head;
		w->log_first = 0;
	}
	while (i >= w->log_first + LOG_BLOCK) {
		w->log_at = w->log_at->next;
		w->log_first += LOG_BLOCK;
	}
	return &w->log_at->recs[i - w->log_first];
}

static int fill_chunk(struct worker *w, struct pchunk *k)
{
	struct fill_ctx *c = &w->ctx;
	int rc = 0;

	for (; w->applied < k->log_start && rc >= 0; w->applied++)
		rc = itrace_image_apply(c->img, log_entry(w, w->applied));
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
	if (w->seg) {
		writer_segment_begin(w->seg, k->start_time, &k->enc);
		fill_sink_writer(&w->sink, w->seg);
	} else {
		memset(&w->sink, 0, sizeof(w->sink));
		w->sink.ops = &buffer_ops;
		w->sink.arg = &k->out;
	}
	c->sink = &w->sink;
	rc = fill_chunk_start(c);
	if (rc >= 0)
		rc = fill_records(c, k);
	if (w->seg && rc >= 0)
		rc = writer_segment_end(w->seg);
	w->applied = k->log_end; /* the chunk's own image records, by fill_record */
	k->end_out_known = c->out_known;
	k->end_out_tid = c->out_tid;
	k->end_out_pid = c->out_pid;
	return rc < 0 ? rc : 0;
}

static void queue_push(struct job_queue *q, struct pchunk *k)
{
	q->v[(q->head + q->len++) % q->cap] = k;
}

static struct pchunk *queue_pop(struct job_queue *q)
{
	struct pchunk *k = q->v[q->head];

	q->head = (q->head + 1) % q->cap;
	q->len--;
	return k;
}

/* ---- Composing and emitting ----------------------------------------- */

static int log_image_record(struct par *p, const struct itrace_record *rec)
{
	size_t i = p->nlog % LOG_BLOCK;

	if (i == 0) {
		struct log_block *b = calloc(1, sizeof(*b));

		if (!b)
			return -ITRACE_E_NOMEM;
		if (p->log_tail)
			p->log_tail->next = b;
		else
			p->log_head = b;
		p->log_tail = b;
	}
	if (copy_record(&p->log_tail->recs[i], &p->log_tail->blobs[i], rec) < 0)
		return -ITRACE_E_NOMEM;
	p->nlog++;
	return 0;
}

static void log_free(struct par *p)
{
	struct log_block *b = p->log_head;
	size_t left = p->nlog;

	while (b) {
		struct log_block *next = b->next;

		for (size_t i = 0; i < LOG_BLOCK && i < left; i++)
			free(b->blobs[i]);
		left -= left < LOG_BLOCK ? left : LOG_BLOCK;
		free(b);
		b = next;
	}
}

static int is_image_record(const struct itrace_record *rec)
{
	return rec->type == ITRACE_REC_MMAP || rec->type == ITRACE_REC_CODE ||
	       (rec->type == ITRACE_REC_PROCESS && (rec->u.process.event == ITRACE_PROCESS_FORK ||
						    rec->u.process.event == ITRACE_PROCESS_EXEC));
}

/* Step 2: starting states of chunk k, then its effect on the dry context. */
static int compose(struct par *p, struct pchunk *k)
{
	struct fill_ctx *dry = p->dry;
	size_t bytes = dry->threads.cap * sizeof(*dry->threads.slots);

	k->start = malloc(bytes);
	if (!k->start)
		return -ITRACE_E_NOMEM;
	memcpy(k->start, dry->threads.slots, bytes);
	k->start_cap = dry->threads.cap;
	k->start_count = dry->threads.count;
	k->log_start = p->nlog;
	k->start_time = p->time;
	fill_chunk_start(dry);
	for (size_t i = 0; i < k->nsum; i++) {
		struct itrace_record rec;
		int rc;

		expand_summary(k, &k->summary[i], &rec);
		rc = fill_record(dry, &rec);
		if (rc == 0 && is_image_record(&rec))
			rc = log_image_record(p, &rec);
		if (rc < 0)
			return rc;
		/* Every TIMESTAMP is passed on: the writer's time follows them. */
		if (rec.type == ITRACE_REC_TIMESTAMP)
			p->time = rec.time_ns;
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

/* Hand chunk k's output on: splice its segment, or replay its buffer. */
static int emit_chunk(struct par *p, struct pchunk *k)
{
	struct fill_par_args *a = p->a;
	int rc = k->fill_rc;

	if (rc == 0 && p->writer)
		rc = writer_append_segment(p->writer, &k->enc);
	else if (rc == 0)
		rc = buffer_replay(&k->out, p->dry->with_bytes, a->sink);
	buffer_clear(&k->out);
	if (rc < 0)
		return rc;
	p->out_known = k->end_out_known;
	p->out_tid = k->end_out_tid;
	p->out_pid = k->end_out_pid;
	merge_stats(a->st, a->gap_module, k);
	return 0;
}

static struct pchunk *slot_of(struct par *p, uint64_t i)
{
	return &p->slots[i % p->nslots];
}

/* The steps below run with p->mu held, dropping it around the work; each
 * returns 1 when it did something (and so dropped the lock), else 0. */

static void changed(struct par *p)
{
	pthread_cond_broadcast(&p->wake);
}

static void fail(struct par *p, int rc)
{
	if (p->rc == 0)
		p->rc = rc;
}

/* Reads for every free slot. */
static void queue_reads(struct par *p)
{
	struct pipeline *pl = &p->pl;

	while (!pl->stop && pl->queued < pl->n && pl->queued - pl->emitted < p->nslots) {
		struct pchunk *k = slot_of(p, pl->queued);

		chunk_reset(k);
		k->index = pl->queued++;
		k->read = k->filled = 0;
		queue_push(&p->reads, k);
	}
}

/* The output of the next chunk, when it is filled.  A caller's output
 * function is only ever called on the caller's thread. */
static int try_emit(struct worker *w)
{
	struct par *p = w->p;
	struct pchunk *k = slot_of(p, p->pl.emitted);
	int rc;

	if (p->emitting || p->pl.emitted == p->pl.composed || !k->filled || (!p->writer && !w->caller))
		return 0;
	p->emitting = 1;
	pthread_mutex_unlock(&p->mu);
	rc = emit_chunk(p, k);
	pthread_mutex_lock(&p->mu);
	p->emitting = 0;
	if (rc < 0)
		fail(p, rc);
	else
		p->pl.emitted++;
	p->records_done += k->st.records_in;
	changed(p);
	return 1;
}

/* Step 2 for the next chunk, when it is read; damage stops the pipeline
 * there: what comes before it is filled, the rest goes on in order. */
static int try_compose(struct worker *w)
{
	struct par *p = w->p;
	struct pchunk *k = slot_of(p, p->pl.composed);
	int rc;

	if (p->composing || p->pl.stop || p->pl.composed == p->pl.queued || !k->read)
		return 0;
	if (k->read_rc < 0) {
		p->pl.stop = 1;
		p->pl.resume = p->pl.composed;
		changed(p);
		return 1;
	}
	p->composing = 1;
	pthread_mutex_unlock(&p->mu);
	rc = compose(p, k);
	pthread_mutex_lock(&p->mu);
	p->composing = 0;
	if (rc < 0) {
		fail(p, rc);
	} else {
		p->pl.composed++;
		queue_push(&p->fills, k);
	}
	changed(p);
	return 1;
}

/* A fill, else a read: fills let the output, and so the slots, move on. */
static int try_job(struct worker *w)
{
	struct par *p = w->p;
	struct pchunk *k;
	int fill = p->fills.len != 0;

	if (!fill && !p->reads.len)
		return 0;
	k = queue_pop(fill ? &p->fills : &p->reads);
	pthread_mutex_unlock(&p->mu);
	if (fill)
		k->fill_rc = fill_chunk(w, k);
	else
		k->read_rc = read_chunk(w->r, k);
	pthread_mutex_lock(&p->mu);
	if (fill)
		k->filled = 1;
	else
		k->read = 1;
	changed(p);
	return 1;
}

static int pipeline_done(const struct par *p)
{
	return p->quit || p->rc < 0 || p->pl.emitted == (p->pl.stop ? p->pl.composed : p->pl.n);
}

/* The caller reports progress itself, from the chunks emitted. */
static int report_progress(struct worker *w)
{
	struct par *p = w->p;
	uint64_t n = p->records_done;

	if (!w->caller || !p->opts->progress || n == p->records_reported)
		return 0;
	p->records_reported = n;
	pthread_mutex_unlock(&p->mu);
	p->opts->progress(p->opts->progress_arg, n);
	pthread_mutex_lock(&p->mu);
	return 1;
}

/*
 * Every thread, the caller's too, runs this: whichever finds a step ready
 * does it, the steps in order (emit, compose) first, as each one unblocks
 * others.  No thread hands work to another, so on N cores N threads keep
 * busy with no switching between them.
 */
static void work(struct worker *w)
{
	struct par *p = w->p;

	pthread_mutex_lock(&p->mu);
	while (!pipeline_done(p)) {
		queue_reads(p);
		/* Each step that drops the lock goes round again: a change made
		 * meanwhile has woken no one. */
		if (!report_progress(w) && !try_emit(w) && !try_compose(w) && !try_job(w))
			pthread_cond_wait(&p->wake, &p->mu);
	}
	changed(p);
	pthread_mutex_unlock(&p->mu);
}

/* worker_init - a worker's own reader, fill context and segment writer. */
static int worker_init(struct worker *w)
{
	struct par *p = w->p;
	int rc = itrace_reader_open(p->path, &w->r);

	if (rc == 0)
		rc = fill_ctx_init(&w->ctx, p->opts, p->hdr, &w->dummy);
	if (rc == 0 && p->writer)
		rc = writer_segment_open(p->writer, &w->seg);
	return rc;
}

/* A thread sets itself up, so that the threads' set-ups (opening the
 * trace, the decoder, the image) run side by side, not one after the
 * other before any work starts. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int rc = worker_init(w);

	if (rc < 0) {
		pthread_mutex_lock(&w->p->mu);
		fail(w->p, rc);
		changed(w->p);
		pthread_mutex_unlock(&w->p->mu);
		return NULL;
	}
	work(w);
	return NULL;
}

/* Set up the workers, ws[0] the caller, and start the others' threads. */
static int workers_start(struct par *p, struct worker *ws, unsigned n)
{
	int rc;

	for (unsigned i = 0; i < n; i++) {
		ws[i].p = p;
		ws[i].caller = i == 0;
	}
	/* The threads wait for the lock until all have started. */
	pthread_mutex_lock(&p->mu);
	for (unsigned i = 1; i < n; i++) {
		if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]) != 0) {
			p->quit = 1;
			break;
		}
		ws[i].started = 1;
	}
	pthread_mutex_unlock(&p->mu);
	if (p->quit)
		return -ITRACE_E_NOMEM;
	rc = worker_init(&ws[0]);
	if (rc < 0) {
		pthread_mutex_lock(&p->mu);
		fail(p, rc);
		pthread_mutex_unlock(&p->mu);
	}
	return rc;
}

static void workers_stop(struct par *p, struct worker *ws, unsigned n)
{
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	changed(p);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < n; i++) {
		if (ws[i].started)
			pthread_join(ws[i].thread, NULL);
		if (ws[i].ctx.dec)
			fill_ctx_fini(&ws[i].ctx);
		writer_segment_free(ws[i].seg);
		itrace_reader_close(ws[i].r);
	}
}

/*
 * Run the pipeline over every chunk, on the caller's thread too.  Returns
 * 0, 1 with p->pl.resume set to the first chunk not filled (damage found:
 * go on sequentially), or a negative error.  Once it returns, the other
 * threads take nothing more; workers_stop() waits for them.
 */
static int run_pipeline(struct par *p, struct worker *caller)
{
	work(caller);
	pthread_mutex_lock(&p->mu);
	report_progress(caller);
	pthread_mutex_unlock(&p->mu);
	if (p->rc < 0)
		return p->rc;
	return p->pl.stop ? 1 : 0;
}

/*
 * Parallel fill of a seekable trace with a chunk index.  Returns
 * -ITRACE_E_NOTSUP (nothing emitted) when the input does not allow it;
 * otherwise what a sequential fill returns.
 */
int fill_parallel(struct itrace_reader *r, const char *path, struct fill_par_args *a)
{
	int64_t nchunks = itrace_reader_chunk_count(r);
	struct itrace_footer foot;
	unsigned jobs = a->opts->jobs;
	struct worker *ws;
	struct fill_ctx dry;
	struct par p;
	int rc;

	if (nchunks < 2 || itrace_reader_footer(r, &foot) < 0)
		return -ITRACE_E_NOTSUP;
	memset(&p, 0, sizeof(p));
	memset(&dry, 0, sizeof(dry));
	p.opts = a->opts;
	p.hdr = itrace_reader_header(r);
	p.path = path;
	p.a = a;
	p.dry = &dry;
	p.pl.n = (uint64_t)nchunks;
	if (a->sink->writer) {
		p.writer = a->sink->writer;
		p.time = writer_time(p.writer);
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.wake, NULL);
	/* Slots: a chunk being filled and one read ahead per worker, and two
	 * more so that a slow chunk does not hold everyone up at once. */
	p.nslots = (size_t)jobs * 2 + 2;
	p.slots = calloc(p.nslots, sizeof(*p.slots));
	p.fills.cap = p.reads.cap = p.nslots;
	p.fills.v = calloc(p.nslots, sizeof(*p.fills.v));
	p.reads.v = calloc(p.nslots, sizeof(*p.reads.v));
	ws = calloc(jobs, sizeof(*ws));
	rc = p.slots && p.fills.v && p.reads.v && ws ? fill_ctx_init(&dry, a->opts, p.hdr, &a->dry_stats)
						      : -ITRACE_E_NOMEM;
	if (rc == 0) {
		dry.dry = 1;
		rc = workers_start(&p, ws, jobs);
	}
	if (rc == 0)
		rc = run_pipeline(&p, &ws[0]);
	if (ws)
		workers_stop(&p, ws, jobs);
	if (rc >= 0) {
		/* The end (or the rest, after damage) on the dry context made real. */
		dry.dry = 0;
		dry.st = a->st;
		dry.gap_module = a->gap_module;
		dry.sink = a->sink;
		dry.out_known = p.out_known;
		dry.out_tid = p.out_tid;
		dry.out_pid = p.out_pid;
		fill_sink_thread(a->sink, p.out_tid, p.out_pid);
		if (rc == 1) {
			rc = itrace_reader_seek_chunk(r, p.pl.resume);
			if (rc == 0)
				rc = fill_sequential(a->opts, a->err, a->errlen, &dry, r);
		} else {
			rc = fill_finish(&dry);
		}
	}
	if (dry.dec)
		fill_ctx_fini(&dry);
	for (size_t i = 0; p.slots && i < p.nslots; i++)
		chunk_free(&p.slots[i]);
	log_free(&p);
	free(p.slots);
	free(p.fills.v);
	free(p.reads.v);
	free(ws);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.wake);
	return rc;
}
