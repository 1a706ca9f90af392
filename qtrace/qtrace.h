/*
 * qtrace.h - read and write qtrace files (POWER instruction traces).
 *
 * qtrace is the trace format of the POWER performance tools (qtrace-tools'
 * qtreader, IBM sim_ppc).  The layout is the one qtrace-tools defines in
 * qtlib/qtrace.h and parses in qtlib/qtreader.c; this library writes exactly what
 * qtrace-tools' reader parses and reads what the known writers produce.
 *
 * Contents
 *   1. Errors
 *   2. Records (what the reader delivers, what the writer takes)
 *   3. Writer
 *   4. Reader
 *   5. POWER instruction helpers
 *
 * Like libitrace, this library never prints and never exits: functions
 * return >= 0 on success and a negative -QTRACE_E_* code on failure.
 * Objects are opaque; close(NULL) is a no-op.
 */
#ifndef QTRACE_H
#define QTRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===== 1. Errors ======================================================== */

enum qtrace_error {
	QTRACE_OK = 0,
	QTRACE_E_NOMEM = 1,	     /* out of memory */
	QTRACE_E_IO = 2,	     /* read/write failed; errno kept */
	QTRACE_E_INVAL = 3,	     /* invalid argument (caller bug) */
	QTRACE_E_TRUNCATED = 4,	     /* file ends inside a record */
	QTRACE_E_FORMAT = 5,	     /* bytes that qtrace-tools would reject */
	QTRACE_E_UNREPRESENTABLE = 6, /* instruction qtrace cannot carry */
	QTRACE_E_MAX_ = 7,
};

/* End of data: returned by qtrace_reader_next(); not an error. */
#define QTRACE_EOF 1

/* qtrace_errstr - text for a status code (either sign); never NULL. */
const char *qtrace_errstr(int code);

/* ===== 2. Records ======================================================= */

/* On-disk numbers (qtrace-tools qtlib/qtrace.h). */
#define QTRACE_VERSION_WRITTEN 0x07010000u /* what qtwriter writes */

enum qtrace_term_code {
	QTRACE_TERM_NONE = 0x00,	/* not a branch, next is sequential */
	QTRACE_TERM_MAX_INST = 0x40,	/* read as a conditional branch */
	QTRACE_TERM_COND = 0x80,	/* conditional branch */
	QTRACE_TERM_EXCEPTION = 0x10,	/* exception or other discontinuity */
	QTRACE_TERM_UNCOND = 0x08,	/* unconditional branch */
};

/* The file header as read. */
struct qtrace_header {
	uint32_t version;    /* 0 when absent */
	uint32_t magic;	     /* 0 when absent */
	uint64_t first_iar;  /* address of the first instruction */
	uint8_t has_version, has_magic, has_iar;
	const char *comment; /* reader-owned, NUL-terminated; NULL if none */
	size_t comment_len;
};

/*
 * One executed instruction, as delivered by the reader.  A POWER10
 * prefixed instruction is stored as two records (prefix, then suffix) and
 * delivered as one with len 8.
 */
struct qtrace_record {
	uint64_t iar;	     /* address of this instruction */
	uint64_t next_iar;   /* address of the instruction executed next */
	uint32_t insn;	     /* instruction word (the prefix when len is 8) */
	uint32_t suffix;     /* suffix word when len is 8, else 0 */
	uint8_t len;	     /* 4 or 8 */
	uint8_t iar_change;  /* file marked the successor as non-sequential */
	uint8_t has_term;    /* termination (branch) info present */
	uint8_t term_code;   /* enum qtrace_term_code when has_term */
	uint8_t is_branch;   /* termination present, or a POWER branch word */
	uint8_t conditional; /* conditional branch (codes 0x40/0x80) */
	uint8_t taken;	     /* branch taken: next_iar != iar + len */
	uint8_t has_data_addr;
	uint64_t data_addr;  /* data effective address of a load/store */
	uint64_t offset;     /* file offset of the record */
};

/* What the writer takes for one executed instruction. */
struct qtrace_insn {
	uint64_t addr;	     /* address of the instruction */
	uint32_t insn;	     /* instruction word (prefix when len is 8) */
	uint32_t suffix;     /* suffix word when len is 8 */
	uint8_t len;	     /* 4, or 8 for a POWER10 prefixed instruction */
	uint8_t term_code;   /* enum qtrace_term_code; 0 = not a branch */
	uint8_t has_data_addr;
	uint64_t data_addr;
};

/* ===== 3. Writer ======================================================== */

struct qtrace_writer;

