/*
 * reader.c - streaming itrace reader.
 *
 * Reads the header, then one chunk at a time: header (checked by its
 * CRC), payload (checked by its CRC, then decompressed), records.  Damage
 * never stops the delivery of what came before it: a truncated chunk
 * yields every record that fits, a corrupt one is skipped and a GAP record
 * tells the caller, and the reader resynchronises at the next chunk magic.
 * Lengths from the file are bounded before anything is allocated from them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"

#define SCRATCH_MAX (ITRACE_PATH_MAX + 1)

enum reader_state {
	RS_CHUNKS,   /* between or inside chunks */
	RS_RESYNC,   /* after damage: scan for the next chunk */
	RS_END,	     /* footer read: ITRACE_EOF */
	RS_STOPPED,  /* unrecoverable: ITRACE_EOF after the error */
};

/* A BLOCK as kept in the repeat table (ITRACE.md 6.5.15); n = 0: empty. */
struct block_slot {
	uint64_t start, end, last_insn;
	uint16_t n, m;
	uint8_t last_mem_index;		     /* accesses of the last instruction */
	uint8_t len[ITRACE_RUN_MAX];
	uint8_t insn[ITRACE_BLOCK_ACCESS_MAX];  /* each access's instruction */
	uint8_t flags[ITRACE_BLOCK_ACCESS_MAX];
	uint16_t mslot[ITRACE_BLOCK_ACCESS_MAX]; /* its MEM-table slot */
	uint64_t size[ITRACE_BLOCK_ACCESS_MAX];
};

/*
 * A BRANCH_SEQ as kept in the repeat table (ITRACE.md 6.5.16): its
 * first branch's source and where its payload goes on after it, in the
 * chunk's records, which stay in memory while the chunk is read; a repeat
 * decodes the branches again from there (checked when the record was).
 * k = 0: empty.
 */
struct seq_entry {
	const uint8_t *p, *end;
	uint64_t from;
	uint16_t k;
};

struct itrace_reader {
	/* Input: a descriptor or a memory buffer. */
	int fd, own_fd, seekable;
	const uint8_t *mem;
	size_t mem_len;
	uint64_t pos; /* file offset of the next byte read */
	uint64_t file_size;
	uint8_t *back; /* bytes pushed back by the resync scan */
	size_t back_len, back_cap;

	struct itrace_header hdr;
	char *meta_blob;
	const char **meta_key, **meta_val;

	struct itrace_footer footer;
	int have_footer;
	struct itrace_chunk_info *index;
	size_t index_len;
	int index_scanned;

	enum reader_state state;
	uint64_t expected_seq;
	int seen_chunk;

	/* Current chunk. */
	uint8_t *payload, *raw;
	size_t payload_cap, raw_cap;
	const uint8_t *p, *end;
	uint64_t chunk_seq, chunk_off;
	uint32_t chunk_records, records_seen;
	int chunk_partial; /* payload cut short: end of data is truncation */
	uint64_t chunk_payload_have, chunk_payload_size;
	uint64_t cur_pc, cur_time;
	uint64_t last_insn;	/* address of the last instruction decoded */
	unsigned mem_index;	/* MEM records decoded since it */
	/* the first 1 << mem_table_log2 entries (header, 4.1) are used */
	uint64_t mem_table[ITRACE_MEM_SLOTS_MAX];
	unsigned mem_shift;	/* mem_shift(mem_table_log2) */
	char *report;		/* itrace_reader_open_report()'s message, while opening */
	size_t report_len;
	uint32_t tid, pid;
	struct itrace_branch_slot branches[ITRACE_REPEAT_SLOTS];
	struct itrace_run runs[ITRACE_REPEAT_SLOTS];
	ZSTD_DCtx *dctx;

	/* A run being expanded into INSN records. */
	const struct itrace_run *run;
	unsigned run_idx;
	uint64_t run_addr;

	/* The blocks of the repeat table, each slot allocated at the
	 * first BLOCK record stored there (3 KB each: most files have none);
	 * a block being expanded into INSN and MEM records. */
	struct block_slot *blocks[ITRACE_REPEAT_SLOTS];
	const struct block_slot *blk;
	unsigned blk_insn, blk_acc;
	uint64_t blk_addr;
	uint64_t blk_addrs[ITRACE_BLOCK_ACCESS_MAX];

	/* The sequences of the repeat table; a sequence being
	 * expanded into BRANCH records: the next one is its seq_idx-th,
	 * its fields at seq_p. */
	struct seq_entry seqs[ITRACE_REPEAT_SLOTS];
	const struct seq_entry *seq;
	unsigned seq_idx;
	const uint8_t *seq_p;

	uint64_t pending_gap; /* chunks skipped, reported before the next record */
	uint64_t gap_offset;
	uint64_t gap_seq;     /* sequence number of the first of them */

	char scratch[SCRATCH_MAX];
	char errmsg[256];
	uint64_t err_off;
};

/* ---- input ------------------------------------------------------------ */

/* in_read - up to n bytes from the current position; returns the count. */
static size_t in_read(struct itrace_reader *r, void *dst, size_t n)
{
	size_t got = 0;

	if (r->back_len) {
		got = n < r->back_len ? n : r->back_len;
		memcpy(dst, r->back, got);
		memmove(r->back, r->back + got, r->back_len - got);
		r->back_len -= got;
	}
	if (r->mem) {
		size_t left = r->pos + got < r->mem_len ? r->mem_len - (size_t)(r->pos + got) : 0;
		size_t take = n - got < left ? n - got : left;

		memcpy((uint8_t *)dst + got, r->mem + r->pos + got, take);
		got += take;
	} else {
		while (got < n) {
			ssize_t k = read(r->fd, (uint8_t *)dst + got, n - got);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (size_t)k;
		}
	}
	r->pos += got;
	return got;
}

/* unread - give bytes back to the input (resync scanning). */
static int unread(struct itrace_reader *r, const uint8_t *b, size_t n)
{
	if (r->back_len + n > r->back_cap) {
		size_t cap = r->back_len + n + 4096;
		uint8_t *nb = realloc(r->back, cap);

		if (!nb)
			return -ITRACE_E_NOMEM;
		r->back = nb;
		r->back_cap = cap;
	}
	memmove(r->back + n, r->back, r->back_len);
	memcpy(r->back, b, n);
	r->back_len += n;
	r->pos -= n;
	return 0;
}

/* in_seek - absolute positioning (seekable files and memory only). */
static int in_seek(struct itrace_reader *r, uint64_t off)
{
	if (!r->seekable)
		return -ITRACE_E_NOTSUP;
	if (!r->mem && lseek(r->fd, (off_t)off, SEEK_SET) < 0)
		return -ITRACE_E_IO;
	r->pos = off;
	r->back_len = 0;
	return 0;
}

/* in_pread - read at an offset without moving the stream. */
static size_t in_pread(struct itrace_reader *r, uint64_t off, void *dst, size_t n)
{
	if (r->mem) {
		if (off >= r->mem_len)
			return 0;
		if (n > r->mem_len - off)
			n = r->mem_len - (size_t)off;
		memcpy(dst, r->mem + off, n);
		return n;
	} else {
		size_t got = 0;

		while (got < n) {
			ssize_t k = pread(r->fd, (uint8_t *)dst + got, n - got, (off_t)(off + got));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		return got;
	}
}

static int fail(struct itrace_reader *r, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* fail - record an error message with its offset; returns code. */
static int fail(struct itrace_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->errmsg, sizeof(r->errmsg), "offset %llu: ", (unsigned long long)off);

	va_start(ap, fmt);
	vsnprintf(r->errmsg + n, sizeof(r->errmsg) - (size_t)n, fmt, ap);
	va_end(ap);
	r->err_off = off;
	return code;
}

/* ---- header and footer ------------------------------------------------ */

static int parse_meta(struct itrace_reader *r, const uint8_t *m, size_t len, size_t count)
{
	size_t i, at = 0;

	if (count > len / 3)
		return -ITRACE_E_CORRUPT; /* an entry takes at least "k=" and its NUL */
	r->meta_blob = malloc(len + 1);
	r->meta_key = calloc(count + 1, sizeof(char *));
	r->meta_val = calloc(count + 1, sizeof(char *));
	if (!r->meta_blob || !r->meta_key || !r->meta_val)
		return -ITRACE_E_NOMEM;
	memcpy(r->meta_blob, m, len);
	r->meta_blob[len] = 0;
	for (i = 0; i < count; i++) {
		char *e = r->meta_blob + at;
		size_t l = at < len ? strnlen(e, len - at) : 0;
		char *eq;

		if (at >= len || at + l >= len)
			return -ITRACE_E_CORRUPT; /* entry must end with '\0' inside */
		eq = memchr(e, '=', l);
		if (!eq || eq == e)
			return -ITRACE_E_CORRUPT;
		*eq = 0;
		r->meta_key[i] = e;
		r->meta_val[i] = eq + 1;
		at += l + 1;
	}
	r->hdr.meta_count = count;
	return 0;
}

static int grow(uint8_t **buf, size_t *cap, size_t n);
static int read_growing(struct itrace_reader *r, uint8_t **buf, size_t *cap, size_t at,
			size_t want, size_t *have);

/*
 * check_draft - refuse a file of the drafts before format 1.0 (4.4): its
 * fixed part is 48 bytes (offset 14) and offset 8 holds a read version
 * 1..5, where 1.0 has its major.
 */
static int check_draft(struct itrace_reader *r, const uint8_t *fixed, size_t got)
{
	unsigned v = get_le16(fixed + 8);

	if (got < 16 || get_le16(fixed + 14) != ITRACE_FILE_FIXED_SIZE_DRAFT || v < 1 ||
	    v > ITRACE_DRAFT_READ_VERSION_MAX)
		return 0;
	return fail(r, -ITRACE_E_VERSION, 8,
		    "pre-1.0 draft format (read version %u), written by itrace before format "
		    "1.0; re-record the trace",
		    v);
}

/* feature_bits - "bit 5 (0x20)" or "bits 5, 7 (0xa0)" into buf. */
static const char *feature_bits(uint32_t bits, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "bit%s", bits & (bits - 1) ? "s" : "");

	for (unsigned i = 0, first = 1; i < 32 && n < len; i++)
		if (bits >> i & 1) {
			n += (size_t)snprintf(buf + n, len - n, "%s %u", first ? "" : ",", i);
			first = 0;
		}
	if (n < len)
		snprintf(buf + n, len - n, " (0x%x)", (unsigned)bits);
	return buf;
}

