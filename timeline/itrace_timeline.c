/*
 * itrace-timeline - the call tree of every thread of a trace over time, as
 * a Chrome Trace Event JSON file (Perfetto UI, chrome://tracing,
 * speedscope).  Calls come from the shared call tracking of libitrace
 * (itrace_analysis_run, on_call); the file is written by timeline_json.c,
 * which bounds the events it holds (see --max-events).
 *
 * Clock: the trace's own time (TIMESTAMP records, nanoseconds) when the
 * trace has it from its first instruction, else the trace-wide
 * instruction number, which the viewers then show as microseconds
 * (1 "µs" = 1 instruction).  otherData.time_unit says which.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export_cli.h"
#include "itrace.h"
#include "itrace_code.h"
#include "timeline_json.h"

struct options {
	struct export_opts e;
	uint64_t max_events;
};

enum clock { CLOCK_UNDECIDED, CLOCK_INSNS, CLOCK_NS };

struct ctx {
	struct timeline *tl;
	const struct itrace_analysis *a; /* for names, once finished */
	int clock;
	int failed;
};

static int on_enter(void *arg, const struct itrace_analysis_call *c)
{
	struct ctx *x = arg;

	if (x->clock == CLOCK_UNDECIDED)
		x->clock = c->call_time ? CLOCK_NS : CLOCK_INSNS;
	return 0;
}

static int on_call(void *arg, const struct itrace_analysis_call *c)
{
	struct ctx *x = arg;
	struct timeline_call tc = {
		.thread = c->thread_id,
		.function = c->function_id,
		.depth = c->depth,
	};

	if (x->clock == CLOCK_NS) {
		tc.begin = c->call_time;
		tc.end = c->return_time > c->call_time ? c->return_time : c->call_time;
	} else {
		tc.begin = c->call_index;
		tc.end = c->return_index;
	}
	if (timeline_add(x->tl, &tc) < 0) {
		cli_error("out of memory");
		x->failed = 1;
		return -ITRACE_E_IO; /* export_analyse() stays quiet about it */
	}
	return 0;
}

/* ---- names for the file ----------------------------------------------------- */

static const char *function_name(void *arg, uint64_t id)
{
	struct ctx *x = arg;
	const struct itrace_analysis_function *f = itrace_analysis_function_at(x->a, id - 1);

	return f ? f->name : "[unknown]";
}

static const struct itrace_analysis_thread *thread_of(const struct ctx *x, uint64_t id)
{
	return itrace_analysis_thread_at(x->a, id - 1);
}

static const char *process_name(void *arg, uint64_t id, uint32_t *pid)
{
	struct ctx *x = arg;
	const struct itrace_analysis_thread *t = thread_of(x, id);

	(void)x;
	*pid = t ? t->pid : 0;
	return t && t->comm[0] ? t->comm : "process"; /* viewers add the pid */
}

static const char *thread_name(void *arg, uint64_t id, uint32_t *tid)
{
	struct ctx *x = arg;
	const struct itrace_analysis_thread *t = thread_of(x, id);

	(void)x;
	*tid = t ? t->tid : 0;
	return t && t->comm[0] ? t->comm : "thread"; /* viewers add the tid */
}

/* ---- the export ----------------------------------------------------------------- */

