/*
 * fuzz_roundtrip.c - libFuzzer target: the input is a program of writer
 * operations (records with values taken from the bytes, and the block and
 * defined-branch calls of ITRACE.md 6.5.15: itrace_writer_block_define,
 * itrace_writer_block, itrace_writer_blocks, itrace_writer_block_partial,
 * itrace_writer_branch_define, and those of branch sequences, 6.5.16:
 * itrace_writer_branch_seq_define, itrace_writer_branch_id,
 * itrace_writer_branch_ids); whatever the writer accepts, the reader must
 * return identically, and the writer accepts exactly the calls its header
 * says it does.  The trace is written with BLOCK records (ITRACE_FEAT_BLOCK) or
 * without, with BRANCH_SEQ records (ITRACE_FEAT_BRANCH_SEQ) or without, with a
 * MEM table of 1024 entries (mem_table_log2 10) or 128, as the
 * input's size says.  One memory file, made once, takes each input's trace
 * (rewritten from its start, never truncated), which is then read back
 * from memory in one pread: the writer's own system calls are the only
 * file work per input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "itrace.h"
#include "itrace_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input, copied into a buffer with zero bytes past its end, more
 * than one operation reads (define_block: 170 at most), so that reading
 * a value needs no bounds check: bytes past the end read as 0, and the
 * program ends at the first operation that starts at or past the end. */
#define INPUT_MAX 1024
#define INPUT_PAD 256

struct src {
	const uint8_t *p, *end;
	uint8_t buf[INPUT_MAX + INPUT_PAD];
};

/* take - the next `bytes` (1..8) bytes as a little-endian number. */
static uint64_t take(struct src *s, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)s->p[i] << (8 * i);
	s->p += bytes;
	return v;
}

/* Block and branch definitions of an input, as the harness expects the
 * writer to have numbered them.  Small blocks: the writer's limits
 * (ITRACE_RUN_MAX instructions, ITRACE_BLOCK_ACCESS_MAX accesses) are
 * checked by the definitions the input gets wrong. */
#define MAX_DEFS 64
#define BLOCK_INSNS 16
#define BLOCK_ACCS 16

/* A sequence of branches: the writer ids of its branches. */
#define SEQ_BRANCHES 8

struct seq {
	int k;
	int ids[SEQ_BRANCHES];
};

struct block {
	uint64_t addr;
	size_t n, m;
	uint8_t lens[BLOCK_INSNS];
	struct itrace_block_access acc[BLOCK_ACCS];
};

/* The input's state: where it is, what it defined, what must read back. */
struct prog {
	struct src s;
	uint64_t pc, mem;
	struct itrace_writer *w;
	int seqs_on;		/* ITRACE_FEAT_BRANCH_SEQ */
	struct block blocks[MAX_DEFS];
	/* by the writer's id: a branch, or (is_seq) a sequence */
	struct itrace_branch branches[MAX_DEFS];
	struct seq seqs[MAX_DEFS];
	uint8_t is_seq[MAX_DEFS];
	int nblocks, nbranches; /* nbranches: the writer's ids, of both */
	struct itrace_record *recs; /* what the reader must return */
	size_t n, cap;
};

/* expect - room for one more record the reader must return, cleared. */
static struct itrace_record *expect(struct prog *p)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		struct itrace_record *r = realloc(p->recs, cap * sizeof(*r));

		if (!r)
			abort();
		p->recs = r;
		p->cap = cap;
	}
	/* only this record is cleared (clearing the whole array per input
	 * was a tenth of the time) */
	memset(&p->recs[p->n], 0, sizeof(p->recs[p->n]));
	return &p->recs[p->n];
}

/* next_record - one record from the input; addresses kept near each other
 * half of the time so runs and repeats get exercised. */
