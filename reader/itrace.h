/*
 * itrace.h - the public API of libitrace, the core layer.
 *
 * libitrace reads and writes itrace files (format/ITRACE.md); it depends
 * on zstd only.  This header is all a program needs to read every record
 * of a trace: it includes itrace_format.h, the format's on-disk numbers
 * (file flags ITRACE_FF_*, limits such as ITRACE_INSN_MAX_LEN), installed
 * beside it.  Link with `pkg-config --libs itrace`.  The code layer
 * (decoder, ELF images, symbols, fill, analysis) is libitrace-code, whose
 * header itrace_code.h includes this one.
 *
 * It never prints and never exits: every function that can fail returns
 * an int, >= 0 on success and a negative -ITRACE_E_* code on failure;
 * itrace_errstr() turns a code into text.
 *
 * Contents
 *   1. Versions and errors
 *   2. Records (the decoded, absolute view of the trace)
 *   3. Writer, 3b. Output files
 *   4. Reader
 *
 * Objects are opaque.  alloc/open functions hand ownership to the caller;
 * the matching free/close releases it, and free(NULL) is a no-op.
 */
#ifndef ITRACE_H
#define ITRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "itrace_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===== 1. Versions and errors ========================================== */

/*
 * The version of this header: MAJOR changes when the ABI breaks (it is the
 * shared libraries' soname), MINOR when functions are added, PATCH for
 * fixes.  itrace_version() gives the library's own at run time, so a
 * program can tell when it runs against another version than it was
 * built with.  (The trace format has its own versions: itrace_format.h.)
 */
#define ITRACE_VERSION_MAJOR 0
#define ITRACE_VERSION_MINOR 1
#define ITRACE_VERSION_PATCH 0
#define ITRACE_STR_(x) #x
#define ITRACE_XSTR_(x) ITRACE_STR_(x)
/* "MAJOR.MINOR.PATCH" */
#define ITRACE_VERSION_STRING                                            \
	ITRACE_XSTR_(ITRACE_VERSION_MAJOR) "." ITRACE_XSTR_(ITRACE_VERSION_MINOR) "." \
	ITRACE_XSTR_(ITRACE_VERSION_PATCH)
/* One number that compares in order: 10000 * MAJOR + 100 * MINOR + PATCH. */
#define ITRACE_VERSION_NUMBER \
	(ITRACE_VERSION_MAJOR * 10000 + ITRACE_VERSION_MINOR * 100 + ITRACE_VERSION_PATCH)

