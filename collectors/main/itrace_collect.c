/*
 * itrace_collect.c - itrace-collect: parse the options, pick a backend,
 * run it and exit with the traced program's status.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "collect_handlers.h"
#include "collect_program.h"
#include "collect_writer.h"

#define EM_X86_64_MACHINE 62

/* Backend i in registration order (ptrace first); NULL past the end. */
static const struct collect_backend *backend_at(size_t i)
{
	const struct collect_backend *all[] = {
		&collect_backend_ptrace, &collect_backend_bts, &collect_backend_gdb,
		&collect_backend_valgrind, &collect_backend_qemu,
	};
	size_t k = 0;

	for (size_t j = 0; j < sizeof(all) / sizeof(all[0]); j++)
		if (all[j] && k++ == i) /* weak ones are NULL when not linked in */
			return all[j];
	return NULL;
}

static void usage(void)
{
	printf("usage: itrace-collect [options] -- PROGRAM [ARGS...]\n"
	       "       itrace-collect [options] -p PID\n"
	       "\n"
	       "Trace a program at instruction or branch level into an itrace file.\n"
	       "Exits with the traced program's exit status (128+N if killed by signal N).\n"
	       "\n"
	       "  -l, --level LEVEL     insn (INSN + MEM records, default) or branch\n"
	       "  -o, --output FILE     trace file (default trace.itr); with '-' the trace goes\n"
	       "                        to stdout and the program's stdout to stderr; an\n"
	       "                        existing FILE is replaced when the first second of\n"
	       "                        trace is written (at least once a second after)\n"
	       "      --no-clobber      never replace an existing FILE\n"
	       "  -p, --pid PID         attach to a running process (detach at the end)\n"
	       "      --start EVENT     trace from EVENT (only inside FUNC unless --stop or\n"
	       "                        --for); repeatable.  EVENT: FUNC, FUNC#N (its Nth\n"
	       "                        entry), GLOB, ret:FUNC, addr:0xADDR[@MODULE], any of\n"
	       "                        these + ' if argK OP VALUE' (K 0..5, OP == != < <=\n"
	       "                        > >=), insns:N, signal:NAME (see README)\n"
	       "      --stop EVENT      stop tracing at EVENT (insns:N: N after it opened)\n"
	       "      --for insns:N     each window is N instructions long\n"
	       "      --every insns:P   a window (of --for insns:L) every P instructions\n"
	       "      --start-addr A    like --start at address A\n"
	       "      --stop-addr A     like --stop at address A\n"
	       "      --only MODULE     trace only MODULE ('main' = the executable, a path\n"
	       "                        or a basename); calls elsewhere run at full speed\n"
	       "      --follow-fork     trace forked children too\n"
	       "      --user-only       user code only (the default; syscalls are SYSCALL records)\n"
	       "      --aslr            keep address-space randomisation (off by default)\n"
	       "      --insn-bytes      store each instruction's bytes in the trace (bigger;\n"
	       "                        without it tools read code from the mapped files)\n"
	       "      --user, --kernel  branches to keep (bts backend; --user by default)\n"
	       "      --ring N          flight recorder: keep the last N branches, write\n"
	       "                        them when the program ends (implies --level branch)\n"
	       "      --backend NAME    auto (default: valgrind for programs it starts,\n"
	       "                        ptrace for -p or where valgrind cannot; -v says\n"
	       "                        which and why), ");
	for (size_t i = 0; backend_at(i); i++)
		printf("%s%s", i ? ", " : "", backend_at(i)->name);
	printf("\n"
	       "      --no-pin          ptrace: leave the CPU affinity alone (by default the\n"
	       "                        collector and the program it starts share one CPU)\n"
	       "      --list-backends   show the backends and whether they work here\n"
	       "      --remote HOST:PORT  gdb backend: connect to a gdb server\n"
	       "      --arch ARCH       qemu backend: the program's architecture (ppc64le, x86-64)\n"
	       "      --sysroot DIR     qemu backend: where the program's libraries are\n"
	       "      --handler H.so[:ARGS]  run a handler (itrace_handler.h) on every record\n"
	       "                        before it is written (repeatable: a chain, in order);\n"
	       "                        the trace holds what the handlers keep\n"
	       "      --streams DIR     where handlers' streams go (default: the current\n"
	       "                        directory)\n"
	       "  -o none               with --handler: write no trace, only the handlers'\n"
	       "                        streams\n"
	       "      --no-compress     write uncompressed chunks\n"
	       "  -q, --quiet           no progress line, no summary\n"
	       "  -v, --verbose         say what is traced and how\n"
	       "      --help            this text\n"
	       "      --version         the version\n");
}

