/*
 * batch.c - columns of trace records (batch.h): the rows of a batch are
 * decoded by itrace_reader_next and stored straight into one array per
 * column, so that Python touches nothing per record.
 */
#include "batch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	char fmt;	    /* struct module / buffer protocol */
	uint8_t width;
	const char *arrow;  /* Arrow C data interface format string */
} columns[BATCH_NCOLS] = {
	[COL_TYPE] = { "type", 'B', 1, "C" },
	[COL_TID] = { "tid", 'I', 4, "I" },
	[COL_PID] = { "pid", 'I', 4, "I" },
	[COL_TIME_NS] = { "time_ns", 'Q', 8, "L" },
	[COL_CHUNK] = { "chunk", 'Q', 8, "L" },
	[COL_ADDR] = { "addr", 'Q', 8, "L" },
	[COL_LEN] = { "len", 'B', 1, "C" },
	[COL_SIZE] = { "size", 'Q', 8, "L" },
	[COL_STORE] = { "store", 'B', 1, "C" },
	[COL_SRC] = { "src", 'Q', 8, "L" },
	[COL_DST] = { "dst", 'Q', 8, "L" },
	[COL_KIND] = { "kind", 'B', 1, "C" },
	[COL_TAKEN] = { "taken", 'B', 1, "C" },
};

int batch_column_by_name(const char *name)
{
	for (int c = 0; c < BATCH_NCOLS; c++)
		if (strcmp(columns[c].name, name) == 0)
			return c;
	return -1;
}

const char *batch_column_name(int c) { return columns[c].name; }
char batch_column_format(int c) { return columns[c].fmt; }
const char *batch_column_arrow_format(int c) { return columns[c].arrow; }

const char *batch_column_names(void)
{
	static char all[256];

	if (!all[0])
		for (int c = 0; c < BATCH_NCOLS; c++) {
			strcat(all, columns[c].name);
			if (c + 1 < BATCH_NCOLS)
				strcat(all, ", ");
		}
	return all;
}

struct batch_reader {
	struct itrace_reader *r;
	uint64_t types[2];
	int cols[BATCH_NCOLS];
	size_t ncols, size;
	int pending;	  /* damage met after the rows already handed out */
	int ended;	  /* the reader said ITRACE_EOF (or gave up) */
	char error[512];
};

struct batch_reader *batch_reader_new(struct itrace_reader *r, const uint64_t *types,
				      const int *cols, size_t ncols, size_t size)
{
	struct batch_reader *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->r = r;
	b->types[0] = types[0];
	b->types[1] = types[1];
	memcpy(b->cols, cols, ncols * sizeof(*cols));
	b->ncols = ncols;
	b->size = size;
	return b;
}

void batch_reader_free(struct batch_reader *b)
{
	if (!b)
		return;
	itrace_reader_close(b->r);
	free(b);
}

const char *batch_reader_error(const struct batch_reader *b) { return b->error; }
struct itrace_reader *batch_reader_reader(struct batch_reader *b) { return b->r; }

void batch_reader_clear_error(struct batch_reader *b)
{
	b->pending = 0;
	b->error[0] = 0;
}

/* The address column's value: the record's address, 0 for types without. */
static inline uint64_t addr_of(const struct itrace_record *rec)
{
	switch (rec->type) {
	case ITRACE_REC_INSN: return rec->u.insn.addr;
	case ITRACE_REC_MEM: return rec->u.mem.addr;
	case ITRACE_REC_CODE: return rec->u.code.addr;
	case ITRACE_REC_SIGNAL: return rec->u.signal.addr;
	case ITRACE_REC_TRACE_CTL: return rec->u.ctl.addr;
	case ITRACE_REC_GAP: return rec->u.gap.addr;
	default: return 0;
	}
}

/*
 * store_row - row i of every requested column (p[c] NULL: not requested)
 * from rec, 0 where a column does not apply to its type.  Straight-line
 * stores behind predictable tests: this is what batches cost beyond the
 * reader's own decoding.
 */