/* Status codes.  Functions return the negated value. */
enum itrace_error {
	ITRACE_OK = 0,
	ITRACE_E_NOMEM = 1,	/* out of memory */
	ITRACE_E_IO = 2,	/* read/write failed; errno says why */
	ITRACE_E_INVAL = 3,	/* invalid argument (caller bug) */
	ITRACE_E_BADMAGIC = 4,	/* not an itrace file */
	ITRACE_E_VERSION = 5,	/* format major or incompatible feature not supported */
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
/* itrace_reader_next_in_chunk: the current chunk has no more records. */
#define ITRACE_CHUNK_END 2

/*
 * itrace_errstr - describe a status code.
 * Accepts either sign (-ITRACE_E_IO or ITRACE_E_IO).  Returns a static
 * string, never NULL ("unknown error" for codes it does not know).
 */
const char *itrace_errstr(int code);

/*
 * itrace_version - the version of the library the program runs with,
 * "MAJOR.MINOR.PATCH" (the ITRACE_VERSION_STRING it was built from).
 */
const char *itrace_version(void);

/* itrace_version_number - the same as an ITRACE_VERSION_NUMBER. */
int itrace_version_number(void);

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

/* Which option of itrace-collect made a TRIGGER window open or close
 * (struct itrace_trace_ctl.trigger; format 1.1, ITRACE.md 6.5.12). */
enum itrace_ctl_trigger {
	ITRACE_CTL_BY_NONE = 0,	  /* not said (a 1.0 file, or not a trigger) */
	ITRACE_CTL_BY_START = 1,  /* --start number `index` */
	ITRACE_CTL_BY_STOP = 2,	  /* --stop number `index` */
	ITRACE_CTL_BY_RETURN = 3, /* the activation that opened the window ended */
	ITRACE_CTL_BY_FOR = 4,	  /* --for: the window's instructions are done */
	ITRACE_CTL_BY_EVERY = 5,  /* --every: the next period's window */
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
	uint8_t trigger; /* enum itrace_ctl_trigger (0 in a 1.0 file) */
	uint32_t index;	 /* with BY_START/BY_STOP: which option, from 0 */
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
	uint64_t chunk;	  /* sequence number of the chunk (a reader's
			   * GAP: of the first chunk it stands for) */
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
/* itrace_thread_event_name - "create", "switch", "exit", "name" for a
 * THREAD record's event (ITRACE_THREAD_*); "?" for any other value. */
const char *itrace_thread_event_name(int event);
/* itrace_process_event_name - "start", "fork", "exec", "exit" for a
 * PROCESS record's event (ITRACE_PROCESS_*); "?" for any other value. */
const char *itrace_process_event_name(int event);
/* itrace_ctl_reason_name - "start", "trigger", "attach", "detach",
 * "scope" for a TRACE_CTL record's reason (ITRACE_CTL_*); "?" otherwise. */
const char *itrace_ctl_reason_name(int reason);
/* itrace_lost_unit_name - "records", "branches", "insns", "bytes" for
 * what a LOST record's count counts (ITRACE_UNIT_*); "?" otherwise. */
const char *itrace_lost_unit_name(int unit);
/*
 * itrace_machine_name - the architecture of a header's ELF e_machine
 * (and target_endian: 1 little, 2 big, which tells ppc64le from ppc64):
 * "x86-64", "i386", "ppc64le", "ppc64", "ppc", "aarch64"; "unknown" for
 * a machine this library does not name.  Never NULL.
 */
const char *itrace_machine_name(unsigned machine, unsigned endian);
/*
 * itrace_feature_name - the name of incompatible feature bit `bit` (0..31)
 * of a file header (ITRACE_FEAT_*, ITRACE.md 4.3): "BLOCK", "BRANCH_SEQ";
 * NULL for a bit this library does not know.
 */
const char *itrace_feature_name(unsigned bit);

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
	ITRACE_END_DETACHED = 5,    /* the program went on untraced */
	ITRACE_END_NOT_TRIGGERED = 6, /* the program ended but the
				       * requested window or scope never began;
				       * status = exit code, or -signo */
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
/* The fastest zstd level the writer accepts (zstd's "--fast=7"). */
#define ITRACE_ZSTD_FASTEST (-7)

struct itrace_writer_options {
	size_t size;
	uint16_t machine;	 /* ELF e_machine, e.g. EM_X86_64 (62) */
	uint8_t target_endian;	 /* 1 little, 2 big */
	uint8_t level;		 /* enum itrace_level */
	uint32_t flags;		 /* ITRACE_FF_* (format header) */
	int compression;	 /* enum itrace_compression */
	int zstd_level;		 /* 1..19, or -1..ITRACE_ZSTD_FASTEST for zstd's fast
				  * levels; default 1 (level 3 is ~2.7x slower, no
				  * smaller on traces; -1 is ~1.4x faster, ~10% bigger) */
	size_t chunk_bytes;	 /* raw payload per chunk; default 1 MiB */
	const struct itrace_meta *meta; /* copied at open */
	size_t meta_count;
	/*
	 * 1: compress and write each full chunk on a second thread (started
	 * at the first chunk, every signal blocked in it) while the caller
	 * encodes the next; the file is byte-identical.  An I/O error then
	 * surfaces at the next call that ends a chunk, at flush or at close.
	 * Default 0: everything on the caller's thread.
	 */
	int async;
	/* enum itrace_outfile_flags for the file itrace_writer_open() creates. */
	unsigned out_flags;
	/*
	 * Milliseconds after which itrace_writer_tick() ends and writes the
	 * current chunk, so that a producer killed with SIGKILL loses at most
	 * that much of its trace.  Default 0: chunks end only when full.
	 */
	unsigned flush_ms;
	/*
	 * The file's incompatible features (ITRACE.md 4.3), ITRACE_FEAT_*:
	 * ITRACE_FEAT_BLOCK lets itrace_writer_block() write BLOCK records
	 * (without it the same calls write INSN_RUN and MEM records, the same
	 * records to a reader); ITRACE_FEAT_BRANCH_SEQ lets
	 * itrace_writer_branch_seq_define() define sequences of branches,
	 * written as BRANCH_SEQ records.  A reader that does not know a bit
	 * refuses the file.  Default 0: neither.
	 */
	uint32_t features;
	/*
	 * log2 of the MEM table's entries, the delta bases of MEM records and
	 * of a block's accesses (ITRACE.md 6.5.4):
	 * ITRACE_MEM_TABLE_LOG2_MIN..ITRACE_MEM_TABLE_LOG2_MAX, 0 for
	 * ITRACE_MEM_TABLE_LOG2_DEFAULT (7: 128 entries).  With many
	 * instructions that access memory (the blocks of a program's hot
	 * loops), a wider table (ITRACE_MEM_TABLE_LOG2_WIDE, 1024 entries)
	 * lets fewer of them share an entry: on issue 22's gzip workload the
	 * trace before compression is 13% smaller, after it 27%.
	 */
	unsigned mem_table_log2;
};

/* itrace_writer_options_init - defaults: x86-64, little, insn level,
 * zstd level 1, 1 MiB chunks, no metadata. */
void itrace_writer_options_init(struct itrace_writer_options *opts);

struct itrace_writer;

/*
 * itrace_writer_open - create `path` ("-" = stdout) and write its header.
 * The file is an output file (section 3b): it is written as a temporary
 * beside `path` and takes its place at itrace_writer_close(), or earlier
 * at the first itrace_writer_flush() or flushing itrace_writer_tick(), so
 * that a producer that is killed leaves what it flushed.
 * OUT *wp receives a writer the caller closes with itrace_writer_close().
 * Returns 0; -ITRACE_E_INVAL for bad options or metadata containing '\0'
 * or '=' in a key, -ITRACE_E_IO (errno set) if the file cannot be created
 * or written, -ITRACE_E_NOMEM.
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
int itrace_writer_insn(struct itrace_writer *w, uint64_t addr, unsigned len,
		      const uint8_t *bytes /* NULL: no bytes */);
int itrace_writer_branch(struct itrace_writer *w, uint64_t from, uint64_t to,
			unsigned kind, unsigned flags);
int itrace_writer_mem(struct itrace_writer *w, uint64_t addr, uint64_t size,
		     unsigned flags);

/*
 * itrace_writer_insns - n sequential instructions without bytes, the first
 * at addr, with lengths lens[0..n): the same file as n itrace_writer_insn()
 * calls, at a fraction of the cost (a decoded basic block in one call).
 * -ITRACE_E_INVAL (nothing written) if a length is 0 or above 15.
 */
int itrace_writer_insns(struct itrace_writer *w, uint64_t addr, size_t n, const uint8_t *lens);

/*
 * Blocks (ITRACE.md 6.5.15): a stretch of sequential
 * instructions together with its memory accesses, defined once (when a
 * collector translates the code) and then written per execution with
 * only the accesses' addresses.  An execution costs a repeat byte and one
 * address delta per access while the block stays in its repeat-table
 * slot; the writer keeps the slot, the MEM-table slots and the encoded
 * record of each definition, so the hot path does no per-instruction
 * work.  Without ITRACE_FEAT_BLOCK in opts.features the same calls write
 * INSN_RUN and MEM records.
 */

/* One memory access of a block, in execution order. */
struct itrace_block_access {
	uint64_t size;	/* bytes accessed */
	uint8_t insn;	/* index of its instruction in the block, 0..n-1; never
			 * below the index of the access before it */
	uint8_t flags;	/* ITRACE_MEM_STORE, or 0 for a load */
};

/*
 * itrace_writer_block_define - register a block of n (1..ITRACE_RUN_MAX)
 * sequential instructions without bytes, the first at addr, with lengths
 * lens[0..n) (1..15), and m (0..ITRACE_BLOCK_ACCESS_MAX) accesses acc[0..m).
 * Writes nothing; the definition is copied and lives as long as the
 * writer (definitions are not per chunk).  Returns the block's id (0 for
 * the first definition, then 1, 2, ...), or -ITRACE_E_INVAL (bad lengths,
 * index out of range or decreasing, unknown flags), -ITRACE_E_NOMEM.
 */
int itrace_writer_block_define(struct itrace_writer *w, uint64_t addr, size_t n,
			       const uint8_t *lens, size_t m,
			       const struct itrace_block_access *acc);

/*
 * itrace_writer_block - block `id` ran: its n instructions, each followed
 * by its accesses, at the effective addresses addrs[0..m) (NULL when m is
 * 0).  The same records as itrace_writer_insns() and itrace_writer_mem()
 * calls would give a reader.  Returns 0; -ITRACE_E_INVAL for an unknown
 * id; the writer's errors (-ITRACE_E_IO, -ITRACE_E_NOMEM).
 */
int itrace_writer_block(struct itrace_writer *w, int id, const uint64_t *addrs);

/*
 * itrace_writer_blocks - n blocks ran, in order: blocks ids[0..n), the
 * accesses of each at the next m addresses of addrs (the first block's
 * first, NULL when no block has accesses).  The same as n
 * itrace_writer_block() calls, in one.  Returns 0; -ITRACE_E_INVAL if any
 * id is unknown (then nothing is written); the writer's errors.
 */
int itrace_writer_blocks(struct itrace_writer *w, size_t n, const int *ids, const uint64_t *addrs);

/*
 * itrace_writer_branch_define - register a branch (from, to, kind, flags
 * as for itrace_writer_branch()), once, when a collector translates the
 * code (a conditional branch is two definitions: taken and not taken).
 * Writes nothing.  Returns the branch's id (0, 1, 2, ...), or
 * -ITRACE_E_INVAL (bad kind or flags), -ITRACE_E_NOMEM.
 */
int itrace_writer_branch_define(struct itrace_writer *w, uint64_t from, uint64_t to,
				unsigned kind, unsigned flags);

/*
 * itrace_writer_branch_seq_define - (ITRACE_FEAT_BRANCH_SEQ) register
 * a sequence of k (1..ITRACE_SEQ_MAX) branches that often run one after
 * the other, the branch definitions ids[0..k) in order (branches, not
 * sequences).  A sequence of one branch is written as a BRANCH_SEQ too,
 * into a slot the writer chooses rather than the branch's hashed one.
 * Writes nothing.  Returns an id of the same kind as
 * itrace_writer_branch_define()'s: itrace_writer_branch_id() and
 * itrace_writer_branch_ids() with it write the k branches, the same
 * records to a reader as k calls with ids[0..k), as one BRANCH_SEQ
 * record, or one repeat byte while the sequence holds its repeat-table
 * slot (ITRACE.md 6.5.16).  Returns -ITRACE_E_INVAL (no ITRACE_FEAT_BRANCH_SEQ,
 * k out of range, an unknown id or a sequence's), -ITRACE_E_NOMEM.
 */
int itrace_writer_branch_seq_define(struct itrace_writer *w, size_t k, const int *ids);

/*
 * itrace_writer_branch_id - the branch of definition `id` ran (or the
 * branches of a sequence's): the same record as itrace_writer_branch()
 * with its values, from its slot and
 * encoded bytes computed once (a repeat is one slot check and one byte).
 * Returns 0; -ITRACE_E_INVAL for an unknown id; the writer's errors.
 */
int itrace_writer_branch_id(struct itrace_writer *w, int id);

/*
 * itrace_writer_branch_ids - n branches of definitions ids[0..n), in order:
 * the same as n itrace_writer_branch_id() calls, in one.  Returns 0;
 * -ITRACE_E_INVAL if any id is unknown (then nothing is written); the
 * writer's errors.
 */
int itrace_writer_branch_ids(struct itrace_writer *w, size_t n, const int *ids);

/*
 * itrace_writer_block_partial - block `id` ran only in part: its first
 * `ninsns` instructions (0..n), with the accesses of those instructions;
 * addrs[k] is the address of access k (the accesses of the others are not
 * read), and when `skip` is not NULL, an access k with skip[k] nonzero
 * did not happen (a guarded access whose guard was false).  For an
 * execution that a fault cut short, or whose accesses are not those of
 * the definition; written as INSN_RUN and MEM records.  Errors as
 * itrace_writer_block(), and -ITRACE_E_INVAL if ninsns > n.
 */
int itrace_writer_block_partial(struct itrace_writer *w, int id, size_t ninsns,
			       const uint64_t *addrs, const uint8_t *skip);

/*
 * itrace_writer_flush - end the current chunk and write it out, so that
 * everything written so far survives if the process dies: a file opened
 * by itrace_writer_open() then takes its final name.  Returns 0 or
 * -ITRACE_E_IO.
 *
 * Whenever a writer function returns -ITRACE_E_IO, errno holds the cause
 * (ENOSPC, EPIPE, ...), also when the error happened on the asynchronous
 * output thread; the writer is then unusable: close it.
 */
int itrace_writer_flush(struct itrace_writer *w);

/*
 * itrace_writer_tick - for producers that run for long (collectors): call
 * it regularly, also while no records come (at least twice per flush_ms).
 * When records are waiting and the current chunk began at least
 * opts.flush_ms ago, it is flushed as by itrace_writer_flush().  Whether
 * or not anything is waiting, an output pipe or socket whose reader has
 * gone is noticed here: -ITRACE_E_IO with errno EPIPE, without waiting
 * for the next write.  Cheap (a coarse clock read and, for pipes, one
 * poll).  Returns 0 or the writer's error.
 */
int itrace_writer_tick(struct itrace_writer *w);

/* Statistics of a writer so far (records as written, bytes on disk). */
struct itrace_writer_stats {
	uint64_t records, insns, branches, mems, chunks;
	uint64_t raw_bytes;  /* record bytes before compression */
	uint64_t file_bytes; /* bytes written to the file */
};
void itrace_writer_stats(const struct itrace_writer *w, struct itrace_writer_stats *st);

/*
 * itrace_writer_close - flush, write the footer with `end` and `status`,
 * close the file (not an fd given to open_fd) and free the writer.  A
 * file of itrace_writer_open() is synced and takes its final name; after
 * a write error one that had not taken it yet is removed, so the previous
 * file stays as it was (one already in place keeps every chunk written),
 * except with flush_ms set: a recorder's chunks are kept in every case.
 * NULL is a no-op returning 0.  Returns 0 or the first error met while
 * writing (the writer is freed in every case; errno as for flush).
 */
int itrace_writer_close(struct itrace_writer *w, int end, int status);

/*
 * itrace_writer_abandon - free the writer without a footer.  A file of
 * itrace_writer_open() that has not taken its final name yet is removed
 * (the previous file stays); one that has keeps the chunks written, like
 * the file of a process that died.  NULL is a no-op.
 */
void itrace_writer_abandon(struct itrace_writer *w);

/* ===== 3b. Output files ================================================= */

/*
 * Every file the itrace tools write (traces, qtrace files, databases,
 * reports, Kanata logs) is created the same way: as a hidden temporary in
 * the destination's directory (O_CREAT|O_EXCL|O_NOFOLLOW, permissions
 * 0666 minus the umask), synced, then renamed over the destination.  So a
 * symlink planted at the destination or at a temporary's name is never
 * written through, and an existing file is replaced only by a complete
 * new one.  A destination that is not a regular file (stdout as "-", a
 * terminal, a FIFO, a device, /dev/stdout) is written in place.  The
 * temporary is named ".NAME.itrace-tmp.PID.RANDOM"; each open removes the
 * temporaries of processes that no longer exist from that directory.
 */

enum itrace_outfile_flags {
	ITRACE_OUT_NO_CLOBBER = 1u << 0, /* never replace an existing file
					  * (-ITRACE_E_IO with errno EEXIST) */
};

struct itrace_outfile;

/*
 * itrace_outfile_open - start writing `path` ("-" = stdout).  OUT *op
 * receives the file; finish with itrace_outfile_commit() or
 * itrace_outfile_discard().  Returns 0; -ITRACE_E_IO with errno set
 * (EISDIR for a directory, EEXIST with ITRACE_OUT_NO_CLOBBER, or the
 * error creating the temporary), -ITRACE_E_INVAL, -ITRACE_E_NOMEM.
 */
int itrace_outfile_open(const char *path, unsigned flags, struct itrace_outfile **op);

/* itrace_outfile_fd - the descriptor to write to (owned by the file). */
int itrace_outfile_fd(const struct itrace_outfile *o);

/* itrace_outfile_path - the destination, as given or as last renamed. */
const char *itrace_outfile_path(const struct itrace_outfile *o);

/*
 * itrace_outfile_rename - make `path`, in the same directory, the
 * destination of a file not yet published (qtrace-conv names its output
 * per thread once a second thread appears).  Returns 0; -ITRACE_E_STATE
 * after publishing or for a file written in place; -ITRACE_E_INVAL for
 * another directory; -ITRACE_E_NOMEM.
 */
int itrace_outfile_rename(struct itrace_outfile *o, const char *path);

/*
 * itrace_outfile_temp - path of the temporary being written, NULL when the
 * destination is written in place or has been published.  For a signal
 * handler that must remove it (unlink is async-signal-safe), and for
 * writers that open files by name (SQLite).
 */
const char *itrace_outfile_temp(const struct itrace_outfile *o);

/*
 * itrace_outfile_publish - sync the temporary and rename it over the
 * destination now; writing may go on through the same descriptor (a
 * collector publishes its trace early, so that a kill leaves it).  A no-op
 * after the first call and for files written in place.  Returns 0 or
 * -ITRACE_E_IO (errno set; EEXIST with ITRACE_OUT_NO_CLOBBER).
 */
int itrace_outfile_publish(struct itrace_outfile *o);

/*
 * itrace_outfile_commit - publish, close and free.  NULL is a no-op.
 * Returns 0 or -ITRACE_E_IO (errno set; the temporary is then removed).
 */
int itrace_outfile_commit(struct itrace_outfile *o);

/*
 * itrace_outfile_discard - close and free; an unpublished temporary is
 * removed, so the destination stays as it was.  NULL is a no-op.
 * errno is preserved.
 */
void itrace_outfile_discard(struct itrace_outfile *o);

/*
 * itrace_outfile_sweep - remove from directory `dir` the temporaries of
 * processes that no longer exist (left by a kill), owned by this user.
 * Returns how many were removed, or -ITRACE_E_IO.
 */
int itrace_outfile_sweep(const char *dir);

/* ===== 4. Reader ======================================================== */

/* File header as read (ITRACE.md 4.1). */
struct itrace_header {
	uint16_t major, minor;	    /* format version; major is ITRACE_FORMAT_MAJOR */
	uint32_t incompat_features; /* ITRACE_FEAT_* (all known to this reader) */
	uint32_t compat_features;   /* bits of compatible features, known or not */
	uint8_t mem_table_log2;	    /* the MEM table has 1 << mem_table_log2 entries */
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
 * Returns 0; -ITRACE_E_IO (errno kept in errno: EISDIR for a directory)
 * if it cannot be opened or read, -ITRACE_E_BADMAGIC if it is not an
 * itrace file, -ITRACE_E_VERSION for an unsupported format major, an
 * unknown incompatible feature or a pre-1.0 draft file,
 * -ITRACE_E_TRUNCATED/-ITRACE_E_CORRUPT for a damaged header,
 * -ITRACE_E_NOMEM.  On failure *rp is NULL: the code is all there is to
 * report (itrace_reader_open_report() also gives the message).
 */
int itrace_reader_open(const char *path, struct itrace_reader **rp);

/*
 * itrace_reader_open_report - itrace_reader_open() that, when it fails on
 * what the file holds, also says why in msg[0..len) (NUL-terminated): the
 * message itrace_reader_error() would give, with the offset, e.g.
 * "offset 36: incompatible feature bit 5 (0x20) unknown to this reader".
 * msg is "" when the code says all (-ITRACE_E_IO: errno says why).
 */
int itrace_reader_open_report(const char *path, struct itrace_reader **rp, char *msg,
			      size_t len);

/* itrace_reader_open_fd - same on a descriptor (not closed by the reader). */
int itrace_reader_open_fd(int fd, struct itrace_reader **rp);

/*
 * itrace_reader_open_mem - read from a buffer the caller keeps alive until
 * the reader is closed (fuzzers, tests).  Same errors.
 */
int itrace_reader_open_mem(const void *buf, size_t len, struct itrace_reader **rp);

/*
 * itrace_reader_reopen_mem - read another trace, buf[0..len), with the
 * reader *rp, exactly as itrace_reader_open_mem would, keeping its buffers
 * and decompression context (for programs that read many small traces,
 * such as fuzz targets).  The previous trace is finished as by
 * itrace_reader_close (a descriptor the reader opened is closed).
 * Returns 0; on error (those of itrace_reader_open_mem) the reader has
 * been freed and *rp is NULL.
 */
int itrace_reader_reopen_mem(struct itrace_reader **rp, const void *buf, size_t len);

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
 * itrace_reader_next - decode the next record into *rec, a record of
 * `size` bytes: pass sizeof(*rec).
 *
 * The size is how struct itrace_record grows without breaking programs
 * (libipt's pt_insn_next() rule): a later library that appends fields to
 * the struct (or its union) writes at most `size` bytes, the fields the
 * caller's version of this header knows, and one built with a larger
 * struct than this library knows gets the bytes this library knows,
 * the rest left as they were.  Fields are only ever appended, never
 * moved.  A size below that of format 1.0's record (this header's
 * sizeof(struct itrace_record)) is -ITRACE_E_INVAL.
 *
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
int itrace_reader_next(struct itrace_reader *r, struct itrace_record *rec, size_t size);

/*
 * itrace_reader_next_in_chunk - itrace_reader_next() that stops at the end
 * of the current chunk: after its last record it returns ITRACE_CHUNK_END
 * (once the chunk's record count is checked) instead of reading on.  The
 * next call of either function goes on with the following chunk.  For
 * readers of single chunks (after itrace_reader_seek_chunk()), which
 * would otherwise load, decompress and check the next chunk only to find
 * that its first record is not theirs.  `size` and errors as for
 * itrace_reader_next.
 */
int itrace_reader_next_in_chunk(struct itrace_reader *r, struct itrace_record *rec, size_t size);

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
 * itrace_footer_is_complete - does the trace with footer `f` hold every
 * instruction (or branch) of what was asked (ITRACE.md 7.4)?  Complete:
 * the program ran to its end (COMPLETE or CRASHED), no LOST or GAP record,
 * and at least one instruction or branch.  `f` NULL (no footer: the writer
 * was killed or the file was cut) is never complete.  Returns 1 or 0.
 */
int itrace_footer_is_complete(const struct itrace_footer *f);

/*
 * itrace_end_reason_name - a footer's end_reason (ITRACE_END_*, ITRACE.md
 * 7.3) in words: "complete", "interrupted", "target crashed", "collector
 * error", "detached", "start never triggered"; NULL for ITRACE_END_UNKNOWN
 * (0, no footer) and for a value this library does not know.
 */
const char *itrace_end_reason_name(int reason);

/*
 * itrace_footer_describe - how the trace ended, for people, into buf
 * (at most len bytes, NUL-terminated): "the program exited with status 0",
 * "the program was killed by signal 11", "the start trigger never fired
 * (the program exited with status 0)", "the collector was interrupted by
 * signal 2", "truncated: no footer (the writer was killed, or the file
 * was cut)", ..., then what else makes it incomplete: "; 12 lost (LOST
 * records)", "; 3 gaps", "; nothing recorded".  `f` NULL: no footer.
 * Returns buf.
 */
const char *itrace_footer_describe(const struct itrace_footer *f, char *buf, size_t len);

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

#ifdef __cplusplus
}
#endif
#endif /* ITRACE_H */
