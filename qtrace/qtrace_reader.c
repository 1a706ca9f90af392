/*
 * qtrace_reader.c - read qtrace files.
 *
 * Parses every field qtrace-tools' qtreader_next_record() knows, in its
 * order (qtreader_parse_header(), then per record the fixed fields and
 * do_parse_regs()'s variable blocks, qtlib/qtreader.c), with bounds checks on
 * every read.  Where qtreader has a quirk that loses data, this reader
 * does what the format means instead: LENGTH/DATA bytes of old traces are
 * stepped over (quirk 1), and register counts that would overflow
 * qtreader's arrays are reported as damage (quirk 6).
 */
#include "qtrace.h"
#include "qtrace_disk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct qtrace_reader {
	const uint8_t *mem;
	size_t size;
	size_t pos;
	void *owned;	      /* malloc'd copy (stdin), freed at close */
	void *mapped;	      /* mmap of a regular file */
	size_t mapped_len;
	uint64_t next_iar;    /* address of the next record */
	uint32_t version;     /* of the last header: selects VSX counts */
	int failed;
	struct qtrace_header header;
	char *comment;
	char error[160];
};

/* One on-disk record, before prefixed pairs are joined. */
struct raw_record {
	uint32_t insn;
	uint16_t flags;
	uint8_t term_code;
	uint64_t data_addr;
	uint64_t iar; /* explicit successor, when flags & QT_IAR */
	uint64_t offset;
};

/* ---- Bounds-checked big-endian reads ---------------------------------- */

static int need(const struct qtrace_reader *r, size_t n)
{
	return r->size - r->pos >= n;
}

static uint64_t get_be(struct qtrace_reader *r, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = (v << 8) | r->mem[r->pos + i];
	r->pos += bytes;
	return v;
}

static void set_error(struct qtrace_reader *r, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct qtrace_reader *r, uint64_t offset, const char *fmt, ...)
{
	char what[120];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "offset %llu: %s", (unsigned long long)offset, what);
}

/* take - read a big-endian field of `bytes` into *v; -TRUNCATED at the end. */
static int take(struct qtrace_reader *r, unsigned bytes, uint64_t *v, uint64_t rec_offset,
		const char *field)
{
	if (!need(r, bytes)) {
		set_error(r, rec_offset, "file ends inside the %s field", field);
		return -QTRACE_E_TRUNCATED;
	}
	*v = get_be(r, bytes);
	return 0;
}

static int skip(struct qtrace_reader *r, size_t bytes, uint64_t rec_offset, const char *field)
{
	if (r->size - r->pos < bytes) {
		set_error(r, rec_offset, "file ends inside the %s field", field);
		return -QTRACE_E_TRUNCATED;
	}
	r->pos += bytes;
	return 0;
}

#define TAKE(r, bytes, var, off, field)                                   \
	do {                                                              \
		uint64_t v_;                                              \
		int rc_ = take((r), (bytes), &v_, (off), (field));        \
		if (rc_ < 0)                                              \
			return rc_;                                       \
		(var) = v_;                                               \
	} while (0)

#define SKIP(r, bytes, off, field)                                        \
	do {                                                              \
		int rc_ = skip((r), (bytes), (off), (field));             \
		if (rc_ < 0)                                              \
			return rc_;                                       \
	} while (0)

/* ---- Variable-length blocks (qtreader_next_record) ---------------------- */

/*
 * skip_radix - the radix walk block; its shape depends on the host and
 * guest translation modes in flags3 (qtlib/qtreader.c).
 */
static int skip_radix(struct qtrace_reader *r, uint16_t flags3, unsigned host_shift,
		      unsigned guest_shift, uint64_t off)
{
	unsigned host = (flags3 >> host_shift) & QT3_XLATE_MASK;
	unsigned guest = (flags3 >> guest_shift) & QT3_XLATE_MASK;
	unsigned nr_ptes, nr_walks;

	if (host != QT3_XLATE_RADIX)
		return 0;
	if (guest != QT3_XLATE_RADIX) {
		SKIP(r, 8u * QT_NR_RADIX_PTES, off, "radix PTE");
		return 0;
	}
	TAKE(r, 1, nr_ptes, off, "radix PTE count");
	TAKE(r, 1, nr_walks, off, "radix walk count");
	if (nr_walks == 0) {
		set_error(r, off, "radix-on-radix block with zero walks");
		return -QTRACE_E_FORMAT;
	}
	SKIP(r, 8u * ((size_t)nr_walks * nr_ptes + (nr_walks - 1) + nr_walks), off,
	     "radix walk");
	return 0;
}

