/*
 * writer.c - streaming itrace writer.
 *
 * Records are encoded into one in-memory chunk; when it reaches the
 * configured size it is compressed, checksummed and written with a single
 * writev(), so a killed process leaves only whole chunks behind.  Sequential
 * instructions are collected into runs, and repeated branches and runs
 * become one-byte repeat records (see format/ITRACE.md, "Records").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* The per-branch path is inlined into its batch loop whatever the
 * compiler's size heuristics say (GCC and Clang both know the attribute). */
#define ALWAYS_INLINE __attribute__((always_inline))

#define DEFAULT_CHUNK_BYTES (1u << 20)
#define MIN_CHUNK_BYTES 256u
#define RECORD_SLACK 64 /* header byte + size varint + small fields */

/*
 * A block definition, with what its executions need computed once: the
 * repeat-table slot, the MEM-table slot of each access, and the BLOCK
 * record's bytes after the start delta (ITRACE.md 6.5.15).
 */
struct block_def {
	uint64_t start, end, last_insn;
	size_t lens, tail;	   /* offsets in bdata: n lengths, the record tail */
	size_t acc;		   /* offset in bacc and bmslot */
	uint16_t n, m, tail_len;
	uint8_t slot;		   /* run_slot(start, n) */
	uint8_t last_mem_index;	   /* accesses of the last instruction */
};

/*
 * A branch definition: its slot and the BRANCH record's bytes after the
 * source delta (ITRACE.md 6.5.1), computed once.  Or a sequence of
 * k branch definitions (itrace_writer_branch_seq_define): from is its
 * first branch's, to its last one's, slot the one it was last written
 * to (the writer chooses it), and the BRANCH_SEQ record's bytes after
 * the slot (6.5.16) are in sdata.
 */
struct branch_def {
	uint64_t from, to;
	uint32_t seq_tail;	/* a sequence: offset of its record's tail in sdata */
	uint16_t seq_tail_len;	/* a sequence: its tail's length; 0: a branch */
	uint16_t k;		/* branches: 1 for a branch, a sequence's 1..ITRACE_SEQ_MAX */
	uint8_t kindflags, slot, tail_len;
	uint8_t tail[ITRACE_VARINT_MAX + 1];
};

struct itrace_writer {
	int fd;
	struct itrace_outfile *file; /* itrace_writer_open()'s file, else NULL */
	int published;		/* file has its final name (tick) */
	int out_is_pipe;	/* a pipe or socket: itrace_writer_tick() polls it */
	int err; /* first error, sticky */
	int err_errno; /* errno of an -ITRACE_E_IO err */
	struct itrace_writer_options opts;
	uint64_t dirty_since; /* ms when tick first saw records waiting, 0: none */

	/* Current chunk. */
	uint8_t *raw;
	size_t raw_len, raw_cap;
	uint32_t chunk_records;
	uint64_t cur_pc, cur_time;
	uint64_t last_insn;	/* address of the last instruction encoded */
	unsigned mem_index;	/* MEM records written since it */
	/* the first 1 << opts.mem_table_log2 entries are used */
	uint64_t mem_table[ITRACE_MEM_SLOTS_MAX];
	unsigned mem_shift;	/* mem_shift(opts.mem_table_log2) */
	uint32_t chunk_tid, chunk_pid;
	int chunk_inherits_thread;
	uint64_t chunk_time, chunk_first_insn, chunk_first_branch;
	struct itrace_branch_slot branches[ITRACE_REPEAT_SLOTS];
	struct itrace_run runs[ITRACE_REPEAT_SLOTS];
	struct itrace_run pending; /* run being collected, n = 0 if none */
	uint64_t pending_end;
	int32_t block_in[ITRACE_REPEAT_SLOTS]; /* id + 1 of the block in a slot, 0: none */
	int32_t branch_in[ITRACE_REPEAT_SLOTS]; /* id + 1 of the defined branch in a slot */
	/* The slots of sequences are the writer's choice: the clock
	 * algorithm (second chance), over all slots; a slot whose sequence
	 * was repeated since the hand last passed it is spared once.  Only
	 * sequences mark their slots, so that a defined branch writes the
	 * bytes of itrace_writer_branch(). */
	uint8_t slot_used[ITRACE_REPEAT_SLOTS];
	unsigned clock_hand;

	/* Branch and sequence definitions (itrace_writer_branch_define,
	 * itrace_writer_branch_seq_define), by id. */
	struct branch_def *bdefs;
	size_t n_bdefs, cap_bdefs;
	uint8_t *sdata; /* the sequences' encoded records */
	size_t sdata_len, sdata_cap;

	/* Block definitions (itrace_writer_block_define), by id. */
	struct block_def *blocks;
	size_t n_blocks, cap_blocks;
	uint8_t *bdata; /* their lengths and encoded records */
	size_t bdata_len, bdata_cap;
	struct itrace_block_access *bacc; /* their accesses */
	uint16_t *bmslot; /* the MEM-table slot of each, beside bacc */
	size_t bacc_len, bacc_cap, bmslot_cap;

	/* Thread state that the next chunk header records. */
	uint32_t tid, pid;
	int thread_known; /* 0 only in a segment before its first THREAD switch */
	uint64_t time;

	/* Compression, writing and the chunk index (writer_out.c). */
	struct chunk_out out;

	/* Totals for the footer; st.chunks/raw_bytes/file_bytes live in out. */
	uint64_t seq;
	struct itrace_writer_stats st;
	uint64_t lost, gaps;
};

void itrace_writer_options_init(struct itrace_writer_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->machine = 62; /* EM_X86_64 */
	opts->target_endian = 1;
	opts->level = ITRACE_LEVEL_INSN;
	opts->compression = ITRACE_COMPRESS_ZSTD;
	opts->zstd_level = 1;
	opts->chunk_bytes = DEFAULT_CHUNK_BYTES;
}

static int valid_meta_key(const char *k)
{
	return k && *k && !strchr(k, '=');
}

/* header_bytes - the file header with its metadata; caller frees *out. */
static int build_header(const struct itrace_writer_options *o, const struct itrace_meta *m,
			size_t mcount, uint8_t **out, size_t *len)
{
	size_t meta = 0, i;
	uint8_t *h, *p;

	for (i = 0; i < mcount; i++) {
		if (!valid_meta_key(m[i].key) || !m[i].value)
			return -ITRACE_E_INVAL;
		meta += strlen(m[i].key) + 1 + strlen(m[i].value) + 1;
	}
	if (ITRACE_FILE_FIXED_SIZE + meta > ITRACE_FILE_HEADER_MAX)
		return -ITRACE_E_INVAL;
	h = calloc(1, ITRACE_FILE_FIXED_SIZE + meta);
	if (!h)
		return -ITRACE_E_NOMEM;
	memcpy(h, ITRACE_FILE_MAGIC, ITRACE_FILE_MAGIC_LEN);
	put_le16(h + 8, ITRACE_FORMAT_MAJOR);
	put_le16(h + 10, ITRACE_FORMAT_MINOR);
	h[12] = (uint8_t)o->mem_table_log2;
	put_le16(h + 14, ITRACE_FILE_FIXED_SIZE);
	put_le32(h + 16, (uint32_t)(ITRACE_FILE_FIXED_SIZE + meta));
	put_le16(h + 20, o->machine);
	h[22] = o->target_endian;
	h[23] = o->level;
	put_le32(h + 24, o->flags);
	put_le32(h + 28, (uint32_t)meta);
	put_le32(h + 32, (uint32_t)mcount);
	put_le32(h + 36, o->features);
	put_le32(h + 40, 0); /* no compatible features in 1.0 */
	p = h + ITRACE_FILE_FIXED_SIZE;
	for (i = 0; i < mcount; i++) {
		size_t kl = strlen(m[i].key), vl = strlen(m[i].value);

		memcpy(p, m[i].key, kl);
		p[kl] = '=';
		memcpy(p + kl + 1, m[i].value, vl + 1);
		p += kl + vl + 2;
	}
	put_le32(h + 44, itrace_crc32c(0, h, ITRACE_FILE_FIXED_SIZE + meta));
	*out = h;
	*len = ITRACE_FILE_FIXED_SIZE + meta;
	return 0;
}

