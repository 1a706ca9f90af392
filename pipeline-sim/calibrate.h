/*
 * calibrate.h - measure the host's core with microbenchmarks and write a
 * core description (pipeline-sim --calibrate): latency chains and
 * throughput blocks per class, load-to-use latency per cache level,
 * store-to-load forwarding and the branch mispredict penalty, in cycles
 * of the calibrated clock (host.h).  What cannot be measured this way
 * (widths, queue sizes, predictor) comes from the nearest preset.
 */
#ifndef SIM_CALIBRATE_H
#define SIM_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

/*
 * sim_calibrate - run the microbenchmarks (a few seconds) and write a
 * core file to `out`; `log` (NULL: quiet) gets one line per measurement.
 * `runs`: timings per measurement, the best is kept.  Returns 0, or -1
 * with err set (not an x86-64 host, out of memory).
 */
int sim_calibrate(FILE *out, FILE *log, int runs, char *err, size_t errlen);

#endif
