/*
 * timeline_json.c - the Chrome Trace Event writer (see timeline_json.h).
 * Format: the "Trace Event Format" document of the Chromium project:
 * a JSON object with "traceEvents" (complete events "ph":"X" with "ts"
 * and "dur" in microseconds, metadata events "ph":"M" naming processes
 * and threads) and free-form "otherData".
 */
#include "timeline_json.h"

#include <stdlib.h>
#include <string.h>


struct timeline {
	struct timeline_call *v;
	uint64_t n, max;
	uint64_t calls, threshold;
	uint64_t *scratch; /* durations, for the merge threshold */
};

struct timeline *timeline_alloc(uint64_t max_events)
{
	struct timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max = max_events ? max_events : TIMELINE_DEFAULT_MAX_EVENTS;
	return t;
}

void timeline_free(struct timeline *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->scratch);
	free(t);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * merge_shortest - the buffer is full: raise the threshold so that at
 * least half of the kept calls are shorter than it, and drop those.
 */
static int merge_shortest(struct timeline *t)
{
	uint64_t i, k, out = 0;

	if (!t->scratch && !(t->scratch = malloc(t->max * sizeof(*t->scratch))))
		return -1;
	for (i = 0; i < t->n; i++)
		t->scratch[i] = t->v[i].end - t->v[i].begin;
	qsort(t->scratch, t->n, sizeof(*t->scratch), cmp_u64);
	k = t->n - t->n / 2; /* at least this many go */
	if (t->scratch[k - 1] + 1 > t->threshold)
		t->threshold = t->scratch[k - 1] + 1;
	for (i = 0; i < t->n; i++)
		if (t->v[i].end - t->v[i].begin >= t->threshold)
			t->v[out++] = t->v[i];
	t->n = out;
	return 0;
}

int timeline_add(struct timeline *t, const struct timeline_call *c)
{
	t->calls++;
	if (c->end - c->begin < t->threshold)
		return 0;
	if (t->n == t->max && merge_shortest(t) < 0)
		return -1;
	if (c->end - c->begin < t->threshold)
		return 0;
	if (!t->v) {
		/* grow by doubling up to max: short traces stay small */
		t->v = malloc(1024 * sizeof(*t->v));
		if (!t->v)
			return -1;
	} else if ((t->n & (t->n - 1)) == 0 && t->n >= 1024 && t->n < t->max) {
		uint64_t cap = 2 * t->n < t->max ? 2 * t->n : t->max;
		struct timeline_call *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
	}
	t->v[t->n++] = *c;
	return 0;
}

void timeline_stats(const struct timeline *t, struct timeline_stats *st)
{
	st->calls = t->calls;
	st->kept = t->n;
	st->threshold = t->threshold;
}

/* Parents before children: by thread, begin, longest first, depth. */
static int cmp_call(const void *a, const void *b)
{
	const struct timeline_call *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* utf8_len - length of the valid UTF-8 sequence at s (1..4), or 0. */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

void timeline_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', out);
	while (*p) {
		int n = utf8_len(p);

		if (n == 0)
			fprintf(out, "\\\\x%02x", *p++);
		else if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p++);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p++);
		else {
			fwrite(p, 1, (size_t)n, out);
			p += n;
		}
	}
	fputc('"', out);
}

/* Metadata events naming each thread (and its process) once. */
static void write_names(FILE *out, const struct timeline *t, const struct timeline_names *nm,
			int *first)
{
	uint64_t i, last = UINT64_MAX;

	for (i = 0; i < t->n; i++) {
		uint32_t pid = 0, tid = 0;
		const char *pname, *tname;

		if (t->v[i].thread == last)
			continue;
		last = t->v[i].thread;
		pname = nm->process(nm->arg, last, &pid);
		fprintf(out, "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":",
			*first ? "" : ",", pid);
		timeline_json_string(out, pname);
		tname = nm->thread(nm->arg, last, &tid);
		fprintf(out, "}},\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
			     "\"args\":{\"name\":", pid, tid);
		timeline_json_string(out, tname);
		fputs("}}", out);
		*first = 0;
	}
}

int timeline_write(struct timeline *t, FILE *out, const struct timeline_names *nm,
		   double us_per_unit, const char *const *meta)
{
	uint64_t i, last = UINT64_MAX;
	uint32_t pid = 0, tid = 0;
	int first = 1;

	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_call);
	fputs("{\"traceEvents\":[", out);
	write_names(out, t, nm, &first);
	for (i = 0; i < t->n; i++) {
		const struct timeline_call *c = &t->v[i];

		if (c->thread != last) {
			last = c->thread;
			nm->process(nm->arg, last, &pid);
			nm->thread(nm->arg, last, &tid);
		}
		fprintf(out, "%s\n{\"name\":", first ? "" : ",");
		timeline_json_string(out, nm->function(nm->arg, c->function));
		/* no "args": speedscope would make them part of the frame's name */
		fprintf(out, ",\"ph\":\"X\",\"ts\":%.17g,\"dur\":%.17g,\"pid\":%u,\"tid\":%u}",
			(double)c->begin * us_per_unit, (double)(c->end - c->begin) * us_per_unit, pid,
			tid);
		first = 0;
	}
	fputs("\n],\n\"otherData\":{", out);
	for (i = 0; meta && meta[i] && meta[i + 1]; i += 2) {
		fputs(i ? "," : "", out);
		timeline_json_string(out, meta[i]);
		fputc(':', out);
		timeline_json_string(out, meta[i + 1]);
	}
	fputs("}}\n", out);
	return ferror(out) ? -1 : 0;
}