static void next_record(struct prog *p, unsigned op)
{
	struct src *s = &p->s;
	struct itrace_record *r = expect(p);

	switch (op % 6) {
	case 0:
	case 1:
		r->type = ITRACE_REC_INSN;
		r->u.insn.len = (uint8_t)(take(s, 1) % 15 + 1);
		r->u.insn.addr = op & 0x80 ? take(s, 8) : p->pc;
		p->pc = r->u.insn.addr + r->u.insn.len;
		break;
	case 2:
		r->type = ITRACE_REC_BRANCH;
		r->u.branch.from = op & 0x80 ? take(s, 8) : p->pc;
		r->u.branch.to = take(s, 2) + (p->pc & ~0xffffull);
		r->u.branch.kind = (uint8_t)(take(s, 1) % 10);
		r->u.branch.flags = (uint8_t)(take(s, 1) & 7);
		p->pc = r->u.branch.to;
		break;
	case 3:
		r->type = ITRACE_REC_MEM;
		r->u.mem.addr = take(s, 8);
		r->u.mem.size = take(s, 2);
		r->u.mem.flags = op >> 7;
		break;
	case 4:
		r->type = ITRACE_REC_THREAD;
		r->u.thread.event = (uint8_t)(take(s, 1) % 4 + 1);
		r->u.thread.tid = (uint32_t)take(s, 4);
		r->u.thread.pid = (uint32_t)take(s, 4);
		break;
	default:
		r->type = ITRACE_REC_SYSCALL;
		r->u.syscall.dir = (uint8_t)(op >> 7) + 1;
		r->u.syscall.nr = take(s, 2);
		r->u.syscall.ret = (int64_t)take(s, 8);
		r->u.syscall.nargs = r->u.syscall.dir == 1 ? (uint8_t)(take(s, 1) % 7) : 0;
		for (unsigned i = 0; i < r->u.syscall.nargs; i++)
			r->u.syscall.args[i] = take(s, 8);
		if (r->u.syscall.dir == 1)
			r->u.syscall.ret = 0;
	}
	if (itrace_writer_write(p->w, r) == 0)
		p->n++;
}

/* define_block - a block from the input, usually valid; bit 7 of a byte
 * makes a length, an access's instruction or its flags invalid. */
static void define_block(struct prog *p, unsigned op)
{
	struct block *b = &p->blocks[p->nblocks];
	unsigned prev = 0, valid = 1;
	int id;

	if (p->nblocks == MAX_DEFS)
		return;
	b->addr = op & 1 ? take(&p->s, 8) : p->pc;
	b->n = take(&p->s, 1) % BLOCK_INSNS + 1;
	b->m = take(&p->s, 1) % (BLOCK_ACCS + 1);
	for (size_t i = 0; i < b->n; i++) {
		unsigned v = (unsigned)take(&p->s, 1);

		b->lens[i] = (uint8_t)(v & 0x80 ? v & 0x1f : v % 15 + 1);
		valid &= b->lens[i] >= 1 && b->lens[i] <= ITRACE_INSN_MAX_LEN;
	}
	for (size_t k = 0; k < b->m; k++) {
		unsigned v = (unsigned)take(&p->s, 1);

		b->acc[k].insn = (uint8_t)(v & 0x80 ? v & 0x1f : prev + (v & 3) < b->n ? prev + (v & 3) : prev);
		b->acc[k].flags = (uint8_t)(v & 0x40 ? 2 : (v >> 2) & ITRACE_MEM_STORE);
		b->acc[k].size = v & 0x20 ? take(&p->s, 8) : (v >> 3 & 3) + 1;
		valid &= b->acc[k].insn < b->n && b->acc[k].insn >= prev && b->acc[k].flags <= 1 &&
			 b->acc[k].size <= UINT64_MAX >> 1;
		prev = b->acc[k].insn;
	}
	id = itrace_writer_block_define(p->w, b->addr, b->n, b->lens, b->m, b->acc);
	if (valid != (id >= 0) || (id >= 0 && id != p->nblocks))
		abort(); /* a valid definition refused, or an invalid one taken */
	if (id >= 0)
		p->nblocks++;
}

/* run_block - block `id` ran, its first `ninsns` instructions, accesses
 * with skip[k] set left out: the records a reader must return (INSN
 * records then each instruction's accesses, ITRACE.md 6.5.15). */
