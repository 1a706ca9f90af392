/*
 * bts_live.h - the probing half of the live BTS backend, exposed so the
 * tests can check its decisions and messages on any machine.
 */
#ifndef ITRACE_BTS_LIVE_H
#define ITRACE_BTS_LIVE_H

#include <stddef.h>

#include "backend.h"

/* The chosen kernel path. */
struct bts_method {
	int aux;      /* intel_bts AUX PMU */
	int legacy;   /* branch-instructions, period 1 */
	int pmu_type; /* intel_bts type, -1 if absent */
};

/* bts_pmu_type - /sys/bus/event_source/devices/intel_bts/type, or -1. */
int bts_pmu_type(void);

/*
 * bts_choose_method - pick the intel_bts or legacy path for `o` and the
 * BTS_SPACE_* filter, checking every precondition (level, options, CPU,
 * virtualisation, PTI, perf_event_paranoid, locked memory) with a trial
 * perf_event_open on the calling process.  Returns 0, or -1 with one line
 * in err naming the failed condition and the fix.
 */
int bts_choose_method(const struct collect_options *o, unsigned spaces, struct bts_method *m,
		      char *err, size_t errlen);

#endif
