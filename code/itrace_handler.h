/*
 * itrace_handler.h - handlers: your code on every record of a trace.
 *
 * Part of libitrace-code (link with `pkg-config --libs itrace-code`);
 * includes itrace_code.h.  Like libitrace it never prints and never
 * exits: functions that can fail return >= 0 or a negative -ITRACE_E_*
 * code, and the handler chain keeps a message for people
 * (itrace_handler_chain_error()).
 *
 * Contents
 *   10. Handlers (the table a handler exports, its context, streams)
 *   11. Handler chains (loading handlers and calling them, for drivers)
 *
 * ---- What a handler is -----------------------------------------------
 *
 * A handler is a shared object (cc -shared -fPIC) that exports one
 * symbol: the table
 *
 *     const struct itrace_handler itrace_handler = {
 *             .size = sizeof(struct itrace_handler),
 *             .abi = ITRACE_HANDLER_ABI,
 *             .name = "pc",
 *             .start = pc_start, .insn = pc_insn, .stop = pc_stop,
 *     };
 *
 * or, when it must build the table at run time, a function
 * `const struct itrace_handler *itrace_handler_get(void)` returning it
 * (looked up when the table is absent).  The design is perf's dlfilter
 * (tools/perf/include/perf/perf_dlfilter.h: a versioned struct with
 * `size`, one callback per sample, keep or drop) and Pin's analysis
 * routines (one callback per instruction, with its decoded operands),
 * over every kind of itrace record:
 *
 *   start     once, before the first record, with the trace's header and
 *             metadata (through the context), the handler's argument
 *             string (the ARGS of ./h.so:ARGS) and the context through
 *             which it opens output streams; it returns its own data
 *             pointer, passed back to every other callback.
 *   insn      one executed instruction (an INSN record) with its decoded
 *             form (ITRACE_HANDLER_DECODE) and the MEM records of its
 *             data accesses (ITRACE_HANDLER_MEM): like Pin's IARG_*
 *             arguments, each is asked for, as each has a cost.
 *   branch    one BRANCH record (a branch-level trace under the online
 *             collector; offline, branch traces are filled first, so
 *             handlers see instructions, never branches).
 *   mmap, thread, process, syscall, signal, trace_ctl (a window of the
 *             --start/--stop triggers opening or closing), gap, lost:
 *             one record of that kind.
 *   other     every record no callback above takes (CODE, TIMESTAMP, a
 *             type this library does not know); MEM records reach a
 *             handler only inside `insn`.
 *   stop      once, after the last record: write the summary; streams
 *             are published after it returns.
 *
 * A callback left NULL is not called: the record is kept as far as this
 * handler is concerned and goes on to the next.
 *
 * ---- The rules ---------------------------------------------------------
 *
 *  - Record callbacks return ITRACE_HANDLER_KEEP or ITRACE_HANDLER_DROP,
 *    or a negative error code (-ITRACE_E_*, or -errno-like values), which
 *    stops the run: the driver reports the handler, the callback and the
 *    record index, and exits non-zero.  Any other value is an error too
 *    ("returned 7, not KEEP, DROP or a negative error").
 *  - Handlers form a chain, in the order given.  A record one handler
 *    drops is passed to no later handler and is not written.  Dropping an
 *    instruction drops its MEM records with it.  With no handler every
 *    record is kept (the trace as recorded).
 *  - Everything a callback receives is valid during the call only: copy
 *    what must outlive it.
 *  - A handler writes its results through named streams
 *    (itrace_handler_stream_open()), never through files of its own: a
 *    stream is written atomically (itrace.h section 3b) and published
 *    after stop only when the whole run succeeded; after an error or a
 *    crash nothing partial is left at its name.  Two handlers of one
 *    chain cannot open the same name.  stdout is allowed (the stream
 *    name "-"), unbuffered by nothing but stdio.
 *  - The trace's instruction bytes, symbols and source lines are asked of
 *    the context (itrace_handler_symbolize()); the driver's image follows
 *    the trace's MMAP and CODE records.  A handler that wants calls and
 *    per-function counts runs libitrace-code's analysis over the records
 *    with itrace_handler_analysis_symbolize() as its symbolizer, rather
 *    than rules of its own (examples/handlers/func_count.c).
 *  - Shards (itrace-run -j N): a handler that sets ITRACE_HANDLER_SHARD_SAFE
 *    promises that it gives the same results when the trace is cut into
 *    consecutive pieces of whole chunks, each run by an instance of its
 *    own (its own start, records, stop, on its own thread), and each
 *    stream's output is the concatenation of the pieces' outputs in trace
 *    order.  A handler that counts and prints totals at stop is not
 *    shard-safe; one that prints per record is.  Without the flag -j is
 *    refused.
 *  - The table only ever grows at its end.  `size` is sizeof(the table)
 *    as the handler was built: a handler built against an older, smaller
 *    header loads (the missing callbacks are NULL); a table larger than
 *    this library knows loads only when its extra bytes are all zero, and
 *    is otherwise refused as "built against a newer itrace_handler.h".
 *    `abi` changes only when the meaning of an existing field changes.
 */
