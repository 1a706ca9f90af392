/*
 * pipeline-sim - replay an instruction trace through a core model and say
 * where the cycles go: a CPI stack, and lost cycles by cause per function
 * and per instruction.  See the usage text below and README.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "core.h"
#include "input.h"
#include "report.h"
#include "sem.h"

static const char usage_text[] =
	"usage: pipeline-sim [options] TRACE\n"
	"\n"
	"Replay TRACE (an instruction-level itrace file with MEM records, or a\n"
	"qtrace file; '-' reads an itrace file from stdin) through a core model\n"
	"and report IPC, a CPI stack and the cycles lost per function and per\n"
	"instruction, by cause.\n"
	"\n"
	"  --core NAME|FILE   core description: a bundled preset (--list-cores)\n"
	"                     or a file in the same format (default " SIM_DEFAULT_PRESET ")\n"
	"  --set KEY=VALUE    override one key of the core description (repeatable)\n"
	"  --list-cores       print the bundled presets and exit\n"
	"  --print-core       print the core description in use and exit\n"
	"  --format F         auto (default), itrace or qtrace\n"
	"  --top N            rows in the per-function and per-instruction tables (10)\n"
	"  --json             machine-readable report\n"
	"  --timeline N       also print a timeline of the first N instructions\n"
	"  --kanata FILE      write a Kanata v4 log (for the Konata viewer) of the\n"
	"                     first --kanata-max instructions (default 10000)\n"
	"  --from N           start the timeline and Kanata window at instruction N\n"
	"  --max-insns N      stop after N instructions\n"
	"  --sysroot DIR      find the traced binaries under DIR\n"
	"  --elf FILE[@BIAS]  code and symbols from FILE's segments at their link\n"
	"                     addresses (+ BIAS), for traces without MMAP records\n"
	"                     (qtrace, synthetic); repeatable\n"
	"  --no-lines         do not look up source lines\n"
	"  -o FILE            write the report to FILE ('-' = stdout, the default)\n"
	"  -q, --quiet        no progress line\n"
	"  -v, --verbose      more detail on stderr\n"
	"  --help, --version\n";

enum {
	OPT_CORE = 256, OPT_SET, OPT_LIST, OPT_PRINT, OPT_FORMAT, OPT_TOP, OPT_JSON, OPT_TIMELINE,
	OPT_KANATA, OPT_KANATA_MAX, OPT_FROM, OPT_MAX, OPT_SYSROOT, OPT_ELF, OPT_NO_LINES, OPT_HELP, OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "core", required_argument, NULL, OPT_CORE },
	{ "set", required_argument, NULL, OPT_SET },
	{ "list-cores", no_argument, NULL, OPT_LIST },
	{ "print-core", no_argument, NULL, OPT_PRINT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "kanata", required_argument, NULL, OPT_KANATA },
	{ "kanata-max", required_argument, NULL, OPT_KANATA_MAX },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "max-insns", required_argument, NULL, OPT_MAX },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "elf", required_argument, NULL, OPT_ELF },
	{ "no-lines", no_argument, NULL, OPT_NO_LINES },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

struct options {
	const char *core, *output, *kanata, *sysroot, *trace;
	const char *sets[64];
	const char *elfs[16];
	int nelfs;
	int nsets, format, json, quiet, verbose, lines, print_core;
	uint64_t top, timeline, kanata_max, max_insns, from;
};

static uint64_t number_arg(const char *opt, const char *s)
{
	uint64_t v;

	if (cli_parse_u64(s, &v))
		cli_usage_error("%s: '%s' is not a number", opt, s);
	return v;
}

static void list_cores(void)
{
	for (size_t i = 0; i < sim_preset_count; i++) {
		const char *t = sim_presets[i].text;
		const char *nl;

		/* the first comment line describes the preset */
		if (t[0] == '#') {
			nl = strchr(t, '\n');
			printf("%-10s %.*s\n", sim_presets[i].name, (int)(nl ? nl - t - 2 : 60), t + 2);
		} else {
			printf("%s\n", sim_presets[i].name);
		}
	}
}