/* skip_registers - the register block (qtreader's do_parse_regs()). */
static int skip_registers(struct qtrace_reader *r, uint64_t off)
{
	int vsx = r->version >= QT_VERSION_VSX;
	unsigned gpr, fpr, vmx, vsx_n = 0, spr;
	size_t total = 0;

	for (int dir = 0; dir < 2; dir++) {
		TAKE(r, 1, gpr, off, "register count");
		TAKE(r, 1, fpr, off, "register count");
		TAKE(r, 1, vmx, off, "register count");
		if (vsx)
			TAKE(r, 1, vsx_n, off, "register count");
		TAKE(r, 1, spr, off, "register count");
		if (gpr > QT_MAX_GPRS || fpr > QT_MAX_FPRS || spr > QT_MAX_SPRS) {
			set_error(r, off, "register block with %u GPRs, %u FPRs, %u SPRs "
				  "(qtrace-tools holds at most 32, 3, 4)", gpr, fpr, spr);
			return -QTRACE_E_FORMAT;
		}
		total += (gpr + fpr) * (1u + 8u) + (vmx + vsx_n) * (2u + 16u) + spr * (2u + 8u);
	}
	SKIP(r, total, off, "register");
	return 0;
}

/* ---- Header (qtreader_parse_header) ------------------------------------- */

static int parse_header_extras(struct qtrace_reader *r, uint16_t flags2, uint16_t flags3,
			       uint16_t hdr, uint64_t off)
{
	if (hdr & QT_HDR_IAR_VSID)
		SKIP(r, QT_VSID_BYTES, off, "IAR VSID");
	if ((hdr & QT_HDR_IAR_RPN) && (flags2 & QT2_EXTENDED_FLAGS2)) {
		int rc = skip_radix(r, flags3, QT3_HOST_XLATE_INSN_SHIFT,
				    QT3_GUEST_XLATE_INSN_SHIFT, off);
		if (rc < 0)
			return rc;
	}
	if (hdr & QT_HDR_IAR_RPN)
		SKIP(r, 4, off, "IAR RPN");
	if (hdr & QT_HDR_IAR_PAGE_SIZE)
		SKIP(r, 1, off, "IAR page size");
	if (hdr & QT_HDR_IAR_GPAGE_SIZE)
		SKIP(r, 1, off, "IAR guest page size");
	if (flags3 & QT3_PTCR)
		SKIP(r, 8, off, "PTCR");
	if (flags3 & QT3_LPID)
		SKIP(r, 8, off, "LPID");
	if (flags3 & QT3_PID)
		SKIP(r, 4, off, "PID");
	return 0;
}

static int parse_comment(struct qtrace_reader *r, struct qtrace_header *h, uint64_t off)
{
	size_t len;

	TAKE(r, 2, len, off, "comment length");
	if (!need(r, len)) {
		set_error(r, off, "file ends inside the header comment");
		return -QTRACE_E_TRUNCATED;
	}
	if (h != &r->header) {
		/* A header in the middle of the trace: only the first one is kept. */
		r->pos += len;
		return 0;
	}
	r->comment = malloc(len + 1);
	if (!r->comment)
		return -QTRACE_E_NOMEM;
	memcpy(r->comment, r->mem + r->pos, len);
	r->comment[len] = '\0';
	r->pos += len;
	h->comment = r->comment;
	h->comment_len = len;
	return 0;
}

/*
 * parse_header - a header record at r->pos (the first one, or one met in
 * the middle of the trace).  Checks what qtreader_parse_header() checks.
 */
