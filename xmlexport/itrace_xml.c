/*
 * itrace-xml - export the profile of an itrace trace as XML.
 *
 *   itrace-profile (default): the documented, versioned format whose
 *     schema is format/itrace-profile.xsd: modules, functions with their
 *     blocks and branches, call graph, call paths, source lines.
 *   cobertura: line coverage in Cobertura's format (coverage-04.dtd), for
 *     IDE coverage plugins and CI systems.
 *
 * Output is streamed with libxml2's xmlTextWriter: nothing but the
 * analysis tables (sized by the code executed, not by the trace) is kept.
 * Every string from the trace or the binaries goes through xml_text(),
 * which keeps the result well-formed whatever bytes a name holds.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxml/chvalid.h>
#include <libxml/encoding.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>

#include "cli.h"
#include "export_cli.h"
#include "itrace.h"
#include "itrace_code.h"

#define PROFILE_VERSION "1"

enum format { FORMAT_PROFILE, FORMAT_COBERTURA };

struct options {
	struct export_opts e;
	int format;
};

/* ---- text that is always well-formed ----------------------------------- */

/*
 * xml_text - copy `s` into a growing buffer as valid UTF-8 made only of
 * characters XML 1.0 allows.  A byte that is not part of valid UTF-8, or
 * a character XML forbids (control characters), becomes the text "\xHH"
 * per byte, so the name stays recognisable.  The writer escapes <&>".
 */
static const xmlChar *xml_text(const char *s)
{
	static char *buf;
	static size_t cap;
	size_t len = s ? strlen(s) : 0, need = 4 * len + 1, o = 0, i = 0;

	if (need > cap) {
		char *p = realloc(buf, need);

		if (!p)
			return BAD_CAST "";
		buf = p;
		cap = need;
	}
	while (i < len) {
		int n = (int)(len - i);
		int c = xmlGetUTF8Char((const unsigned char *)s + i, &n);

		if (c >= 0 && n > 0 && xmlIsCharQ(c)) {
			memcpy(buf + o, s + i, (size_t)n);
			o += (size_t)n;
			i += (size_t)n;
		} else {
			o += (size_t)sprintf(buf + o, "\\x%02x", (unsigned char)s[i]);
			i++;
		}
	}
	buf[o] = '\0';
	return BAD_CAST buf;
}

/* ---- writer helpers: any failure sticks in w->failed ---------------------- */

struct out {
	xmlTextWriterPtr w;
	int failed;
};

static void start(struct out *o, const char *name)
{
	if (xmlTextWriterStartElement(o->w, BAD_CAST name) < 0)
		o->failed = 1;
}

static void end(struct out *o)
{
	if (xmlTextWriterEndElement(o->w) < 0)
		o->failed = 1;
}

static void attr(struct out *o, const char *name, const char *value)
{
	if (xmlTextWriterWriteAttribute(o->w, BAD_CAST name, xml_text(value)) < 0)
		o->failed = 1;
}

static void attr_u64(struct out *o, const char *name, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	attr(o, name, buf);
}

static void attr_hex(struct out *o, const char *name, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)v);
	attr(o, name, v ? buf : "0x0");
}

static void attr_rate(struct out *o, const char *name, uint64_t part, uint64_t whole)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.4f", whole ? (double)part / (double)whole : 1.0);
	attr(o, name, buf);
}

/* ---- grouping rows by parent (tables are flat, the XML nests) ------------ */

/* An index of rows grouped by a 1-based parent id: rows of parent p are
 * row[first[p] .. first[p+1]). */
struct groups {
	size_t *first, *row;
};

static int group(struct groups *g, size_t parents, size_t n, uint64_t (*parent_of)(const void *, size_t),
		 const void *ctx)
{
	size_t i, *fill;

	g->first = calloc(parents + 2, sizeof(*g->first));
	g->row = malloc((n ? n : 1) * sizeof(*g->row));
	fill = calloc(parents + 2, sizeof(*fill));
	if (!g->first || !g->row || !fill) {
		free(fill);
		return -1;
	}
	for (i = 0; i < n; i++)
		g->first[parent_of(ctx, i) + 1]++;
	for (i = 1; i < parents + 2; i++)
		g->first[i] += g->first[i - 1];
	for (i = 0; i < n; i++) {
		uint64_t p = parent_of(ctx, i);

		g->row[g->first[p] + fill[p]++] = i;
	}
	free(fill);
	return 0;
}

