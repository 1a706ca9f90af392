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
#include <unistd.h>

#include "calibrate.h"
#include "callgrind_out.h"
#include "cli.h"
#include "config.h"
#include "core.h"
#include "host.h"
#include "input.h"
#include "report.h"
#include "sem.h"
#include "timeline_json.h"

static const char usage_text[] =
	"usage: pipeline-sim [options] TRACE\n"
	"\n"
	"Replay TRACE (an instruction-level itrace file with MEM records, or a\n"
	"qtrace file; '-' reads an itrace file from stdin) through a core model\n"
	"and report IPC, a CPI stack and the cycles lost per function and per\n"
	"instruction, by cause.\n"
	"\n"
	"  --core NAME|FILE   core description: a bundled preset (--list-cores),\n"
	"                     'host' (the file $ITRACE_HOST_CORE names, else the\n"
	"                     preset of the CPU this runs on, from CPUID), or a\n"
	"                     file in the same format (default " SIM_DEFAULT_PRESET ")\n"
	"  --set KEY=VALUE    override one key of the core description (repeatable)\n"
	"  --list-cores       print the bundled presets and exit\n"
	"  --print-core       print the core description in use and exit\n"
	"  --calibrate        measure this machine's core with microbenchmarks and\n"
	"                     write a core description (-o FILE) for --core FILE\n"
	"  --format F         auto (default), itrace or qtrace\n"
	"  --top N            rows in the per-function and per-instruction tables (10)\n"
	"  --json             machine-readable report\n"
	"  --timeline N       also print a timeline of the first N instructions\n"
	"  --kanata FILE      write a Kanata v4 log (for the Konata viewer) of the\n"
	"                     first --kanata-max instructions (default 10000)\n"
	"  --callgrind FILE   write a callgrind profile (KCachegrind, callgrind_annotate):\n"
	"                     Ir, Cycles and stall cycles by cause per instruction, line\n"
	"                     and call\n"
	"  --call-timeline FILE  write the calls over simulated cycles as Chrome Trace\n"
	"                     Event JSON (Perfetto UI, speedscope)\n"
	"  --from N           start the timeline and Kanata window at instruction N\n"
	"  --max-insns N      stop after N instructions\n"
	"  --sysroot DIR      find the traced binaries under DIR\n"
	"  --elf FILE[@BIAS]  code and symbols from FILE's segments at their link\n"
	"                     addresses (+ BIAS), for traces without MMAP records\n"
	"                     (qtrace, synthetic); repeatable\n"
	"  --no-lines         do not look up source lines\n"
	"  -o FILE            write the report to FILE ('-' = stdout, the default)\n"
	"  --no-clobber       never replace an existing -o or --kanata file (files\n"
	"                     are otherwise replaced only once complete)\n"
	"  -q, --quiet        no progress line\n"
	"  -v, --verbose      more detail on stderr\n"
	"  --help, --version\n";

enum {
	OPT_CORE = 256, OPT_SET, OPT_LIST, OPT_PRINT, OPT_FORMAT, OPT_TOP, OPT_JSON, OPT_TIMELINE,
	OPT_KANATA, OPT_KANATA_MAX, OPT_CALLGRIND, OPT_CALL_TIMELINE, OPT_FROM, OPT_MAX, OPT_SYSROOT, OPT_ELF,
	OPT_NO_LINES, OPT_HELP, OPT_VERSION, OPT_NO_CLOBBER, OPT_CALIBRATE,
};

