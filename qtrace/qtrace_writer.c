/*
 * qtrace_writer.c - write qtrace files that qtrace-tools' reader accepts.
 *
 * Each instruction becomes one big-endian record: the instruction word,
 * a u16 flags and the optional fields its flags announce, in the order
 * qtrace-tools' qtlib/qtwriter.c writes them.  A record can only be written once the
 * address of its successor is known (IAR_CHANGE|IAR marks a successor
 * that is not at +4), so the writer keeps one instruction pending.
 * Records never carry flags2 (the EXTENDED flag stays clear), which is the
 * shortest encoding the reader accepts.
 */
#include "qtrace.h"
#include "qtrace_disk.h"
#include "itrace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_BUF_SIZE (64u * 1024)
/* Largest record: insn, flags, node, term node+code, data EA, IAR. */
#define MAX_RECORD_BYTES (4 + 2 + 1 + 2 + 8 + 8)

struct qtrace_writer {
	int fd;
	int own_fd;
	struct itrace_outfile *file; /* qtrace_writer_open's output file */
	int error;	      /* first error met, sticky */
	int header_written;
	char *comment;
	size_t comment_len;
	int has_pending;
	struct qtrace_insn pending;
	uint64_t count;
	size_t used;
	uint8_t buf[OUT_BUF_SIZE];
};

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p = put16(p, (uint16_t)(v >> 16));
	return put16(p, (uint16_t)v);
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	p = put32(p, (uint32_t)(v >> 32));
	return put32(p, (uint32_t)v);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -QTRACE_E_IO;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int flush_buf(struct qtrace_writer *w)
{
	int ret;

	if (w->error)
		return w->error;
	ret = write_all(w->fd, w->buf, w->used);
	w->used = 0;
	if (ret < 0)
		w->error = ret;
	return ret;
}

/* reserve - room for `n` more bytes in the buffer; NULL after an error. */
static uint8_t *reserve(struct qtrace_writer *w, size_t n)
{
	if (w->used + n > sizeof(w->buf) && flush_buf(w) < 0)
		return NULL;
	return w->buf + w->used;
}

static int write_header(struct qtrace_writer *w, uint64_t first_iar)
{
	uint16_t hdr_flags = QT_HDR_VERSION | QT_HDR_IAR;
	uint8_t *start, *p;

	if (w->comment)
		hdr_flags |= QT_HDR_COMMENT;
	/* 22 fixed bytes, then the comment (at most 65535 + 2). */
	start = reserve(w, 22 + 2 + w->comment_len);
	if (!start)
		return w->error;
	p = put32(start, 0); /* insn 0 marks a header */
	p = put16(p, QT_EXTENDED_FLAGS);
	p = put16(p, QT2_FILE_HEADER);
	p = put16(p, hdr_flags);
	p = put32(p, QTRACE_VERSION_WRITTEN);
	p = put64(p, first_iar);
	if (w->comment) {
		p = put16(p, (uint16_t)w->comment_len);
		memcpy(p, w->comment, w->comment_len);
		p += w->comment_len;
	}
	w->used += (size_t)(p - start);
	w->header_written = 1;
	return 0;
}

/*
 * put_word_record - one 4-byte record at `addr` whose successor is `next`.
 * A successor that is not at addr + 4 makes it a discontinuity: IAR_CHANGE
 * and IAR, and a termination code (0x10 when the instruction is no branch).
 */
static int put_word_record(struct qtrace_writer *w, uint32_t word, uint64_t addr, uint64_t next,
			   unsigned term_code, int has_data, uint64_t data_addr)
{
	int jump = next != addr + 4;
	uint16_t flags = 0;
	uint8_t *start, *p;

	if (jump)
		flags |= QT_IAR_CHANGE | QT_IAR;
	if (jump && term_code == QTRACE_TERM_NONE)
		term_code = QTRACE_TERM_EXCEPTION;
	if (term_code != QTRACE_TERM_NONE)
		flags |= QT_NODE | QT_TERMINATION;
	if (has_data)
		flags |= QT_DATA_ADDRESS;

	start = reserve(w, MAX_RECORD_BYTES);
	if (!start)
		return w->error;
	p = put32(start, word);
	p = put16(p, flags);
	if (flags & QT_NODE)
		*p++ = 0; /* node */
	if (flags & QT_TERMINATION) {
		*p++ = 0; /* term node */
		*p++ = (uint8_t)term_code;
	}
	if (has_data)
		p = put64(p, data_addr);
	if (jump)
		p = put64(p, next);
	w->used += (size_t)(p - start);
	return 0;
}

/*
 * put_insn - the records of one instruction.  A prefixed instruction is
 * written as qtrace-tools' own converter writes it (htm/htm.c: the record
 * of the instruction, then a bare record of the suffix word at address +
 * 4): the prefix record carries the data address and the termination
 * code, the suffix record follows sequentially and carries only what the
 * successor needs (IAR, and the 0x10 code of a discontinuity).  qtdis
 * prints the prefix record's data address for the pair.
 */