static void groups_free(struct groups *g)
{
	free(g->first);
	free(g->row);
}

static uint64_t function_dso(const void *a, size_t i)
{
	return itrace_analysis_function_at(a, i)->dso_id;
}

static uint64_t block_function(const void *a, size_t i)
{
	return itrace_analysis_block_at(a, i)->function_id;
}

static uint64_t branch_function(const void *a, size_t i)
{
	return itrace_analysis_branch_stat_at(a, i)->function_id;
}

static uint64_t line_function(const void *a, size_t i)
{
	return itrace_analysis_line_at(a, i)->function_id;
}

/* ---- itrace-profile ------------------------------------------------------- */

static void write_function(struct out *o, const struct itrace_analysis *a,
			   const struct itrace_analysis_function *f, const struct groups *blocks,
			   const struct groups *branches)
{
	size_t k;

	start(o, "function");
	attr_u64(o, "id", f->id);
	attr(o, "name", f->name);
	attr_hex(o, "start", f->start);
	attr_u64(o, "size", f->size);
	attr_u64(o, "instructions", f->insns);
	attr_u64(o, "total-instructions", f->total_insns);
	attr_u64(o, "calls", f->calls);
	if (f->file) {
		attr(o, "file", f->file);
		attr_u64(o, "line", f->line);
	}
	for (k = blocks->first[f->id]; k < blocks->first[f->id + 1]; k++) {
		const struct itrace_analysis_block *b = itrace_analysis_block_at(a, blocks->row[k]);

		start(o, "block");
		attr_hex(o, "start", b->start);
		attr_hex(o, "end", b->end);
		attr_u64(o, "instructions", b->insn_count);
		attr_u64(o, "executions", b->executions);
		end(o);
	}
	for (k = branches->first[f->id]; k < branches->first[f->id + 1]; k++) {
		const struct itrace_analysis_branch_stat *s =
			itrace_analysis_branch_stat_at(a, branches->row[k]);

		start(o, "branch");
		attr_hex(o, "from", s->from);
		attr_hex(o, "to", s->to);
		attr_hex(o, "fallthrough", s->fallthrough);
		attr(o, "kind", itrace_branch_kind_name(s->kind));
		attr_u64(o, "executions", s->executions);
		attr_u64(o, "taken", s->taken);
		end(o);
	}
	end(o);
}

static void write_modules(struct out *o, const struct itrace_analysis *a)
{
	size_t nf = itrace_analysis_function_count(a), nd = itrace_analysis_dso_count(a), i, k;
	struct groups by_dso, blocks, branches;
	char bid[2 * 64 + 1];

	if (group(&by_dso, nd, nf, function_dso, a) < 0 ||
	    group(&blocks, nf, itrace_analysis_block_count(a), block_function, a) < 0 ||
	    group(&branches, nf, itrace_analysis_branch_stat_count(a), branch_function, a) < 0) {
		o->failed = 1;
		return;
	}
	start(o, "modules");
	for (i = 0; i < nd; i++) {
		const struct itrace_analysis_dso *d = itrace_analysis_dso_at(a, i);

		if (by_dso.first[d->id] == by_dso.first[d->id + 1])
			continue; /* mapped but never executed */
		start(o, "module");
		attr_u64(o, "id", d->id);
		attr(o, "name", d->short_name);
		attr(o, "path", d->path);
		if (d->buildid_len) {
			for (k = 0; k < d->buildid_len; k++)
				sprintf(bid + 2 * k, "%02x", d->buildid[k]);
			attr(o, "build-id", bid);
		}
		for (k = by_dso.first[d->id]; k < by_dso.first[d->id + 1]; k++)
			write_function(o, a, itrace_analysis_function_at(a, by_dso.row[k]), &blocks,
				       &branches);
		end(o);
	}
	end(o);
	groups_free(&by_dso);
	groups_free(&blocks);
	groups_free(&branches);
}