enum long_only {
	OPT_START = 256, OPT_STOP, OPT_START_ADDR, OPT_STOP_ADDR, OPT_ONLY, OPT_FOLLOW_FORK,
	OPT_ASLR, OPT_RING, OPT_BACKEND, OPT_REMOTE, OPT_HELP, OPT_VERSION, OPT_LIST,
	OPT_NO_COMPRESS, OPT_USER_ONLY, OPT_INSN_BYTES, OPT_USER, OPT_KERNEL,
	OPT_ARCH, OPT_SYSROOT, OPT_NO_CLOBBER, OPT_NO_PIN, OPT_FOR, OPT_EVERY, OPT_HANDLER,
	OPT_STREAMS,
};

static const struct option long_options[] = {
	{"level", required_argument, NULL, 'l'},
	{"output", required_argument, NULL, 'o'},
	{"pid", required_argument, NULL, 'p'},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"start", required_argument, NULL, OPT_START},
	{"stop", required_argument, NULL, OPT_STOP},
	{"for", required_argument, NULL, OPT_FOR},
	{"every", required_argument, NULL, OPT_EVERY},
	{"start-addr", required_argument, NULL, OPT_START_ADDR},
	{"stop-addr", required_argument, NULL, OPT_STOP_ADDR},
	{"only", required_argument, NULL, OPT_ONLY},
	{"follow-fork", no_argument, NULL, OPT_FOLLOW_FORK},
	{"user-only", no_argument, NULL, OPT_USER_ONLY},
	{"aslr", no_argument, NULL, OPT_ASLR},
	{"ring", required_argument, NULL, OPT_RING},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"remote", required_argument, NULL, OPT_REMOTE},
	{"list-backends", no_argument, NULL, OPT_LIST},
	{"no-compress", no_argument, NULL, OPT_NO_COMPRESS},
	{"insn-bytes", no_argument, NULL, OPT_INSN_BYTES},
	{"user", no_argument, NULL, OPT_USER},
	{"kernel", no_argument, NULL, OPT_KERNEL},
	{"arch", required_argument, NULL, OPT_ARCH},
	{"sysroot", required_argument, NULL, OPT_SYSROOT},
	{"no-clobber", no_argument, NULL, OPT_NO_CLOBBER},
	{"no-pin", no_argument, NULL, OPT_NO_PIN},
	{"handler", required_argument, NULL, OPT_HANDLER},
	{"streams", required_argument, NULL, OPT_STREAMS},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static uint64_t parse_number(const char *opt, const char *arg)
{
	return cli_parse_count(opt, arg, 0, UINT64_MAX);
}

static void list_backends(const struct collect_options *opts)
{
	char err[512];

	for (size_t i = 0; backend_at(i); i++) {
		const struct collect_backend *b = backend_at(i);
		int ok = b->probe(opts, err, sizeof(err)) == 0;

		printf("%-10s %s: %s\n", b->name, ok ? "available" : "unavailable",
		       ok ? b->description : err);
	}
}

/* The trigger options, parsed as they come; a bad one is a usage error
 * that quotes it and points at the bad part (policy_format_error). */
static struct policy_spec the_policy;

static void add_policy_option(int option, const char *arg)
{
	struct policy_error err;
	char msg[1024];

	if (policy_add_option(&the_policy, option, arg, &err) == 0)
		return;
	cli_usage_error("%s", policy_format_error(option, arg, &err, msg, sizeof(msg)));
}

/* --start-addr/--stop-addr A: the event addr:A. */
static void add_policy_addr(int option, uint64_t addr)
{
	char text[32];

	snprintf(text, sizeof(text), "addr:0x%llx", (unsigned long long)addr);
	add_policy_option(option, text);
}

/* The legacy fields of collect_options from the spec, for the backends
 * not wired to the policy, and the checks of the whole spec. */