static int check_options(const struct itrace_writer_options *o)
{
	if (!o || o->size < sizeof(*o))
		return -ITRACE_E_INVAL;
	if (o->level != ITRACE_LEVEL_BRANCH && o->level != ITRACE_LEVEL_INSN)
		return -ITRACE_E_INVAL;
	if (o->target_endian != 1 && o->target_endian != 2)
		return -ITRACE_E_INVAL;
	if (o->compression != ITRACE_COMPRESS_NONE && o->compression != ITRACE_COMPRESS_ZSTD)
		return -ITRACE_E_INVAL;
	if (o->flags & ~(uint32_t)ITRACE_FF_KNOWN_MASK)
		return -ITRACE_E_INVAL;
	if (o->features & ~(uint32_t)ITRACE_FEAT_INCOMPAT_KNOWN)
		return -ITRACE_E_INVAL;
	if (o->mem_table_log2 && (o->mem_table_log2 < ITRACE_MEM_TABLE_LOG2_MIN ||
				  o->mem_table_log2 > ITRACE_MEM_TABLE_LOG2_MAX))
		return -ITRACE_E_INVAL;
	if (o->meta_count && !o->meta)
		return -ITRACE_E_INVAL;
	return 0;
}

/* writer_err - the sticky error, with errno restored for -ITRACE_E_IO. */
static int writer_err(const struct itrace_writer *w)
{
	if (w->err == -ITRACE_E_IO)
		errno = w->err_errno;
	return w->err;
}

/* writer_failed - make rc (a chunk_out error, errno set) the sticky error. */
static int writer_failed(struct itrace_writer *w, int rc)
{
	w->err_errno = errno;
	return w->err = rc;
}

/* start_chunk - fresh coding state; absolute state from the writer. */
static void start_chunk(struct itrace_writer *w)
{
	w->raw_len = 0;
	w->dirty_since = 0;
	w->chunk_records = 0;
	w->cur_pc = 0;
	w->last_insn = 0;
	w->mem_index = 0;
	memset(w->mem_table, 0, mem_entries(w->mem_shift) * sizeof(w->mem_table[0]));
	w->cur_time = w->time;
	w->chunk_time = w->time;
	w->chunk_tid = w->tid;
	w->chunk_pid = w->pid;
	w->chunk_inherits_thread = !w->thread_known;
	w->chunk_first_insn = w->st.insns;
	w->chunk_first_branch = w->st.branches;
	memset(w->branches, 0, sizeof(w->branches));
	memset(w->block_in, 0, sizeof(w->block_in));
	memset(w->branch_in, 0, sizeof(w->branch_in));
	memset(w->slot_used, 0, sizeof(w->slot_used));
	w->clock_hand = 0;
	for (int i = 0; i < ITRACE_REPEAT_SLOTS; i++)
		w->runs[i].n = 0;
}

/* writer_buffers - the chunk buffer and the output, as w->opts say. */
static int writer_buffers(struct itrace_writer *w)
{
	w->raw_cap = w->opts.chunk_bytes + 4096;
	w->mem_shift = mem_shift(w->opts.mem_table_log2);
	w->raw = malloc(w->raw_cap);
	if (!w->raw)
		return -ITRACE_E_NOMEM;
	return chunk_out_init(&w->out, w->fd, w->opts.compression == ITRACE_COMPRESS_ZSTD,
			      w->opts.zstd_level, w->opts.async);
}

static int writer_setup(struct itrace_writer *w, const struct itrace_writer_options *o)
{
	uint8_t *hdr;
	size_t hlen;
	int rc;

	w->opts = *o;
	w->opts.meta = NULL;
	w->opts.meta_count = 0;
	if (!w->opts.chunk_bytes)
		w->opts.chunk_bytes = DEFAULT_CHUNK_BYTES;
	if (w->opts.chunk_bytes < MIN_CHUNK_BYTES)
		w->opts.chunk_bytes = MIN_CHUNK_BYTES;
	if (w->opts.chunk_bytes > ITRACE_CHUNK_RAW_MAX / 2)
		w->opts.chunk_bytes = ITRACE_CHUNK_RAW_MAX / 2;
	if (w->opts.zstd_level == 0 || w->opts.zstd_level < ITRACE_ZSTD_FASTEST ||
	    w->opts.zstd_level > 19)
		w->opts.zstd_level = 1;
	if (!w->opts.mem_table_log2)
		w->opts.mem_table_log2 = ITRACE_MEM_TABLE_LOG2_DEFAULT;
	rc = writer_buffers(w);
	if (rc < 0)
		return rc;
	rc = build_header(&w->opts, o->meta, o->meta_count, &hdr, &hlen);
	if (rc < 0)
		return rc;
	rc = chunk_out_write(&w->out, hdr, hlen);
	free(hdr);
	start_chunk(w);
	return rc;
}

/* writer_free - free everything; an unpublished output file is removed. */
static void writer_free(struct itrace_writer *w)
{
	if (!w)
		return;
	chunk_out_fini(&w->out);
	itrace_outfile_discard(w->file);
	free(w->raw);
	free(w->blocks);
	free(w->bdefs);
	free(w->sdata);
	free(w->bdata);
	free(w->bacc);
	free(w->bmslot);
	free(w);
}

/* is_pipe - output to a pipe or socket, whose reader may go away. */
static int is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int itrace_writer_open_fd(int fd, const struct itrace_writer_options *opts,
			  struct itrace_writer **wp)
{
	struct itrace_writer *w;
	int rc;

	if (!wp)
		return -ITRACE_E_INVAL;
	*wp = NULL;
	if (fd < 0 || (rc = check_options(opts)) < 0)
		return -ITRACE_E_INVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ITRACE_E_NOMEM;
	w->fd = fd;
	w->out_is_pipe = is_pipe(fd);
	w->thread_known = 1;
	rc = writer_setup(w, opts);
	if (rc < 0) {
		writer_free(w);
		return rc;
	}
	*wp = w;
	return 0;
}

int itrace_writer_open(const char *path, const struct itrace_writer_options *opts,
		       struct itrace_writer **wp)
{
	struct itrace_outfile *file;
	int rc;

	if (!path || !wp)
		return -ITRACE_E_INVAL;
	*wp = NULL;
	if ((rc = check_options(opts)) < 0)
		return rc;
	if ((rc = itrace_outfile_open(path, opts->out_flags, &file)) < 0)
		return rc;
	rc = itrace_writer_open_fd(itrace_outfile_fd(file), opts, wp);
	if (rc < 0) {
		itrace_outfile_discard(file);
		return rc;
	}
	(*wp)->file = file;
	return 0;
}

/* finish_chunk - hand the current chunk (if any) to the output; start a new one. */
static int finish_chunk(struct itrace_writer *w)
{
	struct chunk_job j;
	int rc;

	if (w->err)
		return writer_err(w);
	if (w->raw_len == 0)
		return 0;
	j.seq = w->seq;
	j.records = w->chunk_records;
	j.tid = w->chunk_tid;
	j.pid = w->chunk_pid;
	j.inherits_thread = w->chunk_inherits_thread;
	j.time = w->chunk_time;
	j.first_insn = w->chunk_first_insn;
	j.first_branch = w->chunk_first_branch;
	j.raw = w->raw;
	j.raw_len = w->raw_len;
	if ((rc = chunk_out_submit(&w->out, &j, &w->raw, &w->raw_cap)) < 0)
		return writer_failed(w, rc);
	w->seq++;
	start_chunk(w);
	return 0;
}

static int grow_raw(struct itrace_writer *w, size_t need)
{
	uint8_t *n = realloc(w->raw, need);

	if (!n)
		return w->err = -ITRACE_E_NOMEM;
	w->raw = n;
	w->raw_cap = need;
	return 0;
}

/* reserve - room for a record of up to `payload` bytes.  The chunk buffer
 * has room for a whole chunk, so only a large record ever grows it. */
