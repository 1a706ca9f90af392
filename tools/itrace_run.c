/*
 * itrace-run - run handlers (shared objects, itrace_handler.h) over a
 * recorded trace: the offline driver of the handler chain.
 *
 *   itrace-run ./h.so[:ARGS] [./h2.so[:ARGS] ...] TRACE [-o FILTERED] [-j N]
 *
 * Every record passes the chain in order (itrace_handler_chain_record,
 * code/handler/); a branch-level trace is filled first, as the exporters
 * do.  With -o the kept records are written as a trace with the input's
 * header (filled: instruction level) and the metadata key "handlers";
 * without it only the handlers' streams are written.
 *
 * -j N: the handlers must all be shard-safe.  An instruction-level trace
 * is cut into N consecutive ranges of whole chunks, each run on a thread
 * by its own chain (one start/stop per shard, streams into a temporary
 * directory); the streams are then concatenated in shard order, and the
 * kept records copied in order, so the outputs equal -j 1's.  A
 * branch-level trace is filled with N threads and the chain runs once.
 *
 * A handler that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL): one line naming
 * the handler and the record index, no stream and no -o file left
 * behind (temporaries removed), exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "itrace.h"
#include "itrace_code.h"
#include "itrace_handler.h"

#define MAX_SHARDS 64

struct args {
	const char *input, *output, *streams, *sysroot, *debug_dir;
	char **specs;
	int nspecs;
	unsigned jobs;
	int quiet;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: itrace-run [options] HANDLER.so[:ARGS] [HANDLER.so[:ARGS] ...] TRACE\n"
		"Run handlers (shared objects built against itrace_handler.h) over every\n"
		"record of TRACE, in order; a record one drops goes no further.\n"
		"\n"
		"  -o, --output FILE   write the kept records to FILE (a trace); without\n"
		"                      it, only the handlers' streams are written\n"
		"      --streams DIR   where handlers' streams go, as DIR/NAME\n"
		"                      (default: the current directory)\n"
		"  -j, --jobs N        N shards in parallel (shard-safe handlers only)\n"
		"      --no-clobber    never replace an existing output\n"
		"      --sysroot DIR   look for mapped files under DIR\n"
		"      --debug-dir DIR build-id directory (default /usr/lib/debug)\n"
		"  -q, --quiet         no warning about an incomplete trace\n"
		"      --help          this text\n"
		"      --version       print the version\n");
}

static void parse_args(int argc, char **argv, struct args *a)
{
	enum { O_STREAMS = 256, O_SYSROOT, O_DEBUG_DIR, O_NO_CLOBBER, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "streams", required_argument, NULL, O_STREAMS },
		{ "jobs", required_argument, NULL, 'j' },
		{ "no-clobber", no_argument, NULL, O_NO_CLOBBER },
		{ "sysroot", required_argument, NULL, O_SYSROOT },
		{ "debug-dir", required_argument, NULL, O_DEBUG_DIR },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->jobs = 1;
	while ((c = getopt_long(argc, argv, "o:j:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': a->output = optarg; break;
		case 'j': a->jobs = (unsigned)cli_parse_count("-j", optarg, 1, MAX_SHARDS); break;
		case 'q': a->quiet = 1; break;
		case O_STREAMS: a->streams = optarg; break;
		case O_SYSROOT: a->sysroot = optarg; break;
		case O_DEBUG_DIR: a->debug_dir = optarg; break;
		case O_NO_CLOBBER: cli_set_no_clobber(1); break;
		case O_HELP: usage(stdout); exit(0);
		case O_VERSION: printf("itrace-run %s\n", itrace_version()); exit(0);
		default: cli_usage_error("unknown option");
		}
	}
	if (argc - optind < 2)
		cli_usage_error("need at least one handler and a trace");
	a->specs = argv + optind;
	a->nspecs = argc - optind - 1;
	a->input = argv[argc - 1];
}

/* ---- crashes ------------------------------------------------------------ */

static struct itrace_handler_chain *volatile chains[MAX_SHARDS];
static char out_temp[4352]; /* the -o temporary, for the fault handler */

