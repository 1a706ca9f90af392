/*
 * itrace.h - the public API of libitrace.
 *
 * libitrace reads and writes itrace files (format/ITRACE.md) and holds the
 * analysis shared by every tool.  It never prints and never exits: every
 * function that can fail returns an int, >= 0 on success and a negative
 * -ITRACE_E_* code on failure; itrace_errstr() turns a code into text.
 *
 * Contents
 *   1. Versions and errors
 *   2. Records (the decoded, absolute view of the trace)
 *   3. Writer
 *   4. Reader
 *   5. Decoder (capstone wrapper)            - itrace_decoder_*
 *   6. Image (mappings -> ELF files)         - itrace_image_*
 *   7. Symbolizer (symbols, source lines)    - itrace_symbolizer_*
 *   8. Filler (branch trace -> insn trace)   - itrace_filler_*
 *   9. Analysis (calls, per-function counts) - itrace_analysis_*
 *
 * Objects are opaque.  alloc/open functions hand ownership to the caller;
 * the matching free/close releases it, and free(NULL) is a no-op.
 */
#ifndef ITRACE_H
#define ITRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===== 1. Versions and errors ========================================== */

#define ITRACE_VERSION_STRING "0.1.0"

/* Status codes.  Functions return the negated value. */
enum itrace_error {
	ITRACE_OK = 0,
	ITRACE_E_NOMEM = 1,	/* out of memory */
	ITRACE_E_IO = 2,	/* read/write failed; errno in itrace_last_errno */
	ITRACE_E_INVAL = 3,	/* invalid argument (caller bug) */
	ITRACE_E_BADMAGIC = 4,	/* not an itrace file */
	ITRACE_E_VERSION = 5,	/* read version not supported */
	ITRACE_E_TRUNCATED = 6, /* data ends early */
	ITRACE_E_CORRUPT = 7,	/* checksum or structure wrong */
	ITRACE_E_NOTSUP = 8,	/* valid but unsupported (arch, codec) */
	ITRACE_E_NOENT = 9,	/* not found (symbol, mapping, file) */
	ITRACE_E_ELF = 10,	/* libelf/libdw failure */
	ITRACE_E_DECODE = 11,	/* instruction cannot be decoded */
	ITRACE_E_BUILDID = 12,	/* binary does not match the trace */
	ITRACE_E_STATE = 13,	/* call not valid in the object's state */
	ITRACE_E_INTERNAL = 14, /* bug in libitrace */
	ITRACE_E_NOFOOTER = 15, /* trace ends without footer (writer died) */
	ITRACE_E_MAX_ = 16,
};

/* End of data: returned by the *_next functions; not an error. */
#define ITRACE_EOF 1

/*
 * itrace_errstr - describe a status code.
 * Accepts either sign (-ITRACE_E_IO or ITRACE_E_IO).  Returns a static
 * string, never NULL ("unknown error" for codes it does not know).
 */
const char *itrace_errstr(int code);

/* itrace_version - the library version string, ITRACE_VERSION_STRING. */
const char *itrace_version(void);

/* ===== 2. Records ======================================================= */

enum itrace_level {
	ITRACE_LEVEL_BRANCH = 1, /* BRANCH records; instructions implied */
	ITRACE_LEVEL_INSN = 2,	 /* INSN records (+ MEM) */
};

enum itrace_rec_type {
	ITRACE_REC_BRANCH = 1,
	ITRACE_REC_INSN = 2, /* runs on disk are delivered one INSN each */
	ITRACE_REC_MEM = 4,
	ITRACE_REC_MMAP = 5,
	ITRACE_REC_CODE = 6,
	ITRACE_REC_THREAD = 7,
	ITRACE_REC_PROCESS = 8,
	ITRACE_REC_SYSCALL = 9,
	ITRACE_REC_SIGNAL = 10,
	ITRACE_REC_TIMESTAMP = 11,
	ITRACE_REC_TRACE_CTL = 12,
	ITRACE_REC_LOST = 13,
	ITRACE_REC_GAP = 14,
	ITRACE_REC_UNKNOWN = 127, /* a type this reader does not know */
};

enum itrace_branch_kind {
	ITRACE_BRANCH_COND = 0,
	ITRACE_BRANCH_UNCOND = 1,
	ITRACE_BRANCH_CALL = 2,
	ITRACE_BRANCH_RETURN = 3,
	ITRACE_BRANCH_INDIRECT = 4,
	ITRACE_BRANCH_INDIRECT_CALL = 5,
	ITRACE_BRANCH_SYSCALL = 6,
	ITRACE_BRANCH_INTERRUPT = 7,
	ITRACE_BRANCH_SIGRETURN = 8,
	ITRACE_BRANCH_UNKNOWN = 9,
};

