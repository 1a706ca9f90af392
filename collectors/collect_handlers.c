/* collect_handlers.c - itrace-collect --handler (see collect_handlers.h). */
#include "collect_handlers.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "emit.h"
#include "itrace_handler.h"

#define MAX_HANDLERS 64

static char *specs[MAX_HANDLERS];
static int nspecs;
static char spec_line[4096];

static struct itrace_handler_chain *chain;
static struct itrace_writer *writer; /* where kept records go; NULL: -o none */
static struct emit_pass pass_state;
static struct itrace_header header;
static struct itrace_meta *meta;
static size_t nmeta;
static int collect_to_writer, started, finished, failed, executed;

/* The crash guard: set around each call into the chain. */
static sigjmp_buf guard;
static volatile sig_atomic_t in_chain, fault_sig;
static const char *volatile fault_who;
static volatile uint64_t fault_index;

void collect_handlers_add(char *spec)
{
	size_t len = strlen(spec_line);

	if (nspecs == MAX_HANDLERS)
		cli_usage_error("more than %d --handler options", MAX_HANDLERS);
	specs[nspecs++] = spec;
	snprintf(spec_line + len, sizeof(spec_line) - len, "%s%s", len ? " " : "", spec);
}

int collect_handlers_given(void)
{
	return nspecs > 0;
}

const char *collect_handlers_spec(void)
{
	return spec_line;
}

/* kept - where the chain's kept records go: the writer of the trace. */
static int kept(void *arg, const struct itrace_record *rec)
{
	(void)arg;
	return itrace_fill_output_writer(writer, rec);
}

int collect_handlers_load(const char *streams, int to_writer)
{
	struct itrace_handler_chain_options o;

	if (!nspecs)
		return 0;
	itrace_handler_chain_options_init(&o);
	o.stream_dir = streams;
	o.out_flags = cli_output_flags();
	o.output = to_writer ? kept : NULL; /* the writer: at start */
	chain = cli_handler_chain(&o, specs, nspecs);
	collect_to_writer = to_writer;
	return chain ? 0 : -1;
}

/*
 * A fault while a handler's callback runs: back to pass() (siglongjmp
 * from the alternate stack), which stops the chain.  Anywhere else: the
 * collector's own bug, which dies as it would have.
 */
static void on_fault(int sig)
{
	uint64_t index = 0;
	const char *who = in_chain && chain ? itrace_handler_chain_fault(chain, &index) : NULL;

	if (!who) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	fault_sig = sig;
	fault_who = who;
	fault_index = index;
	siglongjmp(guard, 1);
}

/*
 * stop_chain - a handler crashed or failed at the record now passing:
 * what the chain kept so far stays in the trace, which ends here with a
 * LOST record (its footer follows at the program's end), and nothing
 * more reaches the chain or the trace; the program runs on.
 */
static void stop_chain(void)
{
	failed = 1;
	finished = 1;
	if (writer) {
		struct emit_sink plain = emit_writer_sink(writer);

		plain.put = NULL; /* the writer itself, past the pass */
		plain.expand = 0;
		emit_lost(&plain, ITRACE_LOST_OTHER, ITRACE_UNIT_RECORDS, 0);
	}
}

static int pass(void *arg, const struct itrace_record *rec)
{
	int rc;

	(void)arg;
	if (finished)
		return 0; /* after a failure: the program runs on, traced no further */
	if (sigsetjmp(guard, 0)) {
		in_chain = 0;
		cli_handler_crashed(fault_sig, (const char *)fault_who, fault_index,
				    writer ? "the trace so far is kept, ending with a LOST record; "
					     "no stream written; the program runs on"
					   : "no stream written; the program runs on");
		stop_chain();
		return 0;
	}
	executed |= rec->type == ITRACE_REC_INSN || rec->type == ITRACE_REC_BRANCH;
	in_chain = 1;
	rc = itrace_handler_chain_record(chain, rec);
	in_chain = 0;
	if (rc < 0) {
		cli_error("%s; the trace so far is kept, the program runs on",
			  itrace_handler_chain_error(chain));
		stop_chain();
	}
	return 0;
}

/* copy_meta - the writer's metadata, kept for the chain (which keeps a
 * pointer to it until it is freed). */
static int copy_meta(const struct itrace_writer_options *wo)
{
	meta = calloc(wo->meta_count + 1, sizeof(*meta));
	if (!meta)
		return -1;
	for (size_t i = 0; i < wo->meta_count; i++) {
		meta[i].key = strdup(wo->meta[i].key);
		meta[i].value = strdup(wo->meta[i].value);
		if (!meta[i].key || !meta[i].value)
			return -1;
		nmeta++;
	}
	return 0;
}

int collect_handlers_start(struct itrace_writer *w, const struct itrace_writer_options *wo)
{
	if (!chain || started)
		return 0; /* one chain for the run: the first trace's */
	if (copy_meta(wo) < 0) {
		cli_error("out of memory");
		return -1;
	}
	header.major = ITRACE_FORMAT_MAJOR;
	header.minor = ITRACE_FORMAT_MINOR;
	header.incompat_features = 0; /* the handlers see no BLOCK or BRANCH_SEQ */
	header.mem_table_log2 = (uint8_t)wo->mem_table_log2;
	header.machine = wo->machine;
	header.target_endian = wo->target_endian;
	header.level = wo->level;
	header.flags = wo->flags;
	header.meta_count = nmeta;
	writer = collect_to_writer ? w : NULL;
	if (itrace_handler_chain_start(chain, &header, meta, nmeta) < 0) {
		cli_error("%s", itrace_handler_chain_error(chain));
		return -1;
	}
	started = 1;
	cli_handler_catch_faults(on_fault, SA_RESETHAND | SA_NODEFER);
	pass_state.pass = pass;
	emit_pass = &pass_state;
	return 0;
}

void collect_handlers_finish(void)
{
	if (!started || finished)
		return;
	finished = 1;
	if (sigsetjmp(guard, 0)) {
		in_chain = 0;
		cli_handler_crashed(fault_sig, (const char *)fault_who, fault_index,
				    "no stream written");
		failed = 1;
		return;
	}
	in_chain = 1;
	if (itrace_handler_chain_stop(chain) < 0) {
		cli_error("%s", itrace_handler_chain_error(chain));
		failed = 1;
	}
	in_chain = 0;
}

int collect_handlers_failed(void)
{
	return failed;
}

void collect_handlers_free(void)
{
	emit_pass = NULL;
	itrace_handler_chain_free(chain);
	chain = NULL;
	for (size_t i = 0; i < nmeta; i++) {
		free((char *)meta[i].key);
		free((char *)meta[i].value);
	}
	free(meta);
	meta = NULL;
	nmeta = 0;
}

int collect_handlers_no_trace(void)
{
	return chain && !collect_to_writer;
}

int collect_handlers_executed(void)
{
	return executed;
}
