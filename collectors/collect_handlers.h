/*
 * collect_handlers.h - itrace-collect --handler: the handler chain
 * (itrace_handler.h) online, between the emitter and the writer.
 *
 * Every record any backend emits goes through the emitter's handler pass
 * (emit.h, struct emit_pass) into itrace_handler_chain_record(); what the
 * chain keeps goes on to the trace writer, or nowhere with -o none.  A
 * handler that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, caught on an
 * alternate stack) or fails is stopped: its streams are removed, the
 * trace keeps what the chain kept before the failing record and ends
 * with a LOST record (ITRACE_LOST_OTHER), the program runs on to its end
 * untraced-through, and itrace-collect exits 1 (see README, Handlers).
 */
#ifndef ITRACE_COLLECT_HANDLERS_H
#define ITRACE_COLLECT_HANDLERS_H

#include <stddef.h>

#include "itrace.h"

/* collect_handlers_add - a --handler PATH[:ARGS] option, in order. */
void collect_handlers_add(char *spec);

/* collect_handlers_given - 1 when --handler was given. */
int collect_handlers_given(void);

/* collect_handlers_spec - "spec1 spec2 ..." for the trace's metadata. */
const char *collect_handlers_spec(void);

/*
 * collect_handlers_load - load every handler (before the program starts):
 * 0, or -1 after printing itrace-run's message for it (exit 1).
 * `streams`: where streams go (NULL: the current directory);
 * `to_writer` 0 (-o none): kept records go nowhere, no trace is written.
 */
int collect_handlers_load(const char *streams, int to_writer);

/* collect_handlers_no_trace - 1 under --handler with -o none. */
int collect_handlers_no_trace(void);

/*
 * collect_handlers_start - start the chain for the trace writer `w`,
 * just opened with options `wo` (header and metadata for the handlers;
 * with -o none `w` writes to /dev/null and receives nothing).  Turns the
 * emitter's handler pass on.  0, or -1 after printing why.
 */
int collect_handlers_start(struct itrace_writer *w, const struct itrace_writer_options *wo);

/*
 * collect_handlers_finish - the end of the records: stop the chain
 * (flush, every stop, publish the streams).  Idempotent; called by
 * collect_final_end() and by the backends that do not call it, before the
 * writer is closed.
 */
void collect_handlers_finish(void);

/* collect_handlers_failed - 1 when a handler crashed or failed. */
int collect_handlers_failed(void);

/* collect_handlers_executed - 1 once an instruction or branch reached the
 * chain (what the window asked for ran, kept or not). */
int collect_handlers_executed(void);

/* collect_handlers_free - unload the handlers (at exit). */
void collect_handlers_free(void);

#endif
