/*
 * callgrind_out.h - pipeline-sim's profiles for the tools people already
 * use: a callgrind profile (valgrind's "Callgrind Format Specification",
 * read by KCachegrind/QCachegrind and callgrind_annotate) with Ir, Cycles
 * and the stall cycles of every cause per instruction and source line and
 * per call arc, and the call timeline over simulated cycles (Chrome Trace
 * Event JSON, as itrace-timeline writes it).
 *
 * Calls come from the shared call tracking of libitrace (itrace_analysis,
 * fed the simulated instructions); nothing else keeps per-event state, so
 * memory follows the code executed and the call depth, not the trace.
 */
#ifndef SIM_CALLGRIND_OUT_H
#define SIM_CALLGRIND_OUT_H

#include <stdio.h>

#include "core.h"
#include "input.h"
#include "report.h"

struct sim_calls;

/*
 * sim_calls_open - follow calls while the core runs: call arcs with their
 * inclusive costs when `arcs` is set, the call timeline (at most
 * max_events calls, 0 = default) when `timeline` is set.  NULL when out
 * of memory or the trace's architecture has no decoder.
 */
struct sim_calls *sim_calls_open(struct sim_input *in, struct sim_core *core, int arcs,
				 int timeline, uint64_t max_events);
void sim_calls_close(struct sim_calls *c);

/* sim_calls_step - after sim_core_step() of instruction d.  0 or -1 (out
 * of memory). */
int sim_calls_step(struct sim_calls *c, const struct sim_dyn *d);

/* sim_calls_finish - end the open calls (at the end of the input). */
int sim_calls_finish(struct sim_calls *c);

/*
 * sim_report_callgrind - the callgrind profile: self costs per
 * instruction (positions "instr line", addresses as in the ELF file) and
 * the calls' inclusive costs.  `incomplete` (NULL: complete) is said in
 * the file's header.  Returns 0 or -1 (out of memory).
 */
int sim_report_callgrind(FILE *out, const struct sim_report *r, struct sim_calls *c,
			 const char *incomplete);

/*
 * sim_report_call_timeline - the call timeline over simulated cycles.
 * Returns 0 or -1 (write error).  *merged receives how many calls were
 * merged into their callers (0: none) and *threshold the duration below
 * which they were.
 */
int sim_report_call_timeline(FILE *out, const struct sim_report *r, struct sim_calls *c,
			     const char *incomplete, uint64_t *merged, uint64_t *threshold);

#endif
