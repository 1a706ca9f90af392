/*
 * backend.h - the interface between itrace-collect and its backends.
 *
 * itrace-collect parses the command line into a struct collect_options,
 * picks a backend (--backend NAME, or --backend auto, the default: see
 * choose_backend() in main/itrace_collect.c), checks that it supports the level
 * and that probe() succeeds, and calls run().  --list-backends shows every
 * linked-in backend (in the order ptrace, bts, gdb, valgrind, qemu) with
 * its probe result.  The backend starts or attaches to the program, writes
 * the trace through libitrace's writer and returns the program's exit
 * status.  Everything in the format (records, metadata, footer) goes through
 * reader/itrace.h; no backend writes trace bytes itself.
 *
 * Adding a backend
 *   - Define one object `const struct collect_backend collect_backend_NAME`
 *     in its own folder (collectors/NAME/).  itrace-collect declares the
 *     known names as WEAK externs, so a backend that is not linked in is
 *     simply absent (its address is NULL); nothing in collectors/ changes
 *     when a backend is added or removed.
 *   - In collectors/NAME/module.mk append its objects to
 *     COLLECT_BACKEND_OBJS and its libraries to COLLECT_BACKEND_LIBS.
 *     Objects, not archives: a weak reference never pulls a member out of
 *     a static library.  collectors/module.mk includes collectors/ * /module.mk
 *     before its link rule, so the variables are complete when it is read.
 *   - Shared helpers a backend may use: libitrace's decoder (itrace.h,
 *     itrace_decoder_info and itrace_insn_mem_accesses: branch kinds and
 *     the effective addresses of loads/stores from the registers),
 *     collectors/maps.h (MMAP records from /proc/PID/maps with build-ids,
 *     CODE record for [vdso]), collectors/symbols.h (function name ->
 *     address through libelf), collectors/collect_writer.h (opening the
 *     writer with the standard metadata).
 *
 * Conventions
 *   - Backends print their own errors with cli_error() (tools/cli.h), one
 *     line naming the problem and what to do.
 *   - Backends poll collect_interrupted (set by SIGINT/SIGTERM in main):
 *     when it becomes non-zero they finish the trace with
 *     itrace_writer_close(w, ITRACE_END_INTERRUPTED, signo), kill a program
 *     they started or detach from one they attached to, and return.
 *   - A backend that starts a program forks it with guard_fork() (guard.h)
 *     and waits for it with guard_wait() or guard_poll(): what the program
 *     starts does not outlive a killed collector.
 */
#ifndef ITRACE_COLLECT_BACKEND_H
#define ITRACE_COLLECT_BACKEND_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "itrace.h"
#include "itrace_code.h"
#include "policy/policy.h"

/* Bits of collect_backend.levels. */
#define COLLECT_LEVEL_BIT(level) (1u << (level))

/*
 * What the user asked for.  Filled by itrace-collect's option parser;
 * backends only read it.  Fields a backend does not support must make
 * probe() or run() fail with a clear message, never be silently ignored.
 */
struct collect_options {
	int level;		/* ITRACE_LEVEL_INSN or ITRACE_LEVEL_BRANCH */
	const char *output;	/* -o FILE; "-" = stdout (never NULL) */
	pid_t attach_pid;	/* -p PID; 0 = start argv */
	char *const *argv;	/* program and arguments (NULL with -p) */
	/* Every --start/--stop/--for/--every (and --start-addr/--stop-addr,
	 * as addr: events), parsed (collectors/policy/policy.h); never NULL.
	 * When policy_is_legacy(policy), start_func/stop_func/start_addr/
	 * stop_addr say the same for the backends not wired to the policy. */
	const struct policy_spec *policy;
	const char *start_func; /* --start FUNC (NULL: none) */
	const char *stop_func;	/* --stop FUNC (NULL: none) */
	uint64_t start_addr;	/* --start-addr (valid if has_start_addr) */
	uint64_t stop_addr;	/* --stop-addr (valid if has_stop_addr) */
	int has_start_addr, has_stop_addr;
	const char *only_module; /* --only MODULE: path or basename; "main" = executable */
	int follow_fork;	/* --follow-fork */
	int aslr;		/* --aslr: keep address randomisation */
	uint64_t ring;		/* --ring N: keep the last N branches; 0 = off */
	int quiet;		/* -q: no progress, no summary */
	int verbose;		/* -v */
	const char *backend;	/* --backend NAME; NULL = automatic */
	const char *remote;	/* --remote HOST:PORT (gdb backend) */
	int compression;	/* enum itrace_compression */
	int insn_bytes;		/* --insn-bytes: INSN records carry their bytes */
	int user, kernel;	/* --user/--kernel: which branches (bts); user by default */
	const char *arch;	/* --arch NAME (qemu backend): the program's architecture */
	const char *sysroot;	/* --sysroot DIR (qemu backend): its libraries' root */
	int no_pin;		/* --no-pin: ptrace leaves CPU affinity alone */
	const char *backend_reason; /* why this backend (metadata backend_reason) */
};