#ifndef ITRACE_HANDLER_H
#define ITRACE_HANDLER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "itrace_code.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===== 10. Handlers ===================================================== */

/* The ABI of the table: what `abi` must hold. */
#define ITRACE_HANDLER_ABI 1

/* What a record callback returns (else a negative error code). */
enum itrace_handler_verdict {
	ITRACE_HANDLER_KEEP = 0, /* pass the record on (to the next handler, then the output) */
	ITRACE_HANDLER_DROP = 1, /* the record goes no further */
};

/* Flags of a handler (struct itrace_handler.flags). */
enum itrace_handler_flags {
	ITRACE_HANDLER_SHARD_SAFE = 1u << 0, /* see "Shards" above: -j N allowed */
	ITRACE_HANDLER_DECODE = 1u << 1,     /* fill struct itrace_handler_insn.info
					      * (costs a decode per instruction) */
	ITRACE_HANDLER_MEM = 1u << 2,	     /* fill struct itrace_handler_insn.mem:
					      * the chain holds each instruction
					      * until its MEM records are in (a
					      * copy per instruction; without it
					      * nmem is 0, and the MEM records of
					      * a dropped instruction are dropped
					      * with it all the same) */
};

/* What a handler sees of the run: opaque, valid from start to stop. */
struct itrace_handler_ctx;

/* One executed instruction, for the insn callback. */
struct itrace_handler_insn {
	const struct itrace_record *rec;     /* the INSN record (tid, pid, time) */
	uint64_t index;			     /* its record index in the run */
	/* The decoder's description (itrace_code.h section 5), when the
	 * handler sets ITRACE_HANDLER_DECODE and the bytes are known (from
	 * the record or the traced files) and decode; else NULL. */
	const struct itrace_insn_info *info;
	/* Its data accesses, its MEM records in order, when the handler
	 * sets ITRACE_HANDLER_MEM (else NULL, 0). */
	const struct itrace_mem *mem;
	size_t nmem;
};

/* A callback for one record of a kind (`rec->type` says which). */
typedef int (*itrace_handler_record_fn)(void *data, const struct itrace_record *rec,
					struct itrace_handler_ctx *ctx);

/*
 * The table a handler exports as `itrace_handler`.  Fields after `name`
 * may be absent in an older handler (see `size`).
 */
