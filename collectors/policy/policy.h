/*
 * policy.h - the trigger language of itrace-collect and the state machine
 * that decides, for every backend, when tracing is on (issue 34).
 *
 * Two halves:
 *   - the parser (policy_parse.c, hosted C): the arguments of --start,
 *     --stop (repeatable), --for and --every into a struct policy_spec, a
 *     plain array of events whose names are copied into it (no pointer
 *     into argv survives);
 *   - the state machine (policy.c, freestanding C11: no libc, no
 *     allocation, no globals), so that the same source compiles into
 *     itrace-collect, the Valgrind tool and the QEMU plugin.  The caller
 *     owns the storage: one struct policy_proc per traced process (entry
 *     counts for FUNC#N, the process's instruction count) and one struct
 *     policy_thread per thread (its window).
 *
 * The grammar (README.md of this folder has it with examples):
 *   EVENT := FUNC | FUNC#N | GLOB | ret:FUNC | addr:0xADDR[@MODULE]
 *            (each optionally followed by " if argK OP VALUE")
 *          | insns:N | signal:NAME
 *   --for insns:N, --every insns:P (with --for insns:L, L <= P)
 *
 * A backend resolves each FUNC, GLOB and addr: event to code addresses
 * and reports every entry with policy_on_entry(); it reports executed
 * instructions with policy_on_insns() (policy_insns_left() says how many
 * may run before the next boundary, so a block can be cut exactly there),
 * a rising stack pointer with policy_on_sp(), and signals with
 * policy_on_signal().  Each returns what happened to the window as a
 * struct policy_fire: the backend writes the TRACE_CTL record it names.
 */
#ifndef ITRACE_COLLECT_POLICY_H
#define ITRACE_COLLECT_POLICY_H

#include <stddef.h>
#include <stdint.h>

#define POLICY_MAX_EVENTS 16  /* --start options, and --stop options, at most */
#define POLICY_NAME_MAX 256   /* a function name, glob or module, with its NUL */
#define POLICY_NARGS 6	      /* arg0..arg5: rdi rsi rdx rcx r8 r9 / r3..r8 */
#define POLICY_NONE UINT64_MAX

enum policy_event_kind {
	POLICY_EV_FUNC = 1, /* FUNC, FUNC#N or a glob: entry of a function */
	POLICY_EV_RET,	    /* ret:FUNC: FUNC's activation returned */
	POLICY_EV_ADDR,	    /* addr:0xADDR[@MODULE] */
	POLICY_EV_INSNS,    /* insns:N */
	POLICY_EV_SIGNAL,   /* signal:NAME */
};

enum policy_op {
	POLICY_OP_NONE = 0,
	POLICY_OP_EQ, POLICY_OP_NE, POLICY_OP_LT, POLICY_OP_LE, POLICY_OP_GT, POLICY_OP_GE,
};

/* One EVENT.  name: the function or glob (FUNC, RET), or the module of an
 * ADDR ("" = the address is absolute).  Comparisons are unsigned. */
struct policy_event {
	uint8_t kind;	     /* enum policy_event_kind */
	uint8_t is_glob;     /* name has * ? or [ */
	uint8_t cond_op;     /* enum policy_op; NONE: no condition */
	uint8_t cond_arg;    /* K of argK */
	uint64_t cond_value;
	uint64_t nth;	     /* FUNC#N: N (1-based); 0 = every entry */
	uint64_t addr;	     /* ADDR: the address (an offset in name's module if any) */
	uint64_t insns;	     /* INSNS: N */
	int signo;	     /* SIGNAL: its number */
	char name[POLICY_NAME_MAX];
};

/* What the command line asked for.  An all-zero spec is "trace everything". */
struct policy_spec {
	struct policy_event start[POLICY_MAX_EVENTS];
	struct policy_event stop[POLICY_MAX_EVENTS];
	uint32_t nstart, nstop;
	uint64_t for_insns;   /* --for insns:N; 0 = none */
	uint64_t every_insns; /* --every insns:P; 0 = none */
};

/* Which option made the window open or close (struct policy_fire.by).
 * START..EVERY are the values of the TRACE_CTL record's `trigger` field
 * (enum itrace_ctl_trigger, ITRACE.md 6.5.12): a backend writes them as
 * they are. */
enum policy_by {
	POLICY_BY_START = 1, /* --start number `index` fired */
	POLICY_BY_STOP,	     /* --stop number `index` fired */
	POLICY_BY_RETURN,    /* the activation that opened the window returned */
	POLICY_BY_FOR,	     /* --for: the window's instructions are done */
	POLICY_BY_EVERY,     /* --every: the next period began */
	POLICY_BY_BEGIN,     /* no start trigger: the window is open from the start */
};

/* What an event did to the window: action 0 = nothing, 1 = opened, -1 =
 * closed; by and index name the option (index into spec->start/stop). */
struct policy_fire {
	int action;
	int by;	       /* enum policy_by */
	uint32_t index;
};

/* The per-process state.  Treat as opaque; set up with policy_proc_init. */
struct policy_proc {
	const struct policy_spec *spec;
	uint64_t entries[POLICY_MAX_EVENTS];	  /* matching entries of each --start */
	uint64_t stop_entries[POLICY_MAX_EVENTS]; /* ... and of each --stop */
	uint32_t fired;				  /* windows opened so far */
};

/* The per-thread state (the window is per thread: an activation is, and
 * instructions are counted per thread, so that a window is the same
 * under every backend however they interleave threads). */