static void run_block(struct prog *p, const struct block *b, size_t ninsns, const uint64_t *addrs,
		      const uint8_t *skip)
{
	uint64_t addr = b->addr;
	size_t k = 0;

	for (size_t i = 0; i < ninsns; i++) {
		struct itrace_record *r = expect(p);

		r->type = ITRACE_REC_INSN;
		r->u.insn.addr = addr;
		r->u.insn.len = b->lens[i];
		p->n++;
		addr += b->lens[i];
		for (; k < b->m && b->acc[k].insn == i; k++) {
			if (skip && skip[k])
				continue;
			r = expect(p);
			r->type = ITRACE_REC_MEM;
			r->u.mem.addr = addrs[k];
			r->u.mem.size = b->acc[k].size;
			r->u.mem.flags = b->acc[k].flags;
			p->n++;
		}
	}
	p->pc = addr;
}

/* write_block - itrace_writer_block or, with `partial`,
 * itrace_writer_block_partial on an id from the input (one past the last
 * is refused), with access addresses near the last ones. */
static void write_block(struct prog *p, int partial)
{
	int id = (int)(take(&p->s, 1) % (unsigned)(p->nblocks + 1));
	const struct block *b = &p->blocks[id < MAX_DEFS ? id : 0];
	uint64_t addrs[BLOCK_ACCS];
	uint8_t skip[BLOCK_ACCS];
	size_t ninsns = 0;
	int rc, valid = id < p->nblocks;

	if (valid)
		for (size_t k = 0; k < b->m; k++) {
			unsigned v = (unsigned)take(&p->s, 1);

			p->mem = v & 0x80 ? take(&p->s, 8) : p->mem + (uint64_t)((int)(v & 0x7e) - 0x40) * 8;
			addrs[k] = p->mem;
			skip[k] = (v & 1) && partial;
		}
	if (partial) {
		ninsns = take(&p->s, 1) % (BLOCK_INSNS + 2);
		valid &= ninsns <= b->n;
		rc = itrace_writer_block_partial(p->w, id, ninsns, addrs, skip);
	} else {
		rc = itrace_writer_block(p->w, id, addrs);
	}
	if (valid != (rc == 0))
		abort();
	if (rc == 0)
		run_block(p, b, partial ? ninsns : b->n, addrs, partial ? skip : NULL);
}

/* write_blocks - itrace_writer_blocks on one to four ids from the input
 * (one past the last refuses the whole batch). */
static void write_blocks(struct prog *p)
{
	int ids[4], valid = 1, rc;
	uint64_t addrs[4 * BLOCK_ACCS];
	size_t n = 1 + take(&p->s, 1) % 4, na = 0;

	for (size_t j = 0; j < n; j++) {
		ids[j] = (int)(take(&p->s, 1) % (unsigned)(p->nblocks + 1));
		valid &= ids[j] < p->nblocks;
		if (ids[j] >= p->nblocks)
			continue;
		for (size_t k = 0; k < p->blocks[ids[j]].m; k++) {
			unsigned v = (unsigned)take(&p->s, 1);

			p->mem = v & 0x80 ? take(&p->s, 8) : p->mem + (uint64_t)((int)(v & 0x7e) - 0x40) * 8;
			addrs[na++] = p->mem;
		}
	}
	rc = itrace_writer_blocks(p->w, n, ids, na ? addrs : NULL);
	if (valid != (rc == 0))
		abort();
	if (rc)
		return;
	na = 0;
	for (size_t j = 0; j < n; j++) {
		const struct block *b = &p->blocks[ids[j]];

		run_block(p, b, b->n, addrs + na, NULL);
		na += b->m;
	}
}

/* define_branch - a branch from the input (a kind or flags out of range
 * must be refused). */