static inline int reserve(struct itrace_writer *w, size_t payload)
{
	size_t need = w->raw_len + payload + RECORD_SLACK;

	return need > w->raw_cap ? grow_raw(w, need) : 0;
}

/*
 * end_record - frame the payload written at raw[start+2 ..] as
 * {type, size}; the size byte was reserved, longer sizes shift the payload.
 */
static inline int end_record(struct itrace_writer *w, size_t start, uint8_t type, size_t end)
{
	size_t plen = end - (start + 2);
	uint8_t sz[ITRACE_VARINT_MAX];
	size_t sl;

	w->raw[start] = type;
	w->chunk_records++;
	if (plen < 0x80) { /* every instruction, branch and MEM record */
		w->raw[start + 1] = (uint8_t)plen;
		w->raw_len = end;
		return 0;
	}
	sl = put_varint(sz, plen);
	if (sl > 1)
		memmove(w->raw + start + 1 + sl, w->raw + start + 2, plen);
	memcpy(w->raw + start + 1, sz, sl);
	w->raw_len = start + 1 + sl + plen;
	return 0;
}

static int emit_repeat(struct itrace_writer *w, uint8_t byte)
{
	w->raw[w->raw_len++] = byte;
	w->chunk_records++;
	return 0;
}

/*
 * chunk_boundary - end the chunk if it is full.  Called only before an
 * instruction, branch or context record, never before a MEM record, so a
 * MEM record always sits in the same chunk as its instruction.
 */
static int chunk_boundary(struct itrace_writer *w)
{
	if (w->raw_len >= w->opts.chunk_bytes)
		return finish_chunk(w);
	return 0;
}

/*
 * same_lens - memcmp for the short length arrays of runs, inlined: a call
 * to memcmp for a dozen bytes was a visible share of a fill's time.
 */