static void settle_policy(struct collect_options *o)
{
	const struct policy_spec *sp = &the_policy;
	struct policy_error err;
	int option;

	if (policy_check(sp, &option, &err) != 0)
		cli_usage_error("%s: %s", policy_option_name(option), err.message);
	o->policy = sp;
	if (!policy_is_legacy(sp))
		return;
	if (sp->nstart && sp->start[0].kind == POLICY_EV_FUNC)
		o->start_func = sp->start[0].name;
	if (sp->nstop && sp->stop[0].kind == POLICY_EV_FUNC)
		o->stop_func = sp->stop[0].name;
}

/* --streams DIR (NULL: the current directory). */
static const char *streams;

/* -o none: no trace, the handlers' streams only (with --handler). */
static int no_trace(const struct collect_options *o)
{
	return strcmp(o->output, "none") == 0;
}

/* Returns 1 if the caller should exit 0 (--help, --version, --list). */
static int parse_args(int argc, char **argv, struct collect_options *o)
{
	int c, level_given = 0, list = 0;

	o->level = ITRACE_LEVEL_INSN;
	o->output = "trace.itr";
	o->compression = ITRACE_COMPRESS_ZSTD;
	while ((c = getopt_long(argc, argv, "+l:o:p:qv", long_options, NULL)) != -1) {
		switch (c) {
		case 'l':
			level_given = 1;
			if (strcmp(optarg, "insn") == 0)
				o->level = ITRACE_LEVEL_INSN;
			else if (strcmp(optarg, "branch") == 0)
				o->level = ITRACE_LEVEL_BRANCH;
			else
				cli_usage_error("unknown level '%s' (use insn or branch)", optarg);
			break;
		case 'o': o->output = optarg; break;
		case 'p': o->attach_pid = (pid_t)parse_number("-p", optarg); break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose++; break;
		case OPT_START: add_policy_option(POLICY_OPT_START, optarg); break;
		case OPT_STOP: add_policy_option(POLICY_OPT_STOP, optarg); break;
		case OPT_FOR: add_policy_option(POLICY_OPT_FOR, optarg); break;
		case OPT_EVERY: add_policy_option(POLICY_OPT_EVERY, optarg); break;
		case OPT_START_ADDR:
			o->start_addr = parse_number("--start-addr", optarg);
			o->has_start_addr = 1;
			add_policy_addr(POLICY_OPT_START, o->start_addr);
			break;
		case OPT_STOP_ADDR:
			o->stop_addr = parse_number("--stop-addr", optarg);
			o->has_stop_addr = 1;
			add_policy_addr(POLICY_OPT_STOP, o->stop_addr);
			break;
		case OPT_ONLY: o->only_module = optarg; break;
		case OPT_FOLLOW_FORK: o->follow_fork = 1; break;
		case OPT_USER_ONLY: break; /* the only mode: kernel code is never stepped */
		case OPT_ASLR: o->aslr = 1; break;
		case OPT_RING:
			o->ring = parse_number("--ring", optarg);
			if (o->ring == 0)
				cli_usage_error("--ring needs at least 1 branch");
			break;
		case OPT_BACKEND: o->backend = optarg; break;
		case OPT_REMOTE: o->remote = optarg; break;
		case OPT_LIST: list = 1; break;
		case OPT_NO_COMPRESS: o->compression = ITRACE_COMPRESS_NONE; break;
		case OPT_INSN_BYTES: o->insn_bytes = 1; break;
		case OPT_USER: o->user = 1; break;
		case OPT_KERNEL: o->kernel = 1; break;
		case OPT_ARCH: o->arch = optarg; break;
		case OPT_SYSROOT: o->sysroot = optarg; break;
		case OPT_NO_CLOBBER: cli_set_no_clobber(1); break;
		case OPT_NO_PIN: o->no_pin = 1; break;
		case OPT_HANDLER: collect_handlers_add(optarg); break;
		case OPT_STREAMS: streams = optarg; break;
		case OPT_HELP: usage(); return 1;
		case OPT_VERSION: printf("itrace-collect %s\n", itrace_version()); return 1;
		default: cli_usage_error("unknown option");
		}
	}
	if (list) {
		list_backends(o);
		return 1;
	}
	if (o->ring) {
		if (level_given && o->level != ITRACE_LEVEL_BRANCH)
			cli_usage_error("--ring records branches; it cannot be used with --level insn");
		o->level = ITRACE_LEVEL_BRANCH;
	}
	if (optind < argc && o->attach_pid)
		cli_usage_error("give either -p PID or a program to start, not both");
	if (optind >= argc && !o->attach_pid && !o->remote)
		cli_usage_error("no program given (itrace-collect [options] -- PROGRAM [ARGS])");
	if (optind < argc)
		o->argv = argv + optind;
	if ((o->has_start_addr && the_policy.nstart > 1) || (o->has_stop_addr && the_policy.nstop > 1))
		cli_usage_error("give a trigger either by name or by address, not both");
	settle_policy(o);
	if (no_trace(o) && !collect_handlers_given())
		cli_usage_error("-o none writes nothing without a --handler (a file named 'none': "
				"-o ./none)");
	if (streams && !collect_handlers_given())
		cli_usage_error("--streams needs a --handler");
	return 0;
}