/* Flags of a BRANCH record. */
enum itrace_branch_flags {
	ITRACE_BRANCH_TAKEN = 1u << 0,
	ITRACE_BRANCH_PRED_KNOWN = 1u << 1,
	ITRACE_BRANCH_PRED_CORRECT = 1u << 2,
};

enum itrace_thread_event {
	ITRACE_THREAD_CREATE = 1, /* other = creating thread */
	ITRACE_THREAD_SWITCH = 2, /* following records belong to tid */
	ITRACE_THREAD_EXIT = 3,	  /* other = exit status */
	ITRACE_THREAD_NAME = 4,	  /* name = comm */
};

enum itrace_process_event {
	ITRACE_PROCESS_START = 1, /* pid started/attached; name = path */
	ITRACE_PROCESS_FORK = 2,  /* pid forked child `other` */
	ITRACE_PROCESS_EXEC = 3,  /* pid executed `name` */
	ITRACE_PROCESS_EXIT = 4,  /* status = exit code, or -signo if killed */
};

enum itrace_trace_ctl_reason {
	ITRACE_CTL_START = 1,	/* collection began */
	ITRACE_CTL_TRIGGER = 2, /* --start/--stop trigger hit */
	ITRACE_CTL_ATTACH = 3,
	ITRACE_CTL_DETACH = 4,
	ITRACE_CTL_SCOPE = 5,	/* left/entered a traced module (--only) */
};

enum itrace_lost_reason {
	ITRACE_LOST_OVERFLOW = 1,     /* buffer overflow (hardware/kernel) */
	ITRACE_LOST_UNTRACEABLE = 2,  /* region could not be traced */
	ITRACE_LOST_DECODE = 3,	      /* decoder could not follow */
	ITRACE_LOST_CORRUPT = 4,      /* input damaged */
	ITRACE_LOST_OTHER = 5,
};

enum itrace_lost_unit {
	ITRACE_UNIT_RECORDS = 1,
	ITRACE_UNIT_BRANCHES = 2,
	ITRACE_UNIT_INSNS = 3,
	ITRACE_UNIT_BYTES = 4,
};

enum itrace_gap_reason {
	ITRACE_GAP_NO_MAPPING = 1,	/* address in no known mapping */
	ITRACE_GAP_BUILDID = 2,		/* binary does not match build-id */
	ITRACE_GAP_NO_BINARY = 3,	/* mapped file not found */
	ITRACE_GAP_UNDECODABLE = 4,	/* bytes do not decode */
	ITRACE_GAP_BRANCH_NOT_REACHED = 5, /* walk never met next branch */
	ITRACE_GAP_LOST_INPUT = 6,	/* input had LOST or damage */
	ITRACE_GAP_CORRUPT_CHUNK = 7,	/* reader skipped a damaged chunk */
	ITRACE_GAP_TRACE_OFF = 8,	/* tracing was off (collector) */
};

enum itrace_syscall_dir {
	ITRACE_SYSCALL_ENTER = 1,
	ITRACE_SYSCALL_EXIT = 2,
};

enum itrace_mem_flags {
	ITRACE_MEM_STORE = 1u << 0, /* else a load */
};

struct itrace_branch {
	uint64_t from;	 /* address of the branch instruction */
	uint64_t to;	 /* next instruction executed (fall-through if not taken) */
	uint8_t kind;	 /* enum itrace_branch_kind */
	uint8_t flags;	 /* enum itrace_branch_flags */
};

struct itrace_insn {
	uint64_t addr;
	uint8_t len;
	uint8_t has_bytes;
	uint8_t bytes[15];
};

struct itrace_mem {
	uint64_t addr;
	uint64_t size;
	uint8_t flags; /* enum itrace_mem_flags */
};

struct itrace_mmap {
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;	   /* file offset of start */
	uint32_t pid;
	uint8_t prot;	   /* PROT_READ|PROT_WRITE|PROT_EXEC bits */
	uint8_t buildid_len;
	uint8_t buildid[64];
	const char *path;  /* reader-owned, valid until the next call */
	size_t path_len;
};

struct itrace_code {
	uint64_t addr;
	const uint8_t *bytes; /* reader-owned, valid until the next call */
	size_t len;
};

struct itrace_thread {
	uint8_t event; /* enum itrace_thread_event */
	uint32_t tid;
	uint32_t pid;
	uint64_t other;
	const char *name; /* THREAD_NAME only, else NULL */
	size_t name_len;
};