/* check_fixed - the version and parameters of the fixed part (4.1). */
static int check_fixed(struct itrace_reader *r, const uint8_t *fixed)
{
	uint32_t unknown;
	char bits[200];

	r->hdr.major = get_le16(fixed + 8);
	r->hdr.minor = get_le16(fixed + 10);
	if (r->hdr.major != ITRACE_FORMAT_MAJOR)
		return fail(r, -ITRACE_E_VERSION, 8,
			    "format version %u.%u is not supported (this reader implements %u.x)",
			    r->hdr.major, r->hdr.minor, ITRACE_FORMAT_MAJOR);
	r->hdr.incompat_features = get_le32(fixed + 36);
	r->hdr.compat_features = get_le32(fixed + 40);
	unknown = r->hdr.incompat_features & ~(uint32_t)ITRACE_FEAT_INCOMPAT_KNOWN;
	if (unknown)
		return fail(r, -ITRACE_E_VERSION, 36, "incompatible feature %s unknown to this reader",
			    feature_bits(unknown, bits, sizeof(bits)));
	r->hdr.mem_table_log2 = fixed[12];
	if (r->hdr.mem_table_log2 < ITRACE_MEM_TABLE_LOG2_MIN ||
	    r->hdr.mem_table_log2 > ITRACE_MEM_TABLE_LOG2_MAX)
		return fail(r, -ITRACE_E_CORRUPT, 12,
			    "MEM table of 2^%u entries (readers take 2^%u to 2^%u)",
			    r->hdr.mem_table_log2, ITRACE_MEM_TABLE_LOG2_MIN, ITRACE_MEM_TABLE_LOG2_MAX);
	r->mem_shift = mem_shift(r->hdr.mem_table_log2);
	return 0;
}

static int read_header(struct itrace_reader *r)
{
	uint8_t fixed[ITRACE_FILE_FIXED_SIZE] = {0};
	uint8_t *all;
	size_t cap;
	uint32_t hsize, msize, crc;
	uint16_t fsize;
	size_t got = in_read(r, fixed, sizeof(fixed));
	int rc;

	if (got < ITRACE_FILE_MAGIC_LEN || memcmp(fixed, ITRACE_FILE_MAGIC, ITRACE_FILE_MAGIC_LEN))
		return memcmp(fixed, ITRACE_FILE_MAGIC, got < 8 ? got : 8) || got == 0
			       ? fail(r, -ITRACE_E_BADMAGIC, 0, "not an itrace file")
			       : fail(r, -ITRACE_E_TRUNCATED, got, "file ends inside the header");
	if ((rc = check_draft(r, fixed, got)) < 0)
		return rc;
	/* 4.1 check 3: the first 16 bytes tell a draft from another major, so
	 * the major is judged only when they are all present */
	if (got >= 16 && get_le16(fixed + 8) != ITRACE_FORMAT_MAJOR)
		return check_fixed(r, fixed);
	if (got < sizeof(fixed))
		return fail(r, -ITRACE_E_TRUNCATED, got, "file ends inside the header");
	if ((rc = check_fixed(r, fixed)) < 0)
		return rc;
	fsize = get_le16(fixed + 14);
	hsize = get_le32(fixed + 16);
	msize = get_le32(fixed + 28);
	if (fsize < ITRACE_FILE_FIXED_SIZE || hsize > ITRACE_FILE_HEADER_MAX ||
	    (uint64_t)fsize + msize > hsize)
		return fail(r, -ITRACE_E_CORRUPT, 14, "header sizes are inconsistent");
	r->hdr.machine = get_le16(fixed + 20);
	r->hdr.target_endian = fixed[22];
	r->hdr.level = fixed[23];
	r->hdr.flags = get_le32(fixed + 24);
	r->hdr.header_size = hsize;
	all = NULL;
	cap = 0;
	/* grown as the bytes arrive: a short file claiming a large header
	 * costs what it holds */
	if (grow(&all, &cap, sizeof(fixed)) < 0 ||
	    read_growing(r, &all, &cap, sizeof(fixed), hsize - sizeof(fixed), &got) < 0) {
		free(all);
		return -ITRACE_E_NOMEM;
	}
	memcpy(all, fixed, sizeof(fixed));
	if (got < hsize - sizeof(fixed)) {
		free(all);
		return fail(r, -ITRACE_E_TRUNCATED, r->pos, "file ends inside the header metadata");
	}
	crc = get_le32(all + 44);
	memset(all + 44, 0, 4);
	if (itrace_crc32c(0, all, hsize) != crc) {
		free(all);
		return fail(r, -ITRACE_E_CORRUPT, 44, "header checksum mismatch");
	}
	rc = parse_meta(r, all + fsize, msize, get_le32(fixed + 32));
	free(all);
	if (rc == -ITRACE_E_CORRUPT)
		return fail(r, rc, fsize, "header metadata is malformed");
	return rc;
}

/*
 * parse_footer - check and decode a complete footer in `f` (len bytes,
 * trailer included).  Fills r->footer and, if want_index, r->index.
 */
/* footer_bytes_valid - whether f[0..len) is a whole valid footer and
 * trailer (7.1): magic, footer_size = len, chunk_count agreeing with it,
 * CRC and trailer magic. */
static int footer_bytes_valid(const uint8_t *f, size_t len)
{
	uint64_t n;
	size_t crc_at;

	if (len < ITRACE_FOOTER_FIXED_SIZE + 4 + ITRACE_TRAILER_SIZE || memcmp(f, "IFTR", 4) ||
	    get_le32(f + 4) != len)
		return 0;
	n = get_le64(f + 16);
	if (n != (len - ITRACE_FOOTER_FIXED_SIZE - 4 - ITRACE_TRAILER_SIZE) / 16 ||
	    (len - ITRACE_FOOTER_FIXED_SIZE - 4 - ITRACE_TRAILER_SIZE) % 16)
		return 0;
	crc_at = ITRACE_FOOTER_FIXED_SIZE + 16 * n;
	return itrace_crc32c(0, f, crc_at) == get_le32(f + crc_at) &&
	       !memcmp(f + crc_at + 12, ITRACE_TRAILER_MAGIC, 8);
}

static int parse_footer(struct itrace_reader *r, const uint8_t *f, size_t len, int want_index)
{
	uint64_t n;

	if (!footer_bytes_valid(f, len))
		return -ITRACE_E_CORRUPT;
	n = get_le64(f + 16);
	r->footer.end_reason = f[8];
	r->footer.end_status = (int)get_le32(f + 12);
	r->footer.chunk_count = n;
	r->footer.record_count = get_le64(f + 24);
	r->footer.insn_count = get_le64(f + 32);
	r->footer.branch_count = get_le64(f + 40);
	r->footer.mem_count = get_le64(f + 48);
	r->footer.lost_count = get_le64(f + 56);
	r->footer.gap_count = get_le64(f + 64);
	r->have_footer = 1;
	if (want_index && !r->index) {
		r->index = calloc(n ? n : 1, sizeof(*r->index));
		if (!r->index)
			return -ITRACE_E_NOMEM;
		for (uint64_t i = 0; i < n; i++) {
			r->index[i].seq = i;
			r->index[i].offset = get_le64(f + ITRACE_FOOTER_FIXED_SIZE + 16 * i);
			r->index[i].first_insn = get_le64(f + ITRACE_FOOTER_FIXED_SIZE + 16 * i + 8);
		}
		r->index_len = n;
	}
	return 0;
}