static const struct collect_backend *find_backend(const char *name)
{
	for (size_t i = 0; backend_at(i); i++)
		if (strcmp(backend_at(i)->name, name) == 0)
			return backend_at(i);
	return NULL;
}

/* Names of the e_machine values of the architectures the backends know. */
static const char *machine_name(int machine, int endian)
{
	switch (machine) {
	case 3: return "i386";
	case 8: return "MIPS";
	case 20: return "ppc";
	case 21: return endian == 2 ? "ppc64" : "ppc64le";
	case 22: return "s390x";
	case 40: return "ARM";
	case 62: return "x86-64";
	case 183: return "aarch64";
	case 243: return "RISC-V";
	default: return "foreign";
	}
}

/* What of spec backend b does not implement (NULL: it does it all). */
static const char *policy_refused(const struct collect_backend *b, const struct policy_spec *spec)
{
	if (policy_is_legacy(spec))
		return NULL;
	if (!b->policy_forms)
		return "trigger forms beyond --start/--stop FUNC or an address";
	return b->policy_forms(spec);
}

/* A trigger the backend would not honour: a usage error, never another window. */
static void refuse_policy(const struct collect_backend *b, const struct policy_spec *spec)
{
	const char *what = policy_refused(b, spec);

	if (what)
		cli_usage_error("the %s backend does not implement %s yet; use --backend ptrace",
				b->name, what);
}

/*
 * --backend auto: the fastest backend that traces `o` right, with the
 * reason (why[len], "auto: ...").  -p: ptrace, the one that attaches.  A
 * program of another architecture: the qemu backend.  Otherwise valgrind
 * (dynamic translation, about a thousand times faster than
 * single-stepping) when it can run the program with these options, else
 * ptrace.  Returns NULL after an error.
 */
static const struct collect_backend *auto_backend(const struct collect_options *o, char *why,
						  size_t len)
{
	const struct collect_backend *vg = find_backend("valgrind");
	char path[4096], err[512];
	int machine, endian = 1;

	if (o->attach_pid) {
		snprintf(why, len, "auto: -p attaches to a running process, which only ptrace does");
		return &collect_backend_ptrace;
	}
	if (collect_resolve_program(o->argv[0], path, sizeof(path)) == 0 &&
	    (machine = collect_elf_machine(path, &endian)) > 0 && machine != EM_X86_64_MACHINE) {
		if (&collect_backend_qemu) {
			snprintf(why, len, "auto: '%s' is a %s program: qemu runs it", o->argv[0],
				 machine_name(machine, endian));
			return &collect_backend_qemu;
		}
		cli_error("'%s' is a %s program and this itrace has no qemu backend to run it: "
			  "use --backend gdb (it runs it under qemu-user's gdb stub)",
			  o->argv[0], machine_name(machine, endian));
		return NULL;
	}
	if (!vg)
		snprintf(why, len, "auto: this itrace has no valgrind backend");
	else if (policy_refused(vg, o->policy))
		snprintf(why, len, "auto: the trigger needs the ptrace backend (valgrind does not "
			 "implement %s yet)", policy_refused(vg, o->policy));
	else if (o->ring || o->follow_fork || o->aslr || o->insn_bytes)
		snprintf(why, len, "auto: %s needs the ptrace backend",
			 o->ring ? "--ring" : o->follow_fork ? "--follow-fork" : o->aslr ? "--aslr"
			 : "--insn-bytes");
	else if (collect_is_setid(path))
		snprintf(why, len, "auto: '%s' is set-user-ID or set-group-ID, which Valgrind cannot run",
			 o->argv[0]);
	else if (vg->probe(o, err, sizeof(err)) != 0)
		snprintf(why, len, "auto: valgrind cannot be used here (%s)", err);
	else {
		snprintf(why, len, "auto: valgrind can run this x86-64 program, far faster than "
			 "single-stepping");
		return vg;
	}
	return &collect_backend_ptrace;
}