/* Summary a backend fills in for the end-of-run line (all optional). */
struct collect_result {
	uint64_t steps;		/* single steps / events processed */
	double seconds;		/* time spent collecting */
	int end_reason;		/* enum itrace_end_reason written to the footer */
	int end_status;
	struct itrace_writer_stats stats; /* writer statistics at close */
};

struct collect_backend {
	const char *name;	 /* "ptrace", "bts", "gdb", "valgrind", "qemu" */
	const char *description; /* one line for --help and --list-backends */
	unsigned levels;	 /* COLLECT_LEVEL_BIT(ITRACE_LEVEL_*) it supports */
	/* policy_forms - which trigger forms beyond the legacy ones (one FUNC
	 * or address each for --start and --stop) it implements; NULL: none,
	 * and itrace-collect refuses them (exit 2) before running it.
	 * Returns NULL if it implements everything in spec, else the reason
	 * ("globs") for the usage message. */
	const char *(*policy_forms)(const struct policy_spec *spec);

	/*
	 * probe - can this backend run `opts` on this machine?  Returns 0 if
	 * so.  Otherwise returns -1 and writes into err[errlen] one line saying
	 * why and what to do ("no Intel BTS: the CPU has no branch trace
	 * store; use --backend ptrace").  Must be cheap and side-effect free.
	 */
	int (*probe)(const struct collect_options *opts, char *err, size_t errlen);

	/*
	 * run - collect a trace of `opts` into opts->output.  The backend
	 * opens the writer (collect_writer_open() gives the standard metadata)
	 * and always closes it with the right end reason.  Returns the
	 * program's exit status as a shell reports it (code, or 128+signo if
	 * it was killed) with *res filled, or -1 after printing an error
	 * (itrace-collect then exits 1).
	 */
	int (*run)(const struct collect_options *opts, struct collect_result *res);
};

/* Set to the signal number by itrace-collect's SIGINT/SIGTERM handler. */
extern volatile sig_atomic_t collect_interrupted;

/*
 * collect_install_signals - itrace-collect's own actions, once at start:
 * SIGINT, SIGTERM and SIGHUP set collect_interrupted (no SA_RESTART, so
 * waits return EINTR), SIGPIPE is ignored.
 */
void collect_install_signals(void);

/*
 * collect_restore_signals - give SIGINT, SIGTERM, SIGHUP and SIGPIPE back
 * the actions itrace-collect found at start.  Call it in a child before
 * exec'ing the program, so that the program inherits what it would have
 * without the collector (an ignored SIGPIPE would survive exec).
 */
void collect_restore_signals(void);

/*
 * collect_refuse_emulated - the options that a backend running the
 * program under an emulator of its own (`emulator`: "valgrind",
 * "qemu-user") cannot honour: attaching (-p), --remote, --follow-fork and
 * --aslr.  Returns 0, or -1 with the reason, for the probe's message, in
 * err.
 */
int collect_refuse_emulated(const struct collect_options *o, const char *backend,
			    const char *emulator, char *err, size_t errlen);

/* The backends.  Only ptrace lives in collectors/; the rest are weak. */
extern const struct collect_backend collect_backend_ptrace;
extern const struct collect_backend collect_backend_bts __attribute__((weak));
extern const struct collect_backend collect_backend_gdb __attribute__((weak));
extern const struct collect_backend collect_backend_valgrind __attribute__((weak));
extern const struct collect_backend collect_backend_qemu __attribute__((weak));

#endif /* ITRACE_COLLECT_BACKEND_H */