/* load_footer_at_end - on seekable input, find the footer via the trailer. */
static void load_footer_at_end(struct itrace_reader *r)
{
	uint8_t t[ITRACE_TRAILER_SIZE];
	uint64_t foff, flen;
	uint8_t *f;

	if (r->file_size < r->hdr.header_size + ITRACE_TRAILER_SIZE ||
	    in_pread(r, r->file_size - ITRACE_TRAILER_SIZE, t, sizeof(t)) != sizeof(t) ||
	    memcmp(t + 8, ITRACE_TRAILER_MAGIC, 8))
		return;
	foff = get_le64(t);
	if (foff < r->hdr.header_size || foff >= r->file_size)
		return;
	flen = r->file_size - foff;
	if (flen > (64u << 20))
		return;
	f = malloc(flen);
	if (f && in_pread(r, foff, f, flen) == flen && parse_footer(r, f, flen, 1) == 0) {
		free(f);
		return;
	}
	free(f);
	free(r->index);
	r->index = NULL;
	r->index_len = 0;
	r->have_footer = 0;
}

/* ---- open/close ------------------------------------------------------- */

static int reader_start(struct itrace_reader *r, struct itrace_reader **rp)
{
	struct stat st = {0};
	int rc;

	r->mem_shift = mem_shift(ITRACE_MEM_TABLE_LOG2_DEFAULT); /* read_header() sets the file's */
	if (r->mem) {
		r->seekable = 1;
		r->file_size = r->mem_len;
	} else if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* open(2) takes a directory for reading; say what read(2) would */
		itrace_reader_close(r);
		errno = EISDIR;
		return -ITRACE_E_IO;
	} else if (S_ISREG(st.st_mode)) {
		off_t here = lseek(r->fd, 0, SEEK_CUR);

		r->seekable = here == 0;
		r->file_size = (uint64_t)st.st_size;
	}
	rc = read_header(r);
	if (rc < 0) {
		if (r->report)
			snprintf(r->report, r->report_len, "%s", r->errmsg);
		itrace_reader_close(r);
		return rc;
	}
	r->report = NULL;
	if (r->seekable)
		load_footer_at_end(r);
	r->state = RS_CHUNKS;
	*rp = r;
	return 0;
}

/* open_fd - itrace_reader_open_fd(), saying why it failed in msg[0..len)
 * when msg is not NULL. */
static int open_fd(int fd, struct itrace_reader **rp, char *msg, size_t len)
{
	struct itrace_reader *r;

	if (!rp || fd < 0)
		return -ITRACE_E_INVAL;
	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ITRACE_E_NOMEM;
	r->fd = fd;
	r->report = msg;
	r->report_len = len;
	return reader_start(r, rp);
}

int itrace_reader_open_fd(int fd, struct itrace_reader **rp)
{
	return open_fd(fd, rp, NULL, 0);
}

int itrace_reader_open(const char *path, struct itrace_reader **rp)
{
	return itrace_reader_open_report(path, rp, NULL, 0);
}