struct itrace_handler {
	size_t size;	    /* sizeof(struct itrace_handler) as built */
	uint32_t abi;	    /* ITRACE_HANDLER_ABI */
	uint32_t flags;	    /* enum itrace_handler_flags */
	const char *name;   /* for messages and the output's metadata; NULL:
			     * the file name */
	/*
	 * start - the run begins.  `args` is the text after the first ':' of
	 * the handler's argument ("" when none).  Set *data to the handler's
	 * own state (NULL is fine).  Return 0, or a negative code to refuse
	 * the run (bad arguments: say why with itrace_handler_set_error()).
	 */
	int (*start)(struct itrace_handler_ctx *ctx, const char *args, void **data);
	/* stop - the run ends after the last record; 0 or a negative code. */
	int (*stop)(void *data, struct itrace_handler_ctx *ctx);
	/* insn - one instruction with its accesses: KEEP, DROP or < 0. */
	int (*insn)(void *data, const struct itrace_handler_insn *insn,
		    struct itrace_handler_ctx *ctx);
	/* One record of that kind: KEEP, DROP or < 0. */
	itrace_handler_record_fn branch;
	itrace_handler_record_fn mmap;
	itrace_handler_record_fn thread;
	itrace_handler_record_fn process;
	itrace_handler_record_fn syscall;
	itrace_handler_record_fn signal;
	itrace_handler_record_fn trace_ctl; /* window open (ctl.on 1) / close */
	itrace_handler_record_fn gap;
	itrace_handler_record_fn lost;
	itrace_handler_record_fn other;	    /* CODE, TIMESTAMP, unknown types */
};

/*
 * itrace_handler_header - the trace's file header (for a branch-level
 * trace filled offline: the input's header; `level` says branch).
 * Never NULL during the run.
 */
const struct itrace_header *itrace_handler_header(const struct itrace_handler_ctx *ctx);

/* itrace_handler_meta - metadata value of `key` of the trace, or NULL. */
const char *itrace_handler_meta(const struct itrace_handler_ctx *ctx, const char *key);

/*
 * itrace_handler_shard - which piece of the trace this instance runs:
 * *index from 0 to *count - 1 (0 of 1 without -j).  Either may be NULL.
 */
void itrace_handler_shard(const struct itrace_handler_ctx *ctx, unsigned *index, unsigned *count);

/*
 * itrace_handler_stream_open - open the output stream `name` of this
 * handler: letters, digits, '.', '-', '_' (not starting with '.'), or
 * "-" for the driver's standard output.  The driver says where streams go
 * (itrace-run: DIR/NAME under --streams DIR, default the current
 * directory).  The stream is written as a temporary and published after
 * stop of a successful run (itrace.h section 3b); the handler must not
 * fclose it.  Opening the same name twice in one handler returns the same
 * FILE.  Returns the FILE, or NULL with errno set: EINVAL for a bad name,
 * EEXIST when another handler of the chain has it, or the error creating
 * it (the chain's error message says which).
 */
FILE *itrace_handler_stream_open(struct itrace_handler_ctx *ctx, const char *name);

/*
 * itrace_handler_symbolize - the symbol and source line of `addr` in
 * process `pid`, from the files the trace's MMAP records map (`what`:
 * ITRACE_SYM_NAME and/or ITRACE_SYM_LINE).  Strings stay valid until the
 * run ends.  Returns as itrace_symbolizer_lookup().
 */
int itrace_handler_symbolize(struct itrace_handler_ctx *ctx, uint32_t pid, uint64_t addr,
			     unsigned what, struct itrace_symbol *out);

/*
 * itrace_handler_analysis_symbolize - the symbolizer callback of an
 * analysis a handler runs (itrace_code.h section 9): set
 * `symbolize = itrace_handler_analysis_symbolize` and `symbolize_ctx =`
 * the handler's context in struct itrace_analysis_options, and the
 * analysis gets the driver's symbols as itrace_analysis_symbolize()
 * describes them for every itrace tool, so that its functions, calls and
 * activations are the ones itrace-sqlite and the other exporters report
 * (code without a symbol, FILE+0xOFFSET, included).  Valid from start
 * to stop.  Returns as itrace_analysis_symbolize(); -ITRACE_E_STATE
 * before the chain started.
 */
