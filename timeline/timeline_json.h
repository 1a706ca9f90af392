/*
 * timeline_json.h - a call timeline in the Chrome Trace Event format
 * (the JSON that Perfetto UI, chrome://tracing and speedscope open): one
 * complete event ("ph":"X") per call, with its begin and duration, per
 * thread.  Used by itrace-timeline (instruction numbers or trace time)
 * and pipeline-sim --call-timeline (simulated cycles).
 *
 * A file stays usable in a browser only up to a few million events, so
 * the writer keeps at most `max_events` calls: when more come, the
 * shortest are merged into their callers (dropped: the caller's span
 * already covers them), raising a duration threshold so that the file
 * holds every call at least that long and none shorter.  Memory is
 * bounded by max_events, not by the trace.
 */
#ifndef ITRACE_TIMELINE_JSON_H
#define ITRACE_TIMELINE_JSON_H

#include <stdint.h>
#include <stdio.h>

/* Default and largest number of call events in one file. */
#define TIMELINE_DEFAULT_MAX_EVENTS 1000000u
#define TIMELINE_MAX_EVENTS_LIMIT 50000000u

struct timeline;

/* One finished call: begin and end in the clock's unit (end >= begin). */
struct timeline_call {
	uint64_t begin, end;
	uint64_t thread;   /* the caller's thread key (names come later) */
	uint64_t function; /* the caller's function key */
	uint32_t depth;
};

/* timeline_alloc - keep at most max_events calls (0: the default).
 * NULL when out of memory. */
struct timeline *timeline_alloc(uint64_t max_events);
void timeline_free(struct timeline *t);

/* timeline_add - one call; -1 when out of memory. */
int timeline_add(struct timeline *t, const struct timeline_call *c);

/* What the writer merged: calls received, kept, and the threshold (calls
 * shorter than it were merged; 0 when none was). */
struct timeline_stats {
	uint64_t calls, kept, threshold;
};
void timeline_stats(const struct timeline *t, struct timeline_stats *st);

/* How the file names things.  The callbacks return strings valid until
 * the next call (any bytes: the writer escapes them). */
struct timeline_names {
	const char *(*function)(void *arg, uint64_t function);
	const char *(*process)(void *arg, uint64_t thread, uint32_t *pid); /* and its pid */
	const char *(*thread)(void *arg, uint64_t thread, uint32_t *tid);  /* and its tid */
	void *arg;
};

/*
 * timeline_write - the document: process and thread names, the calls
 * sorted by thread and begin, then "otherData" with the `meta` pairs
 * (NULL-terminated key, value list; values are strings).  `us_per_unit`
 * converts the clock to the format's microseconds (1 for instruction
 * numbers and cycles, which then read as "µs" in the viewers, 0.001 for
 * nanoseconds).  Returns 0 or -1 (write error: check ferror).
 */
int timeline_write(struct timeline *t, FILE *out, const struct timeline_names *names,
		   double us_per_unit, const char *const *meta);

/* timeline_json_string - s as a JSON string: ", \ and control characters
 * escaped, bytes that are not UTF-8 as the text \xHH. */
void timeline_json_string(FILE *out, const char *s);

#endif