static void print_core(const struct sim_core_cfg *c)
{
	static const char *const bp[] = { "bimodal", "gshare", "tage" };
	static const char *const repl[] = { "lru", "fifo", "random" };
	const struct sim_cache_cfg *caches[4] = { &c->l1i, &c->l1d, &c->l2, &c->llc };
	static const char *const cnames[4] = { "l1i", "l1d", "l2", "llc" };

	printf("name = %s\nmodel = %s\n", c->name, c->inorder ? "inorder" : "ooo");
	printf("fetch_width = %u\ndispatch_width = %u\nretire_width = %u\n", c->fetch_width,
	       c->dispatch_width, c->retire_width);
	printf("frontend_depth = %u\nfetch_queue = %u\nrob = %u\niq = %u\nlq = %u\nsq = %u\n",
	       c->frontend_depth, c->fetch_queue, c->rob, c->iq, c->lq, c->sq);
	printf("mispredict_penalty = %u\nstore_forward_latency = %u\nports =", c->mispredict_penalty,
	       c->store_forward_latency);
	for (int p = 0; p < c->nports; p++)
		printf(" %s", c->port_names[p]);
	printf("\n");
	for (int k = 0; k < SIM_CLS_COUNT; k++) {
		int first = 1;

		printf("class.%s = ports=", sim_class_name(k));
		for (int p = 0; p < c->nports; p++)
			if (c->cls[k].port_mask & (1u << p)) {
				printf("%s%s", first ? "" : ",", c->port_names[p]);
				first = 0;
			}
		printf(" latency=%u occupancy=%u\n", c->cls[k].latency, c->cls[k].occupancy);
	}
	printf("bpred = %s\nbpred_bits = %u\nghist_bits = %u\nbtb_entries = %u\nras_entries = %u\n",
	       bp[c->bpred], c->bpred_bits, c->ghist_bits, c->btb_entries, c->ras_entries);
	for (int i = 0; i < 4; i++) {
		if (!caches[i]->enabled)
			printf("%s = none\n", cnames[i]);
		else
			printf("%s = size=%llu assoc=%u line=%u latency=%u repl=%s\n", cnames[i],
			       (unsigned long long)caches[i]->size, caches[i]->assoc, caches[i]->line,
			       caches[i]->latency, repl[caches[i]->repl]);
	}
	printf("mem_latency = %u\n", c->mem_latency);
	printf("prefetch = %s\n", c->prefetch == SIM_PF_STRIDE ? "stride" : "none");
	if (c->prefetch_degree)
		printf("prefetch_degree = %u\n", c->prefetch_degree);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	int ch;

	memset(o, 0, sizeof(*o));
	o->core = SIM_DEFAULT_PRESET;
	o->top = 10;
	o->kanata_max = 10000;
	o->lines = 1;
	while ((ch = getopt_long(argc, argv, "o:qv", long_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_CORE: o->core = optarg; break;
		case OPT_SET:
			if (o->nsets == 64)
				cli_usage_error("too many --set options");
			o->sets[o->nsets++] = optarg;
			break;
		case OPT_LIST: list_cores(); exit(0);
		case OPT_PRINT: o->print_core = 1; break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "auto"))
				o->format = SIM_FMT_AUTO;
			else if (!strcmp(optarg, "itrace"))
				o->format = SIM_FMT_ITRACE;
			else if (!strcmp(optarg, "qtrace"))
				o->format = SIM_FMT_QTRACE;
			else
				cli_usage_error("--format: expected auto, itrace or qtrace, not '%s'", optarg);
			break;
		case OPT_TOP: o->top = number_arg("--top", optarg); break;
		case OPT_JSON: o->json = 1; break;
		case OPT_TIMELINE: o->timeline = number_arg("--timeline", optarg); break;
		case OPT_KANATA: o->kanata = optarg; break;
		case OPT_KANATA_MAX: o->kanata_max = number_arg("--kanata-max", optarg); break;
		case OPT_MAX: o->max_insns = number_arg("--max-insns", optarg); break;
		case OPT_FROM: o->from = number_arg("--from", optarg); break;
		case OPT_SYSROOT: o->sysroot = optarg; break;
		case OPT_ELF:
			if (o->nelfs == 16)
				cli_usage_error("too many --elf options");
			o->elfs[o->nelfs++] = optarg;
			break;
		case OPT_NO_LINES: o->lines = 0; break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose++; break;
		case OPT_HELP: fputs(usage_text, stdout); exit(0);
		case OPT_VERSION: printf("pipeline-sim (itrace) %s\n", itrace_version()); exit(0);
		default: cli_usage_error("unknown option");
		}
	}
	if (o->top > 100000)
		cli_usage_error("--top: at most 100000");
	if (o->timeline > 100000 || o->kanata_max > 10000000)
		cli_usage_error("--timeline at most 100000, --kanata-max at most 10000000");
	if (o->print_core)
		return;
	if (optind + 1 != argc)
		cli_usage_error(optind == argc ? "no trace given" : "more than one trace given");
	o->trace = argv[optind];
}

static void load_core(const struct options *o, struct sim_core_cfg *cfg)
{
	char err[512];

	sim_config_init(cfg);
	if (sim_config_load(cfg, o->core, err, sizeof(err))) {
		cli_error("%s", err);
		exit(CLI_EXIT_USAGE);
	}
	for (int i = 0; i < o->nsets; i++)
		if (sim_config_set(cfg, o->sets[i], err, sizeof(err))) {
			cli_error("%s", err);
			exit(CLI_EXIT_USAGE);
		}
	if (sim_config_validate(cfg, err, sizeof(err))) {
		cli_error("core '%s': %s", o->core, err);
		exit(CLI_EXIT_USAGE);
	}
}

