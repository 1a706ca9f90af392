/*
 * calibrate.h - measure the host's core with microbenchmarks and write a
 * core description (pipeline-sim --calibrate) that sets what it
 * measured: latency chains and throughput blocks per class (ports per
 * class), the dispatch width, taken branches per cycle, cache sizes as
 * the hardware reports them and the LLC size the process gets,
 * load-to-use latency per level and memory's, fill bandwidth, store-to-
 * load forwarding and the branch mispredict penalty, in cycles of the
 * calibrated clock (host.h).  What cannot be measured this way (queue
 * sizes, the predictor, front-end depth) comes from the host's preset.
 */
#ifndef SIM_CALIBRATE_H
#define SIM_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

/*
 * sim_calibrate - run the microbenchmarks (under a minute) and write a
 * core file to `out`; `log` (NULL: quiet) gets one line per measurement
 * and one per figure set from them.
 * `runs`: timings per measurement, the best is kept.  Returns 0, or -1
 * with err set (not an x86-64 host, out of memory).
 */
int sim_calibrate(FILE *out, FILE *log, int runs, char *err, size_t errlen);

#endif