static int put_insn(struct qtrace_writer *w, const struct qtrace_insn *in, uint64_t next)
{
	int ret;

	if (in->len == 8) {
		ret = put_word_record(w, in->insn, in->addr, in->addr + 4, in->term_code,
				      in->has_data_addr, in->data_addr);
		if (ret < 0)
			return ret;
		return put_word_record(w, in->suffix, in->addr + 4, next, QTRACE_TERM_NONE, 0, 0);
	}
	return put_word_record(w, in->insn, in->addr, next, in->term_code, in->has_data_addr,
			       in->data_addr);
}

static int valid_term_code(unsigned code)
{
	return code == QTRACE_TERM_NONE || code == QTRACE_TERM_MAX_INST ||
	       code == QTRACE_TERM_COND || code == QTRACE_TERM_EXCEPTION ||
	       code == QTRACE_TERM_UNCOND;
}

/* representable - whether the reader would read the instruction back as it is. */
static int representable(const struct qtrace_insn *in)
{
	if (in->insn == 0)
		return 0; /* read as a file header */
	if (in->len == 4 && qtrace_power_is_prefix(in->insn))
		return 0; /* would swallow the next record */
	if (in->len == 8 && !qtrace_power_is_prefix(in->insn))
		return 0; /* the suffix would be read as an instruction */
	/* Power ISA 3.1 has no prefixed branch: a pair ends only by an
	 * exception or other discontinuity, which its suffix record marks. */
	if (in->len == 8 && in->term_code != QTRACE_TERM_NONE && in->term_code != QTRACE_TERM_EXCEPTION)
		return 0;
	return 1;
}

int qtrace_writer_add(struct qtrace_writer *w, const struct qtrace_insn *in)
{
	int ret;

	if (!w || !in || (in->len != 4 && in->len != 8) || !valid_term_code(in->term_code))
		return -QTRACE_E_INVAL;
	if (w->error)
		return w->error;
	if (!representable(in))
		return -QTRACE_E_UNREPRESENTABLE;
	if (!w->header_written) {
		ret = write_header(w, in->addr);
		if (ret < 0)
			return ret;
	}
	if (w->has_pending) {
		ret = put_insn(w, &w->pending, in->addr);
		if (ret < 0)
			return ret;
	}
	w->pending = *in;
	w->has_pending = 1;
	w->count++;
	return 0;
}

uint64_t qtrace_writer_count(const struct qtrace_writer *w)
{
	return w ? w->count : 0;
}

static int writer_init(int fd, int own_fd, const char *comment, struct qtrace_writer **wp)
{
	struct qtrace_writer *w;
	size_t clen = comment ? strlen(comment) : 0;

	if (clen > 0xffff)
		return -QTRACE_E_INVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -QTRACE_E_NOMEM;
	if (comment) {
		w->comment = strdup(comment);
		if (!w->comment) {
			free(w);
			return -QTRACE_E_NOMEM;
		}
		w->comment_len = clen;
	}
	w->fd = fd;
	w->own_fd = own_fd;
	*wp = w;
	return 0;
}

int qtrace_writer_open_fd(int fd, const char *comment, struct qtrace_writer **wp)
{
	if (!wp || fd < 0)
		return -QTRACE_E_INVAL;
	*wp = NULL;
	return writer_init(fd, 0, comment, wp);
}

int qtrace_writer_open(const char *path, const char *comment, struct qtrace_writer **wp)
{
	struct itrace_outfile *file;
	int ret;

	if (!wp || !path)
		return -QTRACE_E_INVAL;
	*wp = NULL;
	/* libitrace's output file: a temporary renamed into place at close */
	ret = itrace_outfile_open(path, 0, &file);
	if (ret < 0)
		return ret == -ITRACE_E_NOMEM ? -QTRACE_E_NOMEM : -QTRACE_E_IO;
	ret = writer_init(itrace_outfile_fd(file), 0, comment, wp);
	if (ret < 0) {
		itrace_outfile_discard(file);
		return ret;
	}
	(*wp)->file = file;
	return 0;
}

int qtrace_writer_close(struct qtrace_writer *w)
{
	int ret = 0;

	if (!w)
		return 0;
	if (!w->header_written)
		ret = write_header(w, 0);
	if (ret == 0 && w->has_pending)
		ret = put_insn(w, &w->pending, w->pending.addr + w->pending.len);
	if (ret == 0)
		ret = flush_buf(w);
	if (w->own_fd && close(w->fd) < 0 && ret == 0)
		ret = -QTRACE_E_IO;
	if (ret == 0 && w->error)
		ret = w->error;
	if (w->file && ret == 0 && itrace_outfile_commit(w->file) < 0)
		ret = -QTRACE_E_IO;
	else if (w->file && ret != 0)
		itrace_outfile_discard(w->file); /* the previous file stays */
	free(w->comment);
	free(w);
	return ret;
}