int itrace_reader_open_report(const char *path, struct itrace_reader **rp, char *msg, size_t len)
{
	int fd, rc;

	if (msg && len)
		msg[0] = 0;
	else
		msg = NULL;
	if (!path || !rp)
		return -ITRACE_E_INVAL;
	*rp = NULL;
	if (strcmp(path, "-") == 0)
		return open_fd(STDIN_FILENO, rp, msg, len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ITRACE_E_IO;
	rc = open_fd(fd, rp, msg, len);
	if (rc < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return rc;
	}
	(*rp)->own_fd = 1;
	return 0;
}

int itrace_reader_open_mem(const void *buf, size_t len, struct itrace_reader **rp)
{
	struct itrace_reader *r;

	if (!rp || (!buf && len))
		return -ITRACE_E_INVAL;
	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ITRACE_E_NOMEM;
	r->fd = -1;
	r->mem = buf ? buf : (const uint8_t *)"";
	r->mem_len = len;
	return reader_start(r, rp);
}

/* end_trace - what belongs to the trace read, not to the reader: the
 * descriptor it opened, the metadata, the chunk index. */
static void end_trace(struct itrace_reader *r)
{
	if (r->own_fd)
		close(r->fd);
	free(r->meta_blob);
	free(r->meta_key);
	free(r->meta_val);
	free(r->index);
}

/* The memory a reader keeps from trace to trace (itrace_reader_reopen_mem). */
struct reader_kept {
	uint8_t *back, *payload, *raw;
	size_t back_cap, payload_cap, raw_cap;
	ZSTD_DCtx *dctx;
	struct block_slot *blocks[ITRACE_REPEAT_SLOTS];
};

int itrace_reader_reopen_mem(struct itrace_reader **rp, const void *buf, size_t len)
{
	struct itrace_reader *r;
	struct reader_kept k;

	if (!rp || !*rp || (!buf && len))
		return -ITRACE_E_INVAL;
	r = *rp;
	*rp = NULL;
	end_trace(r);
	k = (struct reader_kept){ r->back, r->payload, r->raw, r->back_cap, r->payload_cap,
				  r->raw_cap, r->dctx, { NULL } };
	memcpy(k.blocks, r->blocks, sizeof(k.blocks));
	/* everything else as itrace_reader_open_mem's calloc leaves it; a
	 * kept block slot is empty until a BLOCK record of this trace fills it */
	memset(r, 0, sizeof(*r));
	r->back = k.back;
	r->back_cap = k.back_cap;
	r->payload = k.payload;
	r->payload_cap = k.payload_cap;
	r->raw = k.raw;
	r->raw_cap = k.raw_cap;
	r->dctx = k.dctx;
	for (int i = 0; i < ITRACE_REPEAT_SLOTS; i++)
		if ((r->blocks[i] = k.blocks[i]) != NULL)
			r->blocks[i]->n = 0;
	r->fd = -1;
	r->mem = buf ? buf : (const uint8_t *)"";
	r->mem_len = len;
	return reader_start(r, rp);
}

void itrace_reader_close(struct itrace_reader *r)
{
	if (!r)
		return;
	end_trace(r);
	ZSTD_freeDCtx(r->dctx);
	free(r->back);
	free(r->payload);
	free(r->raw);
	for (int i = 0; i < ITRACE_REPEAT_SLOTS; i++)
		free(r->blocks[i]);
	free(r);
}

const struct itrace_header *itrace_reader_header(const struct itrace_reader *r)
{
	return r ? &r->hdr : NULL;
}

const char *itrace_reader_meta(const struct itrace_reader *r, const char *key)
{
	if (!r || !key)
		return NULL;
	for (size_t i = 0; i < r->hdr.meta_count; i++)
		if (strcmp(r->meta_key[i], key) == 0)
			return r->meta_val[i];
	return NULL;
}

int itrace_reader_meta_at(const struct itrace_reader *r, size_t i, const char **key,
			  const char **value)
{
	if (!r || i >= r->hdr.meta_count)
		return -ITRACE_E_INVAL;
	if (key)
		*key = r->meta_key[i];
	if (value)
		*value = r->meta_val[i];
	return 0;
}

const char *itrace_reader_error(const struct itrace_reader *r)
{
	return r ? r->errmsg : "";
}

uint64_t itrace_reader_error_offset(const struct itrace_reader *r)
{
	return r ? r->err_off : 0;
}

int itrace_reader_footer(const struct itrace_reader *r, struct itrace_footer *f)
{
	if (!r || !f)
		return -ITRACE_E_INVAL;
	if (!r->have_footer)
		return -ITRACE_E_NOENT;
	*f = r->footer;
	return 0;
}

/* ---- chunks ----------------------------------------------------------- */

/* grow - make *buf hold at least n bytes. */
static int grow(uint8_t **buf, size_t *cap, size_t n)
{
	uint8_t *b;

	if (n <= *cap)
		return 0;
	b = realloc(*buf, n);
	if (!b)
		return -ITRACE_E_NOMEM;
	*buf = b;
	*cap = n;
	return 0;
}

/*
 * read_growing - read `want` bytes into *buf at offset `at`, growing it only
 * as data actually arrives, so a lying length on a short file allocates
 * little.  *have counts the bytes read.
 */
static int read_growing(struct itrace_reader *r, uint8_t **buf, size_t *cap, size_t at,
			size_t want, size_t *have)
{
	*have = 0;
	while (*have < want) {
		size_t step = want - *have, got;

		if (step > (*have > 65536 ? *have : 65536))
			step = *have > 65536 ? *have : 65536;
		if (grow(buf, cap, at + *have + step) < 0)
			return -ITRACE_E_NOMEM;
		got = in_read(r, *buf + at + *have, step);
		*have += got;
		if (got < step)
			break;
	}
	return 0;
}

static void reset_chunk_state(struct itrace_reader *r, const uint8_t *h)
{
	r->tid = get_le32(h + 36);
	r->pid = get_le32(h + 40);
	r->cur_time = get_le64(h + 48);
	r->cur_pc = 0;
	r->last_insn = 0;
	r->mem_index = 0;
	/* only the entries the file's header asks for (5.2) */
	memset(r->mem_table, 0, mem_entries(r->mem_shift) * sizeof(r->mem_table[0]));
	r->records_seen = 0;
	r->run = NULL;
	r->blk = NULL;
	r->seq = NULL;
	memset(r->branches, 0, sizeof(r->branches));
	for (int i = 0; i < ITRACE_REPEAT_SLOTS; i++) {
		r->runs[i].n = 0;
		r->seqs[i].k = 0;
		if (r->blocks[i])
			r->blocks[i]->n = 0;
	}
}

/* chunk_header_ok - magic, CRC and field bounds of a 72-byte header. */
static const char *chunk_header_problem(const uint8_t *h)
{
	if (memcmp(h, ITRACE_CHUNK_MAGIC, 4))
		return "bad chunk magic";
	if (itrace_crc32c(0, h, 68) != get_le32(h + 68))
		return "chunk header checksum mismatch";
	if (get_le32(h + 4) != ITRACE_CHUNK_HEADER_SIZE)
		return "unexpected chunk header size";
	if (get_le32(h + 24) > ITRACE_CHUNK_RAW_MAX || get_le32(h + 16) > ITRACE_CHUNK_RECORDS_MAX ||
	    get_le32(h + 20) > ZSTD_COMPRESSBOUND(ITRACE_CHUNK_RAW_MAX))
		return "chunk sizes out of range";
	if (h[28] > ITRACE_COMP_ZSTD_DISK)
		return "unknown chunk compression";
	if (h[28] == ITRACE_COMP_NONE_DISK && get_le32(h + 20) != get_le32(h + 24))
		return "stored chunk sizes disagree";
	return NULL;
}

/* decompress_partial - as much of a cut-short zstd payload as decodes. */
static size_t decompress_partial(struct itrace_reader *r, size_t have, size_t raw_size)
{
	ZSTD_inBuffer in = { r->payload, have, 0 };
	ZSTD_outBuffer out = { r->raw, raw_size, 0 };

	ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
	while (in.pos < in.size && out.pos < out.size) {
		size_t rc = ZSTD_decompressStream(r->dctx, &out, &in);

		if (ZSTD_isError(rc) || rc == 0)
			break;
	}
	return out.pos;
}

/*
 * frame_can_fill - whether a zstd payload of `have` bytes can decompress to
 * raw_size bytes: its frame header's content size, when present, must be
 * raw_size; without one, a zstd block holds at most 128 KiB and costs at
 * least 3 bytes.
 */
static int frame_can_fill(const uint8_t *payload, size_t have, size_t raw_size)
{
	unsigned long long fcs = ZSTD_getFrameContentSize(payload, have);

	if (fcs == ZSTD_CONTENTSIZE_ERROR)
		return have < 18; /* a cut-short frame header: the partial decoder decides */
	if (fcs != ZSTD_CONTENTSIZE_UNKNOWN)
		return fcs == raw_size;
	return raw_size / ZSTD_BLOCKSIZE_MAX <= have / 3;
}

/* unpack_payload - set r->p/r->end to the chunk's records. */
static int unpack_payload(struct itrace_reader *r, const uint8_t *h, size_t have)
{
	size_t raw_size = get_le32(h + 24);
	size_t n;

	if (h[28] == ITRACE_COMP_NONE_DISK) {
		/* an empty payload may have no buffer yet: p == end == NULL
		 * (C11 6.5.6 allows no arithmetic on a null pointer) */
		r->p = r->payload;
		r->end = have ? r->payload + have : r->payload;
		return 0;
	}
	/* The frame says how much it holds: a header whose raw_size the
	 * payload cannot fill allocates nothing (ITRACE.md 5.4). */
	if (!frame_can_fill(r->payload, have, raw_size))
		return fail(r, -ITRACE_E_CORRUPT, r->chunk_off,
			    "chunk %llu: payload does not decompress to its size",
			    (unsigned long long)r->chunk_seq);
	/* made at the first compressed chunk: a reader of stored chunks (or
	 * of damaged ones) never pays for it */
	if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
		return -ITRACE_E_NOMEM;
	if (grow(&r->raw, &r->raw_cap, raw_size ? raw_size : 1) < 0)
		return -ITRACE_E_NOMEM;
	if (r->chunk_partial) {
		n = decompress_partial(r, have, raw_size);
	} else {
		n = ZSTD_decompressDCtx(r->dctx, r->raw, raw_size, r->payload, have);
		if (ZSTD_isError(n) || n != raw_size)
			return fail(r, -ITRACE_E_CORRUPT, r->chunk_off,
				    "chunk %llu: payload does not decompress",
				    (unsigned long long)r->chunk_seq);
	}
	r->p = r->raw;
	r->end = r->raw + n;
	return 0;
}

/* note_gap - n chunks from sequence number `first` are lost: a GAP is due. */
static void note_gap(struct itrace_reader *r, uint64_t first, uint64_t n, uint64_t offset)
{
	if (!r->pending_gap)
		r->gap_seq = first;
	r->pending_gap += n;
	r->gap_offset = offset;
}

/* skip_damaged_chunk - report the rest of the chunk as a gap. */
static void skip_damaged_chunk(struct itrace_reader *r)
{
	/* chunks missing before this one count too */
	uint64_t missing = r->chunk_seq > r->expected_seq ? r->chunk_seq - r->expected_seq : 0;

	r->p = r->end = NULL;
	r->run = NULL;
	r->blk = NULL;
	r->seq = NULL;
	note_gap(r, missing ? r->expected_seq : r->chunk_seq, missing + 1, r->chunk_off);
	r->expected_seq = r->chunk_seq + 1;
}

static int read_stream_footer(struct itrace_reader *r, const uint8_t *magic, uint64_t off);

/*
 * load_chunk - read the next chunk.  Returns 0 when records are ready,
 * ITRACE_EOF after the footer, or an error (state updated for the next
 * call: resync, skip, or stop).
 */
static int load_chunk(struct itrace_reader *r)
{
	uint8_t h[ITRACE_CHUNK_HEADER_SIZE];
	uint64_t off = r->pos, seq;
	size_t got = in_read(r, h, 4), have;
	const char *problem;
	int rc;

	if (got == 0) {
		r->state = RS_STOPPED;
		return fail(r, -ITRACE_E_NOFOOTER, off,
			    "trace ends after %llu chunks without a footer: the writer was "
			    "interrupted; every complete chunk was read",
			    (unsigned long long)r->expected_seq);
	}
	if (got == 4 && !memcmp(h, ITRACE_FOOTER_MAGIC, 4))
		return read_stream_footer(r, h, off);
	if (got == 4)
		got += in_read(r, h + 4, sizeof(h) - 4);
	if (got < sizeof(h) && (got < 4 || !memcmp(h, ITRACE_CHUNK_MAGIC, 4))) {
		r->state = RS_STOPPED;
		return fail(r, -ITRACE_E_TRUNCATED, off, "file ends inside a chunk header");
	}
	problem = got < sizeof(h) ? "bad chunk magic" : chunk_header_problem(h);
	if (problem) {
		if (unread(r, h + 1, got - 1) < 0)
			return -ITRACE_E_NOMEM;
		r->state = RS_RESYNC;
		r->gap_offset = off;
		return fail(r, -ITRACE_E_CORRUPT, off, "%s", problem);
	}
	seq = get_le64(h + 8);
	r->chunk_seq = seq;
	r->chunk_off = off;
	r->chunk_records = get_le32(h + 16);
	r->chunk_payload_size = get_le32(h + 20);
	/* The GAP for a damaged payload goes to the thread its header names:
	 * the same whether the chunk before it was read or seeked past. */
	r->tid = get_le32(h + 36);
	r->pid = get_le32(h + 40);
	rc = read_growing(r, &r->payload, &r->payload_cap, 0, r->chunk_payload_size, &have);
	if (rc < 0)
		return rc;
	r->chunk_payload_have = have;
	r->chunk_partial = have < r->chunk_payload_size;
	if (!r->chunk_partial && itrace_crc32c(0, r->payload, have) != get_le32(h + 32)) {
		skip_damaged_chunk(r);
		return fail(r, -ITRACE_E_CORRUPT, off, "chunk %llu: payload checksum mismatch",
			    (unsigned long long)seq);
	}
	if (seq != r->expected_seq) {
		if (seq < r->expected_seq) {
			r->p = r->end = NULL;
			return fail(r, -ITRACE_E_CORRUPT, off,
				    "chunk %llu out of sequence (expected %llu); skipped",
				    (unsigned long long)seq, (unsigned long long)r->expected_seq);
		}
		note_gap(r, r->expected_seq, seq - r->expected_seq, off);
	}
	r->expected_seq = seq + 1;
	reset_chunk_state(r, h);
	rc = unpack_payload(r, h, have);
	if (rc < 0) {
		skip_damaged_chunk(r);
		return rc;
	}
	return 0;
}

/* read_stream_footer - the footer met while streaming: check and finish. */
static int read_stream_footer(struct itrace_reader *r, const uint8_t *magic, uint64_t off)
{
	uint8_t fixed[8];
	uint8_t *f = NULL;
	size_t cap = 0, have, size;
	int rc;

	memcpy(fixed, magic, 4);
	r->state = RS_STOPPED;
	if (in_read(r, fixed + 4, 4) < 4)
		return fail(r, -ITRACE_E_TRUNCATED, off, "file ends inside the footer");
	size = get_le32(fixed + 4);
	if (size < ITRACE_FOOTER_FIXED_SIZE + 4 + ITRACE_TRAILER_SIZE)
		return fail(r, -ITRACE_E_CORRUPT, off, "footer size is invalid");
	if (grow(&f, &cap, 8) < 0)
		return -ITRACE_E_NOMEM;
	memcpy(f, fixed, 8);
	rc = read_growing(r, &f, &cap, 8, size - 8, &have);
	if (rc < 0) {
		free(f);
		return rc;
	}
	if (have < size - 8) {
		free(f);
		return fail(r, -ITRACE_E_TRUNCATED, off, "file ends inside the footer");
	}
	rc = parse_footer(r, f, size, 0);
	free(f);
	if (rc == -ITRACE_E_NOMEM)
		return rc;
	if (rc < 0)
		return fail(r, -ITRACE_E_CORRUPT, off, "footer is corrupt");
	r->state = RS_END;
	if (r->footer.chunk_count > r->expected_seq) {
		/* chunks lost without damage met (ITRACE.md 8): flagged as
		 * damage, then a GAP for them, then the end */
		note_gap(r, r->expected_seq, r->footer.chunk_count - r->expected_seq, off);
		return fail(r, -ITRACE_E_CORRUPT, off,
			    "footer lists %llu chunks, the trace ends after %llu chunks",
			    (unsigned long long)r->footer.chunk_count,
			    (unsigned long long)r->expected_seq);
	}
	return ITRACE_EOF;
}

/*
 * footer_candidate_ok - is the "IFTR" at f (avail bytes of the scan buffer
 * from it) a footer to resume at (ITRACE.md 8)?  Only a whole valid
 * footer is: a stray "IFTR" inside damaged data must not end the scan.
 * Fewer than 8 bytes left is taken (load_chunk reports the truncation);
 * on a stream, a footer longer than the buffer holds is taken unchecked
 * and judged when read.  Returns 1, 0, or a negative error.
 */
static int footer_candidate_ok(struct itrace_reader *r, const uint8_t *f, size_t avail)
{
	uint32_t size;
	uint64_t at = r->pos - avail;
	uint8_t *whole;
	int ok;

	if (avail < 8)
		return 1;
	size = get_le32(f + 4);
	if (size < ITRACE_FOOTER_FIXED_SIZE + 4 + ITRACE_TRAILER_SIZE)
		return 0;
	if (size <= avail)
		return footer_bytes_valid(f, size);
	if (!r->seekable)
		return 1;
	if (at + size > r->file_size)
		return 0;
	/* past the buffer but inside the file: read it and check it all */
	if (!(whole = malloc(size)))
		return -ITRACE_E_NOMEM;
	ok = in_pread(r, at, whole, size) == size && footer_bytes_valid(whole, size);
	free(whole);
	return ok;
}

/*
 * resync - after damage, scan forward for the next intact chunk header
 * (magic and header CRC) or the footer magic, and leave the input there.
 */
static int resync(struct itrace_reader *r)
{
	uint8_t buf[65536];
	size_t len = 0, i;
	int eof = 0;

	for (;;) {
		while (!eof && len < sizeof(buf)) {
			size_t got = in_read(r, buf + len, sizeof(buf) - len);

			eof = got == 0;
			len += got;
		}
		for (i = 0; i + 4 <= len; i++) {
			int found = 0;

			if (!memcmp(buf + i, ITRACE_FOOTER_MAGIC, 4)) {
				if (i + 8 > len && !eof)
					break; /* refill, then check this one */
				found = footer_candidate_ok(r, buf + i, len - i);
				if (found < 0)
					return found;
			}
			else if (!memcmp(buf + i, ITRACE_CHUNK_MAGIC, 4)) {
				if (i + ITRACE_CHUNK_HEADER_SIZE > len && !eof)
					break; /* refill, then check this one */
				found = i + ITRACE_CHUNK_HEADER_SIZE > len ||
					!chunk_header_problem(buf + i);
			}
			if (found) {
				if (unread(r, buf + i, len - i) < 0)
					return -ITRACE_E_NOMEM;
				r->state = RS_CHUNKS;
				return 0;
			}
		}
		if (eof) {
			r->state = RS_STOPPED;
			return fail(r, -ITRACE_E_CORRUPT, r->pos,
				    "no intact chunk or footer after the damage at offset %llu",
				    (unsigned long long)r->gap_offset);
		}
		memmove(buf, buf + i, len - i);
		len -= i;
	}
}

/* ---- records ---------------------------------------------------------- */

/* A bounded cursor over one record's payload. */
struct field {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t f_var(struct field *f)
{
	uint64_t v = 0;

	if (!f->bad && get_varint(&f->p, f->end, &v) < 0)
		f->bad = 1;
	return f->bad ? 0 : v;
}

static int64_t f_svar(struct field *f)
{
	return unzigzag(f_var(f));
}

/* f_u32 - a field of 32 bits coded as a varint (6.5): a value that does
 * not fit makes the record malformed. */
static uint32_t f_u32(struct field *f)
{
	uint64_t v = f_var(f);

	if (v > UINT32_MAX)
		f->bad = 1;
	return f->bad ? 0 : (uint32_t)v;
}

/* f_s32 - a signed 32-bit field coded as an svarint, likewise. */
static int32_t f_s32(struct field *f)
{
	int64_t v = f_svar(f);

	if (v < INT32_MIN || v > INT32_MAX)
		f->bad = 1;
	return f->bad ? 0 : (int32_t)v;
}

static uint8_t f_u8(struct field *f)
{
	if (f->bad || f->p >= f->end) {
		f->bad = 1;
		return 0;
	}
	return *f->p++;
}

/* f_bytes - a length-prefixed byte string of at most `max` bytes. */
static const uint8_t *f_bytes(struct field *f, size_t max, size_t *len)
{
	uint64_t n = f_var(f);
	const uint8_t *b = f->p;

	if (f->bad || n > max || n > (uint64_t)(f->end - f->p)) {
		f->bad = 1;
		*len = 0;
		return NULL;
	}
	f->p += n;
	*len = (size_t)n;
	return b;
}

/* f_string - like f_bytes, copied NUL-terminated into the scratch buffer. */
static const char *f_string(struct itrace_reader *r, struct field *f, size_t *len)
{
	const uint8_t *b = f_bytes(f, ITRACE_PATH_MAX, len);

	if (!b || !*len)
		return f->bad ? NULL : (*len = 0, NULL);
	memcpy(r->scratch, b, *len);
	r->scratch[*len] = 0;
	return r->scratch;
}

/*
 * free_slot - a repeat-table slot holds one record (ITRACE.md 6.2): a new
 * BRANCH, INSN_RUN or BLOCK record in it makes whatever was there gone
 * (the caller then fills in what it put there), as the writer's
 * free_slot() does on its side.
 */
static inline void free_slot(struct itrace_reader *r, unsigned slot)
{
	r->runs[slot].n = 0;
	r->branches[slot].used = 0;
	r->seqs[slot].k = 0;
	if (r->blocks[slot])
		r->blocks[slot]->n = 0;
}

/* valid_kindflags - a BRANCH's kind byte as 6.5.1 allows it. */
static inline int valid_kindflags(uint8_t kf)
{
	return (kf & 0xf) <= ITRACE_BK_MAX && !((kf >> 4) & ~ITRACE_BF_KNOWN_MASK);
}

static void decode_branch(struct itrace_reader *r, struct field *f, struct itrace_record *rec)
{
	uint64_t from = r->cur_pc + (uint64_t)f_svar(f);
	uint64_t to = from + (uint64_t)f_svar(f);
	uint8_t kf = f_u8(f);
	unsigned slot = branch_slot(from, to);
	struct itrace_branch_slot *t;

	if (f->bad || !valid_kindflags(kf)) {
		f->bad = 1;
		return;
	}
	free_slot(r, slot);
	t = &r->branches[slot];
	t->from = from;
	t->to = to;
	t->kindflags = kf;
	t->used = 1;
	rec->type = ITRACE_REC_BRANCH;
	rec->u.branch.from = from;
	rec->u.branch.to = to;
	rec->u.branch.kind = kf & 0xf;
	rec->u.branch.flags = kf >> 4;
	r->cur_pc = to;
}

/*
 * decode_seq - a BRANCH_SEQ record (6.5.16): check all of its branches,
 * store it in the table slot it names and start expanding it.  f->bad if
 * malformed.
 */
static void decode_seq(struct itrace_reader *r, struct field *f)
{
	uint64_t from = r->cur_pc + (uint64_t)f_svar(f);
	unsigned slot = f_u8(f);
	uint64_t k = f_var(f);
	const uint8_t *first = f->p;
	struct seq_entry *t;

	if (f->bad || slot >= ITRACE_REPEAT_SLOTS || k == 0 || k > ITRACE_SEQ_MAX) {
		f->bad = 1;
		return;
	}
	/* the addresses wait for next_seq_branch(): here, that every field
	 * is there and every kind byte valid */
	for (uint64_t i = 0; i < k && !f->bad; i++) {
		if (i > 0)
			f_svar(f);
		f_svar(f);
		if (!valid_kindflags(f_u8(f)))
			f->bad = 1;
	}
	if (f->bad)
		return;
	free_slot(r, slot);
	t = &r->seqs[slot];
	*t = (struct seq_entry){ first, f->end, from, (uint16_t)k };
	r->seq = t;
	r->seq_idx = 0;
	r->seq_p = first;
}

/* f_lens - the n instruction lengths of an INSN_RUN or BLOCK (6.5.2). */
static void f_lens(struct field *f, unsigned n, int uniform, uint8_t *len)
{
	unsigned i;

	if (uniform) {
		uint8_t l = f_u8(f);

		if (l > ITRACE_INSN_MAX_LEN)
			f->bad = 1;
		memset(len, l, n);
	} else {
		for (i = 0; i < n; i += 2) {
			uint8_t b = f_u8(f);

			len[i] = b & 0xf;
			if (i + 1 < n)
				len[i + 1] = b >> 4;
		}
	}
	for (i = 0; i < n && !f->bad; i++)
		if (len[i] == 0)
			f->bad = 1;
}

/* decode_run - store the run in its table slot and start expanding it. */
static void decode_run(struct itrace_reader *r, struct field *f)
{
	uint64_t start = r->cur_pc + (uint64_t)f_svar(f);
	uint64_t nu = f_var(f);
	unsigned n = (unsigned)(nu >> 1);
	struct itrace_run *t;
	uint8_t len[ITRACE_RUN_MAX];

	if (f->bad || n == 0 || n > ITRACE_RUN_MAX) {
		f->bad = 1;
		return;
	}
	f_lens(f, n, nu & 1, len);
	if (f->bad)
		return;
	free_slot(r, run_slot(start, n));
	t = &r->runs[run_slot(start, n)];
	t->start = start;
	t->n = (uint16_t)n;
	memcpy(t->len, len, n);
	r->run = t;
	r->run_idx = 0;
	r->run_addr = start;
}

/*
 * start_block - the addresses of an execution of block b, from its m
 * address deltas in [*p, end) (6.5.15; each against its MEM-table slot, in
 * access order), and the state after it; then its expansion begins.
 * Returns 0, or -1 when the deltas run past `end` (*p then undefined).
 */
static int start_block(struct itrace_reader *r, const struct block_slot *b, const uint8_t **p,
		       const uint8_t *end)
{
	for (unsigned k = 0; k < b->m; k++) {
		uint64_t z;

		if (get_varint(p, end, &z) < 0)
			return -1;
		r->blk_addrs[k] = r->mem_table[b->mslot[k]] += (uint64_t)unzigzag(z);
	}
	r->cur_pc = b->end;
	r->last_insn = b->last_insn;
	r->mem_index = b->last_mem_index;
	r->blk = b;
	r->blk_insn = 0;
	r->blk_acc = 0;
	r->blk_addr = b->start;
	return 0;
}

/*
 * decode_block - a BLOCK record (6.5.15): store the block in its table
 * slot and start expanding it.  Returns 0 (f->bad if malformed) or
 * -ITRACE_E_NOMEM.
 */
static int decode_block(struct itrace_reader *r, struct field *f)
{
	uint64_t start = r->cur_pc + (uint64_t)f_svar(f);
	uint64_t nu = f_var(f), m, insn_addr;
	unsigned n = (unsigned)(nu >> 1), idx = 0, k, i, ordinal = 0;
	struct block_slot *b;
	unsigned slot;

	if (f->bad || n == 0 || n > ITRACE_RUN_MAX) {
		f->bad = 1;
		return 0;
	}
	slot = run_slot(start, n);
	if (!r->blocks[slot] && !(r->blocks[slot] = malloc(sizeof(*r->blocks[slot]))))
		return -ITRACE_E_NOMEM;
	b = r->blocks[slot];
	b->n = 0;
	f_lens(f, n, nu & 1, b->len);
	m = f_var(f);
	if (f->bad || m > ITRACE_BLOCK_ACCESS_MAX) {
		f->bad = 1;
		return 0;
	}
	insn_addr = start;
	for (k = 0, i = 0; k < m; k++) {
		uint64_t step = f_var(f), sz = f_var(f);

		if (f->bad || step >= n - idx) {
			f->bad = 1;
			return 0;
		}
		idx += (unsigned)step;
		for (; i < idx; i++) {
			insn_addr += b->len[i];
			ordinal = 0;
		}
		b->insn[k] = (uint8_t)idx;
		b->flags[k] = (uint8_t)(sz & ITRACE_MF_STORE);
		b->size[k] = sz >> 1;
		b->mslot[k] = (uint16_t)mem_slot(insn_addr, ordinal++, r->mem_shift);
	}
	b->start = start;
	b->m = (uint16_t)m;
	b->end = start + itrace_lens_total(b->len, n);
	b->last_insn = b->end - b->len[n - 1];
	b->last_mem_index = 0;
	for (k = (unsigned)m; k > 0 && b->insn[k - 1] == n - 1; k--)
		b->last_mem_index++;
	free_slot(r, slot);
	b->n = (uint16_t)n;
	if (start_block(r, b, &f->p, f->end) < 0)
		f->bad = 1;
	return 0;
}

static void decode_insn(struct itrace_reader *r, struct field *f, struct itrace_record *rec)
{
	uint64_t addr = r->cur_pc + (uint64_t)f_svar(f);
	uint8_t len = f_u8(f);

	if (f->bad || len == 0 || len > ITRACE_INSN_MAX_LEN || len > f->end - f->p) {
		f->bad = 1;
		return;
	}
	rec->type = ITRACE_REC_INSN;
	rec->u.insn.addr = addr;
	rec->u.insn.len = len;
	rec->u.insn.has_bytes = 1;
	memcpy(rec->u.insn.bytes, f->p, len);
	f->p += len;
	r->cur_pc = addr + len;
	r->last_insn = addr;
	r->mem_index = 0;
}

/* mem_addr - a MEM record's address from its delta (6.5.4). */
static uint64_t mem_addr(struct itrace_reader *r, uint64_t d)
{
	unsigned slot;

	slot = mem_slot(r->last_insn, r->mem_index++, r->mem_shift);
	return r->mem_table[slot] += d;
}

static void decode_context(struct itrace_reader *r, uint8_t type, struct field *f,
			   struct itrace_record *rec)
{
	size_t n;
	const uint8_t *b;

	rec->type = type;
	switch (type) {
	case ITRACE_T_MEM:
		rec->u.mem.flags = f_u8(f);
		rec->u.mem.size = f_var(f);
		rec->u.mem.addr = mem_addr(r, (uint64_t)f_svar(f));
		break;
	case ITRACE_T_MMAP:
		rec->u.mmap.pid = f_u32(f);
		rec->u.mmap.start = f_var(f);
		rec->u.mmap.len = f_var(f);
		rec->u.mmap.pgoff = f_var(f);
		rec->u.mmap.prot = f_u8(f);
		b = f_bytes(f, ITRACE_BUILDID_MAX, &n);
		rec->u.mmap.buildid_len = (uint8_t)n;
		if (b)
			memcpy(rec->u.mmap.buildid, b, n);
		rec->u.mmap.path = f_string(r, f, &rec->u.mmap.path_len);
		break;
	case ITRACE_T_CODE:
		rec->u.code.addr = f_var(f);
		rec->u.code.bytes = f_bytes(f, ITRACE_CODE_MAX, &rec->u.code.len);
		break;
	case ITRACE_T_THREAD:
		rec->u.thread.event = f_u8(f);
		rec->u.thread.tid = f_u32(f);
		rec->u.thread.pid = f_u32(f);
		rec->u.thread.other = f_var(f);
		rec->u.thread.name = f_string(r, f, &rec->u.thread.name_len);
		/* a malformed record changes no state (8): the GAP after it
		 * names the thread before it */
		if (rec->u.thread.event == ITRACE_THREAD_SWITCH && !f->bad) {
			r->tid = rec->u.thread.tid;
			r->pid = rec->u.thread.pid;
			rec->tid = r->tid;
			rec->pid = r->pid;
		}
		break;
	case ITRACE_T_PROCESS:
		rec->u.process.event = f_u8(f);
		rec->u.process.pid = f_u32(f);
		rec->u.process.other = f_var(f);
		rec->u.process.status = f_svar(f);
		rec->u.process.name = f_string(r, f, &rec->u.process.name_len);
		break;
	case ITRACE_T_SYSCALL:
		rec->u.syscall.dir = f_u8(f);
		rec->u.syscall.nr = f_var(f);
		rec->u.syscall.ret = f_svar(f);
		rec->u.syscall.nargs = f_u8(f);
		if (rec->u.syscall.nargs > ITRACE_SYSCALL_MAX_ARGS)
			f->bad = 1;
		for (n = 0; n < rec->u.syscall.nargs && !f->bad; n++)
			rec->u.syscall.args[n] = f_var(f);
		break;
	case ITRACE_T_SIGNAL:
		rec->u.signal.signo = f_u32(f);
		rec->u.signal.code = f_s32(f);
		rec->u.signal.addr = f_var(f);
		rec->u.signal.pc = f_var(f);
		rec->u.signal.handler = f_var(f);
		break;
	case ITRACE_T_TIMESTAMP:
		r->cur_time += (uint64_t)f_svar(f);
		rec->time_ns = r->cur_time;
		break;
	case ITRACE_T_TRACE_CTL:
		rec->u.ctl.on = f_u8(f);
		rec->u.ctl.reason = f_u8(f);
		rec->u.ctl.addr = f_var(f);
		rec->u.ctl.trigger = 0;
		rec->u.ctl.index = 0;
		if (f->p < f->end) { /* 1.1: which option fired (6.5.12) */
			rec->u.ctl.trigger = f_u8(f);
			rec->u.ctl.index = f_u32(f);
		}
		break;
	case ITRACE_T_LOST:
		rec->u.lost.reason = f_u8(f);
		rec->u.lost.unit = f_u8(f);
		rec->u.lost.count = f_var(f);
		break;
	case ITRACE_T_GAP:
		rec->u.gap.reason = f_u8(f);
		rec->u.gap.addr = f_var(f);
		rec->u.gap.resume = f_var(f);
		rec->u.gap.count = f_var(f);
		break;
	}
}

/*
 * chunk_cut_short - the file ends inside the current chunk: every record
 * that fitted was delivered; report where it ends and stop.
 */
static int chunk_cut_short(struct itrace_reader *r, unsigned long long complete)
{
	r->p = r->end = NULL;
	r->state = RS_STOPPED;
	return fail(r, -ITRACE_E_TRUNCATED,
		    r->chunk_off + ITRACE_CHUNK_HEADER_SIZE + r->chunk_payload_have,
		    "file ends inside chunk %llu (%llu of %llu payload bytes present); "
		    "%llu complete records of that chunk were read",
		    (unsigned long long)r->chunk_seq, (unsigned long long)r->chunk_payload_have,
		    (unsigned long long)r->chunk_payload_size, complete);
}

/* record_problem - report damage inside the current chunk. */
static int record_problem(struct itrace_reader *r, const char *what)
{
	uint64_t seq = r->chunk_seq, off = r->chunk_off;
	unsigned long long n = r->records_seen;

	if (r->chunk_partial)
		return chunk_cut_short(r, n - 1); /* the cut record is not complete */
	skip_damaged_chunk(r);
	return fail(r, -ITRACE_E_CORRUPT, off, "chunk %llu: record %llu: %s; rest of chunk skipped",
		    (unsigned long long)seq, n, what);
}

/*
 * clear_record - zero *rec.  In pieces of at most 64 bytes: compilers turn
 * one memset of the whole record into `rep stos`, whose start-up cost was
 * most of the time of decoding a one-byte repeat record.
 */
static inline void clear_record(struct itrace_record *rec)
{
	unsigned char *p = (unsigned char *)rec;
	size_t n = sizeof(*rec);

	for (; n >= 64; n -= 64, p += 64)
		memset(p, 0, 64);
	memset(p, 0, n);
}

static void fill_common(struct itrace_reader *r, struct itrace_record *rec)
{
	clear_record(rec);
	rec->tid = r->tid;
	rec->pid = r->pid;
	rec->time_ns = r->cur_time;
	rec->chunk = r->chunk_seq;
	rec->offset = r->chunk_off;
}

/*
 * decode_one - decode the record at r->p.  Returns 0 with a record, 1 when
 * nothing is delivered (a run starts, or an unknown type was skipped), or
 * an error.
 */
static int decode_one(struct itrace_reader *r, struct itrace_record *rec)
{
	uint8_t h = *r->p++;
	uint64_t size;
	struct field f;
	int rc;

	r->records_seen++;
	fill_common(r, rec);
	if (h & ITRACE_REPEAT_BIT) {
		unsigned slot = h & (ITRACE_REPEAT_SLOTS - 1);

		if (r->runs[slot].n) {
			r->run = &r->runs[slot];
			r->run_idx = 0;
			r->run_addr = r->run->start;
			return 1;
		}
		if (r->seqs[slot].k) {
			r->seq = &r->seqs[slot];
			r->seq_idx = 0;
			r->seq_p = r->seq->p;
			return 1;
		}
		if (r->blocks[slot] && r->blocks[slot]->n) {
			/* a repeated block: its address deltas follow the byte */
			if (start_block(r, r->blocks[slot], &r->p, r->end) < 0)
				return record_problem(r, "block repeat runs past the chunk");
			return 1;
		}
		if (!r->branches[slot].used)
			return record_problem(r, "repeat of an empty slot");
		rec->type = ITRACE_REC_BRANCH;
		rec->u.branch.from = r->branches[slot].from;
		rec->u.branch.to = r->branches[slot].to;
		rec->u.branch.kind = r->branches[slot].kindflags & 0xf;
		rec->u.branch.flags = r->branches[slot].kindflags >> 4;
		r->cur_pc = rec->u.branch.to;
		return 0;
	}
	if (h == 0)
		return record_problem(r, "record type 0");
	if (get_varint(&r->p, r->end, &size) < 0 || size > (uint64_t)(r->end - r->p))
		return record_problem(r, "record size runs past the chunk");
	f.p = r->p;
	f.end = r->p + size;
	f.bad = 0;
	r->p += size;
	switch (h) {
	case ITRACE_T_BRANCH:
		decode_branch(r, &f, rec);
		break;
	case ITRACE_T_INSN_RUN:
		decode_run(r, &f);
		if (f.bad)
			break;
		return 1;
	case ITRACE_T_INSN:
		decode_insn(r, &f, rec);
		break;
	case ITRACE_T_BLOCK:
		if (!(r->hdr.incompat_features & ITRACE_FEAT_BLOCK))
			return record_problem(r, "BLOCK record in a file without the BLOCK feature");
		if ((rc = decode_block(r, &f)) < 0)
			return rc;
		if (f.bad)
			break;
		return 1;
	case ITRACE_T_BRANCH_SEQ:
		if (!(r->hdr.incompat_features & ITRACE_FEAT_BRANCH_SEQ))
			return record_problem(r,
					      "BRANCH_SEQ record in a file without the BRANCH_SEQ feature");
		decode_seq(r, &f);
		if (f.bad)
			break;
		return 1;
	default:
		if (h > ITRACE_T_MAX_1_0)
			return 1; /* a newer minor version's record: skip it */
		decode_context(r, h, &f, rec);
	}
	/* Trailing bytes are allowed: newer minors may append fields. */
	return f.bad ? record_problem(r, "malformed record payload") : 0;
}

/* next_block_rec - deliver the next instruction or access of the block
 * being expanded: each instruction, then its accesses. */
static void next_block_rec(struct itrace_reader *r, struct itrace_record *rec)
{
	const struct block_slot *b = r->blk;
	unsigned k = r->blk_acc;

	fill_common(r, rec);
	if (k < b->m && b->insn[k] < r->blk_insn) {
		rec->type = ITRACE_REC_MEM;
		rec->u.mem.addr = r->blk_addrs[k];
		rec->u.mem.size = b->size[k];
		rec->u.mem.flags = b->flags[k];
		r->blk_acc++;
	} else {
		rec->type = ITRACE_REC_INSN;
		rec->u.insn.addr = r->blk_addr;
		rec->u.insn.len = b->len[r->blk_insn];
		r->blk_addr += b->len[r->blk_insn++];
	}
	if (r->blk_insn == b->n && r->blk_acc == b->m)
		r->blk = NULL;
}

/* next_seq_branch - deliver the next branch of the sequence being
 * expanded, decoded again from the record checked by decode_seq(). */
static void next_seq_branch(struct itrace_reader *r, struct itrace_record *rec)
{
	const struct seq_entry *t = r->seq;
	uint64_t from = t->from, z = 0;
	uint8_t kf;

	fill_common(r, rec);
	if (r->seq_idx > 0) {
		get_varint(&r->seq_p, t->end, &z);
		from = r->cur_pc + (uint64_t)unzigzag(z);
	}
	get_varint(&r->seq_p, t->end, &z);
	kf = *r->seq_p++;
	rec->type = ITRACE_REC_BRANCH;
	rec->u.branch.from = from;
	rec->u.branch.to = from + (uint64_t)unzigzag(z);
	rec->u.branch.kind = kf & 0xf;
	rec->u.branch.flags = kf >> 4;
	r->cur_pc = rec->u.branch.to;
	if (++r->seq_idx == t->k)
		r->seq = NULL;
}

/* next_run_insn - deliver the next instruction of the run being expanded. */
static void next_run_insn(struct itrace_reader *r, struct itrace_record *rec)
{
	const struct itrace_run *run = r->run;

	fill_common(r, rec);
	rec->type = ITRACE_REC_INSN;
	rec->u.insn.addr = r->run_addr;
	rec->u.insn.len = run->len[r->run_idx];
	r->run_addr += run->len[r->run_idx];
	if (++r->run_idx == run->n) {
		r->cur_pc = r->run_addr;
		r->last_insn = rec->u.insn.addr;
		r->mem_index = 0;
		r->run = NULL;
	}
}

static void deliver_gap(struct itrace_reader *r, struct itrace_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_GAP;
	rec->tid = r->tid;
	rec->pid = r->pid;
	rec->offset = r->gap_offset;
	rec->chunk = r->gap_seq;
	rec->u.gap.reason = ITRACE_GAP_CORRUPT_CHUNK;
	rec->u.gap.count = r->pending_gap;
	r->pending_gap = 0;
}

/* end_of_chunk - the chunk's records are used up: check its record count. */
static int end_of_chunk(struct itrace_reader *r)
{
	if (r->chunk_partial)
		return chunk_cut_short(r, r->records_seen);
	r->p = r->end = NULL;
	if (r->records_seen != r->chunk_records)
		return fail(r, -ITRACE_E_CORRUPT, r->chunk_off,
			    "chunk %llu holds %u records, its header says %u",
			    (unsigned long long)r->chunk_seq, r->records_seen, r->chunk_records);
	return 0;
}

/* next_record - the next record; at a chunk's end too when `in_chunk`. */
static inline int next_record(struct itrace_reader *r, struct itrace_record *rec, int in_chunk)
{
	int rc;

	if (!r || !rec)
		return -ITRACE_E_INVAL;
	for (;;) {
		if (r->run) {
			next_run_insn(r, rec);
			return 0;
		}
		if (r->blk) {
			next_block_rec(r, rec);
			return 0;
		}
		if (r->seq) {
			next_seq_branch(r, rec);
			return 0;
		}
		if (r->pending_gap) {
			deliver_gap(r, rec);
			return 0;
		}
		if (r->p) {
			if (r->p < r->end) {
				rc = decode_one(r, rec);
				if (rc != 1)
					return rc;
				continue;
			}
			if ((rc = end_of_chunk(r)) < 0)
				return rc;
			if (in_chunk)
				return ITRACE_CHUNK_END;
		}
		switch (r->state) {
		case RS_END:
		case RS_STOPPED:
			return ITRACE_EOF;
		case RS_RESYNC:
			if ((rc = resync(r)) < 0)
				return rc;
			break;
		case RS_CHUNKS:
			rc = load_chunk(r);
			if (rc == ITRACE_EOF && r->pending_gap)
				continue;
			if (rc != 0)
				return rc;
			break;
		}
	}
}

/*
 * The smallest record a caller may pass (itrace.h): format 1.0's, which
 * is this library's.  When struct itrace_record grows, this stays, and a
 * caller's smaller record gets the fields that fit (decoded into a whole
 * record, then copied); until then every accepted record holds all.
 */
#define RECORD_SIZE_1_0 sizeof(struct itrace_record)

int itrace_reader_next(struct itrace_reader *r, struct itrace_record *rec, size_t size)
{
	if (size < RECORD_SIZE_1_0)
		return -ITRACE_E_INVAL;
	return next_record(r, rec, 0);
}

int itrace_reader_next_in_chunk(struct itrace_reader *r, struct itrace_record *rec, size_t size)
{
	if (size < RECORD_SIZE_1_0)
		return -ITRACE_E_INVAL;
	return next_record(r, rec, 1);
}

/* ---- index and seeking ------------------------------------------------ */

/* scan_index - without a footer, walk the chunk headers of a file. */
static int scan_index(struct itrace_reader *r)
{
	uint64_t off = r->hdr.header_size;
	size_t cap = 0;
	uint8_t h[ITRACE_CHUNK_HEADER_SIZE];

	r->index_scanned = 1;
	while (in_pread(r, off, h, sizeof(h)) == sizeof(h) && !chunk_header_problem(h)) {
		uint64_t next = off + sizeof(h) + get_le32(h + 20);

		if (next > r->file_size)
			break;
		if (r->index_len == cap) {
			struct itrace_chunk_info *n;

			cap = cap ? cap * 2 : 64;
			n = realloc(r->index, cap * sizeof(*n));
			if (!n)
				return -ITRACE_E_NOMEM;
			r->index = n;
		}
		r->index[r->index_len].seq = get_le64(h + 8);
		r->index[r->index_len].offset = off;
		r->index[r->index_len].first_insn = get_le64(h + 56);
		r->index_len++;
		off = next;
	}
	return 0;
}

static int ensure_index(struct itrace_reader *r)
{
	if (!r->seekable)
		return -ITRACE_E_NOTSUP;
	if (!r->index && !r->index_scanned)
		return scan_index(r);
	return 0;
}

int64_t itrace_reader_chunk_count(struct itrace_reader *r)
{
	int rc;

	if (!r)
		return -ITRACE_E_INVAL;
	if ((rc = ensure_index(r)) < 0)
		return rc;
	return (int64_t)r->index_len;
}

int itrace_reader_chunk_info(struct itrace_reader *r, uint64_t i, struct itrace_chunk_info *ci)
{
	int rc;

	if (!r || !ci)
		return -ITRACE_E_INVAL;
	if ((rc = ensure_index(r)) < 0)
		return rc;
	if (i >= r->index_len)
		return -ITRACE_E_INVAL;
	*ci = r->index[i];
	return 0;
}

int itrace_reader_seek_chunk(struct itrace_reader *r, uint64_t i)
{
	int rc;

	if (!r)
		return -ITRACE_E_INVAL;
	if ((rc = ensure_index(r)) < 0)
		return rc;
	if (i >= r->index_len)
		return -ITRACE_E_INVAL;
	if ((rc = in_seek(r, r->index[i].offset)) < 0)
		return rc;
	r->p = r->end = NULL;
	r->run = NULL;
	r->blk = NULL;
	r->seq = NULL;
	r->pending_gap = 0;
	r->expected_seq = r->index[i].seq;
	r->state = RS_CHUNKS;
	r->errmsg[0] = 0;
	return 0;
}
