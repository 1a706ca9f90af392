/*
 * trigger.h - what every backend's trigger resolution (--start, --stop)
 * begins with, before it looks a function name up in its own way.
 */
#ifndef ITRACE_COLLECT_TRIGGER_H
#define ITRACE_COLLECT_TRIGGER_H

#include <stdint.h>
#include <stddef.h>

/*
 * trigger_fixed - a trigger given by address (--start-addr, --stop-addr)
 * is that address (out[0], *n = 1), and no trigger is none (*n = 0):
 * returns 1 when *n is settled so, 0 when `func` is left to look up.
 */
static inline int trigger_fixed(const char *func, int has_addr, uint64_t addr, uint64_t out[2],
				int *n)
{
	*n = 0;
	if (has_addr) {
		out[0] = addr;
		*n = 1;
		return 1;
	}
	return func == NULL;
}

#endif