static inline void store_row(void *const *p, size_t i, const struct itrace_record *rec)
{
	int insn = rec->type == ITRACE_REC_INSN, mem = rec->type == ITRACE_REC_MEM;
	int br = rec->type == ITRACE_REC_BRANCH;

	if (p[COL_TYPE])
		((uint8_t *)p[COL_TYPE])[i] = rec->type;
	if (p[COL_TID])
		((uint32_t *)p[COL_TID])[i] = rec->tid;
	if (p[COL_PID])
		((uint32_t *)p[COL_PID])[i] = rec->type == ITRACE_REC_MMAP ? rec->u.mmap.pid :
					      rec->type == ITRACE_REC_PROCESS ? rec->u.process.pid :
					      rec->pid;
	if (p[COL_TIME_NS])
		((uint64_t *)p[COL_TIME_NS])[i] = rec->time_ns;
	if (p[COL_CHUNK])
		((uint64_t *)p[COL_CHUNK])[i] = rec->chunk;
	if (p[COL_ADDR])
		((uint64_t *)p[COL_ADDR])[i] = insn ? rec->u.insn.addr : mem ? rec->u.mem.addr :
					       addr_of(rec);
	if (p[COL_LEN])
		((uint8_t *)p[COL_LEN])[i] = insn ? rec->u.insn.len : 0;
	if (p[COL_SIZE])
		((uint64_t *)p[COL_SIZE])[i] = mem ? rec->u.mem.size : 0;
	if (p[COL_STORE])
		((uint8_t *)p[COL_STORE])[i] = mem ? rec->u.mem.flags & ITRACE_MEM_STORE : 0;
	if (p[COL_SRC])
		((uint64_t *)p[COL_SRC])[i] = br ? rec->u.branch.from : 0;
	if (p[COL_DST])
		((uint64_t *)p[COL_DST])[i] = br ? rec->u.branch.to : 0;
	if (p[COL_KIND])
		((uint8_t *)p[COL_KIND])[i] = br ? rec->u.branch.kind : 0;
	if (p[COL_TAKEN])
		((uint8_t *)p[COL_TAKEN])[i] = br ? rec->u.branch.flags & ITRACE_BRANCH_TAKEN : 0;
}

int batch_reader_fill(struct batch_reader *b, struct batch *out)
{
	struct itrace_record rec;
	size_t n = 0, k;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->ncols = b->ncols;
	memcpy(out->cols, b->cols, b->ncols * sizeof(*b->cols));
	if (b->pending) {
		rc = b->pending;
		return rc;
	}
	if (b->ended)
		return 0;
	for (k = 0; k < b->ncols; k++) {
		out->data[k] = malloc(b->size * columns[b->cols[k]].width);
		if (!out->data[k]) {
			while (k--)
				free(out->data[k]);
			memset(out->data, 0, sizeof(out->data));
			return -ITRACE_E_NOMEM;
		}
	}
	void *p[BATCH_NCOLS] = { NULL };
	for (k = 0; k < b->ncols; k++)
		p[b->cols[k]] = out->data[k];
	while (n < b->size) {
		rc = itrace_reader_next(b->r, &rec, sizeof(rec));
		if (rc != 0)
			break;
		if (!(b->types[(rec.type >> 6) & 1] >> (rec.type & 63) & 1))
			continue;
		store_row(p, n++, &rec);
	}
	out->n = n;
	if (rc == ITRACE_EOF) {
		b->ended = 1;
		rc = 0;
	} else if (rc < 0) {
		snprintf(b->error, sizeof(b->error), "%s", itrace_reader_error(b->r));
		if (rc != -ITRACE_E_CORRUPT)
			b->ended = 1; /* the reader says ITRACE_EOF from now on */
		if (n)
			b->pending = rc; /* the rows first, the error at the next call */
	}
	if (n == 0)
		for (k = 0; k < b->ncols; k++) {
			free(out->data[k]);
			out->data[k] = NULL;
		}
	return n ? 0 : rc;
}

/* ---- the Arrow C stream interface --------------------------------------
 *
 * Structs as Apache Arrow's "The Arrow C data interface" and "The Arrow C
 * stream interface" define them (ABI-stable, copied by every producer).
 * A batch is a struct array ("+s") of primitive children; each child owns
 * its data buffer and has no validity buffer (no nulls).
 */

struct ArrowSchema {
	const char *format;
	const char *name;
	const char *metadata;
	int64_t flags;
	int64_t n_children;
	struct ArrowSchema **children;
	struct ArrowSchema *dictionary;
	void (*release)(struct ArrowSchema *);
	void *private_data;
};

struct ArrowArray {
	int64_t length;
	int64_t null_count;
	int64_t offset;
	int64_t n_buffers;
	int64_t n_children;
	const void **buffers;
	struct ArrowArray **children;
	struct ArrowArray *dictionary;
	void (*release)(struct ArrowArray *);
	void *private_data;
};

struct ArrowArrayStream {
	int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
	int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
	const char *(*get_last_error)(struct ArrowArrayStream *);
	void (*release)(struct ArrowArrayStream *);
	void *private_data;
};

struct stream_state {
	struct batch_reader *b;
	char error[600];
};

/* A schema's children are one allocation with it: private_data holds it. */
static void schema_release(struct ArrowSchema *s)
{
	for (int64_t i = 0; i < s->n_children; i++)
		if (s->children[i]->release)
			s->children[i]->release(s->children[i]);
	free(s->private_data);
	s->release = NULL;
}

static void child_schema_release(struct ArrowSchema *s)
{
	s->release = NULL;
}