/* add_elfs - the --elf FILE[@BIAS] options. */
static int add_elfs(const struct options *o, struct sim_input *in)
{
	for (int i = 0; i < o->nelfs; i++) {
		char path[4096], err[600];
		const char *at = strrchr(o->elfs[i], '@');
		uint64_t bias = 0;

		snprintf(path, sizeof(path), "%.*s", at ? (int)(at - o->elfs[i]) : (int)strlen(o->elfs[i]),
			 o->elfs[i]);
		if (at && cli_parse_u64(at + 1, &bias)) {
			cli_error("--elf '%s': bias '%s' is not a number", o->elfs[i], at + 1);
			return -1;
		}
		if (sim_input_add_elf(in, path, bias, err, sizeof(err))) {
			cli_error("%s", err);
			return -1;
		}
	}
	return 0;
}

static int simulate(const struct options *o, struct sim_input *in, struct sim_semtab *t,
		    struct sim_core *core)
{
	struct cli_progress prog;
	const struct sim_dyn *d;
	int rc;

	cli_progress_init(&prog, "instructions", sim_input_total(in), o->quiet);
	while ((rc = sim_input_next(in, &d)) == 0) {
		struct sim_sem *s = sim_input_sem(in, t, d);

		if (!s) {
			cli_error("out of memory");
			exit(CLI_EXIT_BAD_INPUT);
		}
		sim_core_step(core, s, d);
		if ((core->insns & 0xffff) == 0)
			cli_progress(&prog, core->insns);
		if (o->max_insns && core->insns >= o->max_insns)
			break;
	}
	cli_progress_end(&prog);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct sim_core_cfg cfg;
	struct sim_input *in;
	struct sim_semtab *t;
	struct sim_core core;
	struct sim_report rep;
	uint64_t keep;
	char err[600];
	FILE *out = stdout;
	int status = 0, damaged;

	cli_init(argv[0]);
	parse_args(argc, argv, &o);
	load_core(&o, &cfg);
	if (o.print_core) {
		print_core(&cfg);
		return 0;
	}
	if (sim_input_open(o.trace, o.format, o.sysroot, &in, err, sizeof(err))) {
		cli_error("%s", err);
		return CLI_EXIT_BAD_INPUT;
	}
	if (add_elfs(&o, in)) {
		sim_input_close(in);
		return CLI_EXIT_BAD_INPUT;
	}
	if (!sim_input_has_mem(in) && !o.quiet)
		cli_warn("'%s' has no MEM records: every load and store is taken as an L1 hit", o.trace);
	t = sim_semtab_open(sim_input_arch(in));
	keep = o.timeline > (o.kanata ? o.kanata_max : 0) ? o.timeline : (o.kanata ? o.kanata_max : 0);
	if (!t || sim_core_init(&core, &cfg, keep)) {
		cli_error("out of memory");
		return CLI_EXIT_BAD_INPUT;
	}
	sim_core_keep_from(&core, o.from);
	damaged = simulate(&o, in, t, &core);
	if (damaged) {
		cli_error("'%s': %s; the report covers the %llu instructions before it", o.trace,
			  sim_input_error(in), (unsigned long long)core.insns);
		status = CLI_EXIT_BAD_INPUT;
	}
	if (o.verbose) {
		struct sim_input_stats st;

		sim_input_stats(in, &st);
		fprintf(stderr, "pipeline-sim: %zu static instructions (%zu without bytes), %llu gaps, "
				"%llu lost records, %llu MEM records before any instruction\n",
			sim_semtab_count(t), sim_semtab_undecoded(t), (unsigned long long)st.gaps,
			(unsigned long long)st.lost, (unsigned long long)st.mems_dropped);
	}
	if (sim_semtab_undecoded(t))
		cli_warn("%zu static instructions had no bytes (no INSN bytes, no readable binary); "
			 "they were simulated as one-cycle integer operations",
			 sim_semtab_undecoded(t));
	if (o.output && strcmp(o.output, "-")) {
		out = fopen(o.output, "w");
		if (!out) {
			cli_error("cannot create '%s': %s", o.output, strerror(errno));
			status = CLI_EXIT_BAD_INPUT;
			goto done;
		}
	}
	rep = (struct sim_report){ o.trace, &core, t, in, (int)o.top, o.lines };
	if (o.json)
		sim_report_json(out, &rep);
	else
		sim_report_text(out, &rep);
	if (o.timeline)
		sim_report_timeline(out, &rep, o.timeline);
	if (o.kanata) {
		FILE *k = fopen(o.kanata, "w");

		if (!k || sim_report_kanata(k, &rep) || fclose(k)) {
			cli_error("cannot write '%s': %s", o.kanata, strerror(errno));
			status = CLI_EXIT_BAD_INPUT;
		}
	}
	if (sim_input_symbol_problem(in) && !o.quiet)
		cli_warn("%s", sim_input_symbol_problem(in));
	if (out != stdout && fclose(out)) {
		cli_error("cannot write '%s': %s", o.output, strerror(errno));
		status = CLI_EXIT_BAD_INPUT;
	}
done:
	sim_core_free(&core);
	sim_semtab_close(t);
	sim_input_close(in);
	return status;
}