static int parse_header(struct qtrace_reader *r, struct qtrace_header *h)
{
	uint64_t off = r->pos;
	uint16_t flags, flags2, flags3 = 0, hdr;
	uint32_t insn;
	int rc;

	memset(h, 0, sizeof(*h));
	TAKE(r, 4, insn, off, "header instruction");
	if (insn != 0) {
		set_error(r, off, "not a qtrace file: header instruction word is 0x%08x, not 0", insn);
		return -QTRACE_E_FORMAT;
	}
	TAKE(r, 2, flags, off, "header flags");
	if (flags != QT_EXTENDED_FLAGS) {
		set_error(r, off, "invalid header: flags 0x%04x, expected 0x0001", flags);
		return -QTRACE_E_FORMAT;
	}
	TAKE(r, 2, flags2, off, "header flags2");
	if (!(flags2 & QT2_FILE_HEADER) || (flags2 & ~(QT2_FILE_HEADER | QT2_EXTENDED_FLAGS2))) {
		set_error(r, off, "invalid header: flags2 0x%04x", flags2);
		return -QTRACE_E_FORMAT;
	}
	if (flags2 & QT2_EXTENDED_FLAGS2)
		TAKE(r, 2, flags3, off, "header flags3");
	TAKE(r, 2, hdr, off, "header hdr_flags");
	if (hdr & ~QT_HDR_KNOWN) {
		set_error(r, off, "unhandled file header flags 0x%04x", hdr & ~QT_HDR_KNOWN);
		return -QTRACE_E_FORMAT;
	}
	if (hdr & QT_HDR_MAGIC) {
		TAKE(r, 4, h->magic, off, "magic");
		h->has_magic = 1;
	}
	if (hdr & QT_HDR_VERSION) {
		TAKE(r, 4, h->version, off, "version");
		h->has_version = 1;
		r->version = h->version;
	}
	if (hdr & QT_HDR_IAR) {
		TAKE(r, 8, h->first_iar, off, "IAR");
		h->has_iar = 1;
		r->next_iar = h->first_iar;
	}
	rc = parse_header_extras(r, flags2, flags3, hdr, off);
	if (rc == 0 && (hdr & QT_HDR_COMMENT))
		rc = parse_comment(r, h, off);
	return rc;
}

/* ---- Records (qtreader_next_record) ------------------------------------- */

static int parse_flags(struct qtrace_reader *r, struct raw_record *raw, uint16_t *flags2,
		       uint16_t *flags3)
{
	uint64_t off = raw->offset;

	TAKE(r, 4, raw->insn, off, "instruction");
	TAKE(r, 2, raw->flags, off, "flags");
	*flags2 = *flags3 = 0;
	if (raw->flags & QT_EXTENDED_FLAGS) {
		TAKE(r, 2, *flags2, off, "flags2");
		if (*flags2 & QT2_EXTENDED_FLAGS2)
			TAKE(r, 2, *flags3, off, "flags3");
	}
	if (raw->flags & QT_FLAGS_UNHANDLED) {
		set_error(r, off, "unhandled flags 0x%04x", raw->flags & QT_FLAGS_UNHANDLED);
		return -QTRACE_E_FORMAT;
	}
	if (*flags2 & ~QT2_KNOWN) {
		set_error(r, off, "unhandled flags2 0x%04x", *flags2 & ~QT2_KNOWN);
		return -QTRACE_E_FORMAT;
	}
	return 0;
}

/* Rows 5 to 13: node, termination, processor, data address and friends. */
static int parse_data_fields(struct qtrace_reader *r, struct raw_record *raw, uint16_t flags2,
			     uint16_t flags3)
{
	uint64_t off = raw->offset;
	uint16_t f = raw->flags;
	unsigned len;

	if (f & QT_NODE)
		SKIP(r, 1, off, "node");
	if (f & QT_TERMINATION) {
		SKIP(r, 1, off, "termination node");
		TAKE(r, 1, raw->term_code, off, "termination code");
	}
	if (f & QT_PROCESSOR)
		SKIP(r, 1, off, "processor");
	if (f & QT_DATA_ADDRESS)
		TAKE(r, 8, raw->data_addr, off, "data address");
	if (f & QT_DATA_VSID)
		SKIP(r, QT_VSID_BYTES, off, "data VSID");
	if ((f & QT_DATA_RPN) && (flags2 & QT2_EXTENDED_FLAGS2)) {
		int rc = skip_radix(r, flags3, QT3_HOST_XLATE_DATA_SHIFT,
				    QT3_GUEST_XLATE_DATA_SHIFT, off);
		if (rc < 0)
			return rc;
	}
	if (f & QT_DATA_RPN)
		SKIP(r, 4, off, "data RPN");
	/* Quirk 1: qtreader ignores these bytes; old traces do carry them. */
	len = 0;
	if (f & QT_LENGTH)
		TAKE(r, 1, len, off, "length");
	if (f & QT_DATA)
		SKIP(r, len, off, "data");
	return 0;
}