static inline int same_lens(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint64_t x, y;

	for (; n >= 8; n -= 8, a += 8, b += 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	while (n--)
		if (*a++ != *b++)
			return 0;
	return 1;
}

/* copy_lens - memcpy for the few lengths of a typical basic block. */
static inline void copy_lens(uint8_t *dst, const uint8_t *src, size_t n)
{
	if (n > 16) {
		memcpy(dst, src, n);
		return;
	}
	while (n--)
		*dst++ = *src++;
}

/*
 * free_slot - a repeat-table slot holds one record (ITRACE.md 6.2): a new
 * run, branch or block in it makes the reader forget whatever was there,
 * and so must the writer (the caller then records what it put there).
 */
static inline void free_slot(struct itrace_writer *w, unsigned slot)
{
	w->runs[slot].n = 0;
	w->branches[slot].used = 0;
	w->block_in[slot] = 0;
	w->branch_in[slot] = 0;
}

/* branch_slot_holds - does branch slot t hold the branch from -> to with
 * kind and flags kf?  Then the branch is written as a repeat byte. */
static inline int branch_slot_holds(const struct itrace_branch_slot *t, uint64_t from, uint64_t to,
				    uint8_t kf)
{
	return t->used && t->from == from && t->to == to && t->kindflags == kf;
}

/* take_branch_slot - slot `slot` holds the branch from -> to (kind and
 * flags kf) from now on, as the reader's will after this record. */
static inline void take_branch_slot(struct itrace_writer *w, unsigned slot, uint64_t from,
				    uint64_t to, uint8_t kf)
{
	struct itrace_branch_slot *t = &w->branches[slot];

	free_slot(w, slot);
	t->from = from;
	t->to = to;
	t->kindflags = kf;
	t->used = 1;
}

/* encode_run - encode the pending instruction run (not empty), as a
 * repeat if possible. */
static int encode_run(struct itrace_writer *w)
{
	struct itrace_run *run = &w->pending;
	unsigned slot, i;
	struct itrace_run *t;
	size_t start, q;
	int uniform = 1;
	uint64_t base = w->cur_pc;

	if (reserve(w, 12 + ITRACE_RUN_MAX) < 0)
		return writer_err(w);
	slot = run_slot(run->start, run->n);
	t = &w->runs[slot];
	w->cur_pc = w->pending_end;
	w->last_insn = w->pending_end - run->len[run->n - 1];
	w->mem_index = 0;
	if (t->n == run->n && t->start == run->start && same_lens(t->len, run->len, run->n)) {
		run->n = 0;
		return emit_repeat(w, ITRACE_REPEAT_BIT | slot);
	}
	free_slot(w, slot);
	start = w->raw_len;
	q = start + 2;
	q += put_varint(w->raw + q, zigzag((int64_t)(run->start - base)));
	for (i = 1; i < run->n; i++)
		uniform &= run->len[i] == run->len[0];
	q += put_varint(w->raw + q, (uint64_t)run->n << 1 | (unsigned)uniform);
	if (uniform) {
		w->raw[q++] = run->len[0];
	} else {
		for (i = 0; i < run->n; i += 2)
			w->raw[q++] = (uint8_t)(run->len[i] |
						(i + 1 < run->n ? run->len[i + 1] << 4 : 0));
	}
	/* Only the lengths in use: the whole slot is a `rep movs` of 270 bytes. */
	t->start = run->start;
	t->n = run->n;
	copy_lens(t->len, run->len, run->n);
	run->n = 0;
	return end_record(w, start, ITRACE_T_INSN_RUN, q);
}

/* flush_run - encode the pending instruction run, if there is one. */
static inline int flush_run(struct itrace_writer *w)
{
	return w->pending.n ? encode_run(w) : 0;
}

int itrace_writer_insn(struct itrace_writer *w, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	size_t start, q;

	if (!w || len == 0 || len > ITRACE_INSN_MAX_LEN)
		return -ITRACE_E_INVAL;
	if (w->err)
		return writer_err(w);
	if (!bytes && w->pending.n && addr == w->pending_end && w->pending.n < ITRACE_RUN_MAX) {
		w->pending.len[w->pending.n++] = (uint8_t)len;
		w->pending_end += len;
		w->st.insns++;
		w->st.records++;
		return 0;
	}
	if (flush_run(w) < 0 || chunk_boundary(w) < 0)
		return writer_err(w);
	w->st.insns++;
	w->st.records++;
	if (!bytes) {
		w->pending.start = addr;
		w->pending.n = 1;
		w->pending.len[0] = (uint8_t)len;
		w->pending_end = addr + len;
		return 0;
	}
	if (reserve(w, 12 + len) < 0)
		return writer_err(w);
	start = w->raw_len;
	q = start + 2;
	q += put_varint(w->raw + q, zigzag((int64_t)(addr - w->cur_pc)));
	w->raw[q++] = (uint8_t)len;
	memcpy(w->raw + q, bytes, len);
	q += len;
	w->cur_pc = addr + len;
	w->last_insn = addr;
	w->mem_index = 0;
	return end_record(w, start, ITRACE_T_INSN, q);
}

/*
 * append_insns - n sequential instructions at addr, their lengths valid
 * and totalling `total` bytes, added to the pending run (or runs).
 */
static inline int append_insns(struct itrace_writer *w, uint64_t addr, size_t n, const uint8_t *lens,
			       uint64_t total)
{
	struct itrace_run *run = &w->pending;

	if (w->err)
		return writer_err(w);
	while (n) {
		size_t take;
		uint64_t bytes;

		if (!run->n || addr != w->pending_end || run->n == ITRACE_RUN_MAX) {
			if (flush_run(w) < 0 || chunk_boundary(w) < 0)
				return writer_err(w);
			run->start = addr;
			w->pending_end = addr;
		}
		take = ITRACE_RUN_MAX - run->n;
		if (take >= n) {
			take = n;
			bytes = total;
		} else {
			bytes = itrace_lens_total(lens, take);
		}
		copy_lens(run->len + run->n, lens, take);
		run->n = (uint16_t)(run->n + take);
		w->pending_end += bytes;
		addr += bytes;
		total -= bytes;
		w->st.insns += take;
		w->st.records += take;
		lens += take;
		n -= take;
	}
	return 0;
}

int itrace_writer_insns(struct itrace_writer *w, uint64_t addr, size_t n, const uint8_t *lens)
{
	uint64_t total = 0;
	unsigned bad = 0;

	uint64_t bad8 = 0;
	size_t i = 0;

	if (!w || (n && !lens))
		return -ITRACE_E_INVAL;
	/* Check every length and add them up in one pass, eight at a time
	 * while there are eight: a length above 15 has a high nibble, a zero
	 * one shows in the classic has-zero-byte test, and with every length
	 * at most 15 the top byte of x * 0x0101...01 is the sum of the eight. */
	_Static_assert(ITRACE_INSN_MAX_LEN == 15, "a length must fit a nibble");
	for (; i + 8 <= n; i += 8) {
		uint64_t x;

		memcpy(&x, lens + i, 8);
		bad8 |= x & 0xf0f0f0f0f0f0f0f0ull;
		bad8 |= (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
		total += (x * 0x0101010101010101ull) >> 56;
	}
	for (; i < n; i++) {
		bad |= (unsigned)(lens[i] - 1u) >= ITRACE_INSN_MAX_LEN;
		total += lens[i];
	}
	if (bad || bad8)
		return -ITRACE_E_INVAL;
	return append_insns(w, addr, n, lens, total);
}

int writer_insns_valid(struct itrace_writer *w, uint64_t addr, size_t n, const uint8_t *lens,
		       uint64_t total)
{
	return append_insns(w, addr, n, lens, total);
}

int itrace_writer_branch(struct itrace_writer *w, uint64_t from, uint64_t to, unsigned kind,
			unsigned flags)
{
	unsigned slot;
	uint64_t base;
	uint8_t kf;
	size_t start, q;

	if (!w || kind > ITRACE_BK_MAX || (flags & ~(unsigned)ITRACE_BF_KNOWN_MASK))
		return -ITRACE_E_INVAL;
	if (w->err || flush_run(w) < 0 || chunk_boundary(w) < 0 || reserve(w, 24) < 0)
		return writer_err(w);
	w->st.branches++;
	w->st.records++;
	kf = (uint8_t)(kind | flags << 4);
	slot = branch_slot(from, to);
	base = w->cur_pc;
	w->cur_pc = to;
	if (branch_slot_holds(&w->branches[slot], from, to, kf))
		return emit_repeat(w, ITRACE_REPEAT_BIT | slot);
	take_branch_slot(w, slot, from, to, kf);
	start = w->raw_len;
	q = start + 2;
	/* from is relative to where execution was, to relative to from. */
	q += put_varint(w->raw + q, zigzag((int64_t)(from - base)));
	q += put_varint(w->raw + q, zigzag((int64_t)(to - from)));
	w->raw[q++] = kf;
	return end_record(w, start, ITRACE_T_BRANCH, q);
}

int itrace_writer_mem(struct itrace_writer *w, uint64_t addr, uint64_t size, unsigned flags)
{
	size_t start, q;
	unsigned slot;

	if (!w || (flags & ~(unsigned)ITRACE_MF_KNOWN_MASK))
		return -ITRACE_E_INVAL;
	if (w->err || flush_run(w) < 0 || reserve(w, 24) < 0)
		return writer_err(w);
	w->st.mems++;
	w->st.records++;
	start = w->raw_len;
	q = start + 2;
	w->raw[q++] = (uint8_t)flags;
	if (size < 0x80) /* always, but for a few vector and string accesses */
		w->raw[q++] = (uint8_t)size;
	else
		q += put_varint(w->raw + q, size);
	slot = mem_slot(w->last_insn, w->mem_index++, w->mem_shift);
	q += put_varint(w->raw + q, zigzag((int64_t)(addr - w->mem_table[slot])));
	w->mem_table[slot] = addr;
	return end_record(w, start, ITRACE_T_MEM, q);
}

/* ---- Blocks (ITRACE.md 6.5.15) ------------------------------------------ */

/* block_data - room for `need` more bytes in the definitions' byte store. */
static int block_data(struct itrace_writer *w, size_t need)
{
	return itrace_reserve((void **)&w->bdata, &w->bdata_cap, w->bdata_len + need, 1);
}

/* check_block - the lengths and accesses of a definition (6.5.15's rules). */
static int check_block(size_t n, const uint8_t *lens, size_t m,
		       const struct itrace_block_access *acc)
{
	size_t i;

	if (n == 0 || n > ITRACE_RUN_MAX || !lens || m > ITRACE_BLOCK_ACCESS_MAX || (m && !acc))
		return -ITRACE_E_INVAL;
	for (i = 0; i < n; i++)
		if (lens[i] == 0 || lens[i] > ITRACE_INSN_MAX_LEN)
			return -ITRACE_E_INVAL;
	for (i = 0; i < m; i++)
		if (acc[i].insn >= n || (i && acc[i].insn < acc[i - 1].insn) ||
		    (acc[i].flags & ~(unsigned)ITRACE_MF_KNOWN_MASK) || acc[i].size > UINT64_MAX >> 1)
			return -ITRACE_E_INVAL;
	return 0;
}

/* encode_block_tail - the BLOCK payload after the start delta, up to the
 * address deltas: n_uniform, lengths, m, the accesses.  Returns its size. */
static size_t encode_block_tail(uint8_t *q0, size_t n, const uint8_t *lens, size_t m,
				const struct itrace_block_access *acc)
{
	uint8_t *q = q0;
	unsigned uniform = 1, prev = 0;
	size_t i;

	for (i = 1; i < n; i++)
		uniform &= lens[i] == lens[0];
	q += put_varint(q, (uint64_t)n << 1 | uniform);
	if (uniform) {
		*q++ = lens[0];
	} else {
		for (i = 0; i < n; i += 2)
			*q++ = (uint8_t)(lens[i] | (i + 1 < n ? lens[i + 1] << 4 : 0));
	}
	q += put_varint(q, m);
	for (i = 0; i < m; i++) {
		q += put_varint(q, acc[i].insn - prev);
		q += put_varint(q, acc[i].size << 1 | (acc[i].flags & ITRACE_MEM_STORE));
		prev = acc[i].insn;
	}
	return (size_t)(q - q0);
}

int itrace_writer_block_define(struct itrace_writer *w, uint64_t addr, size_t n,
			       const uint8_t *lens, size_t m,
			       const struct itrace_block_access *acc)
{
	struct block_def *b;
	uint64_t insn = addr;
	size_t i, k, tail_max;
	unsigned ordinal = 0;
	int rc;

	if (!w || (rc = check_block(n, lens, m, acc)) < 0)
		return -ITRACE_E_INVAL;
	if (w->n_blocks >= INT32_MAX)
		return -ITRACE_E_NOMEM;
	/* varint n, ceil(n/2) lengths, varint m, m accesses of at most 2 + 10 bytes */
	tail_max = 2 + (n + 1) / 2 + 2 + m * 12;
	if (itrace_reserve((void **)&w->blocks, &w->cap_blocks, w->n_blocks + 1, sizeof(*b)) < 0 ||
	    itrace_reserve((void **)&w->bacc, &w->bacc_cap, w->bacc_len + m, sizeof(*acc)) < 0 ||
	    itrace_reserve((void **)&w->bmslot, &w->bmslot_cap, w->bacc_len + m,
			   sizeof(*w->bmslot)) < 0 ||
	    block_data(w, n + tail_max) < 0)
		return -ITRACE_E_NOMEM;
	b = &w->blocks[w->n_blocks];
	b->start = addr;
	b->n = (uint16_t)n;
	b->m = (uint16_t)m;
	b->slot = (uint8_t)run_slot(addr, (unsigned)n);
	b->lens = w->bdata_len;
	memcpy(w->bdata + b->lens, lens, n);
	b->acc = w->bacc_len;
	if (m)
		memcpy(w->bacc + b->acc, acc, m * sizeof(*acc));
	/* MEM-table slots: mem_slot(address of the access's instruction,
	 * accesses of that instruction before it), as MEM records would use */
	for (i = 0, k = 0; k < m; k++) {
		for (; i < acc[k].insn; i++) {
			insn += lens[i];
			ordinal = 0;
		}
		w->bmslot[b->acc + k] = (uint16_t)mem_slot(insn, ordinal++, w->mem_shift);
	}
	b->end = addr + itrace_lens_total(lens, n);
	b->last_insn = b->end - lens[n - 1];
	b->last_mem_index = 0;
	for (k = m; k > 0 && acc[k - 1].insn == n - 1; k--)
		b->last_mem_index++;
	b->tail = b->lens + n;
	b->tail_len = (uint16_t)encode_block_tail(w->bdata + b->tail, n, lens, m, acc);
	w->bdata_len = b->tail + b->tail_len;
	w->bacc_len += m;
	return (int)w->n_blocks++;
}

/*
 * write_block_records - the first `ninsns` instructions of block b and
 * their accesses as INSN_RUN and MEM records (skip[k]: access k did not
 * happen).  The general path: without ITRACE_FEAT_BLOCK, and for partial runs.
 */
static int write_block_records(struct itrace_writer *w, const struct block_def *b,
			       size_t ninsns, const uint64_t *addrs, const uint8_t *skip)
{
	const uint8_t *lens = w->bdata + b->lens;
	/* no access defined yet leaves bacc NULL, and NULL + 0 is undefined */
	const struct itrace_block_access *acc = b->m ? w->bacc + b->acc : NULL;
	uint64_t addr = b->start;
	size_t i = 0, j, k = 0;
	int rc;

	while (i < ninsns) {
		uint64_t total;

		/* up to and including the next instruction with accesses */
		j = k < b->m && acc[k].insn < ninsns ? (size_t)acc[k].insn + 1 : ninsns;
		total = itrace_lens_total(lens + i, j - i);
		if ((rc = append_insns(w, addr, j - i, lens + i, total)) < 0)
			return rc;
		addr += total;
		i = j;
		for (; k < b->m && acc[k].insn == i - 1; k++)
			if ((!skip || !skip[k]) &&
			    (rc = itrace_writer_mem(w, addrs[k], acc[k].size, acc[k].flags)) < 0)
				return rc;
	}
	return 0;
}

/*
 * put_access_deltas - a BLOCK record's address deltas (ITRACE.md 6.5.15):
 * access k's address addrs[k] against its MEM-table slot mslots[k], which
 * it then holds.  Written at raw[q]; returns the offset after them.
 */
static inline ALWAYS_INLINE size_t put_access_deltas(uint8_t *raw, size_t q, uint64_t *table,
						     const uint16_t *mslots, unsigned m,
						     const uint64_t *addrs)
{
	for (unsigned k = 0; k < m; k++) {
		uint64_t *base = &table[mslots[k]];
		uint64_t z = zigzag((int64_t)(addrs[k] - *base));

		if (z < 0x80) /* most: a stack slot again, a stride */
			raw[q++] = (uint8_t)z;
		else
			q += put_varint(raw + q, z);
		*base = addrs[k];
	}
	return q;
}

int itrace_writer_block(struct itrace_writer *w, int id, const uint64_t *addrs)
{
	const struct block_def *b;
	size_t start, q;

	if (!w || id < 0 || (size_t)id >= w->n_blocks || (!addrs && w->blocks[id].m))
		return -ITRACE_E_INVAL;
	b = &w->blocks[id];
	if (!(w->opts.features & ITRACE_FEAT_BLOCK))
		return write_block_records(w, b, b->n, addrs, NULL);
	if (w->err || flush_run(w) < 0 || chunk_boundary(w) < 0 ||
	    reserve(w, 12 + (size_t)b->tail_len + 10 * (size_t)b->m) < 0)
		return writer_err(w);
	w->st.insns += b->n;
	w->st.mems += b->m;
	w->st.records += (uint64_t)b->n + b->m;
	if (w->block_in[b->slot] == id + 1) {
		/* the slot holds this very block: a repeat byte, then the deltas */
		start = SIZE_MAX;
		q = w->raw_len;
		w->raw[q++] = (uint8_t)(ITRACE_REPEAT_BIT | b->slot);
		w->chunk_records++;
	} else {
		start = w->raw_len;
		q = start + 2;
		q += put_varint(w->raw + q, zigzag((int64_t)(b->start - w->cur_pc)));
		memcpy(w->raw + q, w->bdata + b->tail, b->tail_len);
		q += b->tail_len;
		free_slot(w, b->slot);
		w->block_in[b->slot] = id + 1;
	}
	/* (no access defined yet leaves bmslot NULL, and NULL + 0 is undefined) */
	if (b->m)
		q = put_access_deltas(w->raw, q, w->mem_table, w->bmslot + b->acc, b->m, addrs);
	w->cur_pc = b->end;
	w->last_insn = b->last_insn;
	w->mem_index = b->last_mem_index;
	if (start == SIZE_MAX) {
		w->raw_len = q;
		return 0;
	}
	return end_record(w, start, ITRACE_T_BLOCK, q);
}

/*
 * ids_below - every id of ids[0..n) is in 0..limit-1.  No early exit and
 * one unsigned compare (a negative id is 2^31 or more as uint32_t), so
 * that the check costs a few instructions an id: the batch calls check
 * every id before they write any (10 instructions a block before).
 */
static int ids_below(const int *ids, size_t n, size_t limit)
{
	uint32_t lim = limit < UINT32_MAX ? (uint32_t)limit : UINT32_MAX;
	unsigned bad = 0;

	for (size_t i = 0; i < n; i++)
		bad |= (uint32_t)ids[i] >= lim;
	return !bad;
}

int itrace_writer_blocks(struct itrace_writer *w, size_t n, const int *ids, const uint64_t *addrs)
{
	size_t i, a = 0; /* addrs[a]: the next block's first access */
	int rc;

	if (!w || (n && !ids) || !ids_below(ids, n, w->n_blocks))
		return -ITRACE_E_INVAL;
	for (i = 0; !addrs && i < n; i++)
		if (w->blocks[ids[i]].m)
			return -ITRACE_E_INVAL;
	for (i = 0; i < n;) {
		/* Most blocks repeat what their slot holds: a repeat byte and
		 * the deltas, in locals while the chunk has room (as in
		 * itrace_writer_branch_ids(): a store through raw could be any
		 * field of w to the compiler). */
		const struct block_def *blocks = w->blocks, *last = NULL;
		const int32_t *held = w->block_in;
		const uint16_t *mslots = w->bmslot;
		uint64_t *table = w->mem_table;
		uint8_t *raw = w->raw;
		size_t len = w->raw_len, end = w->opts.chunk_bytes, cap = w->raw_cap, first = i;
		uint64_t insns = 0, mems = 0;

		if ((w->opts.features & ITRACE_FEAT_BLOCK) && !w->err && !w->pending.n) {
			while (i < n && len < end) {
				const struct block_def *b = &blocks[ids[i]];

				/* a repeat byte and at most 10 bytes per delta */
				if (held[b->slot] != ids[i] + 1 || len + 1 + 10 * (size_t)b->m > cap)
					break;
				raw[len++] = (uint8_t)(ITRACE_REPEAT_BIT | b->slot);
				/* addrs + a only with accesses: NULL + 0 is undefined */
				if (b->m)
					len = put_access_deltas(raw, len, table, mslots + b->acc,
								b->m, addrs + a);
				a += b->m;
				insns += b->n;
				mems += b->m;
				last = b;
				i++;
			}
		}
		if (last) {
			w->raw_len = len;
			w->cur_pc = last->end;
			w->last_insn = last->last_insn;
			w->mem_index = last->last_mem_index;
			w->chunk_records += (uint32_t)(i - first);
			w->st.insns += insns;
			w->st.mems += mems;
			w->st.records += insns + mems;
		}
		/* anything else: a new record, a chunk's end, an error */
		if (i < n) {
			if ((rc = itrace_writer_block(w, ids[i], w->blocks[ids[i]].m ? addrs + a : NULL)) < 0)
				return rc;
			a += w->blocks[ids[i]].m;
			i++;
		}
	}
	return 0;
}

int itrace_writer_block_partial(struct itrace_writer *w, int id, size_t ninsns,
			       const uint64_t *addrs, const uint8_t *skip)
{
	const struct block_def *b;

	if (!w || id < 0 || (size_t)id >= w->n_blocks)
		return -ITRACE_E_INVAL;
	b = &w->blocks[id];
	if (ninsns > b->n || (!addrs && b->m && w->bacc[b->acc].insn < ninsns))
		return -ITRACE_E_INVAL;
	return write_block_records(w, b, ninsns, addrs, skip);
}

/* ---- Defined branches --------------------------------------------------- */

int itrace_writer_branch_define(struct itrace_writer *w, uint64_t from, uint64_t to,
				unsigned kind, unsigned flags)
{
	struct branch_def *d;
	size_t q;

	if (!w || kind > ITRACE_BK_MAX || (flags & ~(unsigned)ITRACE_BF_KNOWN_MASK))
		return -ITRACE_E_INVAL;
	if (w->n_bdefs >= INT32_MAX)
		return -ITRACE_E_NOMEM;
	if (itrace_reserve((void **)&w->bdefs, &w->cap_bdefs, w->n_bdefs + 1, sizeof(*d)) < 0)
		return -ITRACE_E_NOMEM;
	d = &w->bdefs[w->n_bdefs];
	d->from = from;
	d->to = to;
	d->kindflags = (uint8_t)(kind | flags << 4);
	d->slot = (uint8_t)branch_slot(from, to);
	d->k = 1;
	d->seq_tail = 0;
	d->seq_tail_len = 0;
	q = put_varint(d->tail, zigzag((int64_t)(to - from)));
	d->tail[q++] = d->kindflags;
	d->tail_len = (uint8_t)q;
	return (int)w->n_bdefs++;
}

/* A BRANCH_SEQ record's tail at most: k, then per branch two svarints
 * and the kind byte. */
#define SEQ_TAIL_MAX (ITRACE_VARINT_MAX + ITRACE_SEQ_MAX * (2 * ITRACE_VARINT_MAX + 1))

int itrace_writer_branch_seq_define(struct itrace_writer *w, size_t k, const int *ids)
{
	struct branch_def *d;
	size_t q, i;
	uint8_t *t;

	if (!w || !(w->opts.features & ITRACE_FEAT_BRANCH_SEQ) || k < 1 || k > ITRACE_SEQ_MAX || !ids)
		return -ITRACE_E_INVAL;
	for (i = 0; i < k; i++)
		if (ids[i] < 0 || (size_t)ids[i] >= w->n_bdefs || w->bdefs[ids[i]].seq_tail_len)
			return -ITRACE_E_INVAL;
	if (w->n_bdefs >= INT32_MAX || w->sdata_len > UINT32_MAX - SEQ_TAIL_MAX)
		return -ITRACE_E_NOMEM;
	if (itrace_reserve((void **)&w->bdefs, &w->cap_bdefs, w->n_bdefs + 1, sizeof(*d)) < 0 ||
	    itrace_reserve((void **)&w->sdata, &w->sdata_cap, w->sdata_len + SEQ_TAIL_MAX, 1) < 0)
		return -ITRACE_E_NOMEM;
	/* ITRACE.md 6.5.16: after the first source delta and the slot, k,
	 * then each branch: its source against the last one's target (not
	 * for the first), its target against its source, its kind and
	 * flags */
	t = w->sdata + w->sdata_len;
	q = put_varint(t, k);
	for (i = 0; i < k; i++) {
		const struct branch_def *b = &w->bdefs[ids[i]];

		if (i > 0)
			q += put_varint(t + q, zigzag((int64_t)(b->from - w->bdefs[ids[i - 1]].to)));
		memcpy(t + q, b->tail, b->tail_len);
		q += b->tail_len;
	}
	d = &w->bdefs[w->n_bdefs];
	memset(d, 0, sizeof(*d));
	d->from = w->bdefs[ids[0]].from;
	d->to = w->bdefs[ids[k - 1]].to;
	d->k = (uint16_t)k;
	d->seq_tail = (uint32_t)w->sdata_len;
	d->seq_tail_len = (uint16_t)q;
	w->sdata_len += q;
	return (int)w->n_bdefs++;
}

/* clock_slot - the slot for a new sequence: the first one from the hand
 * on that was not repeated since the hand last passed it. */
static unsigned clock_slot(struct itrace_writer *w)
{
	unsigned h = w->clock_hand;

	while (w->slot_used[h]) {
		w->slot_used[h] = 0;
		h = (h + 1) & (ITRACE_REPEAT_SLOTS - 1);
	}
	w->clock_hand = (h + 1) & (ITRACE_REPEAT_SLOTS - 1);
	return h;
}

/*
 * put_seq - the full BRANCH_SEQ record of sequence `id` (d), into the
 * slot the clock gives (6.5.16), at raw[start..]; `base`: cur_pc before.
 */
static int put_seq(struct itrace_writer *w, int id, struct branch_def *d, uint64_t base)
{
	size_t start = w->raw_len, q = start + 2;
	unsigned slot = clock_slot(w);

	free_slot(w, slot);
	w->branch_in[slot] = id + 1;
	w->slot_used[slot] = 1;
	d->slot = (uint8_t)slot;
	q += put_varint(w->raw + q, zigzag((int64_t)(d->from - base)));
	w->raw[q++] = (uint8_t)slot;
	memcpy(w->raw + q, w->sdata + d->seq_tail, d->seq_tail_len);
	q += d->seq_tail_len;
	return end_record(w, start, ITRACE_T_BRANCH_SEQ, q);
}

/*
 * put_branch_id - the branch of definition `id` (valid).  Inlined into
 * both entry points: per branch, the call and the argument check were a
 * fifth of the instructions of a collector's converting thread.
 */
static inline ALWAYS_INLINE int put_branch_id(struct itrace_writer *w, int id)
{
	struct branch_def *d = &w->bdefs[id];
	uint64_t base;
	size_t start, q;

	if (w->err || flush_run(w) < 0 || chunk_boundary(w) < 0 ||
	    reserve(w, 24 + (size_t)d->seq_tail_len) < 0)
		return writer_err(w);
	w->st.branches += d->k;
	w->st.records += d->k;
	base = w->cur_pc;
	w->cur_pc = d->to;
	if (w->branch_in[d->slot] == id + 1) {
		if (d->seq_tail_len)
			w->slot_used[d->slot] = 1;
		return emit_repeat(w, ITRACE_REPEAT_BIT | d->slot);
	}
	if (d->seq_tail_len) /* a sequence (6.5.16) */
		return put_seq(w, id, d, base);
	if (branch_slot_holds(&w->branches[d->slot], d->from, d->to, d->kindflags)) {
		w->branch_in[d->slot] = id + 1; /* written by itrace_writer_branch() */
		return emit_repeat(w, ITRACE_REPEAT_BIT | d->slot);
	}
	take_branch_slot(w, d->slot, d->from, d->to, d->kindflags);
	w->branch_in[d->slot] = id + 1;
	start = w->raw_len;
	q = start + 2;
	q += put_varint(w->raw + q, zigzag((int64_t)(d->from - base)));
	memcpy(w->raw + q, d->tail, d->tail_len);
	q += d->tail_len;
	return end_record(w, start, ITRACE_T_BRANCH, q);
}

int itrace_writer_branch_id(struct itrace_writer *w, int id)
{
	if (!w || id < 0 || (size_t)id >= w->n_bdefs)
		return -ITRACE_E_INVAL;
	return put_branch_id(w, id);
}

int itrace_writer_branch_ids(struct itrace_writer *w, size_t n, const int *ids)
{
	size_t i;
	int rc;

	if (!w || (n && !ids) || !ids_below(ids, n, w->n_bdefs))
		return -ITRACE_E_INVAL;
	for (i = 0; i < n;) {
		/* Most branches repeat what their slot holds: one byte each, in
		 * locals while the chunk has room (a store through w->raw could
		 * be any field of w to the compiler, which would reload them
		 * all).  The chunk buffer has room for a whole chunk and more:
		 * below chunk_bytes, a byte needs no reserve(). */
		const struct branch_def *defs = w->bdefs;
		const int32_t *held = w->branch_in;
		uint8_t *used = w->slot_used;
		uint8_t *raw = w->raw;
		size_t len = w->raw_len, end = w->opts.chunk_bytes, first = i;
		uint64_t pc = w->cur_pc, branches = 0;

		if (!w->err && !w->pending.n) {
			while (i < n && len < end) {
				const struct branch_def *d = &defs[ids[i]];

				if (held[d->slot] != ids[i] + 1)
					break;
				if (d->seq_tail_len)
					used[d->slot] = 1;
				raw[len++] = (uint8_t)(ITRACE_REPEAT_BIT | d->slot);
				pc = d->to;
				branches += d->k;
				i++;
			}
			w->raw_len = len;
			w->cur_pc = pc;
			w->chunk_records += (uint32_t)(i - first);
			w->st.branches += branches;
			w->st.records += branches;
		}
		/* anything else: a new record, a chunk's end, an error */
		if (i < n && (rc = put_branch_id(w, ids[i++])) < 0)
			return rc;
	}
	return 0;
}

/* put_bytes - varint length then the bytes. */
static size_t put_bytes(uint8_t *p, const void *b, size_t len)
{
	size_t n = put_varint(p, len);

	if (len)
		memcpy(p + n, b, len);
	return n + len;
}

static size_t str_len(const char *s, size_t len)
{
	return s ? (len ? len : strlen(s)) : 0;
}

/* encode_context - payload of the records that are neither hot nor runs. */
static int encode_context(struct itrace_writer *w, const struct itrace_record *rec, size_t *end)
{
	uint8_t *p = w->raw + w->raw_len + 2;
	uint8_t *q = p;
	size_t n;

	switch (rec->type) {
	case ITRACE_REC_MMAP: {
		const struct itrace_mmap *m = &rec->u.mmap;

		if (m->buildid_len > ITRACE_BUILDID_MAX)
			return -ITRACE_E_INVAL;
		q += put_varint(q, m->pid);
		q += put_varint(q, m->start);
		q += put_varint(q, m->len);
		q += put_varint(q, m->pgoff);
		*q++ = m->prot;
		q += put_bytes(q, m->buildid, m->buildid_len);
		q += put_bytes(q, m->path, str_len(m->path, m->path_len));
		break;
	}
	case ITRACE_REC_CODE:
		q += put_varint(q, rec->u.code.addr);
		q += put_bytes(q, rec->u.code.bytes, rec->u.code.len);
		break;
	case ITRACE_REC_THREAD: {
		const struct itrace_thread *t = &rec->u.thread;

		*q++ = t->event;
		q += put_varint(q, t->tid);
		q += put_varint(q, t->pid);
		q += put_varint(q, t->other);
		q += put_bytes(q, t->name, str_len(t->name, t->name_len));
		if (t->event == ITRACE_THREAD_SWITCH) {
			w->tid = t->tid;
			w->pid = t->pid;
			w->thread_known = 1;
		}
		break;
	}
	case ITRACE_REC_PROCESS: {
		const struct itrace_process *pr = &rec->u.process;

		*q++ = pr->event;
		q += put_varint(q, pr->pid);
		q += put_varint(q, pr->other);
		q += put_varint(q, zigzag(pr->status));
		q += put_bytes(q, pr->name, str_len(pr->name, pr->name_len));
		break;
	}
	case ITRACE_REC_SYSCALL: {
		const struct itrace_syscall *s = &rec->u.syscall;

		if (s->nargs > ITRACE_SYSCALL_MAX_ARGS)
			return -ITRACE_E_INVAL;
		*q++ = s->dir;
		q += put_varint(q, s->nr);
		q += put_varint(q, zigzag(s->ret));
		*q++ = s->nargs;
		for (n = 0; n < s->nargs; n++)
			q += put_varint(q, s->args[n]);
		break;
	}
	case ITRACE_REC_SIGNAL: {
		const struct itrace_signal *s = &rec->u.signal;

		q += put_varint(q, s->signo);
		q += put_varint(q, zigzag(s->code));
		q += put_varint(q, s->addr);
		q += put_varint(q, s->pc);
		q += put_varint(q, s->handler);
		break;
	}
	case ITRACE_REC_TIMESTAMP:
		q += put_varint(q, zigzag((int64_t)(rec->time_ns - w->cur_time)));
		w->cur_time = w->time = rec->time_ns;
		break;
	case ITRACE_REC_TRACE_CTL:
		*q++ = rec->u.ctl.on;
		*q++ = rec->u.ctl.reason;
		q += put_varint(q, rec->u.ctl.addr);
		if (rec->u.ctl.trigger) { /* appended in 1.1 (ITRACE.md 6.5.12) */
			*q++ = rec->u.ctl.trigger;
			q += put_varint(q, rec->u.ctl.index);
		}
		break;
	case ITRACE_REC_LOST:
		*q++ = rec->u.lost.reason;
		*q++ = rec->u.lost.unit;
		q += put_varint(q, rec->u.lost.count);
		w->lost += rec->u.lost.count;
		break;
	case ITRACE_REC_GAP:
		*q++ = rec->u.gap.reason;
		q += put_varint(q, rec->u.gap.addr);
		q += put_varint(q, rec->u.gap.resume);
		q += put_varint(q, rec->u.gap.count);
		w->gaps++;
		break;
	default:
		return -ITRACE_E_INVAL;
	}
	*end = (size_t)(q - w->raw);
	return 0;
}

/* context_payload_max - upper bound of encode_context's payload. */
static int context_payload_max(const struct itrace_record *rec, size_t *max)
{
	switch (rec->type) {
	case ITRACE_REC_MMAP:
		if (str_len(rec->u.mmap.path, rec->u.mmap.path_len) > ITRACE_PATH_MAX)
			return -ITRACE_E_INVAL;
		*max = 64 + ITRACE_BUILDID_MAX + str_len(rec->u.mmap.path, rec->u.mmap.path_len);
		return 0;
	case ITRACE_REC_CODE:
		if (rec->u.code.len > ITRACE_CODE_MAX || (rec->u.code.len && !rec->u.code.bytes))
			return -ITRACE_E_INVAL;
		*max = 24 + rec->u.code.len;
		return 0;
	case ITRACE_REC_THREAD:
		if (str_len(rec->u.thread.name, rec->u.thread.name_len) > ITRACE_PATH_MAX)
			return -ITRACE_E_INVAL;
		*max = 48 + str_len(rec->u.thread.name, rec->u.thread.name_len);
		return 0;
	case ITRACE_REC_PROCESS:
		if (str_len(rec->u.process.name, rec->u.process.name_len) > ITRACE_PATH_MAX)
			return -ITRACE_E_INVAL;
		*max = 48 + str_len(rec->u.process.name, rec->u.process.name_len);
		return 0;
	default:
		*max = 96;
		return 0;
	}
}

int itrace_writer_write(struct itrace_writer *w, const struct itrace_record *rec)
{
	size_t max, start, end;
	int rc;

	if (!w || !rec)
		return -ITRACE_E_INVAL;
	switch (rec->type) {
	case ITRACE_REC_INSN:
		return itrace_writer_insn(w, rec->u.insn.addr, rec->u.insn.len,
					 rec->u.insn.has_bytes ? rec->u.insn.bytes : NULL);
	case ITRACE_REC_BRANCH:
		return itrace_writer_branch(w, rec->u.branch.from, rec->u.branch.to,
					   rec->u.branch.kind, rec->u.branch.flags);
	case ITRACE_REC_MEM:
		return itrace_writer_mem(w, rec->u.mem.addr, rec->u.mem.size, rec->u.mem.flags);
	}
	if ((rc = context_payload_max(rec, &max)) < 0)
		return rc;
	if (w->err || flush_run(w) < 0 || chunk_boundary(w) < 0 || reserve(w, max) < 0)
		return writer_err(w);
	start = w->raw_len;
	if ((rc = encode_context(w, rec, &end)) < 0)
		return rc;
	w->st.records++;
	return end_record(w, start, rec->type, end);
}

int writer_end_chunk(struct itrace_writer *w)
{
	if (w->err || flush_run(w) < 0 || finish_chunk(w) < 0)
		return writer_err(w);
	return 0;
}

uint64_t writer_time(const struct itrace_writer *w)
{
	return w->time;
}

/* ---- Segments ---------------------------------------------------------- */

int writer_segment_open(const struct itrace_writer *like, struct itrace_writer **seg)
{
	struct itrace_writer *w = calloc(1, sizeof(*w));

	*seg = NULL;
	if (!w)
		return -ITRACE_E_NOMEM;
	w->fd = -1;
	w->opts = like->opts;
	w->opts.async = 0;
	if (writer_buffers(w) < 0) {
		writer_free(w);
		return -ITRACE_E_NOMEM;
	}
	*seg = w;
	return 0;
}

void writer_segment_begin(struct itrace_writer *w, uint64_t time, struct writer_segment *dst)
{
	w->err = 0;
	w->seq = 0;
	memset(&w->st, 0, sizeof(w->st));
	w->lost = w->gaps = 0;
	w->tid = w->pid = 0;
	w->thread_known = 0;
	w->time = time;
	w->pending.n = 0;
	w->out.err = 0;
	w->out.offset = 0;
	w->out.chunks = w->out.raw_bytes = w->out.file_bytes = 0;
	w->out.capture = dst;
	dst->len = 0;
	dst->nchunks = 0;
	start_chunk(w);
}

int writer_segment_end(struct itrace_writer *w)
{
	struct writer_segment *s = w->out.capture;

	if (writer_end_chunk(w) < 0)
		return writer_err(w);
	s->records = w->st.records;
	s->insns = w->st.insns;
	s->branches = w->st.branches;
	s->mems = w->st.mems;
	s->lost = w->lost;
	s->gaps = w->gaps;
	s->raw_bytes = w->out.raw_bytes;
	s->thread_set = w->thread_known;
	s->tid = w->tid;
	s->pid = w->pid;
	s->time = w->time;
	w->out.capture = NULL;
	return 0;
}

void writer_segment_free(struct itrace_writer *seg)
{
	writer_free(seg);
}

void writer_segment_release(struct writer_segment *s)
{
	free(s->data);
	free(s->chunks);
	memset(s, 0, sizeof(*s));
}

int writer_append_segment(struct itrace_writer *w, struct writer_segment *s)
{
	struct segment_base base;
	int rc;

	if (writer_end_chunk(w) < 0)
		return writer_err(w);
	base.seq = w->seq;
	base.insns = w->st.insns;
	base.branches = w->st.branches;
	base.tid = w->tid;
	base.pid = w->pid;
	if ((rc = chunk_out_splice(&w->out, s, &base)) < 0)
		return writer_failed(w, rc);
	w->seq += s->nchunks;
	w->st.records += s->records;
	w->st.insns += s->insns;
	w->st.branches += s->branches;
	w->st.mems += s->mems;
	w->lost += s->lost;
	w->gaps += s->gaps;
	if (s->thread_set) {
		w->tid = s->tid;
		w->pid = s->pid;
	}
	w->time = s->time;
	start_chunk(w);
	return 0;
}

int itrace_writer_flush(struct itrace_writer *w)
{
	int rc;

	if (!w)
		return -ITRACE_E_INVAL;
	if (w->err || flush_run(w) < 0 || finish_chunk(w) < 0)
		return writer_err(w);
	if ((rc = chunk_out_wait(&w->out)) < 0)
		return writer_failed(w, rc);
	if (w->file && (rc = itrace_outfile_publish(w->file)) < 0)
		return writer_failed(w, rc);
	return 0;
}

/* now_ms - a cheap monotonic clock (the coarse one: no need for better). */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* reader_gone - the pipe's reading end is closed (poll says POLLERR). */
static int reader_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int itrace_writer_tick(struct itrace_writer *w)
{
	uint64_t now;
	int rc;

	if (!w)
		return -ITRACE_E_INVAL;
	if (w->err)
		return writer_err(w);
	if (w->out_is_pipe && reader_gone(w->fd)) {
		errno = EPIPE;
		return writer_failed(w, -ITRACE_E_IO);
	}
	if (!w->opts.flush_ms)
		return 0;
	if (w->file && !w->published) {
		uint64_t chunks, raw, bytes;

		/* full chunks are out (async: some may still be in flight): the
		 * file takes its name now, so that a kill leaves them */
		chunk_out_counts(&w->out, &chunks, &raw, &bytes);
		if (chunks && (rc = itrace_outfile_publish(w->file)) < 0)
			return writer_failed(w, rc);
		w->published = chunks > 0;
	}
	if (w->raw_len == 0 && w->pending.n == 0)
		return 0;
	now = now_ms() | 1; /* never 0, which means "nothing waiting" */
	if (!w->dirty_since) {
		w->dirty_since = now;
		return 0;
	}
	if (now - w->dirty_since < w->opts.flush_ms)
		return 0;
	return itrace_writer_flush(w);
}

void itrace_writer_stats(const struct itrace_writer *w, struct itrace_writer_stats *st)
{
	if (!w || !st)
		return;
	*st = w->st;
	chunk_out_counts(&w->out, &st->chunks, &st->raw_bytes, &st->file_bytes);
	st->raw_bytes += w->raw_len;
}

/* write_footer - totals, chunk index, checksum and trailer. */
static int write_footer(struct itrace_writer *w, int end, int status)
{
	const struct chunk_out *o = &w->out;
	size_t size, i;
	uint8_t *f, *p;
	int rc;

	if ((rc = chunk_out_wait(&w->out)) < 0)
		return writer_failed(w, rc);
	size = ITRACE_FOOTER_FIXED_SIZE + 16 * o->index_len + 4 + ITRACE_TRAILER_SIZE;
	f = calloc(1, size);
	if (!f)
		return w->err = -ITRACE_E_NOMEM;
	memcpy(f, ITRACE_FOOTER_MAGIC, 4);
	put_le32(f + 4, (uint32_t)size);
	f[8] = (uint8_t)end;
	put_le32(f + 12, (uint32_t)status);
	put_le64(f + 16, o->index_len);
	put_le64(f + 24, w->st.records);
	put_le64(f + 32, w->st.insns);
	put_le64(f + 40, w->st.branches);
	put_le64(f + 48, w->st.mems);
	put_le64(f + 56, w->lost);
	put_le64(f + 64, w->gaps);
	p = f + ITRACE_FOOTER_FIXED_SIZE;
	for (i = 0; i < o->index_len; i++, p += 16) {
		put_le64(p, o->index[i].offset);
		put_le64(p + 8, o->index[i].first_insn);
	}
	put_le32(p, itrace_crc32c(0, f, (size_t)(p - f)));
	put_le64(p + 4, o->offset);
	memcpy(p + 12, ITRACE_TRAILER_MAGIC, 8);
	rc = chunk_out_write(&w->out, f, size);
	free(f);
	return rc;
}

int itrace_writer_close(struct itrace_writer *w, int end, int status)
{
	int rc, saved;

	if (!w)
		return 0;
	if (end < ITRACE_END_UNKNOWN || end > ITRACE_END_NOT_TRIGGERED)
		end = ITRACE_END_UNKNOWN;
	rc = itrace_writer_flush(w);
	if (rc >= 0 && (rc = write_footer(w, end, status)) < 0)
		writer_failed(w, rc);
	chunk_out_fini(&w->out); /* its thread may not outlive the descriptor */
	if (w->file && rc < 0 && w->opts.flush_ms) {
		/* a recorder keeps the chunks it wrote before the error */
		itrace_outfile_commit(w->file);
		w->file = NULL;
	} else if (w->file && rc >= 0) {
		rc = itrace_outfile_commit(w->file);
		if (rc < 0)
			writer_failed(w, rc);
		w->file = NULL;
	}
	rc = rc < 0 ? writer_err(w) : 0;
	saved = w->err_errno;
	writer_free(w); /* removes the file of a failed, unpublished writer */
	if (rc == -ITRACE_E_IO)
		errno = saved;
	return rc;
}

void itrace_writer_abandon(struct itrace_writer *w)
{
	writer_free(w);
}
