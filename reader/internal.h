/*
 * internal.h - helpers shared by libitrace's reader and writer: varint and
 * zigzag coding, little-endian loads/stores, CRC-32C and the slot hashes
 * of the one-byte repeat tables.  Not installed; tools never include it.
 */
#ifndef ITRACE_INTERNAL_H
#define ITRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"
#include "itrace_format.h"

#define ITRACE_VARINT_MAX 10

/* put_varint - append unsigned LEB128 of v at p; returns bytes written. */
static inline size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/*
 * get_varint - decode a varint from [*p, end).  Returns 0 and advances *p,
 * or -1 if the bytes end first or the value does not fit 64 bits.
 */
static inline int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	unsigned shift = 0;

	while (q < end) {
		uint8_t b = *q++;

		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*out = v;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/*
 * itrace_reserve - make room for `need` elements of `elem` bytes in the
 * vector *v of capacity *cap, doubling it (from 4: many vectors, such as
 * each thread's call stack, stay small).  Returns 0, or -ITRACE_E_NOMEM
 * with *v and *cap as they were.
 */
static inline int itrace_reserve(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*v, ncap * elem);
	if (!p)
		return -ITRACE_E_NOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

/* itrace_lens_total - the bytes of n instructions of the given lengths. */
static inline uint64_t itrace_lens_total(const uint8_t *lens, size_t n)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < n; i++)
		bytes += lens[i];
	return bytes;
}

/* itrace_crc32c - CRC-32C (Castagnoli), continuing from `crc` (start 0). */
uint32_t itrace_crc32c(uint32_t crc, const void *buf, size_t len);

/* Slot of a branch in the repeat table: a hash of from and to. */
static inline unsigned branch_slot(uint64_t from, uint64_t to)
{
	uint64_t h = from * 0x9E3779B97F4A7C15ull ^ to * 0xC2B2AE3D27D4EB4Full;

	return (unsigned)(h >> 57);
}

/* Slot of an instruction run: a hash of its start and length. */
static inline unsigned run_slot(uint64_t start, unsigned n)
{
	uint64_t h = (start ^ ((uint64_t)n << 48)) * 0x9E3779B97F4A7C15ull;

	return (unsigned)(h >> 57);
}

/*
 * Slot of a memory access in the MEM table (format 2): a hash of the
 * address of the instruction it belongs to and its index among that
 * instruction's accesses.  An instruction's accesses tend to repeat or
 * stride, so the delta from its own previous access is short.  `shift`
 * keeps the hash's top bits: mem_shift() of the file's mem_table_log2.
 */
static inline unsigned mem_slot(uint64_t insn, unsigned index, unsigned shift)
{
	uint64_t h = (insn ^ ((uint64_t)index << 56)) * 0x9E3779B97F4A7C15ull;

	return (unsigned)(h >> shift);
}

/* The MEM table's shift for mem_slot(): a table of 1 << log2 entries
 * keeps the hash's top log2 bits (mem_table_log2, ITRACE.md 4.1, 6.5.4). */
static inline unsigned mem_shift(unsigned log2)
{
	return 64 - log2;
}

/* The MEM table's entries for that shift. */
static inline size_t mem_entries(unsigned shift)
{
	return (size_t)1 << (64 - shift);
}

/* A run of sequential instructions, as kept in the run repeat table. */
struct itrace_run {
	uint64_t start;
	uint16_t n; /* 0 = empty slot */
	uint8_t len[ITRACE_RUN_MAX];
};

/* A branch, as kept in the branch repeat table. */
struct itrace_branch_slot {
	uint64_t from, to;
	uint8_t kindflags;
	uint8_t used;
};

/* ---- Writer chunk output (writer_out.c) -------------------------------- */

/* A complete chunk as the encoder hands it over, with its header fields. */
struct chunk_job {
	uint64_t seq, time, first_insn, first_branch;
	uint32_t records, tid, pid;
	int inherits_thread;	/* tid/pid are the writer's before the segment */
	const uint8_t *raw;
	size_t raw_len;
};

/* One chunk of a segment: where its header is, and what it still needs. */
struct segment_chunk {
	size_t offset;		/* of its header in the segment's data */
	uint64_t first_insn;	/* relative to the segment's start */
	int inherits_thread;
};

/*
 * A segment: complete, compressed and checksummed chunks encoded in memory
 * by a segment writer (writer_segment_begin()), which a parallel fill's
 * workers make from their input chunks.  What depends on the chunks before
 * it (sequence numbers, instruction and branch counts, the thread of a
 * chunk that starts before the segment's first THREAD switch) is patched
 * when writer_append_segment() splices it into the file.
 */
struct writer_segment {
	uint8_t *data;		/* chunk headers and payloads, back to back */
	size_t len, cap;
	struct segment_chunk *chunks;
	size_t nchunks, capchunks;
	/* Totals and the writer's state at the end (writer_segment_end()). */
	uint64_t records, insns, branches, mems, lost, gaps, raw_bytes;
	int thread_set;		/* a THREAD switch was written: tid/pid valid */
	uint32_t tid, pid;
	uint64_t time;
};

/* What the chunks before a segment leave for it to be patched with. */
struct segment_base {
	uint64_t seq, insns, branches;
	uint32_t tid, pid;
};

struct chunk_index_entry {
	uint64_t offset, first_insn;
};

struct chunk_async;

