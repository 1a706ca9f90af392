/*
 * report.h - what pipeline-sim prints: the summary with its CPI stack,
 * per-function and per-instruction lost cycles (top N, with symbol,
 * address, disassembly and source line), JSON, an llvm-mca-like text
 * timeline and a Kanata v4 log for the Konata viewer.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdio.h>

#include "core.h"
#include "input.h"
#include "sem.h"

struct sim_report {
	const char *trace;	/* input path, for the header */
	struct sim_core *core;
	struct sim_semtab *sems;
	struct sim_input *in;	/* symbols; may be NULL */
	int top;		/* rows of the per-function/instruction tables */
	int lines;		/* look up source lines */
};

void sim_report_text(FILE *out, const struct sim_report *r);
void sim_report_json(FILE *out, const struct sim_report *r);

/* sim_report_timeline - the first n captured instructions, one per line. */
void sim_report_timeline(FILE *out, const struct sim_report *r, uint64_t n);

/* sim_report_kanata - the captured instructions as a Kanata v4 log.
 * Returns 0 or -1 (out of memory). */
int sim_report_kanata(FILE *out, const struct sim_report *r);

#endif