int itrace_handler_analysis_symbolize(void *ctx, uint32_t pid, uint64_t addr, const char *path,
				      uint64_t file_offset, struct itrace_analysis_sym *out);

/*
 * itrace_handler_find_symbol - the run-time address of function or object
 * `name` in the files mapped into process `pid` so far (first match in
 * mapping order, as itrace_symbolizer_find()).  Returns 0 with *out set;
 * -ITRACE_E_NOENT when no mapped file defines it.
 */
int itrace_handler_find_symbol(struct itrace_handler_ctx *ctx, uint32_t pid, const char *name,
			       struct itrace_symbol *out);

/*
 * itrace_handler_set_error - the reason for the negative code a callback
 * is about to return, for the driver's message (printf format; cut to 256
 * bytes).
 */
void itrace_handler_set_error(struct itrace_handler_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ===== 11. Handler chains (drivers) ===================================== */

/*
 * A chain is what a driver (itrace-run offline, itrace-collect online)
 * runs: handlers loaded in order, started once, then every record passed
 * through itrace_handler_chain_record(), the one dispatch function both
 * drivers use, which hands what the chain keeps to the driver's output
 * (a writer, or nothing).
 */
struct itrace_handler_chain;

/* Where kept records go: called in order; a negative return stops the run. */
typedef int (*itrace_handler_output_fn)(void *arg, const struct itrace_record *rec);

struct itrace_handler_chain_options {
	size_t size;		 /* sizeof(struct itrace_handler_chain_options) */
	const char *stream_dir;	 /* streams go to stream_dir/NAME; NULL: "." */
	FILE *stdout_stream;	 /* the stream "-"; NULL: stdout */
	unsigned out_flags;	 /* enum itrace_outfile_flags of the streams */
	const char *sysroot;	 /* as in struct itrace_image_options */
	const char *debug_dir;
	unsigned shard, shards;	 /* what itrace_handler_shard() reports; 0, 1 */
	itrace_handler_output_fn output; /* NULL: kept records go nowhere */
	void *output_arg;
};

/* itrace_handler_chain_options_init - streams in ".", no output, shard 0 of 1. */
void itrace_handler_chain_options_init(struct itrace_handler_chain_options *o);

/*
 * itrace_handler_chain_alloc - an empty chain (options copied, strings
 * too).  OUT *cp, freed with itrace_handler_chain_free().
 * Returns 0; -ITRACE_E_INVAL, -ITRACE_E_NOMEM.
 */
int itrace_handler_chain_alloc(const struct itrace_handler_chain_options *o,
			       struct itrace_handler_chain **cp);

/*
 * itrace_handler_chain_free - unload every handler and free the chain;
 * streams not published by itrace_handler_chain_stop() are removed.
 * NULL is a no-op.
 */
void itrace_handler_chain_free(struct itrace_handler_chain *c);

/*
 * itrace_handler_chain_load - append the handler `spec`, "PATH[:ARGS]"
 * (PATH as dlopen takes it: give ./h.so for a file of the current
 * directory).  Returns 0, or a negative code with the chain's error
 * saying which: -ITRACE_E_NOENT (no such file, or it exports neither
 * `itrace_handler` nor `itrace_handler_get`), -ITRACE_E_ELF (not a shared
 * object it can load), -ITRACE_E_VERSION (a table from a newer header
 * with an unknown required size, or another abi), -ITRACE_E_INVAL (size
 * too small, or no callback at all).
 */
int itrace_handler_chain_load(struct itrace_handler_chain *c, const char *spec);

/*
 * itrace_handler_chain_add - append a handler whose table is in the
 * program itself (tests, a driver's built-in handlers): the same checks
 * as for a loaded one; `table` must outlive the chain.
 */
int itrace_handler_chain_add(struct itrace_handler_chain *c, const struct itrace_handler *table,
			     const char *args);

/* itrace_handler_chain_count - how many handlers the chain holds. */
size_t itrace_handler_chain_count(const struct itrace_handler_chain *c);

/* itrace_handler_chain_name - handler i's name; NULL when out of range. */
const char *itrace_handler_chain_name(const struct itrace_handler_chain *c, size_t i);

/* itrace_handler_chain_flags - the flags every handler sets (AND of all). */
unsigned itrace_handler_chain_flags(const struct itrace_handler_chain *c);

/*
 * itrace_handler_chain_start - call every start, in order, for a trace
 * with header `h` and metadata `meta` (as itrace_reader_meta_at() lists
 * it; both are kept until the chain is freed).  Returns 0 or the first
 * negative code (the chain's error says which handler).
 */
int itrace_handler_chain_start(struct itrace_handler_chain *c, const struct itrace_header *h,
			       const struct itrace_meta *meta, size_t meta_count);

/*
 * itrace_handler_chain_record - the dispatch: pass one record, in trace
 * order, through the chain and hand it to the output if every handler
 * keeps it.  An INSN is held until the record after its MEM records
 * arrives when a handler sets ITRACE_HANDLER_MEM (so that the insn
 * callback sees its accesses): call
 * itrace_handler_chain_stop() (or _flush()) at the end.  The chain's
 * image follows MMAP, CODE and PROCESS records, for
 * itrace_handler_symbolize() and decoding.  Returns 0, or a negative
 * code: a handler's error, a verdict that is none (-ITRACE_E_INVAL), the
 * output's error; the chain's error names the handler, the callback and
 * the record index.  After an error the chain must only be freed.
 */
int itrace_handler_chain_record(struct itrace_handler_chain *c, const struct itrace_record *rec);

/*
 * itrace_handler_chain_run - the offline driver's loop: every record of
 * `r` through itrace_handler_chain_record(), from where it is to the end
 * (end 0), or chunks first..end-1 of its index (end > first: seeks to
 * chunk `first` first).  Damage does not stop it: *damage receives the
 * first damage code the reader met (0: none; itrace_reader_error() has
 * the text), and after -ITRACE_E_CORRUPT it goes on with the next intact
 * chunk.  Returns 0, or the chain's negative code (its error says why).
 */
int itrace_handler_chain_run(struct itrace_handler_chain *c, struct itrace_reader *r,
			     uint64_t first, uint64_t end, int *damage);

/* itrace_handler_chain_flush - dispatch a held instruction now. */
int itrace_handler_chain_flush(struct itrace_handler_chain *c);

/*
 * itrace_handler_chain_stop - flush, call every stop in order, then (when
 * all of it succeeded) publish every stream; after a failure none is.
 * Returns 0 or the first negative code.
 */
int itrace_handler_chain_stop(struct itrace_handler_chain *c);

/* itrace_handler_chain_records - records dispatched so far. */
uint64_t itrace_handler_chain_records(const struct itrace_handler_chain *c);

/* itrace_handler_chain_error - the last failure in words, "" if none. */
const char *itrace_handler_chain_error(const struct itrace_handler_chain *c);

/*
 * itrace_handler_chain_fault - for a driver's SIGSEGV/SIGBUS/SIGFPE/SIGILL
 * handler: the handler whose callback was running (its name, or NULL when
 * none was) and the index of the record it was given; and remove every
 * stream's temporary.  Async-signal-safe (reads fields, calls unlink).
 */
const char *itrace_handler_chain_fault(struct itrace_handler_chain *c, uint64_t *index);

/*
 * itrace_handler_stream_path - the destination of a stream the chain
 * opened, by order of opening (0..); NULL past the last.  For drivers
 * that merge shards' streams.
 */
const char *itrace_handler_stream_path(const struct itrace_handler_chain *c, size_t i);

#ifdef __cplusplus
}
#endif
#endif /* ITRACE_HANDLER_H */
