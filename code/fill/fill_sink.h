/*
 * fill_sink.h - where the filler's output goes.  The walk (fill.c) hands
 * every record and instruction to a sink; the serial driver's sink is the
 * caller's writer or output function, a parallel worker's is its chunk's
 * segment or buffer (fill_par.c).  The walk never asks which it is.
 * Internal to libitrace.
 */
#ifndef ITRACE_FILL_SINK_H
#define ITRACE_FILL_SINK_H

#include <stdint.h>

#include "itrace.h"

struct fill_block;
struct fill_sink;

struct fill_sink_ops {
	/* record - any record, INSN included. */
	int (*record)(struct fill_sink *s, const struct itrace_record *rec);
	/* insn - one instruction; bytes is NULL unless the output has them. */
	int (*insn)(struct fill_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes);
	/*
	 * block - the first n instructions of block b, starting at addr, the
	 * block's own bytes with_bytes; stable: b outlives the fill (a cached
	 * block), so a sink may keep the pointer instead of the instructions.
	 */
	int (*block)(struct fill_sink *s, uint64_t addr, const struct fill_block *b, uint32_t n,
		     int with_bytes, int stable);
	/* chunk_end - end the output chunk: an input chunk begins or the fill
	 * ends (NULL: nothing to do). */
	int (*chunk_end)(struct fill_sink *s);
};

struct fill_sink {
	const struct fill_sink_ops *ops;
	void *arg; /* the implementation's own (a parallel chunk's buffer) */
	/* The writer behind the sink, when it is one (NULL otherwise). */
	struct itrace_writer *writer;
	/* Callback sinks: the INSN record handed to the function. */
	itrace_fill_output_fn fn;
	void *fn_arg;
	struct itrace_record insn;
};

/*
 * fill_sink_output - the sink for a caller's itrace_fill_output_fn: a
 * writer sink when out is itrace_fill_output_writer (out_arg the writer),
 * else every record goes through out.  with_bytes: INSN records carry
 * their bytes.
 */
void fill_sink_output(struct fill_sink *s, itrace_fill_output_fn out, void *out_arg, int with_bytes);

/*
 * fill_sink_writer - the sink that appends to writer w, ending an output
 * chunk at every input chunk (so -j 1 and -j N give the same bytes).
 */
void fill_sink_writer(struct fill_sink *s, struct itrace_writer *w);

/* fill_sink_thread - the output is now on thread tid of pid (callback sinks
 * stamp their INSN records with it). */
static inline void fill_sink_thread(struct fill_sink *s, uint32_t tid, uint32_t pid)
{
	s->insn.tid = tid;
	s->insn.pid = pid;
}

#endif