static void write_profile(struct out *o, const struct options *opt, struct itrace_reader *r,
			  const struct itrace_analysis *a, const char *incomplete)
{
	struct itrace_analysis_totals t;
	size_t i, n;
	const char *file = NULL;

	itrace_analysis_totals(a, &t);
	start(o, "itrace-profile");
	attr(o, "version", PROFILE_VERSION);
	start(o, "source");
	attr(o, "trace", opt->e.input);
	attr(o, "level", itrace_reader_header(r)->level == ITRACE_LEVEL_BRANCH ? "branch" : "insn");
	attr(o, "complete", incomplete ? "false" : "true");
	if (incomplete)
		attr(o, "damage", incomplete);
	attr(o, "exporter", "itrace-xml " ITRACE_VERSION_STRING);
	end(o);
	start(o, "totals");
	attr_u64(o, "instructions", t.insns);
	attr_u64(o, "branches", t.branches);
	attr_u64(o, "calls", t.calls);
	attr_u64(o, "threads", t.threads);
	attr_u64(o, "decode-failures", t.decode_failures);
	attr_u64(o, "gaps", t.gaps);
	end(o);

	start(o, "threads");
	for (i = 0, n = itrace_analysis_thread_count(a); i < n; i++) {
		const struct itrace_analysis_thread *th = itrace_analysis_thread_at(a, i);

		start(o, "thread");
		attr_u64(o, "id", th->id);
		attr_u64(o, "tid", th->tid);
		attr_u64(o, "pid", th->pid);
		attr(o, "comm", th->comm);
		attr_u64(o, "instructions", th->insns);
		attr_u64(o, "branches", th->branches);
		end(o);
	}
	end(o);

	write_modules(o, a);

	start(o, "call-graph");
	for (i = 0, n = itrace_analysis_edge_count(a); i < n; i++) {
		const struct itrace_analysis_edge *e = itrace_analysis_edge_at(a, i);

		start(o, "edge");
		attr_u64(o, "caller", e->caller_id);
		attr_u64(o, "callee", e->callee_id);
		attr_u64(o, "calls", e->calls);
		attr_u64(o, "instructions", e->insns);
		end(o);
	}
	end(o);

	start(o, "call-paths");
	for (i = 0, n = itrace_analysis_call_path_count(a); i < n; i++) {
		const struct itrace_analysis_call_path *p = itrace_analysis_call_path_at(a, i);

		start(o, "path");
		attr_u64(o, "id", p->id);
		attr_u64(o, "parent", p->parent_id);
		attr_u64(o, "function", p->function_id);
		attr_hex(o, "ip", p->ip);
		attr_u64(o, "calls", p->calls);
		attr_u64(o, "instructions", p->insns);
		end(o);
	}
	end(o);

	start(o, "source-files");
	for (i = 0, n = itrace_analysis_line_count(a); i < n; i++) {
		const struct itrace_analysis_line *l = itrace_analysis_line_at(a, i);

		if (!file || strcmp(file, l->file) != 0) { /* lines are sorted by file */
			if (file)
				end(o);
			file = l->file;
			start(o, "file");
			attr(o, "path", file);
		}
		start(o, "line");
		attr_u64(o, "number", l->line);
		attr_u64(o, "function", l->function_id);
		attr_u64(o, "executions", l->executions);
		attr_u64(o, "instructions", l->insns);
		end(o);
	}
	if (file)
		end(o);
	end(o);
	end(o);
}

/* ---- Cobertura --------------------------------------------------------------- */

/*
 * Mapping (Cobertura's coverage-04.dtd): the trace -> one package, source
 * file -> class, function -> method, source line -> line with hits = the
 * most executions of any of its instructions.  Every function with debug
 * info of each module that ran is listed (ITRACE_RUN_ALL_FUNCTIONS), so
 * lines of functions never called count with hits 0 and the rates are
 * over all of them.  A line holding conditional branches is a branch
 * line; each conditional branch has two outcomes (taken, not taken),
 * covered when seen.  Complexity is McCabe's: 1 + the conditional
 * branches of the method (a class or package: the mean of its methods).
 */
struct line_branches {
	uint64_t valid, covered;
};

