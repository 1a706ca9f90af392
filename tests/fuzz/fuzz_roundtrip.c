/*
 * fuzz_roundtrip.c - libFuzzer target: the input is a program of writer
 * operations (records with values taken from the bytes); whatever the
 * writer accepts, the reader must return identically.  One memory file,
 * made once, takes each input's trace (rewritten from its start, never
 * truncated), which is then read back from memory in one pread: the
 * writer's own system calls are the only file work per input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "itrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct src {
	const uint8_t *p, *end;
};

static uint64_t take(struct src *s, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && s->p < s->end; i++)
		v |= (uint64_t)*s->p++ << (8 * i);
	return v;
}

/* next_record - one record from the input; addresses kept near each other
 * half of the time so runs and repeats get exercised. */
static int next_record(struct src *s, struct itrace_record *r, uint64_t *pc)
{
	unsigned op;

	if (s->p >= s->end)
		return 0;
	memset(r, 0, sizeof(*r));
	op = (unsigned)take(s, 1);
	switch (op % 6) {
	case 0:
	case 1:
		r->type = ITRACE_REC_INSN;
		r->u.insn.len = (uint8_t)(take(s, 1) % 15 + 1);
		r->u.insn.addr = op & 0x80 ? take(s, 8) : *pc;
		*pc = r->u.insn.addr + r->u.insn.len;
		break;
	case 2:
		r->type = ITRACE_REC_BRANCH;
		r->u.branch.from = op & 0x80 ? take(s, 8) : *pc;
		r->u.branch.to = take(s, 2) + (*pc & ~0xffffull);
		r->u.branch.kind = (uint8_t)(take(s, 1) % 10);
		r->u.branch.flags = (uint8_t)(take(s, 1) & 7);
		*pc = r->u.branch.to;
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
	struct itrace_writer *w;
	struct itrace_reader *r;
	struct itrace_record *recs, rec;
	/* the first 1 KiB: a few hundred records are enough to reach every
	 * coding path, and keep each input quick */
	struct src s = { data, data + (size < 1024 ? size : 1024) };
	size_t n = 0, i = 0;
	uint64_t pc = 0x400000;
	static int fd = -1;
	static struct itrace_record *keep;
	static size_t cap;
	uint8_t *file;
	off_t file_len;

	if (fd < 0 && (fd = memfd_create("fuzz", 0)) < 0)
		abort();
	if (lseek(fd, 0, SEEK_SET) < 0)
		abort();
	/* kept from input to input (each record is set in full by next_record):
	 * clearing size * 100+ bytes per input was a tenth of the time */
	if (size + 1 > cap) {
		free(keep);
		cap = size + 1;
		keep = malloc(cap * sizeof(*keep));
	}
	recs = keep;
	itrace_writer_options_init(&o);
	o.chunk_bytes = 256 + (size % 3) * 512;
	o.compression = size & 1;
	if (!recs || itrace_writer_open_fd(fd, &o, &w) < 0)
		abort();
	while (next_record(&s, &recs[n], &pc))
		if (itrace_writer_write(w, &recs[n]) == 0)
			n++;
	if (itrace_writer_close(w, ITRACE_END_COMPLETE, 0) < 0)
		abort();
	/* the trace is what this input wrote; older bytes past it are not
	 * part of it (the reader finds the footer at the end it is given) */
	if ((file_len = lseek(fd, 0, SEEK_CUR)) < 0)
		abort();
	/* exactly its size, so that ASan sees a read past the end */
	file = malloc((size_t)file_len);
	if (!file || pread(fd, file, (size_t)file_len, 0) != file_len ||
	    itrace_reader_open_mem(file, (size_t)file_len, &r) < 0)
		abort();
	while (itrace_reader_next(r, &rec) == 0) {
		if (i >= n || !same(&recs[i], &rec))
			abort();
		i++;
	}
	if (i != n)
		abort();
	itrace_reader_close(r);
	free(file);
	return 0;
}