static int write_file(struct ctx *x, const struct options *o, const char *path,
		      const char *incomplete)
{
	const struct timeline_names names = {function_name, process_name, thread_name, x};
	struct itrace_analysis_totals t;
	struct timeline_stats st;
	char calls[32], kept[32], thr[32], insns[32];
	const char *meta[32];
	size_t m = 0;
	FILE *fp;

	itrace_analysis_totals(x->a, &t);
	timeline_stats(x->tl, &st);
	snprintf(calls, sizeof(calls), "%llu", (unsigned long long)st.calls);
	snprintf(kept, sizeof(kept), "%llu", (unsigned long long)st.kept);
	snprintf(thr, sizeof(thr), "%llu", (unsigned long long)st.threshold);
	snprintf(insns, sizeof(insns), "%llu", (unsigned long long)t.insns);
	meta[m++] = "exporter", meta[m++] = "itrace-timeline " ITRACE_VERSION_STRING;
	meta[m++] = "source_trace", meta[m++] = o->e.input;
	meta[m++] = "time_unit";
	meta[m++] = x->clock == CLOCK_NS ? "ns" : "instructions (1 us in the viewers = 1 instruction)";
	meta[m++] = "instructions", meta[m++] = insns;
	meta[m++] = "calls", meta[m++] = calls;
	meta[m++] = "calls_shown", meta[m++] = kept;
	if (st.threshold) {
		meta[m++] = "merged";
		meta[m++] = "calls shorter than merge_threshold were merged into their callers "
			    "(the file holds at most --max-events calls)";
		meta[m++] = "merge_threshold", meta[m++] = thr;
	}
	meta[m++] = "complete", meta[m++] = incomplete ? "false" : "true";
	if (incomplete)
		meta[m++] = "damage", meta[m++] = incomplete;
	meta[m] = NULL;
	fp = export_output_open(path);
	if (!fp)
		return -1;
	if (timeline_write(x->tl, fp, &names, x->clock == CLOCK_NS ? 0.001 : 1.0, meta) < 0) {
		export_output_close(fp, path, 1);
		return -1;
	}
	if (export_output_close(fp, path, 0) < 0)
		return -1;
	if (st.threshold && !o->e.quiet)
		cli_warn("%llu of %llu calls shorter than %llu %s were merged into their callers: "
			 "a file holds at most %llu calls (--max-events)",
			 (unsigned long long)(st.calls - st.kept), (unsigned long long)st.calls,
			 (unsigned long long)st.threshold, x->clock == CLOCK_NS ? "ns" : "instructions",
			 (unsigned long long)(o->max_events ? o->max_events : TIMELINE_DEFAULT_MAX_EVENTS));
	return 0;
}

/* export - returns the exit status. */
static int export(const struct options *o)
{
	struct itrace_analysis_options ao;
	struct itrace_analysis *a = NULL;
	struct itrace_reader *r;
	struct ctx x = {0};
	const char *path = cli_output_path(o->e.output, 0);
	const char *incomplete = NULL;
	int status = CLI_EXIT_BAD_INPUT;

	r = export_open(&o->e);
	if (!r)
		return CLI_EXIT_BAD_INPUT;
	x.tl = timeline_alloc(o->max_events);
	if (!x.tl) {
		cli_error("out of memory");
		goto out;
	}
	itrace_analysis_options_init(&ao);
	ao.on_enter = on_enter;
	ao.on_call = on_call;
	ao.cb_ctx = &x;
	a = export_analyse(&o->e, r, &ao, 0, 1, &incomplete);
	if (!a)
		goto out;
	x.a = a;
	if (write_file(&x, o, path, incomplete) < 0)
		goto out;
	if (o->e.verbose) {
		struct timeline_stats st;

		timeline_stats(x.tl, &st);
		fprintf(stderr, "%s: %llu calls, %llu in the file\n", cli_progname(),
			(unsigned long long)st.calls, (unsigned long long)st.kept);
	}
	status = incomplete ? CLI_EXIT_BAD_INPUT : 0;
out:
	itrace_analysis_free(a);
	timeline_free(x.tl);
	itrace_reader_close(r);
	return status;
}

static void usage(void)
{
	printf("usage: %s [options] TRACE [-o FILE.json]\n"
	       "Write the calls of every thread of TRACE ('-' = stdin) over time as a\n"
	       "Chrome Trace Event file for Perfetto UI, chrome://tracing or speedscope.\n"
	       "Time is the trace's own (ns) when it has timestamps, else the instruction\n"
	       "number: the viewers then show 1 instruction as 1 us.\n"
	       "\n"
	       "  -o, --output FILE     where to write ('-' or absent: stdout)\n"
	       "      --max-events N    calls the file may hold (default %u, at most %u);\n"
	       "                        beyond, the shortest calls are merged into their\n"
	       "                        callers, with a warning\n"
	       EXPORT_COMMON_USAGE,
	       cli_progname(), TIMELINE_DEFAULT_MAX_EVENTS, TIMELINE_MAX_EVENTS_LIMIT);
}

static void handle_option(int c, const char *arg, void *tool_opts)
{
	struct options *o = tool_opts;

	if (c != 'M')
		cli_usage_error("unknown option");
	o->max_events = cli_parse_count("--max-events", arg, 1, TIMELINE_MAX_EVENTS_LIMIT);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"max-events", required_argument, NULL, 'M'},
		{NULL, 0, NULL, 0},
	};
	struct options o = {0};
	const struct export_tool tool = {"", longopts, handle_option, &o, usage};

	cli_init(argv[0]);
	export_parse_args(argc, argv, &tool, &o.e);
	return export(&o);
}