struct cobertura {
	const struct itrace_analysis *a;
	struct line_branches *lb;     /* per line row */
	uint64_t *conditionals;	      /* per function id */
	struct groups by_function;    /* line rows of each function */
};

struct rates {
	uint64_t lines, covered, bvalid, bcovered;
	double complexity;
	uint64_t methods;
};

static void rates_add_line(struct rates *r, const struct cobertura *c, size_t row)
{
	r->lines++;
	r->covered += itrace_analysis_line_at(c->a, row)->executions > 0;
	r->bvalid += c->lb[row].valid;
	r->bcovered += c->lb[row].covered;
}

static void attr_complexity(struct out *o, double sum, uint64_t n)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.4g", n ? sum / (double)n : 0.0);
	attr(o, "complexity", buf);
}

static void attr_rates(struct out *o, const struct rates *r)
{
	attr_rate(o, "line-rate", r->covered, r->lines);
	attr_rate(o, "branch-rate", r->bcovered, r->bvalid);
}

static void write_lines(struct out *o, const struct cobertura *c, const size_t *rows, size_t n)
{
	size_t k;
	char cov[48];

	start(o, "lines");
	for (k = 0; k < n; k++) {
		const struct itrace_analysis_line *l = itrace_analysis_line_at(c->a, rows[k]);
		const struct line_branches *b = &c->lb[rows[k]];

		start(o, "line");
		attr_u64(o, "number", l->line);
		attr_u64(o, "hits", l->executions);
		attr(o, "branch", b->valid ? "true" : "false");
		if (b->valid) {
			snprintf(cov, sizeof(cov), "%llu%% (%llu/%llu)",
				 (unsigned long long)(100 * b->covered / b->valid),
				 (unsigned long long)b->covered, (unsigned long long)b->valid);
			attr(o, "condition-coverage", cov);
		}
		end(o);
	}
	end(o);
}

/* has_line_in - whether function f has a line among rows [from, to). */
static int has_line_in(const struct cobertura *c, uint64_t f, size_t from, size_t to)
{
	size_t k;

	for (k = c->by_function.first[f]; k < c->by_function.first[f + 1]; k++)
		if (c->by_function.row[k] >= from && c->by_function.row[k] < to)
			return 1;
	return 0;
}

/* add_complexity - the methods of rows [from, to) into r's mean. */
static void add_complexity(const struct cobertura *c, size_t from, size_t to, struct rates *r)
{
	size_t i, nf = itrace_analysis_function_count(c->a);

	for (i = 0; i < nf; i++) {
		uint64_t f = itrace_analysis_function_at(c->a, i)->id;

		if (has_line_in(c, f, from, to)) {
			r->complexity += 1.0 + (double)c->conditionals[f];
			r->methods++;
		}
	}
}

/* write_methods - the methods of the functions with lines in rows
 * [from, to) of the line table (one source file). */
static void write_methods(struct out *o, const struct cobertura *c, size_t from, size_t to,
			  size_t *rows)
{
	size_t i, k, m, nf = itrace_analysis_function_count(c->a);

	start(o, "methods");
	for (i = 0; i < nf; i++) {
		const struct itrace_analysis_function *f = itrace_analysis_function_at(c->a, i);
		struct rates mr = {0};
		double cx = 1.0 + (double)c->conditionals[f->id];

		m = 0;
		for (k = c->by_function.first[f->id]; k < c->by_function.first[f->id + 1]; k++) {
			size_t row = c->by_function.row[k];

			if (row >= from && row < to) {
				rows[m++] = row;
				rates_add_line(&mr, c, row);
			}
		}
		if (!m)
			continue;
		start(o, "method");
		attr(o, "name", f->name);
		attr(o, "signature", "");
		attr_rates(o, &mr);
		attr_complexity(o, cx, 1);
		write_lines(o, c, rows, m);
		end(o);
	}
	end(o);
}

