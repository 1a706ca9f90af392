/*
 * conv.h - turn an instruction-level itrace stream into qtrace files
 * (internal to qtrace-conv).
 *
 * The conversion is split in two so that another fixed-width ISA can be
 * added without touching the stream logic:
 *   - struct conv_isa (conv_isa.h) says how one ISA maps onto qtrace: which
 *     ELF machines it covers, how instruction bytes become qtrace words,
 *     and which termination code a branch kind gets (libitrace's decoder
 *     classifies);
 *   - struct conv keeps one qtrace writer per thread, attaches MEM records
 *     to the instruction they follow, and looks up instruction bytes in
 *     the trace's image when INSN records carry none.
 */
#ifndef QTRACE_CONV_H
#define QTRACE_CONV_H

#include <stdint.h>

#include "itrace.h"
#include "itrace_code.h"
#include "conv_isa.h"
#include "qtrace.h"

struct conv_options {
	const char *output;  /* "-" = stdout */
	const char *source;  /* name of the input, for the header comment */
	int has_tid;	     /* convert only thread `tid` */
	uint32_t tid;
};

struct conv_stats {
	uint64_t insns;	     /* instructions written */
	uint64_t dropped;    /* instructions qtrace cannot carry */
	uint64_t extra_mem;  /* MEM records beyond the first of an instruction */
	uint64_t threads;    /* output files */
	uint64_t other_tids; /* instructions of threads not selected */
};

struct conv;

/*
 * conv_open - a converter for a trace of machine `machine`, byte order
 * `endian` (1 little, 2 big).  Returns 0; -ITRACE_E_NOTSUP if qtrace cannot
 * represent the machine, -ITRACE_E_NOMEM.
 */
int conv_open(const struct conv_options *o, uint16_t machine, uint8_t endian, struct conv **cp);

/*
 * conv_record - feed one itrace record.  Returns 0, or -1 after writing a
 * one-line message into conv_error() (output cannot be written, several
 * threads for one output stream, instruction bytes not found).
 */
int conv_record(struct conv *c, const struct itrace_record *rec);

/*
 * conv_close - flush every output; with `keep` (the input was converted,
 * completely or up to its damage) the files replace their destinations,
 * else they are discarded.  Returns 0 or -1 with conv_error() set (empty
 * when the message was printed already).
 */
int conv_close(struct conv *c, int keep, struct conv_stats *st);

/* conv_error - the last message; valid until conv_free(). */
const char *conv_error(const struct conv *c);

void conv_free(struct conv *c);

#endif