static int stream_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
	struct stream_state *ss = st->private_data;
	struct batch_reader *b = ss->b;
	size_t n = b->ncols;
	/* [children pointers][children structs] */
	char *mem = calloc(1, n * (sizeof(struct ArrowSchema *) + sizeof(struct ArrowSchema)) + 1);

	if (!mem)
		return ENOMEM;
	struct ArrowSchema **ptrs = (struct ArrowSchema **)mem;
	struct ArrowSchema *kids = (struct ArrowSchema *)(mem + n * sizeof(*ptrs));
	for (size_t i = 0; i < n; i++) {
		kids[i].format = columns[b->cols[i]].arrow;
		kids[i].name = columns[b->cols[i]].name;
		kids[i].release = child_schema_release;
		ptrs[i] = &kids[i];
	}
	memset(out, 0, sizeof(*out));
	out->format = "+s";
	out->name = "";
	out->n_children = (int64_t)n;
	out->children = ptrs;
	out->release = schema_release;
	out->private_data = mem;
	return 0;
}

/* A child array: its buffers [validity NULL, data] and its data. */
struct child_private {
	const void *buffers[2];
};

static void child_array_release(struct ArrowArray *a)
{
	struct child_private *p = a->private_data;

	free((void *)p->buffers[1]);
	free(p);
	a->release = NULL;
}

/* The parent: the children's pointer array and structs, its buffers. */
struct parent_private {
	const void *buffers[1];
	struct ArrowArray **ptrs;
	struct ArrowArray *kids;
};

static void parent_array_release(struct ArrowArray *a)
{
	struct parent_private *p = a->private_data;

	for (int64_t i = 0; i < a->n_children; i++)
		if (a->children[i]->release)
			a->children[i]->release(a->children[i]);
	free(p->ptrs);
	free(p->kids);
	free(p);
	a->release = NULL;
}

static int stream_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
	struct stream_state *ss = st->private_data;
	struct batch bt;
	int rc = batch_reader_fill(ss->b, &bt);

	memset(out, 0, sizeof(*out));
	if (rc < 0 && bt.n == 0) {
		snprintf(ss->error, sizeof(ss->error), "%s: %s", itrace_errstr(rc),
			 batch_reader_error(ss->b));
		batch_reader_clear_error(ss->b);
		return rc == -ITRACE_E_NOMEM ? ENOMEM : EIO;
	}
	if (bt.n == 0) /* the end: a released array */
		return 0;
	struct parent_private *p = calloc(1, sizeof(*p));
	struct ArrowArray **ptrs = calloc(bt.ncols + 1, sizeof(*ptrs));
	struct ArrowArray *kids = calloc(bt.ncols + 1, sizeof(*kids));
	int ok = p && ptrs && kids;
	for (size_t i = 0; ok && i < bt.ncols; i++) {
		struct child_private *cp = calloc(1, sizeof(*cp));
		if (!cp) {
			ok = 0;
			break;
		}
		cp->buffers[1] = bt.data[i];
		bt.data[i] = NULL;
		kids[i].length = (int64_t)bt.n;
		kids[i].n_buffers = 2;
		kids[i].buffers = cp->buffers;
		kids[i].release = child_array_release;
		kids[i].private_data = cp;
		ptrs[i] = &kids[i];
	}
	if (!ok) {
		for (size_t i = 0; kids && i < bt.ncols; i++)
			if (kids[i].release)
				kids[i].release(&kids[i]);
		for (size_t i = 0; i < bt.ncols; i++)
			free(bt.data[i]);
		free(p);
		free(ptrs);
		free(kids);
		snprintf(ss->error, sizeof(ss->error), "out of memory");
		return ENOMEM;
	}
	p->ptrs = ptrs;
	p->kids = kids;
	out->length = (int64_t)bt.n;
	out->n_buffers = 1;
	out->buffers = p->buffers; /* a struct array's only buffer: validity, none */
	out->n_children = (int64_t)bt.ncols;
	out->children = ptrs;
	out->release = parent_array_release;
	out->private_data = p;
	return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *st)
{
	struct stream_state *ss = st->private_data;

	return ss->error[0] ? ss->error : NULL;
}

static void stream_release(struct ArrowArrayStream *st)
{
	struct stream_state *ss = st->private_data;

	batch_reader_free(ss->b);
	free(ss);
	st->release = NULL;
}

struct ArrowArrayStream *arrow_stream_new(struct batch_reader *b)
{
	struct ArrowArrayStream *st = calloc(1, sizeof(*st));
	struct stream_state *ss = calloc(1, sizeof(*ss));

	if (!st || !ss) {
		free(st);
		free(ss);
		return NULL;
	}
	ss->b = b;
	st->get_schema = stream_get_schema;
	st->get_next = stream_get_next;
	st->get_last_error = stream_last_error;
	st->release = stream_release;
	st->private_data = ss;
	return st;
}

void arrow_stream_free(struct ArrowArrayStream *s)
{
	if (!s)
		return;
	if (s->release)
		s->release(s);
	free(s);
}