static const struct option long_opts[] = {
	{ "core", required_argument, NULL, OPT_CORE },
	{ "set", required_argument, NULL, OPT_SET },
	{ "list-cores", no_argument, NULL, OPT_LIST },
	{ "print-core", no_argument, NULL, OPT_PRINT },
	{ "calibrate", no_argument, NULL, OPT_CALIBRATE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "kanata", required_argument, NULL, OPT_KANATA },
	{ "kanata-max", required_argument, NULL, OPT_KANATA_MAX },
	{ "callgrind", required_argument, NULL, OPT_CALLGRIND },
	{ "call-timeline", required_argument, NULL, OPT_CALL_TIMELINE },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "max-insns", required_argument, NULL, OPT_MAX },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "elf", required_argument, NULL, OPT_ELF },
	{ "no-lines", no_argument, NULL, OPT_NO_LINES },
	{ "no-clobber", no_argument, NULL, OPT_NO_CLOBBER },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

struct options {
	const char *core, *output, *kanata, *sysroot, *trace, *callgrind, *call_timeline;
	const char *sets[64];
	const char *elfs[16];
	int nelfs;
	int nsets, format, json, quiet, verbose, lines, print_core, calibrate;
	uint64_t top, timeline, kanata_max, max_insns, from;
};

static uint64_t number_arg(const char *opt, const char *s)
{
	return cli_parse_count(opt, s, 0, UINT64_MAX);
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
		case OPT_CALIBRATE: o->calibrate = 1; break;
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
		case OPT_CALLGRIND: o->callgrind = optarg; break;
		case OPT_CALL_TIMELINE: o->call_timeline = optarg; break;
		case OPT_MAX: o->max_insns = number_arg("--max-insns", optarg); break;
		case OPT_FROM: o->from = number_arg("--from", optarg); break;
		case OPT_SYSROOT: o->sysroot = optarg; break;
		case OPT_ELF:
			if (o->nelfs == 16)
				cli_usage_error("too many --elf options");
			o->elfs[o->nelfs++] = optarg;
			break;
		case OPT_NO_LINES: o->lines = 0; break;
		case OPT_NO_CLOBBER: cli_set_no_clobber(1); break;
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
	if (o->print_core || o->calibrate)
		return;
	if (optind + 1 != argc)
		cli_usage_error(optind == argc ? "no trace given" : "more than one trace given");
	o->trace = argv[optind];
}

/* host_preset - what --core host stands for, said on stderr: the file in
 * ITRACE_HOST_CORE (a --calibrate output), else the CPU's preset. */
static const char *host_preset(const struct options *o)
{
	struct sim_host h;
	const char *name;
	char why[200];
	int exact;
	const char *saved = getenv("ITRACE_HOST_CORE");

	/* a description --calibrate measured on this machine comes first */
	if (saved && *saved) {
		if (!o->quiet)
			fprintf(stderr, "pipeline-sim: --core host: %s (ITRACE_HOST_CORE)\n", saved);
		return saved;
	}
	if (sim_host_identify(&h) || !(name = sim_host_preset(&h, &exact, why, sizeof(why)))) {
		cli_error("--core host: no preset models this machine's CPU; "
			  "'pipeline-sim --calibrate -o host.core' measures one for --core host.core");
		exit(CLI_EXIT_USAGE);
	}
	if (!exact)
		cli_warn("--core host: %s (%s); using %s, the nearest preset "
			 "('pipeline-sim --calibrate -o host.core' measures this one)",
			 h.brand, why, name);
	else if (!o->quiet)
		fprintf(stderr, "pipeline-sim: --core host: %s (%s family 0x%x model 0x%x): %s\n", h.brand,
			h.vendor, h.family, h.model, name);
	return name;
}

static void load_core(const struct options *o, struct sim_core_cfg *cfg)
{
	char err[512];
	const char *core = strcmp(o->core, "host") ? o->core : host_preset(o);

	sim_config_init(cfg);
	if (sim_config_load(cfg, core, err, sizeof(err))) {
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
		    struct sim_core *core, struct sim_calls *calls)
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
		if (s->flags & SIM_SEM_UNDECODABLE) {
			s->count++; /* not simulated: reported at the end */
			continue;
		}
		sim_core_step(core, s, d);
		if (calls && sim_calls_step(calls, d) < 0) {
			cli_error("out of memory");
			exit(CLI_EXIT_BAD_INPUT);
		}
		if ((core->insns & 0xffff) == 0)
			cli_progress(&prog, core->insns);
		if (o->max_insns && core->insns >= o->max_insns)
			break;
	}
	cli_progress_end(&prog);
	return rc < 0 ? -1 : 0;
}