struct itrace_process {
	uint8_t event; /* enum itrace_process_event */
	uint32_t pid;
	uint64_t other;
	int64_t status;
	const char *name; /* path for START/EXEC, else NULL */
	size_t name_len;
};

struct itrace_syscall {
	uint8_t dir; /* enum itrace_syscall_dir */
	uint64_t nr;
	int64_t ret;	 /* EXIT only */
	uint8_t nargs;	 /* ENTER only */
	uint64_t args[6];
};

struct itrace_signal {
	uint32_t signo;
	int32_t code;	  /* si_code */
	uint64_t addr;	  /* si_addr for faults, else 0 */
	uint64_t pc;	  /* interrupted instruction */
	uint64_t handler; /* where delivery continues (0: default action) */
};

struct itrace_trace_ctl {
	uint8_t on;	/* 1 = tracing resumes, 0 = stops */
	uint8_t reason; /* enum itrace_trace_ctl_reason */
	uint64_t addr;	/* pc where it happened */
};

struct itrace_lost {
	uint8_t reason; /* enum itrace_lost_reason */
	uint8_t unit;	/* enum itrace_lost_unit */
	uint64_t count;
};

struct itrace_gap {
	uint8_t reason;	 /* enum itrace_gap_reason */
	uint64_t addr;	 /* where the walk stopped */
	uint64_t resume; /* where it resumed (0 if unknown) */
	uint64_t count;	 /* records/branches skipped, if known */
};

/*
 * A decoded record.  Values are absolute; delta coding is invisible.
 * `tid`/`pid` are the thread and process the record belongs to (the last
 * THREAD switch, or the chunk's starting state).
 */
struct itrace_record {
	uint8_t type; /* enum itrace_rec_type */
	uint8_t raw_type; /* on-disk type (for ITRACE_REC_UNKNOWN) */
	uint32_t tid;
	uint32_t pid;
	uint64_t time_ns; /* last TIMESTAMP seen (0 if none) */
	uint64_t chunk;	  /* sequence number of the chunk */
	uint64_t offset;  /* file offset of the chunk holding it */
	union {
		struct itrace_branch branch;
		struct itrace_insn insn;
		struct itrace_mem mem;
		struct itrace_mmap mmap;
		struct itrace_code code;
		struct itrace_thread thread;
		struct itrace_process process;
		struct itrace_syscall syscall;
		struct itrace_signal signal;
		struct itrace_trace_ctl ctl;
		struct itrace_lost lost;
		struct itrace_gap gap;
	} u;
};

/* itrace_rec_type_name - "BRANCH", "INSN", ...; "UNKNOWN" otherwise. */
const char *itrace_rec_type_name(int type);
/* itrace_branch_kind_name - "cond", "uncond", "call", ...; never NULL. */
const char *itrace_branch_kind_name(int kind);
/* itrace_gap_reason_name - short text for a GAP reason; never NULL. */
const char *itrace_gap_reason_name(int reason);
/* itrace_lost_reason_name - short text for a LOST reason; never NULL. */
const char *itrace_lost_reason_name(int reason);

/* ===== 3. Writer ======================================================== */

enum itrace_compression {
	ITRACE_COMPRESS_NONE = 0,
	ITRACE_COMPRESS_ZSTD = 1,
};

enum itrace_end_reason {
	ITRACE_END_UNKNOWN = 0,	    /* no footer */
	ITRACE_END_COMPLETE = 1,    /* status = exit code */
	ITRACE_END_INTERRUPTED = 2, /* collector got SIGINT/SIGTERM */
	ITRACE_END_CRASHED = 3,	    /* status = fatal signal number */
	ITRACE_END_ERROR = 4,	    /* status = errno-like code */
	ITRACE_END_DETACHED = 5,
};

/* One key=value metadata entry. */
struct itrace_meta {
	const char *key;
	const char *value;
};

/*
 * Writer options.  Initialise with itrace_writer_options_init(), then set
 * what differs.  `size` lets the struct grow without breaking callers.
 */
struct itrace_writer_options {
	size_t size;
	uint16_t machine;	 /* ELF e_machine, e.g. EM_X86_64 (62) */
	uint8_t target_endian;	 /* 1 little, 2 big */
	uint8_t level;		 /* enum itrace_level */
	uint32_t flags;		 /* ITRACE_FF_* (format header) */
	int compression;	 /* enum itrace_compression */
	int zstd_level;		 /* 1..19; default 3 */
	size_t chunk_bytes;	 /* raw payload per chunk; default 1 MiB */
	const struct itrace_meta *meta; /* copied at open */
	size_t meta_count;
};