/*
 * Compression, checksums, writing and the chunk index.  With async, a
 * thread started at the first chunk owns everything below `async` while a
 * job is pending; the caller touches them only after chunk_out_wait().
 */
struct chunk_out {
	int fd;
	int zstd_level;
	int want_async;
	int err;			/* first error, sticky */
	int err_errno;			/* errno of an -ITRACE_E_IO err */
	struct chunk_async *async;	/* NULL: synchronous */
	void *cctx;			/* ZSTD_CCtx, NULL: no compression */
	uint8_t *zbuf;
	size_t zcap;
	uint64_t offset;		/* file offset of the next write */
	uint64_t chunks, raw_bytes, file_bytes;
	struct chunk_index_entry *index;
	size_t index_len, index_cap;
	struct writer_segment *capture;	/* chunks go here, not to fd */
};

/* chunk_out_init - output to fd, zstd-compressed if `zstd`.  0 or NOMEM. */
int chunk_out_init(struct chunk_out *o, int fd, int zstd, int zstd_level, int async);

/*
 * chunk_out_submit - write chunk j.  Asynchronous: *raw (j's buffer) is
 * taken and a free buffer of *raw_cap bytes returned in its place; the
 * error of an earlier chunk may be returned.  Returns 0 or -ITRACE_E_*.
 */
int chunk_out_submit(struct chunk_out *o, const struct chunk_job *j, uint8_t **raw,
		     size_t *raw_cap);

/*
 * Every chunk_out function that returns -ITRACE_E_IO sets errno to the
 * cause, whichever thread met it.
 */

/* chunk_out_write - write bytes (file header, footer) after every chunk. */
int chunk_out_write(struct chunk_out *o, const void *buf, size_t len);

/* chunk_out_wait - wait until every submitted chunk is written; its error. */
int chunk_out_wait(struct chunk_out *o);

/* chunk_out_counts - chunks, payload and file bytes written so far. */
void chunk_out_counts(const struct chunk_out *o, uint64_t *chunks, uint64_t *raw_bytes,
		      uint64_t *file_bytes);

/*
 * chunk_out_splice - patch segment s's chunk headers with base and write
 * them (synchronously, after any pending chunk), indexing each chunk.
 * Returns 0 or -ITRACE_E_*.
 */
int chunk_out_splice(struct chunk_out *o, struct writer_segment *s, const struct segment_base *base);

/* chunk_out_fini - finish the pending chunk, stop the thread, free. */
void chunk_out_fini(struct chunk_out *o);

/* ---- Segments (writer.c), for the parallel fill ----------------------- */

/*
 * The functions below are libitrace's (core) and are called by the fill in
 * libitrace-code, across the boundary between the two shared libraries.
 * libitrace.so exports what libitrace.map names, so these link under
 * itrace_priv_ names in its ITRACE_PRIVATE node (glibc's GLIBC_PRIVATE):
 * exported, but not API, not in itrace.h, free to change with the
 * libraries, which are always built and installed together.
 */
#define writer_segment_open itrace_priv_writer_segment_open
#define writer_segment_begin itrace_priv_writer_segment_begin
#define writer_segment_end itrace_priv_writer_segment_end
#define writer_segment_free itrace_priv_writer_segment_free
#define writer_segment_release itrace_priv_writer_segment_release
#define writer_append_segment itrace_priv_writer_append_segment
#define writer_end_chunk itrace_priv_writer_end_chunk
#define writer_insns_valid itrace_priv_writer_insns_valid
#define writer_time itrace_priv_writer_time

/*
 * writer_segment_open - a writer that encodes into segments, with the
 * chunk size, compression and flags of `like`; no file header.  Owned by
 * the caller: writer_segment_free().  Returns 0 or -ITRACE_E_NOMEM.
 */
int writer_segment_open(const struct itrace_writer *like, struct itrace_writer **seg);

/*
 * writer_segment_begin - start encoding into dst (emptied, kept allocated),
 * as from a fresh chunk whose time is `time`: the TIMESTAMP state that the
 * file writer will have there.  The thread is unknown until a THREAD switch.
 */
void writer_segment_begin(struct itrace_writer *seg, uint64_t time, struct writer_segment *dst);

/* writer_segment_end - end the last chunk and record the totals. 0 or error. */
int writer_segment_end(struct itrace_writer *seg);

void writer_segment_free(struct itrace_writer *seg);

/* writer_segment_release - free a segment's memory (not s itself). */
void writer_segment_release(struct writer_segment *s);

/*
 * writer_append_segment - end w's current chunk and splice segment s in
 * after it, as if w had encoded s's records itself from a fresh chunk.
 * s's data is patched in place.  Returns 0 or the writer's error.
 */
int writer_append_segment(struct itrace_writer *w, struct writer_segment *s);

/*
 * writer_end_chunk - end the current chunk now (none is written if it is
 * empty).  The fill ends one at every input chunk, so that -j N can encode
 * input chunks separately and give the same bytes.  0 or the error.
 */
int writer_end_chunk(struct itrace_writer *w);

/*
 * writer_insns_valid - itrace_writer_insns() for lengths known to be valid
 * (a decoded block's), which add up to `total` bytes: the fill's hot path
 * skips checking and summing what the decoder already did.
 */
int writer_insns_valid(struct itrace_writer *w, uint64_t addr, size_t n, const uint8_t *lens,
		       uint64_t total);

/* writer_time - the time (last TIMESTAMP) the next chunk would start with. */
uint64_t writer_time(const struct itrace_writer *w);

#endif