/* Rows 14 to 25: successor IAR, its translation, registers, page sizes. */
static int parse_iar_fields(struct qtrace_reader *r, struct raw_record *raw, uint16_t flags2,
			    uint16_t flags3)
{
	uint64_t off = raw->offset;
	uint16_t f = raw->flags;
	int rc;

	if (f & QT_IAR)
		TAKE(r, 8, raw->iar, off, "IAR");
	if (f & QT_IAR_VSID)
		SKIP(r, QT_VSID_BYTES, off, "IAR VSID");
	if ((f & QT_IAR_RPN) && (flags2 & QT2_EXTENDED_FLAGS2)) {
		rc = skip_radix(r, flags3, QT3_HOST_XLATE_INSN_SHIFT, QT3_GUEST_XLATE_INSN_SHIFT,
				off);
		if (rc < 0)
			return rc;
	}
	if (f & QT_IAR_RPN)
		SKIP(r, 4, off, "IAR RPN");
	if (f & QT_REGISTER_TRACE) {
		rc = skip_registers(r, off);
		if (rc < 0)
			return rc;
	}
	if (flags2 & QT2_SEQ_INSN_RPN)
		SKIP(r, 4, off, "sequential instruction RPN");
	if (flags2 & QT2_TRACE_ERROR_CODE)
		SKIP(r, 1, off, "trace error code");
	if (flags2 & QT2_SEQ_INSN_PAGE_SIZE)
		SKIP(r, 1, off, "sequential instruction page size");
	if (flags2 & QT2_IAR_PAGE_SIZE)
		SKIP(r, 1, off, "IAR page size");
	if (flags2 & QT2_DATA_PAGE_SIZE)
		SKIP(r, 1, off, "data page size");
	if (flags2 & QT2_INSN_GPAGE_SIZE)
		SKIP(r, 1, off, "instruction guest page size");
	if (flags2 & QT2_DATA_GPAGE_SIZE)
		SKIP(r, 1, off, "data guest page size");
	return 0;
}

static int parse_raw(struct qtrace_reader *r, struct raw_record *raw)
{
	uint16_t flags2, flags3;
	int rc;

	memset(raw, 0, sizeof(*raw));
	raw->offset = r->pos;
	rc = parse_flags(r, raw, &flags2, &flags3);
	if (rc == 0)
		rc = parse_data_fields(r, raw, flags2, flags3);
	if (rc == 0)
		rc = parse_iar_fields(r, raw, flags2, flags3);
	return rc;
}