/* itrace_writer_options_init - defaults: x86-64, little, insn level,
 * zstd level 3, 1 MiB chunks, no metadata. */
void itrace_writer_options_init(struct itrace_writer_options *opts);

struct itrace_writer;

/*
 * itrace_writer_open - create `path` ("-" = stdout) and write its header.
 * OUT *wp receives a writer the caller closes with itrace_writer_close().
 * Returns 0; -ITRACE_E_INVAL for bad options or metadata containing '\0'
 * or '=' in a key, -ITRACE_E_IO if the file cannot be created or written,
 * -ITRACE_E_NOMEM.
 */
int itrace_writer_open(const char *path, const struct itrace_writer_options *opts,
		       struct itrace_writer **wp);

/*
 * itrace_writer_open_fd - like itrace_writer_open on an open descriptor.
 * The writer does not close `fd`.  Works on pipes (no seeking needed).
 */
int itrace_writer_open_fd(int fd, const struct itrace_writer_options *opts,
			  struct itrace_writer **wp);

/*
 * itrace_writer_write - append one record.  Pointers inside `rec` are
 * read during the call only.  rec->tid/pid/time_ns/chunk/offset are
 * ignored: use THREAD switch and TIMESTAMP records to change state.
 * Returns 0; -ITRACE_E_INVAL for a record that cannot be encoded (unknown
 * type, length out of range), -ITRACE_E_IO when a full chunk cannot be
 * written (the writer is then unusable; close it), -ITRACE_E_NOMEM.
 */
int itrace_writer_write(struct itrace_writer *w, const struct itrace_record *rec);

/* Fast paths for the hot records; same errors as itrace_writer_write. */
int itrace_write_insn(struct itrace_writer *w, uint64_t addr, unsigned len,
		      const uint8_t *bytes /* NULL: no bytes */);
int itrace_write_branch(struct itrace_writer *w, uint64_t from, uint64_t to,
			unsigned kind, unsigned flags);
int itrace_write_mem(struct itrace_writer *w, uint64_t addr, uint64_t size,
		     unsigned flags);

/*
 * itrace_writer_flush - end the current chunk and write it out, so that
 * everything written so far survives if the process dies.  Returns 0 or
 * -ITRACE_E_IO.
 */
int itrace_writer_flush(struct itrace_writer *w);

/* Statistics of a writer so far (records as written, bytes on disk). */
struct itrace_writer_stats {
	uint64_t records, insns, branches, mems, chunks;
	uint64_t raw_bytes;  /* record bytes before compression */
	uint64_t file_bytes; /* bytes written to the file */
};
void itrace_writer_stats(const struct itrace_writer *w, struct itrace_writer_stats *st);

/*
 * itrace_writer_close - flush, write the footer with `end` and `status`,
 * close the file (not an fd given to open_fd) and free the writer.
 * NULL is a no-op returning 0.  Returns 0 or the first error met while
 * writing (the writer is freed in every case).
 */
int itrace_writer_close(struct itrace_writer *w, int end, int status);

/*
 * itrace_writer_abandon - free the writer without a footer, as if the
 * process had died (used by tests and by collectors on fatal errors that
 * must not claim completeness).  NULL is a no-op.
 */
void itrace_writer_abandon(struct itrace_writer *w);

/* ===== 4. Reader ======================================================== */

/* File header as read. */
struct itrace_header {
	uint16_t read_major, write_major, write_minor;
	uint16_t machine;
	uint8_t target_endian;
	uint8_t level;
	uint32_t flags;
	uint32_t header_size;
	size_t meta_count;
};

/* Footer as read (valid when itrace_reader_footer() returns 0). */
struct itrace_footer {
	int end_reason; /* enum itrace_end_reason */
	int end_status;
	uint64_t chunk_count, record_count, insn_count, branch_count;
	uint64_t mem_count, lost_count, gap_count;
};

/* One entry of the chunk index. */
struct itrace_chunk_info {
	uint64_t seq;
	uint64_t offset;     /* file offset of the chunk header */
	uint64_t first_insn; /* instructions before this chunk */
};

struct itrace_reader;

/*
 * itrace_reader_open - open `path` ("-" = stdin) and read its header.
 * OUT *rp receives a reader the caller frees with itrace_reader_close().
 * Returns 0; -ITRACE_E_IO (errno kept in errno) if it cannot be opened,
 * -ITRACE_E_BADMAGIC if it is not an itrace file, -ITRACE_E_VERSION for
 * an unsupported read version, -ITRACE_E_TRUNCATED/-ITRACE_E_CORRUPT for
 * a damaged header, -ITRACE_E_NOMEM.  On failure *rp is NULL and
 * itrace_reader_open_error() is not available; the code says it all.
 */