static void define_branch(struct prog *p, unsigned op)
{
	struct itrace_branch *d = &p->branches[p->nbranches];
	unsigned kind, flags;
	int id;

	if (p->nbranches == MAX_DEFS)
		return;
	memset(d, 0, sizeof(*d));
	d->from = op & 1 ? take(&p->s, 8) : p->pc;
	d->to = take(&p->s, 2) + (d->from & ~0xffffull);
	kind = (unsigned)take(&p->s, 1) % 11;
	flags = (unsigned)take(&p->s, 1) % 9;
	d->kind = (uint8_t)kind;
	d->flags = (uint8_t)flags;
	id = itrace_writer_branch_define(p->w, d->from, d->to, kind, flags);
	if ((kind <= ITRACE_BK_MAX && flags <= ITRACE_BF_KNOWN_MASK) != (id >= 0) ||
	    (id >= 0 && id != p->nbranches))
		abort();
	if (id >= 0)
		p->is_seq[p->nbranches++] = 0;
}

/* define_seq - a sequence of 0..SEQ_BRANCHES ids from the input
 * (accepted when the file takes sequences, k is 1 or more and each id is
 * a branch's). */
static void define_seq(struct prog *p)
{
	int k = (int)(take(&p->s, 1) % (SEQ_BRANCHES + 1)), ids[SEQ_BRANCHES], ok, id;

	if (p->nbranches == MAX_DEFS)
		return;
	ok = p->seqs_on && k >= 1;
	for (int i = 0; i < k; i++) {
		ids[i] = (int)(take(&p->s, 1) % (unsigned)(p->nbranches + 1));
		if (ids[i] == p->nbranches || p->is_seq[ids[i]])
			ok = 0;
	}
	id = itrace_writer_branch_seq_define(p->w, (size_t)k, ids);
	if (ok != (id >= 0) || (id >= 0 && id != p->nbranches))
		abort();
	if (id < 0)
		return;
	p->seqs[id].k = k;
	memcpy(p->seqs[id].ids, ids, (size_t)k * sizeof(ids[0]));
	p->is_seq[p->nbranches++] = 1;
}

/* expect_branches - the branches of writer id `id` (a branch's or a
 * sequence's) must read back. */
static void expect_branches(struct prog *p, int id)
{
	int one = id, k = p->is_seq[id] ? p->seqs[id].k : 1;

	for (int i = 0; i < k; i++) {
		struct itrace_record *r = expect(p);

		if (p->is_seq[id])
			one = p->seqs[id].ids[i];
		r->type = ITRACE_REC_BRANCH;
		r->u.branch = p->branches[one];
		p->pc = r->u.branch.to;
		p->n++;
	}
}

/* write_branch - itrace_writer_branch_id on an id from the input. */
static void write_branch(struct prog *p)
{
	int id = (int)(take(&p->s, 1) % (unsigned)(p->nbranches + 1));
	int rc = itrace_writer_branch_id(p->w, id);

	if ((id < p->nbranches) != (rc == 0))
		abort();
	if (rc == 0)
		expect_branches(p, id);
}

/* write_branch_ids - itrace_writer_branch_ids on 1..8 ids from the input:
 * refused whole when one is unknown. */
static void write_branch_ids(struct prog *p)
{
	int n = 1 + (int)(take(&p->s, 1) % 8), ids[8], ok = 1;

	for (int i = 0; i < n; i++) {
		ids[i] = (int)(take(&p->s, 1) % (unsigned)(p->nbranches + 1));
		ok &= ids[i] < p->nbranches;
	}
	if ((itrace_writer_branch_ids(p->w, (size_t)n, ids) == 0) != ok)
		abort();
	for (int i = 0; ok && i < n; i++)
		expect_branches(p, ids[i]);
}

/* next_op - one operation: op bytes 0xf0..0xff are the block and branch
 * calls, the others a record (op % 6 its kind). */
static int next_op(struct prog *p)
{
	unsigned op;

	if (p->s.p >= p->s.end)
		return 0;
	op = (unsigned)take(&p->s, 1);
	if (op < 0xf0) {
		next_record(p, op);
		return 1;
	}
	switch (op & 15) {
	case 0: case 1: case 2: define_block(p, op); break;
	case 3: case 4: case 5: write_block(p, 0); break;
	case 6: write_blocks(p); break;
	case 7: case 8: write_block(p, 1); break;
	case 9: case 10: define_branch(p, op); break;
	case 13: define_seq(p); break;
	case 14: write_branch_ids(p); break;
	default: write_branch(p); break;
	}
	return 1;
}