/* incomplete_text - what the profiles must say of a trace that is
 * damaged or records lost data; NULL when whole. */
static const char *incomplete_text(struct sim_input *in, int damaged)
{
	static char text[640];
	struct sim_input_stats st;

	if (damaged)
		return sim_input_error(in);
	sim_input_stats(in, &st);
	if (sim_input_damage(in)) {
		snprintf(text, sizeof(text), "the trace is damaged: %llu chunks skipped (first: %s)",
			 (unsigned long long)st.chunks_lost, sim_input_damage(in));
		return text;
	}
	if (!st.gaps && !st.lost)
		return NULL;
	snprintf(text, sizeof(text), "the trace records lost data: %llu gaps, %llu lost records",
		 (unsigned long long)st.gaps, (unsigned long long)st.lost);
	return text;
}

/* write_call_outputs - --callgrind and --call-timeline; 0 or -1. */
static int write_call_outputs(const struct options *o, const struct sim_report *rep,
			      struct sim_calls *calls, const char *incomplete)
{
	uint64_t merged = 0, threshold = 0;
	struct itrace_outfile *of;
	int rc = 0;
	FILE *f;

	if (o->callgrind) {
		f = cli_output_fopen(o->callgrind, &of);
		if (!f || cli_output_fclose(f, of, o->callgrind,
					    sim_report_callgrind(f, rep, calls, incomplete) == 0) < 0)
			rc = -1;
	}
	if (o->call_timeline) {
		f = cli_output_fopen(o->call_timeline, &of);
		if (!f || cli_output_fclose(f, of, o->call_timeline,
					    sim_report_call_timeline(f, rep, calls, incomplete, &merged,
								     &threshold) == 0) < 0) {
			rc = -1;
		} else if (merged && !o->quiet) {
			cli_warn("%llu calls shorter than %llu cycles were merged into their callers: "
				 "a file holds at most %u calls",
				 (unsigned long long)merged, (unsigned long long)threshold,
				 TIMELINE_DEFAULT_MAX_EVENTS);
		}
	}
	return rc;
}

/*
 * report_damage - corrupt chunks that the reader skipped: the simulation
 * went on without them, so the report lacks their instructions.  Returns
 * 1 if there were any (the exit status is then 1).
 */
static int report_damage(const struct options *o, const struct sim_input *in, uint64_t insns)
{
	struct sim_input_stats st;
	uint64_t total = sim_input_total(in);
	char of[64] = "";

	if (!sim_input_damage(in))
		return 0;
	sim_input_stats(in, &st);
	if (total > insns && !o->max_insns)
		snprintf(of, sizeof(of), " of the %llu in the trace", (unsigned long long)total);
	cli_error("'%s' is damaged: %llu chunk%s skipped (first: %s); the report covers the "
		  "%llu instructions read%s",
		  o->trace, (unsigned long long)st.chunks_lost, st.chunks_lost == 1 ? "" : "s",
		  sim_input_damage(in), (unsigned long long)insns, of);
	return 1;
}

/* calibrate - --calibrate: measure, write the description through the
 * output helper (a temporary renamed into place when complete). */