int itrace_reader_open(const char *path, struct itrace_reader **rp);

/* itrace_reader_open_fd - same on a descriptor (not closed by the reader). */
int itrace_reader_open_fd(int fd, struct itrace_reader **rp);

/*
 * itrace_reader_open_mem - read from a buffer the caller keeps alive until
 * the reader is closed (fuzzers, tests).  Same errors.
 */
int itrace_reader_open_mem(const void *buf, size_t len, struct itrace_reader **rp);

/* itrace_reader_close - free the reader; NULL is a no-op. */
void itrace_reader_close(struct itrace_reader *r);

/* itrace_reader_header - the file header; never NULL for an open reader. */
const struct itrace_header *itrace_reader_header(const struct itrace_reader *r);

/*
 * itrace_reader_meta - value of metadata `key`, or NULL if absent.
 * The string is owned by the reader.
 */
const char *itrace_reader_meta(const struct itrace_reader *r, const char *key);

/*
 * itrace_reader_meta_at - entry `i` (0 .. meta_count-1) of the metadata.
 * Returns 0, or -ITRACE_E_INVAL if i is out of range.
 */
int itrace_reader_meta_at(const struct itrace_reader *r, size_t i,
			  const char **key, const char **value);

/*
 * itrace_reader_next - decode the next record into *rec.
 * Returns 0 with a record, ITRACE_EOF at the end of the trace, or a
 * negative code for damage: -ITRACE_E_TRUNCATED (data ends inside a
 * chunk; every complete record before it has been delivered),
 * -ITRACE_E_CORRUPT (checksum or structure error), -ITRACE_E_NOFOOTER
 * (clean end of the last complete chunk but no footer: the writer was
 * killed), -ITRACE_E_IO, -ITRACE_E_NOMEM.  itrace_reader_error() describes
 * the error with its byte offset.  After -ITRACE_E_CORRUPT the next call
 * resynchronises at the next intact chunk and first delivers a GAP record
 * (reason ITRACE_GAP_CORRUPT_CHUNK); after any other error it returns
 * ITRACE_EOF.
 */
int itrace_reader_next(struct itrace_reader *r, struct itrace_record *rec);

/*
 * itrace_reader_error - message for the last error of `r`, naming the file
 * offset, e.g. "chunk 3 at offset 4096: payload checksum mismatch".
 * Owned by the reader; "" when there was no error.
 */
const char *itrace_reader_error(const struct itrace_reader *r);

/* itrace_reader_error_offset - file offset of the last error (0 if none). */
uint64_t itrace_reader_error_offset(const struct itrace_reader *r);

/*
 * itrace_reader_footer - the footer.  On a seekable file it is read at open;
 * on a stream it becomes known at ITRACE_EOF.  Returns 0, or -ITRACE_E_NOENT
 * when not (yet) known or absent.
 */
int itrace_reader_footer(const struct itrace_reader *r, struct itrace_footer *f);

/*
 * itrace_reader_chunk_count - number of chunks in the index (seekable files
 * with a footer, or found by scanning when the footer is missing).
 * Returns the count (>= 0), or -ITRACE_E_NOTSUP on a stream.
 */
int64_t itrace_reader_chunk_count(struct itrace_reader *r);

/* itrace_reader_chunk_info - index entry `i`.  Returns 0 or -ITRACE_E_INVAL. */
int itrace_reader_chunk_info(struct itrace_reader *r, uint64_t i,
			     struct itrace_chunk_info *ci);

/*
 * itrace_reader_seek_chunk - continue reading at the start of chunk `i`
 * (index order).  Thread/pid/time state comes from that chunk's header.
 * Returns 0, -ITRACE_E_INVAL (no such chunk), -ITRACE_E_NOTSUP (stream).
 */
int itrace_reader_seek_chunk(struct itrace_reader *r, uint64_t i);

/* ===== 5. Decoder ======================================================= */
/* (section owned by the fill work: itrace_decoder_*) */

/* ===== 6. Image ========================================================= */
/* (section owned by the fill work: itrace_image_*) */

/* ===== 7. Symbolizer ==================================================== */
/* (section owned by the fill work: itrace_symbolizer_*) */

/* ===== 8. Filler ======================================================== */
/* (section owned by the fill work: itrace_filler_*) */

/* ===== 9. Analysis ====================================================== */
/* (section owned by the export work: itrace_analysis_*) */

#ifdef __cplusplus
}
#endif
#endif /* ITRACE_H */