static void on_fault(int sig)
{
	const char *who = NULL;
	uint64_t index = 0;

	for (int i = 0; i < MAX_SHARDS; i++) {
		const char *n;
		uint64_t at;

		if (chains[i] && (n = itrace_handler_chain_fault(chains[i], &at)) && !who) {
			who = n;
			index = at;
		}
	}
	if (out_temp[0])
		unlink(out_temp);
	if (who) {
		cli_handler_crashed(sig, who, index, "no output written");
		_exit(CLI_EXIT_BAD_INPUT);
	}
	{
		static const char msg[] = ": internal error: fatal signal outside any handler\n";

		if (write(2, cli_progname(), strlen(cli_progname())) >= 0 &&
		    write(2, msg, sizeof(msg) - 1) >= 0) {
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_faults(void)
{
	cli_handler_catch_faults(on_fault, SA_RESETHAND);
}

/* ---- one chain ---------------------------------------------------------- */

struct run {
	const struct args *a;
	struct itrace_reader *r;
	struct itrace_handler_chain *chain;
	struct itrace_writer *w;
	struct itrace_meta meta[512];
	size_t nmeta;
	char handlers_meta[4096];
	int damage;
};

/* make_chain - a chain of every handler of the command line, or NULL. */
static struct itrace_handler_chain *make_chain(const struct args *a, const char *stream_dir,
					       FILE *out, unsigned shard, unsigned shards,
					       struct itrace_writer *w)
{
	struct itrace_handler_chain_options o;

	itrace_handler_chain_options_init(&o);
	o.stream_dir = stream_dir;
	o.stdout_stream = out;
	o.out_flags = cli_output_flags();
	o.sysroot = a->sysroot;
	o.debug_dir = a->debug_dir;
	o.shard = shard;
	o.shards = shards;
	o.output = w ? itrace_fill_output_writer : NULL;
	o.output_arg = w;
	return cli_handler_chain(&o, a->specs, a->nspecs);
}

static int feed(void *arg, const struct itrace_record *rec)
{
	return itrace_handler_chain_record(arg, rec);
}

/*
 * run_records - chunks first..last-1 of r (all when last is 0) through
 * the chain (itrace_handler_chain_run).  Returns 0, the damage code with
 * its text in msg, or -1 after a chain error (its text in msg).
 */
static int run_records(struct itrace_reader *r, struct itrace_handler_chain *c, uint64_t first,
		       uint64_t last, char *msg, size_t msglen)
{
	int damage = 0;

	if (itrace_handler_chain_run(c, r, first, last, &damage) < 0) {
		snprintf(msg, msglen, "%s", itrace_handler_chain_error(c));
		return -1;
	}
	if (damage)
		snprintf(msg, msglen, "%s", itrace_reader_error(r));
	return damage;
}

/* writer_options - the output's options: the input's header, filled when
 * it is branch level, plus the handlers' names. */
static int writer_options(struct run *x, struct itrace_writer_options *wo)
{
	const struct itrace_header *h = itrace_reader_header(x->r);
	size_t cap = sizeof(x->meta) / sizeof(x->meta[0]) - 1, len = 0;

	if (h->meta_count > cap) {
		cli_error("'%s' has too much metadata (%zu entries)", x->a->input, h->meta_count);
		return -1;
	}
	if (h->level == ITRACE_LEVEL_BRANCH) {
		itrace_fill_writer_options(x->r, 0, wo, x->meta, cap);
	} else {
		itrace_writer_options_init(wo);
		wo->machine = h->machine;
		wo->target_endian = h->target_endian;
		wo->level = h->level;
		wo->flags = h->flags;
		wo->features = h->incompat_features;
		wo->mem_table_log2 = h->mem_table_log2;
		for (size_t i = 0; i < h->meta_count; i++)
			itrace_reader_meta_at(x->r, i, &x->meta[i].key, &x->meta[i].value);
	}
	x->nmeta = h->meta_count;
	for (size_t i = 0; i < x->nmeta; i++)
		if (strcmp(x->meta[i].key, "handlers") == 0)
			x->meta[i].key = "handlers.before"; /* an earlier run's */
	for (int i = 0; i < x->a->nspecs && len < sizeof(x->handlers_meta); i++)
		len += (size_t)snprintf(x->handlers_meta + len, sizeof(x->handlers_meta) - len, "%s%s",
					i ? " " : "", x->a->specs[i]);
	x->meta[x->nmeta].key = "handlers";
	x->meta[x->nmeta].value = x->handlers_meta;
	x->nmeta++;
	wo->meta = x->meta;
	wo->meta_count = x->nmeta;
	wo->out_flags = cli_output_flags();
	return 0;
}

/* open_output - the -o writer, its temporary remembered for on_fault. */
static struct itrace_writer *open_output(struct run *x, const char *path,
					 struct itrace_outfile **of)
{
	struct itrace_writer_options wo;
	struct itrace_writer *w;
	const char *tmp;
	int rc;

	if (writer_options(x, &wo) < 0 || !(*of = cli_output_create(path)))
		return NULL;
	if ((tmp = itrace_outfile_temp(*of)) && strlen(tmp) < sizeof(out_temp))
		strcpy(out_temp, tmp);
	rc = itrace_writer_open_fd(itrace_outfile_fd(*of), &wo, &w);
	if (rc < 0) {
		cli_error("cannot write '%s': %s", path, cli_errstr(rc));
		cli_output_finish(*of, 0);
		out_temp[0] = '\0';
		return NULL;
	}
	return w;
}

/* The end the output's footer repeats: the input's (its reader). */
static struct itrace_reader *end_of;

static int close_output(struct itrace_writer *w, struct itrace_outfile *of, const char *path,
			int ok)
{
	struct itrace_footer f = { .end_reason = ITRACE_END_UNKNOWN };
	int rc = 0;

	if (!of)
		return 0;
	if (end_of)
		itrace_reader_footer(end_of, &f);
	if (ok && (rc = itrace_writer_close(w, f.end_reason, f.end_status)) < 0)
		cli_error("cannot write '%s': %s", path, cli_errstr(rc));
	if (!ok)
		itrace_writer_abandon(w);
	out_temp[0] = '\0';
	return cli_output_finish(of, ok && rc == 0) < 0 || rc < 0 ? -1 : 0;
}

static int start_chain(struct run *x, struct itrace_handler_chain *c)
{
	if (itrace_handler_chain_start(c, itrace_reader_header(x->r), x->meta,
				       x->nmeta ? x->nmeta - 1 : 0) < 0) {
		cli_error("%s", itrace_handler_chain_error(c));
		return -1;
	}
	return 0;
}

/* The trace's metadata for the handlers (also without -o). */
static void read_meta(struct run *x)
{
	const struct itrace_header *h = itrace_reader_header(x->r);

	x->nmeta = 0;
	for (size_t i = 0; i < h->meta_count && i + 1 < sizeof(x->meta) / sizeof(x->meta[0]); i++)
		if (itrace_reader_meta_at(x->r, i, &x->meta[i].key, &x->meta[i].value) == 0)
			x->nmeta++;
	x->nmeta++; /* start_chain leaves out the last ("handlers") */
}

/* run_sequential - one chain over the whole trace (filled if branch level). */
static int run_sequential(struct run *x)
{
	const struct args *a = x->a;
	struct itrace_outfile *of = NULL;
	char msg[1024] = "";
	int rc, ok;

	if (a->output && !(x->w = open_output(x, a->output, &of)))
		return -1;
	if (!a->output)
		read_meta(x);
	if (!(x->chain = make_chain(a, a->streams, NULL, 0, 1, x->w)))
		goto fail;
	chains[0] = x->chain;
	if (start_chain(x, x->chain) < 0)
		goto fail;
	if (itrace_reader_header(x->r)->level == ITRACE_LEVEL_BRANCH) {
		struct itrace_fill_options fo;
		struct itrace_filler *f;

		itrace_fill_options_init(&fo);
		fo.sysroot = a->sysroot;
		fo.debug_dir = a->debug_dir;
		fo.jobs = a->jobs;
		if ((rc = itrace_filler_alloc(&fo, &f)) < 0) {
			cli_error("%s", cli_errstr(rc));
			goto fail;
		}
		rc = itrace_filler_run(f, x->r, strcmp(a->input, "-") ? a->input : NULL, feed, x->chain);
		if (rc < 0 && itrace_handler_chain_error(x->chain)[0]) {
			cli_error("%s", itrace_handler_chain_error(x->chain));
			itrace_filler_free(f);
			goto fail;
		}
		if (rc < 0)
			snprintf(msg, sizeof(msg), "%s", itrace_filler_error(f));
		itrace_filler_free(f);
	} else {
		rc = run_records(x->r, x->chain, 0, 0, msg, sizeof(msg));
		if (rc == -1) {
			cli_error("%s", msg);
			goto fail;
		}
	}
	if (rc < 0) {
		cli_error("'%s': %s", a->input, msg[0] ? msg : itrace_errstr(rc));
		x->damage = 1;
	}
	if (itrace_handler_chain_stop(x->chain) < 0) {
		cli_error("%s", itrace_handler_chain_error(x->chain));
		goto fail;
	}
	ok = close_output(x->w, of, a->output, 1) == 0;
	chains[0] = NULL;
	itrace_handler_chain_free(x->chain);
	return ok ? 0 : -1;
fail:
	chains[0] = NULL;
	itrace_handler_chain_free(x->chain);
	close_output(x->w, of, a->output, 0);
	return -1;
}

/* ---- shards -------------------------------------------------------------- */

struct shard {
	const struct args *a;
	struct run *x;
	unsigned index, count;
	uint64_t first, last;
	char dir[2100], trace[2200];
	FILE *out; /* its "-" stream */
	struct itrace_handler_chain *chain;
	int rc, damage;
	char msg[2600];
};

static void *shard_main(void *arg)
{
	struct shard *s = arg;
	struct itrace_reader *r = NULL;
	struct itrace_writer *w = NULL;
	struct itrace_writer_options wo;
	int rc;

	s->rc = -1;
	if ((rc = itrace_reader_open(s->a->input, &r)) < 0) {
		snprintf(s->msg, sizeof(s->msg), "cannot open '%s': %s", s->a->input, cli_errstr(rc));
		return NULL;
	}
	if (s->a->output) {
		struct run tmp = { .a = s->a, .r = r };

		writer_options(&tmp, &wo);
		wo.meta = NULL;
		wo.meta_count = 0;
		if ((rc = itrace_writer_open(s->trace, &wo, &w)) < 0) {
			snprintf(s->msg, sizeof(s->msg), "cannot create '%s': %s", s->trace, cli_errstr(rc));
			goto out;
		}
	}
	/* a chain of its own, whose kept records go to this shard's trace */
	{
		struct itrace_handler_chain_options o;

		itrace_handler_chain_options_init(&o);
		o.stream_dir = s->dir;
		o.stdout_stream = s->out;
		o.sysroot = s->a->sysroot;
		o.debug_dir = s->a->debug_dir;
		o.shard = s->index;
		o.shards = s->count;
		o.output = w ? itrace_fill_output_writer : NULL;
		o.output_arg = w;
		if (itrace_handler_chain_alloc(&o, &s->chain) < 0) {
			snprintf(s->msg, sizeof(s->msg), "out of memory");
			goto out;
		}
		for (int i = 0; i < s->a->nspecs; i++)
			if (itrace_handler_chain_load(s->chain, s->a->specs[i]) < 0) {
				snprintf(s->msg, sizeof(s->msg), "%s", itrace_handler_chain_error(s->chain));
				goto out;
			}
	}
	chains[s->index] = s->chain;
	if (itrace_handler_chain_start(s->chain, itrace_reader_header(r), s->x->meta,
				       s->x->nmeta - 1) < 0) {
		snprintf(s->msg, sizeof(s->msg), "%s", itrace_handler_chain_error(s->chain));
		goto out;
	}
	rc = run_records(r, s->chain, s->first, s->last, s->msg, sizeof(s->msg));
	if (rc == -1)
		goto out;
	s->damage = rc;
	if (itrace_handler_chain_stop(s->chain) < 0) {
		snprintf(s->msg, sizeof(s->msg), "%s", itrace_handler_chain_error(s->chain));
		goto out;
	}
	if (w && (rc = itrace_writer_close(w, ITRACE_END_COMPLETE, 0)) < 0) {
		w = NULL;
		snprintf(s->msg, sizeof(s->msg), "cannot write '%s': %s", s->trace, cli_errstr(rc));
		goto out;
	}
	w = NULL;
	s->rc = 0;
out:
	itrace_writer_abandon(w);
	itrace_reader_close(r);
	return NULL;
}

/* append_file - copy file `src` to fp.  Returns 0 or -1 (errno set). */
static int append_file(FILE *fp, const char *src)
{
	char buf[65536];
	FILE *in = fopen(src, "rb");
	size_t n;

	if (!in)
		return errno == ENOENT ? 0 : -1; /* this shard never opened it */
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, fp) != n) {
			fclose(in);
			return -1;
		}
	fclose(in);
	return 0;
}

/* merge_streams - each stream NAME of any shard into DIR/NAME, shards in order. */
static int merge_streams(const struct args *a, struct shard *sh, unsigned n)
{
	const char *dir = a->streams ? a->streams : ".";

	for (unsigned k = 0; k < n; k++)
		for (size_t i = 0; itrace_handler_stream_path(sh[k].chain, i); i++) {
			const char *name = strrchr(itrace_handler_stream_path(sh[k].chain, i), '/') + 1;
			char dest[4352], src[4352];
			struct itrace_outfile *of;
			int seen = 0;
			FILE *fp;

			for (unsigned j = 0; j < k && !seen; j++)
				for (size_t m = 0; itrace_handler_stream_path(sh[j].chain, m); m++)
					if (strcmp(strrchr(itrace_handler_stream_path(sh[j].chain, m), '/') + 1,
						   name) == 0)
						seen = 1;
			if (seen || strcmp(name, "-") == 0)
				continue;
			snprintf(dest, sizeof(dest), "%s/%s", dir, name);
			if (!(fp = cli_output_fopen(dest, &of)))
				return -1;
			for (unsigned j = k; j < n; j++) {
				snprintf(src, sizeof(src), "%s/%s", sh[j].dir, name);
				if (append_file(fp, src) < 0) {
					cli_error("cannot merge '%s': %s", src, strerror(errno));
					cli_output_fclose(fp, of, dest, 0);
					return -1;
				}
			}
			if (cli_output_fclose(fp, of, dest, 1) < 0)
				return -1;
		}
	for (unsigned k = 0; k < n; k++) {
		char buf[65536];
		size_t got;

		rewind(sh[k].out);
		while ((got = fread(buf, 1, sizeof(buf), sh[k].out)) > 0)
			fwrite(buf, 1, got, stdout);
	}
	return fflush(stdout) == 0 ? 0 : -1;
}

/* merge_traces - the shards' kept records, in order, into the -o file. */
static int merge_traces(struct run *x, struct shard *sh, unsigned n)
{
	struct itrace_outfile *of;
	struct itrace_writer *w = open_output(x, x->a->output, &of);
	int ok = w != NULL;

	for (unsigned k = 0; ok && k < n; k++) {
		struct itrace_reader *r;
		struct itrace_record rec;
		int rc;

		if (itrace_reader_open(sh[k].trace, &r) < 0) {
			cli_error("cannot read '%s'", sh[k].trace);
			ok = 0;
			break;
		}
		while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0)
			if ((rc = itrace_fill_output_writer(w, &rec)) < 0)
				break;
		if (rc < 0) {
			cli_error("cannot merge '%s': %s", sh[k].trace, cli_errstr(rc));
			ok = 0;
		}
		itrace_reader_close(r);
	}
	return w ? close_output(w, of, x->a->output, ok) : -1;
}