static int calibrate(const struct options *o)
{
	struct itrace_outfile *of;
	char err[256];
	FILE *out = cli_output_fopen(o->output ? o->output : "-", &of);
	int rc;

	if (!out)
		return CLI_EXIT_BAD_INPUT;
	rc = sim_calibrate(out, o->quiet ? NULL : stderr, 31, err, sizeof(err));
	if (rc)
		cli_error("%s", err);
	if (cli_output_fclose(out, of, o->output ? o->output : "-", rc == 0) < 0 && !rc)
		return CLI_EXIT_BAD_INPUT;
	return rc ? CLI_EXIT_USAGE : 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct sim_core_cfg cfg;
	struct sim_input *in;
	struct sim_semtab *t;
	struct sim_core core;
	struct sim_report rep;
	struct sim_calls *calls = NULL;
	uint64_t keep;
	char err[600];
	struct itrace_outfile *out_file = NULL;
	FILE *out;
	int status = 0, damaged;

	cli_init(argv[0]);
	parse_args(argc, argv, &o);
	if (o.calibrate)
		return calibrate(&o);
	load_core(&o, &cfg);
	if (o.print_core) {
		sim_config_print(stdout, &cfg);
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
	if ((o.callgrind || o.call_timeline) &&
	    !(calls = sim_calls_open(in, &core, o.callgrind != NULL, o.call_timeline != NULL, 0))) {
		cli_error("out of memory");
		return CLI_EXIT_BAD_INPUT;
	}
	damaged = simulate(&o, in, t, &core, calls);
	if (calls && sim_calls_finish(calls) < 0) {
		cli_error("out of memory");
		return CLI_EXIT_BAD_INPUT;
	}
	if (report_damage(&o, in, core.insns))
		status = CLI_EXIT_BAD_INPUT;
	if (damaged) {
		cli_error("'%s': %s; the report covers the %llu instructions before it", o.trace,
			  sim_input_error(in), (unsigned long long)core.insns);
		status = CLI_EXIT_BAD_INPUT;
	}
	if (o.verbose) {
		struct sim_input_stats st;

		sim_input_stats(in, &st);
		fprintf(stderr, "pipeline-sim: %zu static instructions (%zu without bytes, %zu undecodable), %llu gaps, "
				"%llu lost records, %llu MEM records before any instruction\n",
			sim_semtab_count(t), sim_semtab_undecoded(t), sim_semtab_undecodable(t),
			(unsigned long long)st.gaps, (unsigned long long)st.lost,
			(unsigned long long)st.mems_dropped);
	}
	if (sim_semtab_undecoded(t))
		cli_warn("%zu static instructions had no bytes (no INSN bytes, no readable binary); "
			 "they were simulated as one-cycle integer operations",
			 sim_semtab_undecoded(t));
	sim_semtab_report_undecodable(t, stderr, "pipeline-sim", 5);
	out = cli_output_fopen(o.output, &out_file);
	if (!out) {
		status = CLI_EXIT_BAD_INPUT;
		goto done;
	}
	rep = (struct sim_report){ o.trace, &core, t, in, (int)o.top, o.lines };
	if (o.json)
		sim_report_json(out, &rep);
	else
		sim_report_text(out, &rep);
	if (o.timeline)
		sim_report_timeline(out, &rep, o.timeline);
	if (o.kanata) {
		struct itrace_outfile *kf;
		FILE *k = cli_output_fopen(o.kanata, &kf);

		if (!k || cli_output_fclose(k, kf, o.kanata, sim_report_kanata(k, &rep) == 0) < 0)
			status = CLI_EXIT_BAD_INPUT;
	}
	if (calls && write_call_outputs(&o, &rep, calls, incomplete_text(in, damaged)))
		status = CLI_EXIT_BAD_INPUT;
	if (sim_input_symbol_problem(in) && !o.quiet)
		cli_warn("%s", sim_input_symbol_problem(in));
	if (sim_input_itrace_read(in))
		cli_warn_incomplete(sim_input_itrace_read(in), o.trace);
	if (cli_output_fclose(out, out_file, o.output, 1) < 0)
		status = CLI_EXIT_BAD_INPUT;
done:
	sim_calls_close(calls);
	sim_core_free(&core);
	sim_semtab_close(t);
	sim_input_close(in);
	return status;
}