/* One class per source file: rows [from, to) of the line table. */
static void write_class(struct out *o, const struct cobertura *c, size_t from, size_t to)
{
	const char *file = itrace_analysis_line_at(c->a, from)->file;
	const char *base = strrchr(file, '/');
	size_t *rows = malloc((to - from) * sizeof(*rows)), i;
	struct rates cr = {0};

	if (!rows) {
		o->failed = 1;
		return;
	}
	for (i = from; i < to; i++)
		rates_add_line(&cr, c, i);
	add_complexity(c, from, to, &cr);
	start(o, "class");
	attr(o, "name", base ? base + 1 : file);
	attr(o, "filename", file);
	attr_rates(o, &cr);
	attr_complexity(o, cr.complexity, cr.methods);
	write_methods(o, c, from, to, rows);
	for (i = from; i < to; i++)
		rows[i - from] = i;
	write_lines(o, c, rows, to - from);
	end(o);
	free(rows);
}

/* line_index - row of (file, line) in the sorted line table, or -1. */
static long line_index(const struct itrace_analysis *a, const char *file, uint32_t line)
{
	size_t lo = 0, hi = itrace_analysis_line_count(a);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct itrace_analysis_line *l = itrace_analysis_line_at(a, mid);
		int c = strcmp(l->file, file);

		if (c == 0)
			c = (l->line > line) - (l->line < line);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* cobertura_init - the per-line branch outcomes and per-function counts. */
static int cobertura_init(struct cobertura *c, const struct itrace_analysis *a)
{
	size_t nl = itrace_analysis_line_count(a), nf = itrace_analysis_function_count(a), i;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->lb = calloc(nl ? nl : 1, sizeof(*c->lb));
	c->conditionals = calloc(nf + 2, sizeof(*c->conditionals));
	if (!c->lb || !c->conditionals || group(&c->by_function, nf, nl, line_function, a) < 0)
		return -1;
	for (i = 0; i < itrace_analysis_branch_stat_count(a); i++) {
		const struct itrace_analysis_branch_stat *s = itrace_analysis_branch_stat_at(a, i);
		long row;

		if (s->kind != ITRACE_BRANCH_COND)
			continue;
		c->conditionals[s->function_id]++;
		if (!s->file || (row = line_index(a, s->file, s->line)) < 0)
			continue;
		c->lb[row].valid += 2;
		c->lb[row].covered += (s->taken > 0) + (s->executions > s->taken);
	}
	return 0;
}

static void cobertura_free(struct cobertura *c)
{
	free(c->lb);
	free(c->conditionals);
	groups_free(&c->by_function);
}

static void write_cobertura_doc(struct out *o, const struct itrace_analysis *a,
				const char *incomplete)
{
	size_t nl = itrace_analysis_line_count(a), i, from;
	struct rates all = {0};
	struct cobertura c;
	char stamp[24];

	if (cobertura_init(&c, a) < 0) {
		cobertura_free(&c);
		o->failed = 1;
		return;
	}
	for (i = 0; i < nl; i++)
		rates_add_line(&all, &c, i);
	add_complexity(&c, 0, nl, &all);
	if (xmlTextWriterWriteDTD(o->w, BAD_CAST "coverage", NULL,
				  BAD_CAST "http://cobertura.sourceforge.net/xml/coverage-04.dtd",
				  NULL) < 0)
		o->failed = 1;
	/* the DTD has no place for it: an incomplete trace is said in a comment */
	if (incomplete && xmlTextWriterWriteComment(o->w, xml_text(incomplete)) < 0)
		o->failed = 1;
	start(o, "coverage");
	attr_rates(o, &all);
	attr_u64(o, "lines-covered", all.covered);
	attr_u64(o, "lines-valid", all.lines);
	attr_u64(o, "branches-covered", all.bcovered);
	attr_u64(o, "branches-valid", all.bvalid);
	attr_complexity(o, all.complexity, all.methods);
	attr(o, "version", "itrace-xml " ITRACE_VERSION_STRING);
	snprintf(stamp, sizeof(stamp), "%lld", (long long)time(NULL) * 1000);
	attr(o, "timestamp", stamp);
	start(o, "sources");
	start(o, "source");
	/* file names are as DWARF has them: relative ones are relative to the
	 * directory the program was built in, usually where the report is read */
	if (xmlTextWriterWriteString(o->w, BAD_CAST ".") < 0)
		o->failed = 1;
	end(o);
	end(o);
	start(o, "packages");
	start(o, "package");
	attr(o, "name", "trace");
	attr_rates(o, &all);
	attr_complexity(o, all.complexity, all.methods);
	start(o, "classes");
	for (from = 0; from < nl; from = i) {
		const char *file = itrace_analysis_line_at(a, from)->file;

		for (i = from; i < nl && strcmp(itrace_analysis_line_at(a, i)->file, file) == 0; i++)
			;
		write_class(o, &c, from, i);
	}
	end(o);
	end(o);
	end(o);
	end(o);
	cobertura_free(&c);
}

/* ---- the export ------------------------------------------------------------- */

/* export - returns the exit status. */
static int export(const struct options *opt)
{
	struct itrace_analysis_options ao;
	struct itrace_analysis *a = NULL;
	struct itrace_reader *r;
	struct out o = {0};
	const char *path = cli_output_path(opt->e.output, 0);
	FILE *fp;
	const char *incomplete = NULL;
	int status = CLI_EXIT_BAD_INPUT;

	r = export_open(&opt->e);
	if (!r)
		return CLI_EXIT_BAD_INPUT;
	itrace_analysis_options_init(&ao);
	a = export_analyse(&opt->e, r, &ao, ITRACE_RUN_ALL_FUNCTIONS, 1, &incomplete);
	if (!a)
		goto out;
	fp = export_output_open(path);
	if (!fp)
		goto out;
	o.w = xmlNewTextWriter(xmlOutputBufferCreateFile(fp, NULL));
	if (!o.w) {
		cli_error("cannot write '%s': out of memory", path);
		export_output_close(fp, path, 1);
		goto out;
	}
	xmlTextWriterSetIndent(o.w, 1);
	xmlTextWriterSetIndentString(o.w, BAD_CAST " ");
	if (xmlTextWriterStartDocument(o.w, "1.0", "UTF-8", NULL) < 0)
		o.failed = 1;
	if (opt->format == FORMAT_COBERTURA)
		write_cobertura_doc(&o, a, incomplete);
	else
		write_profile(&o, opt, r, a, incomplete);
	if (xmlTextWriterEndDocument(o.w) < 0 || xmlTextWriterFlush(o.w) < 0)
		o.failed = 1;
	xmlFreeTextWriter(o.w); /* flushes; the FILE stays ours */
	if (export_output_close(fp, path, o.failed) < 0)
		goto out;
	status = incomplete ? CLI_EXIT_BAD_INPUT : 0;
out:
	itrace_analysis_free(a);
	itrace_reader_close(r);
	return status;
}

static void usage(void)
{
	printf("usage: %s [options] TRACE [-o FILE]\n"
	       "Export the profile of an itrace trace (TRACE, '-' = stdin) as XML.\n"
	       "Branch-level traces are filled through the traced binaries first.\n"
	       "\n"
	       "  -o, --output FILE     where to write ('-' or absent: stdout)\n"
	       "  -f, --format FORMAT   itrace-profile (default; format/itrace-profile.xsd)\n"
	       "                        or cobertura (line coverage, coverage-04.dtd)\n"
	       EXPORT_COMMON_USAGE,
	       cli_progname());
}

static void handle_option(int c, const char *arg, void *tool_opts)
{
	struct options *o = tool_opts;

	if (c != 'f')
		cli_usage_error("unknown option");
	if (strcmp(arg, "itrace-profile") == 0)
		o->format = FORMAT_PROFILE;
	else if (strcmp(arg, "cobertura") == 0)
		o->format = FORMAT_COBERTURA;
	else
		cli_usage_error("unknown format '%s' (use itrace-profile or cobertura)", arg);
}

/* libxml2 would print its own I/O messages; ours say it in one line. */
static void quiet_xml_errors(void *ctx, const char *msg, ...)
{
	(void)ctx, (void)msg;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};
	struct options o = {0};
	const struct export_tool tool = {"f:", longopts, handle_option, &o, usage};

	cli_init(argv[0]);
	export_parse_args(argc, argv, &tool, &o.e);
	LIBXML_TEST_VERSION
	xmlSetGenericErrorFunc(NULL, quiet_xml_errors);
	return export(&o);
}
