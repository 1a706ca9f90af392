/*
 * fill_int.h - the filler's internals: thread state, the block cache and
 * the fill context of the walk (fill.c), which its drivers (fill_serial.c,
 * fill_par.c, fill_run.c) set up and feed.  Internal to libitrace.
 *
 * Who calls whom (make layers checks it): fill_run.c -> fill_par.c ->
 * fill_serial.c -> fill.c; fill.c writes only to the fill_sink it is given
 * (fill_sink.h), never to a driver.
 */
#ifndef ITRACE_FILL_INT_H
#define ITRACE_FILL_INT_H

#include <stdint.h>

#include "internal.h"
#include "itrace_code.h"

#define FILL_BLOCK_MAX 512 /* instructions per cached block */

enum block_end {
	BLOCK_END_BRANCH, /* last instruction is a branch (kind/target) */
	BLOCK_END_LIMIT,  /* FILL_BLOCK_MAX reached: continue after it */
	BLOCK_END_CODE,	  /* the code source ends: look the next address up */
	BLOCK_END_DECODE, /* the next instruction does not decode */
};

/* A static basic block: straight-line code up to the first branch. */
struct fill_block {
	struct fill_block *next; /* hash chain */
	uint64_t offset;	 /* key: offset in the code source */
	uint32_t module;	 /* key: code source id (image) */
	uint32_t ninsn;
	const uint8_t *bytes;	 /* code, owned by the image */
	int64_t target_rel;	 /* direct target - block start address */
	uint32_t nbytes;	 /* bytes of its instructions */
	uint32_t last_off;	 /* offset of its last instruction */
	uint8_t end, kind, dflags;
	uint8_t lens[];
};

struct fill_cache {
	struct fill_block **buckets;
	size_t nbuckets, count;
};

/* Per-thread walk state.  Transitions depend on input records only. */
struct fill_thread {
	uint32_t tid, pid;
	uint8_t used;
	uint8_t known;		 /* pc is where the thread is */
	uint8_t pending_reason;	 /* GAP to emit at the next branch (0: none) */
	uint8_t syscall_branch;	 /* last event was a syscall-like branch */
	uint32_t lazy_syscalls;	 /* syscalls entered since pc, not walked */
	uint32_t skip_syscalls;	 /* new thread: its parent's syscalls to pass
				  * silently before its own code starts */
	uint64_t pc;
	uint64_t pending_addr, pending_count;
};

struct fill_threads {
	struct fill_thread *slots;
	size_t cap, count;
};

/* Cached result of the last image lookup (per process and generation). */
struct fill_loc_cache {
	int valid;
	uint32_t pid;
	uint64_t generation;
	uint64_t start, end;
	uint64_t off0;		/* offset at start */
	const uint8_t *bytes0;	/* bytes at start */
	const uint8_t *bytes_end;
	uint32_t module;
};

/* Recently walked block starts by address: most walks start at a branch
 * target seen before, and this spares the image lookup and the hash. */
#define FILL_RECENT 512

struct fill_recent {
	uint64_t pc;
	uint64_t generation; /* image generation it was found under */
	uint32_t pid;
	const struct fill_block *block;
};

struct fill_sink;

struct fill_ctx {
	const struct itrace_fill_options *opts;
	struct itrace_fill_stats *st;
	struct itrace_image *img;
	struct itrace_decoder *dec;
	struct fill_cache cache;
	struct fill_threads threads;
	struct fill_thread *last_thread; /* get_thread's last answer */
	struct fill_loc_cache loc;
	struct fill_recent recent[FILL_RECENT];
	int taken_only;
	int with_bytes;
	uint32_t out_tid; /* thread the output stream is on, */
	uint32_t out_pid;
	int out_known;	  /* ... when known: forgotten at chunk starts */
	int dry;	  /* state transitions only: no walks, no output */
	struct fill_sink *sink;	    /* where output goes (set by the driver) */
	struct fill_block *scratch; /* one-instruction block (no-cache mode) */
	char (*gap_module)[256];    /* per reason: file of the first gap */
	uint32_t gap_pid;	    /* process of the gap being reported */
};

int fill_ctx_init(struct fill_ctx *c, const struct itrace_fill_options *o,
		  const struct itrace_header *h, struct itrace_fill_stats *st);
void fill_ctx_fini(struct fill_ctx *c);

/* fill_record - process one input record. Returns 0 or a negative code. */
int fill_record(struct fill_ctx *c, const struct itrace_record *rec);

/* fill_branch - fill_record() of a BRANCH record, from its parts. */
int fill_branch(struct fill_ctx *c, uint32_t tid, uint32_t pid, const struct itrace_branch *b);

/* fill_finish - walk what threads still owe at a clean end of input. */
int fill_finish(struct fill_ctx *c);

/*
 * fill_forget_positions - a chunk was lost: no thread's position is known
 * any more (the reader's GAP record says why, so no GAP of their own).
 */
void fill_forget_positions(struct fill_ctx *c);

/* fill_thread_position - where thread tid is (0 if unknown). */
uint64_t fill_thread_position(struct fill_ctx *c, uint32_t tid);

/*
 * fill_chunk_start - a new input chunk begins: forget the output's thread,
 * and end the output chunk when writing to a writer.  0 or the error.
 */
int fill_chunk_start(struct fill_ctx *c);

/* fill_emit_record - emit a record to the output (switching thread first). */
int fill_emit_record(struct fill_ctx *c, const struct itrace_record *rec);

/* ---- Drivers (fill_serial.c, fill_par.c) ---- */

/*
 * fill_sequential - fill what r delivers into c.  Damage and errors are
 * described in err (errlen bytes).  Returns 0, the damage code or an error.
 */
int fill_sequential(const struct itrace_fill_options *o, char *err, size_t errlen,
		    struct fill_ctx *c, struct itrace_reader *r);

/* What the parallel driver needs from itrace_filler_run. */
struct fill_par_args {
	const struct itrace_fill_options *opts;
	struct fill_sink *sink;
	struct itrace_fill_stats *st;
	char (*gap_module)[256];
	char *err; /* message of damage or error */
	size_t errlen;
	struct itrace_fill_stats dry_stats; /* discarded */
};

/* fill_parallel - see fill_par.c; -ITRACE_E_NOTSUP when not possible. */
int fill_parallel(struct itrace_reader *r, const char *path, struct fill_par_args *a);

#endif