static int same(const struct itrace_record *a, const struct itrace_record *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case ITRACE_REC_INSN:
		return a->u.insn.addr == b->u.insn.addr && a->u.insn.len == b->u.insn.len;
	case ITRACE_REC_BRANCH:
		return !memcmp(&a->u.branch, &b->u.branch, sizeof(a->u.branch));
	case ITRACE_REC_MEM:
		return a->u.mem.addr == b->u.mem.addr && a->u.mem.size == b->u.mem.size &&
		       a->u.mem.flags == b->u.mem.flags;
	case ITRACE_REC_THREAD:
		return a->u.thread.event == b->u.thread.event && a->u.thread.tid == b->u.thread.tid &&
		       a->u.thread.pid == b->u.thread.pid;
	default:
		return a->u.syscall.dir == b->u.syscall.dir && a->u.syscall.nr == b->u.syscall.nr &&
		       a->u.syscall.ret == b->u.syscall.ret &&
		       a->u.syscall.nargs == b->u.syscall.nargs &&
		       !memcmp(a->u.syscall.args, b->u.syscall.args, 8 * a->u.syscall.nargs);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct itrace_writer_options o;
	static struct itrace_reader *r; /* kept, reopened on each input's trace */
	struct itrace_record rec;
	static struct prog p; /* its record array is kept from input to input */
	static int fd = -1;
	size_t i = 0;
	uint8_t *file;
	off_t file_len;

	if (fd < 0 && (fd = memfd_create("fuzz", 0)) < 0)
		abort();
	if (lseek(fd, 0, SEEK_SET) < 0)
		abort();
	/* the first 1 KiB: a few hundred operations are enough to reach every
	 * coding path, and keep each input quick */
	memcpy(p.s.buf, data, size < INPUT_MAX ? size : INPUT_MAX);
	memset(p.s.buf + (size < INPUT_MAX ? size : INPUT_MAX), 0, INPUT_PAD);
	p.s.p = p.s.buf;
	p.s.end = p.s.buf + (size < INPUT_MAX ? size : INPUT_MAX);
	p.pc = 0x400000;
	p.mem = 0x7ff000;
	p.n = 0;
	p.nblocks = p.nbranches = 0;
	itrace_writer_options_init(&o);
	o.chunk_bytes = 256 + (size % 3) * 512;
	o.compression = size & 1;
	p.seqs_on = (size >> 2) & 1;
	o.features = ((size >> 1) & 1 ? ITRACE_FEAT_BLOCK : 0) |
		     (p.seqs_on ? ITRACE_FEAT_BRANCH_SEQ : 0);
	o.mem_table_log2 = (size >> 3) & 1 ? ITRACE_MEM_TABLE_LOG2_WIDE : 0;
	if (itrace_writer_open_fd(fd, &o, &p.w) < 0)
		abort();
	while (next_op(&p))
		;
	if (itrace_writer_close(p.w, ITRACE_END_COMPLETE, 0) < 0)
		abort();
	/* the trace is what this input wrote; older bytes past it are not
	 * part of it (the reader finds the footer at the end it is given) */
	if ((file_len = lseek(fd, 0, SEEK_CUR)) < 0)
		abort();
	/* exactly its size, so that ASan sees a read past the end */
	file = malloc((size_t)file_len);
	if (!file || pread(fd, file, (size_t)file_len, 0) != file_len ||
	    (r ? itrace_reader_reopen_mem(&r, file, (size_t)file_len)
	       : itrace_reader_open_mem(file, (size_t)file_len, &r)) < 0)
		abort();
	while (itrace_reader_next(r, &rec, sizeof(rec)) == 0) {
		if (i >= p.n || !same(&p.recs[i], &rec))
			abort();
		i++;
	}
	if (i != p.n)
		abort();
	free(file);
	return 0;
}