/*
 * qtrace_writer_open - create `path` ("-" = stdout) for a qtrace file, as
 * a libitrace output file (itrace.h, "Output files"): written beside it
 * and renamed over it by qtrace_writer_close() when complete.
 * `comment` (may be NULL, at most 65535 bytes) goes into the header.
 * Nothing is written until the first instruction is known, because the
 * header carries its address.
 * Returns 0; -QTRACE_E_IO (errno kept) if the file cannot be created,
 * -QTRACE_E_INVAL for a comment that is too long, -QTRACE_E_NOMEM.
 */
int qtrace_writer_open(const char *path, const char *comment, struct qtrace_writer **wp);

/* qtrace_writer_open_fd - the same on a descriptor the writer does not close. */
int qtrace_writer_open_fd(int fd, const char *comment, struct qtrace_writer **wp);

/*
 * qtrace_writer_add - append one executed instruction.  Records go out one
 * step late: a record is written when its successor's address is known,
 * so that a non-sequential successor is marked IAR_CHANGE|IAR.  A
 * non-sequential successor of an instruction without a term_code is
 * marked QTRACE_TERM_EXCEPTION, as qtwriter does.
 * Returns 0; -QTRACE_E_UNREPRESENTABLE for an instruction word of 0 (the
 * reader would take it for a header) or a 4-byte word that looks like a
 * POWER10 prefix (the reader would swallow the next record), or an 8-byte
 * prefixed instruction with a branch termination code (Power ISA 3.1 has
 * no prefixed branch; only QTRACE_TERM_EXCEPTION can end a pair); the
 * instruction is then left out and the trace stays consistent (its
 * successor gets an explicit IAR).  -QTRACE_E_INVAL for a bad len or
 * term_code, -QTRACE_E_IO when writing fails.
 */
int qtrace_writer_add(struct qtrace_writer *w, const struct qtrace_insn *insn);

/* qtrace_writer_count - instructions written so far (pending one included). */
uint64_t qtrace_writer_count(const struct qtrace_writer *w);

/*
 * qtrace_writer_close - write the pending record (sequential successor),
 * flush, close the file (not an fd given to open_fd), free the writer.
 * A trace with no instruction still gets a header (with IAR 0).
 * NULL is a no-op.  Returns 0 or the first error met.
 */
int qtrace_writer_close(struct qtrace_writer *w);

/* ===== 4. Reader ======================================================== */

struct qtrace_reader;

/*
 * qtrace_reader_open - open `path` ("-" = stdin) and parse its header.
 * Returns 0; -QTRACE_E_IO (errno kept), -QTRACE_E_TRUNCATED or
 * -QTRACE_E_FORMAT for a header qtrace-tools would reject, -QTRACE_E_NOMEM.
 * On failure *rp is NULL.
 */
int qtrace_reader_open(const char *path, struct qtrace_reader **rp);

/* qtrace_reader_open_mem - read from a buffer the caller keeps alive. */
int qtrace_reader_open_mem(const void *buf, size_t len, struct qtrace_reader **rp);

/* qtrace_reader_header - the first file header; never NULL. */
const struct qtrace_header *qtrace_reader_header(const struct qtrace_reader *r);

/*
 * qtrace_reader_next - the next instruction.  Headers in the middle of
 * the trace are parsed and skipped (their IAR, if any, becomes the next
 * address).  LENGTH/DATA bytes of old traces are stepped over.
 * Returns 0 with a record, QTRACE_EOF at the end, or -QTRACE_E_TRUNCATED
 * / -QTRACE_E_FORMAT; qtrace_reader_error() then names the offset.  Every
 * complete record before the fault has been delivered; after an error the
 * reader returns QTRACE_EOF.
 */
int qtrace_reader_next(struct qtrace_reader *r, struct qtrace_record *rec);

/* qtrace_reader_error - message for the last error ("" if none). */
const char *qtrace_reader_error(const struct qtrace_reader *r);

/* qtrace_reader_close - free the reader; NULL is a no-op. */
void qtrace_reader_close(struct qtrace_reader *r);

/* ===== 5. POWER instruction helpers ===================================== */

enum qtrace_power_branch {
	QTRACE_POWER_NOT_BRANCH = 0,
	QTRACE_POWER_UNCOND = 1, /* b, or bc/bclr/bcctr/bctar with BO=1z1zz */
	QTRACE_POWER_COND = 2,	 /* bc/bclr/bcctr/bctar testing CR or CTR */
};

/* qtrace_power_branch_kind - classify a POWER instruction word. */
int qtrace_power_branch_kind(uint32_t insn);

/* qtrace_power_is_prefix - the word is a POWER10 prefix (primary opcode 1). */
static inline int qtrace_power_is_prefix(uint32_t insn)
{
	return (insn >> 26) == 1;
}

#ifdef __cplusplus
}
#endif
#endif /* QTRACE_H */