struct policy_thread {
	int open;
	uint64_t frame_sp;   /* close when sp rises above it; 0: no activation */
	uint64_t opened_at;  /* the thread's instruction count when it opened */
	uint64_t insns;	     /* instructions of this thread so far */
	uint64_t done_at;    /* count at which boundaries were last taken */
	struct policy_ret_watch {
		uint64_t sp;	     /* fires when sp rises above it */
		uint32_t index;	     /* the ret: event in spec->start or stop */
		uint8_t is_stop;
	} ret[POLICY_MAX_EVENTS]; /* activations of ret:FUNC, innermost last */
	uint32_t nret;
	uint32_t ret_dropped; /* watches dropped for room (deeper recursion) */
};

/* ---- the parser (policy_parse.c, hosted) ----------------------------- */

/* Where and why a spec is wrong: column (0-based, into the spec) and a
 * message without the spec. */
struct policy_error {
	size_t column;
	char message[160];
};

enum policy_option { POLICY_OPT_START, POLICY_OPT_STOP, POLICY_OPT_FOR, POLICY_OPT_EVERY };

/*
 * policy_parse_event - parse one EVENT text into *ev.  Returns 0, or -1
 * with *err filled.
 */
int policy_parse_event(const char *text, struct policy_event *ev, struct policy_error *err);

/*
 * policy_add_option - parse the argument of --start, --stop, --for or
 * --every (enum policy_option) into spec.  Returns 0, or -1 with *err.
 */
int policy_add_option(struct policy_spec *spec, int option, const char *arg,
		      struct policy_error *err);

/*
 * policy_check - what can only be said of the whole command line
 * (--every without --for, L > P, ...).  Returns 0, or -1 with *err
 * (column 0) and *option set to the option at fault.
 */
int policy_check(const struct policy_spec *spec, int *option, struct policy_error *err);

/* policy_option_name - "--start", "--stop", "--for", "--every". */
const char *policy_option_name(int option);

/*
 * policy_format_error - the usage message of a bad spec, in buf[len]:
 * "--start 'malloc if arg9>1': argument index 9 out of range (0..5) at
 * column 10", then on a second line the spec again with a caret under
 * the bad part.  Returns buf.
 */
char *policy_format_error(int option, const char *arg, const struct policy_error *err, char *buf,
			  size_t len);

/* policy_event_text - the event written back in the grammar, in
 * buf[len] (for messages and metadata).  Returns buf. */
char *policy_event_text(const struct policy_event *ev, char *buf, size_t len);

/* policy_is_legacy - does spec say only what --start FUNC/--stop FUNC
 * (one each, no #N, condition, glob, ret:, insns:, signal:, --for or
 * --every) said before issue 34?  Backends not yet wired to the policy
 * accept only those. */
int policy_is_legacy(const struct policy_spec *spec);

/* ---- the state machine (policy.c, freestanding) ---------------------- */

/* policy_proc_init - a process starts (or is attached to) under spec. */
void policy_proc_init(struct policy_proc *p, const struct policy_spec *spec);

/* policy_proc_fork - child is a fork of parent: it inherits the counts. */
void policy_proc_fork(struct policy_proc *child, const struct policy_proc *parent);

/*
 * policy_thread_init - a thread of p starts.  Returns the window's
 * opening (by POLICY_BY_BEGIN) if it is traced from its first
 * instruction, else nothing.
 */
struct policy_fire policy_thread_init(struct policy_proc *p, struct policy_thread *t);

/*
 * policy_on_entry - thread t entered the code of event `index` of
 * --start (is_stop 0) or --stop (is_stop 1) with argument registers
 * args[POLICY_NARGS] and stack pointer sp (before the function's own
 * pushes: at its first instruction).  Counts the entry (#N), checks the
 * condition, and opens or closes the window.
 */
struct policy_fire policy_on_entry(struct policy_proc *p, struct policy_thread *t, int is_stop,
				   uint32_t index, const uint64_t *args, uint64_t sp);

/*
 * policy_on_sp - thread t's stack pointer is now sp (after a return,
 * longjmp or unwinding): the activation that opened the window, or that
 * a ret: event watches, may be over.
 */
struct policy_fire policy_on_sp(struct policy_proc *p, struct policy_thread *t, uint64_t sp);

/* policy_on_signal - thread t receives signal signo. */
struct policy_fire policy_on_signal(struct policy_proc *p, struct policy_thread *t, int signo);

/*
 * policy_insns_left - how many instructions thread t may execute before
 * the next instruction-count boundary (a window opening at insns:N or
 * --every, closing at --for or --stop insns:N); POLICY_NONE if none.
 * 0 means a boundary is due before the next instruction: call
 * policy_on_insns(p, t, 0) to take it.
 */
uint64_t policy_insns_left(const struct policy_proc *p, const struct policy_thread *t);

/*
 * policy_on_insns - thread t executed n more instructions, n at most
 * policy_insns_left() (a block is cut there).  Returns the boundary
 * reached after them, if any: the next instruction is the first inside
 * (opened) or outside (closed) the window.
 */
struct policy_fire policy_on_insns(struct policy_proc *p, struct policy_thread *t, uint64_t n);

/* policy_counts_insns - must the backend count instructions (step or
 * count outside windows too)? */
int policy_counts_insns(const struct policy_spec *spec);

/* policy_ever_opened - did any window of p open? (the footer's
 * NOT_TRIGGERED when not) */
int policy_ever_opened(const struct policy_proc *p);

#endif /* ITRACE_COLLECT_POLICY_H */