static void remove_tree(struct shard *sh, unsigned n, const char *top)
{
	for (unsigned k = 0; k < n; k++) {
		for (size_t i = 0; sh[k].chain && itrace_handler_stream_path(sh[k].chain, i); i++)
			unlink(itrace_handler_stream_path(sh[k].chain, i));
		unlink(sh[k].trace);
		rmdir(sh[k].dir);
	}
	rmdir(top);
}

static int run_shards(struct run *x)
{
	const struct args *a = x->a;
	int64_t nchunks = itrace_reader_chunk_count(x->r);
	struct shard sh[MAX_SHARDS];
	pthread_t th[MAX_SHARDS];
	char top[2048];
	unsigned n, k;
	int ok = 1;

	{
		struct itrace_handler_chain *probe = make_chain(a, NULL, NULL, 0, 1, NULL);

		if (!probe)
			return -1;
		if (!(itrace_handler_chain_flags(probe) & ITRACE_HANDLER_SHARD_SAFE)) {
			cli_error("-j %u: not every handler is shard-safe (ITRACE_HANDLER_SHARD_SAFE); "
				  "run it with -j 1", a->jobs);
			itrace_handler_chain_free(probe);
			return -2;
		}
		itrace_handler_chain_free(probe);
	}
	if (itrace_reader_header(x->r)->level == ITRACE_LEVEL_BRANCH || nchunks < 2)
		return run_sequential(x); /* the filler's -j; or nothing to cut */
	read_meta(x);
	n = a->jobs < (uint64_t)nchunks ? a->jobs : (unsigned)nchunks;
	snprintf(top, sizeof(top), "%s/.itrace-run.%ld.XXXXXX", a->streams ? a->streams : ".",
		 (long)getpid());
	if (!mkdtemp(top)) {
		cli_error("cannot create a temporary directory '%s': %s", top, strerror(errno));
		return -1;
	}
	memset(sh, 0, sizeof(sh));
	for (k = 0; k < n; k++) {
		struct shard *s = &sh[k];

		s->a = a;
		s->x = x;
		s->index = k;
		s->count = n;
		s->first = (uint64_t)nchunks * k / n;
		s->last = (uint64_t)nchunks * (k + 1) / n;
		snprintf(s->dir, sizeof(s->dir), "%s/%u", top, k);
		snprintf(s->trace, sizeof(s->trace), "%s/kept.itr", s->dir);
		if (mkdir(s->dir, 0700) < 0 || !(s->out = tmpfile())) {
			cli_error("cannot create '%s': %s", s->dir, strerror(errno));
			n = k + 1;
			ok = 0;
			break;
		}
	}
	for (k = 0; ok && k < n; k++)
		if (pthread_create(&th[k], NULL, shard_main, &sh[k]) != 0) {
			cli_error("cannot start a thread: %s", strerror(errno));
			for (unsigned j = 0; j < k; j++)
				pthread_join(th[j], NULL);
			ok = 0;
		}
	if (ok)
		for (k = 0; k < n; k++)
			pthread_join(th[k], NULL);
	for (k = 0; ok && k < n; k++) {
		if (sh[k].rc < 0) {
			cli_error("shard %u (chunks %llu-%llu): %s", k, (unsigned long long)sh[k].first,
				  (unsigned long long)sh[k].last - 1, sh[k].msg);
			ok = 0;
		} else if (sh[k].damage) {
			cli_error("'%s': %s", a->input, sh[k].msg);
			x->damage = 1;
		}
	}
	memset((void *)chains, 0, sizeof(chains));
	if (ok && merge_streams(a, sh, n) < 0)
		ok = 0;
	if (ok && a->output && merge_traces(x, sh, n) < 0)
		ok = 0;
	remove_tree(sh, n, top);
	for (k = 0; k < n; k++) {
		itrace_handler_chain_free(sh[k].chain);
		if (sh[k].out)
			fclose(sh[k].out);
	}
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct args a;
	struct run x;
	int rc;

	cli_init("itrace-run");
	parse_args(argc, argv, &a);
	catch_faults();
	memset(&x, 0, sizeof(x));
	x.a = &a;
	if (!(x.r = cli_open_trace(a.input)))
		return CLI_EXIT_BAD_INPUT;
	end_of = x.r;
	rc = a.jobs > 1 ? run_shards(&x) : run_sequential(&x);
	if (rc == 0 && !x.damage && !a.quiet)
		cli_warn_incomplete(x.r, a.input);
	itrace_reader_close(x.r);
	if (rc == -2)
		return CLI_EXIT_USAGE;
	return rc < 0 || x.damage ? CLI_EXIT_BAD_INPUT : 0;
}