/* Headers may appear mid-trace: any record whose word is 0 (quirk 2). */
static int skip_headers(struct qtrace_reader *r)
{
	struct qtrace_header h;

	while (need(r, 4) && r->mem[r->pos] == 0 && r->mem[r->pos + 1] == 0 &&
	       r->mem[r->pos + 2] == 0 && r->mem[r->pos + 3] == 0) {
		int rc = parse_header(r, &h);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* advance - the address after a raw record, and the next record's address. */
static uint64_t advance(struct qtrace_reader *r, const struct raw_record *raw)
{
	r->next_iar = (raw->flags & QT_IAR) ? raw->iar : r->next_iar + 4;
	return r->next_iar;
}

/* fill_branch_info - what qtreader and POWER decoding say about the branch. */
static void fill_branch_info(struct qtrace_record *rec)
{
	int kind = qtrace_power_branch_kind(rec->insn);
	uint8_t code = rec->term_code;

	if (rec->has_term)
		rec->conditional = code == QTRACE_TERM_COND || code == QTRACE_TERM_MAX_INST;
	else
		rec->conditional = kind == QTRACE_POWER_COND;
	/* qtreader's correction: an unconditional word is never conditional. */
	if (kind == QTRACE_POWER_UNCOND)
		rec->conditional = 0;
	rec->is_branch = kind != QTRACE_POWER_NOT_BRANCH ||
			 (rec->has_term && code != QTRACE_TERM_EXCEPTION);
	rec->taken = rec->is_branch && rec->next_iar != rec->iar + rec->len;
}

/* merge - copy the information of raw record `raw` into `rec`. */
static void merge(struct qtrace_record *rec, const struct raw_record *raw)
{
	if (raw->flags & QT_IAR_CHANGE)
		rec->iar_change = 1;
	if (raw->flags & QT_TERMINATION) {
		rec->has_term = 1;
		rec->term_code = raw->term_code;
	}
	if (raw->flags & QT_DATA_ADDRESS) {
		rec->has_data_addr = 1;
		rec->data_addr = raw->data_addr;
	}
}

static int check_term_code(struct qtrace_reader *r, const struct raw_record *raw)
{
	uint8_t c = raw->term_code;

	if (!(raw->flags & QT_TERMINATION) || c == QTRACE_TERM_MAX_INST ||
	    c == QTRACE_TERM_COND || c == QTRACE_TERM_EXCEPTION || c == QTRACE_TERM_UNCOND)
		return 0;
	set_error(r, raw->offset, "inconsistent branch: termination code 0x%02x", c);
	return -QTRACE_E_FORMAT;
}

static int next_record(struct qtrace_reader *r, struct qtrace_record *rec)
{
	struct raw_record raw, suffix;
	int rc;

	rc = skip_headers(r);
	if (rc < 0)
		return rc;
	if (r->pos == r->size)
		return QTRACE_EOF;
	memset(rec, 0, sizeof(*rec));
	rec->iar = r->next_iar;
	rc = parse_raw(r, &raw);
	if (rc == 0)
		rc = check_term_code(r, &raw);
	if (rc < 0)
		return rc;
	rec->offset = raw.offset;
	rec->insn = raw.insn;
	rec->len = 4;
	merge(rec, &raw);
	rec->next_iar = advance(r, &raw);
	if (qtrace_power_is_prefix(raw.insn)) {
		/* The next record is the suffix, even when its word is 0. */
		if (r->pos == r->size) {
			set_error(r, raw.offset, "prefix word 0x%08x without its suffix record",
				  raw.insn);
			return -QTRACE_E_TRUNCATED;
		}
		rc = parse_raw(r, &suffix);
		if (rc == 0)
			rc = check_term_code(r, &suffix);
		if (rc < 0)
			return rc;
		rec->suffix = suffix.insn;
		rec->len = 8;
		merge(rec, &suffix);
		rec->next_iar = advance(r, &suffix);
	}
	fill_branch_info(rec);
	return 0;
}

int qtrace_reader_next(struct qtrace_reader *r, struct qtrace_record *rec)
{
	int rc;

	if (!r || !rec)
		return -QTRACE_E_INVAL;
	if (r->failed)
		return QTRACE_EOF;
	rc = next_record(r, rec);
	if (rc < 0)
		r->failed = 1;
	return rc;
}

/* ---- Open and close ---------------------------------------------------- */

static int reader_start(struct qtrace_reader *r, struct qtrace_reader **rp)
{
	int rc = parse_header(r, &r->header);

	if (rc < 0) {
		qtrace_reader_close(r);
		return rc;
	}
	*rp = r;
	return 0;
}

int qtrace_reader_open_mem(const void *buf, size_t len, struct qtrace_reader **rp)
{
	struct qtrace_reader *r;

	if (!rp || (!buf && len))
		return -QTRACE_E_INVAL;
	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -QTRACE_E_NOMEM;
	r->mem = buf ? buf : (const void *)"";
	r->size = len;
	return reader_start(r, rp);
}

/* slurp - read a stream (pipe, stdin) to its end into a malloc'd buffer. */
static int slurp(int fd, uint8_t **out, size_t *out_len)
{
	size_t cap = 1u << 16, len = 0;
	uint8_t *buf = malloc(cap), *bigger;

	if (!buf)
		return -QTRACE_E_NOMEM;
	for (;;) {
		ssize_t k;

		if (len == cap) {
			bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return -QTRACE_E_NOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		k = read(fd, buf + len, cap - len);
		if (k == 0)
			break;
		if (k < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -QTRACE_E_IO;
		}
		len += (size_t)k;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

static int open_fd(int fd, struct qtrace_reader **rp)
{
	struct qtrace_reader *r = calloc(1, sizeof(*r));
	struct stat st;
	uint8_t *buf;
	size_t len;
	int rc;

	if (!r)
		return -QTRACE_E_NOMEM;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		r->mapped_len = (size_t)st.st_size;
		r->mapped = mmap(NULL, r->mapped_len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (r->mapped == MAP_FAILED) {
			free(r);
			return -QTRACE_E_IO;
		}
		r->mem = r->mapped;
		r->size = r->mapped_len;
	} else {
		rc = slurp(fd, &buf, &len);
		if (rc < 0) {
			free(r);
			return rc;
		}
		r->owned = buf;
		r->mem = buf;
		r->size = len;
	}
	return reader_start(r, rp);
}

int qtrace_reader_open(const char *path, struct qtrace_reader **rp)
{
	int fd, rc, saved;

	if (!rp || !path)
		return -QTRACE_E_INVAL;
	*rp = NULL;
	if (strcmp(path, "-") == 0)
		return open_fd(STDIN_FILENO, rp);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -QTRACE_E_IO;
	rc = open_fd(fd, rp);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

const struct qtrace_header *qtrace_reader_header(const struct qtrace_reader *r)
{
	return &r->header;
}

const char *qtrace_reader_error(const struct qtrace_reader *r)
{
	return r ? r->error : "";
}

void qtrace_reader_close(struct qtrace_reader *r)
{
	if (!r)
		return;
	if (r->mapped && r->mapped != MAP_FAILED)
		munmap(r->mapped, r->mapped_len);
	free(r->owned);
	free(r->comment);
	free(r);
}