/* The backend asked for (or chosen by auto), with the reason in
 * o->backend_reason. */
static const struct collect_backend *choose_backend(struct collect_options *o)
{
	static char why[768];
	const struct collect_backend *b;
	char err[512];

	if (o->backend && strcmp(o->backend, "auto") != 0) {
		b = find_backend(o->backend);
		snprintf(why, sizeof(why), "asked: --backend %s", o->backend);
	} else if (o->remote) {
		b = find_backend("gdb");
		snprintf(why, sizeof(why), "auto: --remote names a gdb stub");
	} else {
		b = auto_backend(o, why, sizeof(why));
		if (!b)
			return NULL;
	}
	if (!b) {
		cli_error("no backend '%s' in this build (see --list-backends)",
			  o->backend ? o->backend : "gdb");
		return NULL;
	}
	refuse_policy(b, o->policy);
	o->backend_reason = why;
	if (o->verbose)
		fprintf(stderr, "%s: backend %s (%s)\n", cli_progname(), b->name, why);
	if (!(b->levels & COLLECT_LEVEL_BIT(o->level))) {
		cli_error("the %s backend cannot trace at %s level", b->name,
			  o->level == ITRACE_LEVEL_INSN ? "insn" : "branch");
		return NULL;
	}
	if (b->probe(o, err, sizeof(err)) != 0) {
		cli_error("%s backend unavailable: %s", b->name, err);
		return NULL;
	}
	return b;
}

/* With --no-clobber, an existing output stops us before the program runs. */
static int refuse_to_clobber(const char *output)
{
	struct stat st;

	if (!(cli_output_flags() & ITRACE_OUT_NO_CLOBBER) || strcmp(output, "-") == 0 ||
	    lstat(output, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		return 0;
	cli_error("'%s' exists; not replaced (--no-clobber)", output);
	return 1;
}

/* In every child of the collector (see main). */
static void child_stdout_to_stderr(void)
{
	dup2(STDERR_FILENO, STDOUT_FILENO);
}

/*
 * -o -: standard output carries the trace, so nothing the collector
 * starts may write there.  Every process it forks, in whichever backend
 * (the program, valgrind, qemu, gdbserver, perf), gets the collector's
 * stderr as its stdout before it execs: the program's output cannot
 * interleave with the trace, and no descriptor the program can reach
 * refers to the trace stream.
 */
static int protect_trace_stdout(const char *output)
{
	if (strcmp(output, "-") != 0)
		return 0;
	return pthread_atfork(NULL, NULL, child_stdout_to_stderr) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct collect_options opts = {0};
	struct collect_result res = {0};
	const struct collect_backend *b;
	int status;

	cli_init(argv[0]);
	if (parse_args(argc, argv, &opts))
		return 0;
	if (!no_trace(&opts) && !cli_output_path(opts.output, 1))
		return CLI_EXIT_USAGE;
	if (!no_trace(&opts) && refuse_to_clobber(opts.output))
		return CLI_EXIT_BAD_INPUT;
	/* the handlers' errors are the input's, before the program starts */
	if (collect_handlers_load(streams, !no_trace(&opts)) < 0)
		return CLI_EXIT_BAD_INPUT;
	if (protect_trace_stdout(opts.output)) {
		cli_error("cannot protect the trace on standard output: %m");
		return CLI_EXIT_BAD_INPUT;
	}
	b = choose_backend(&opts);
	if (!b)
		return CLI_EXIT_BAD_INPUT;
	collect_install_signals();
	status = b->run(&opts, &res);
	collect_handlers_free();
	if (status < 0)
		return CLI_EXIT_BAD_INPUT;
	collect_print_summary(&opts, &res);
	/* A handler crashed or failed: the run is flagged, as a trigger
	 * that never fired is. */
	if (collect_handlers_failed() && status == 0)
		return CLI_EXIT_BAD_INPUT;
	/* Asked for a window that never opened: say so in the status too. */
	if (res.end_reason == ITRACE_END_NOT_TRIGGERED && status == 0)
		return CLI_EXIT_BAD_INPUT;
	return status;
}
