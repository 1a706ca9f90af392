/*
 * ptrace_internal.h - state shared by the files of the ptrace backend.
 * Not used outside collectors/ptrace/.  Each file calls only those
 * below it (make layers checks it):
 *
 *   ptrace_backend.c  start, attach, end; runs the event loop
 *   ptrace_stop.c     the event loop: the state machine that takes each
 *                     thread from stop to stop (pt_thread.mode, stopped,
 *                     in_syscall, ...) as wait() reports them
 *   ptrace_step.c     what happens at one stop of a stepped thread: commit
 *                     the instruction that ran, prepare the next
 *   ptrace_proc.c     the one owner of process state: process and thread
 *                     tables, the trace file and its records, code
 *                     generations
 *   ptrace_bp.c       int3 breakpoints of a process
 */
#ifndef ITRACE_PTRACE_INTERNAL_H
#define ITRACE_PTRACE_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "backend.h"
#include "cli.h"
#include "collect_ring.h"
#include "guard.h"
#include "itrace.h"
#include "itrace_code.h"
#include "maps.h"

/* How a thread runs between two stops. */
enum pt_mode {
	PT_MODE_STEP,	/* single-step and record (tracing on) */
	PT_MODE_SILENT, /* single-step, record nothing (--only, no return address) */
	PT_MODE_CONT,	/* full speed until a breakpoint or event */
};

/* Breakpoint roles (bit mask: one address may serve several). */
enum pt_bp_kind {
	PT_BP_START = 1u << 0,	/* --start trigger */
	PT_BP_STOP = 1u << 1,	/* --stop trigger */
	PT_BP_ENTRY = 1u << 2,	/* program entry: libraries are loaded */
	PT_BP_RETURN = 1u << 3, /* --only: back from an excluded module */
	PT_BP_SCOPE = 1u << 4,	/* --only: a way into the traced module (a
				 * function, a landing pad, a call's return) */
};

/* --only: return addresses into the module, of calls out of it. */
#define PT_RETURNS_MAX 8
struct pt_return {
	uint64_t addr; /* PT_BP_RETURN breakpoint */
	uint64_t rsp;  /* rsp when that return executes */
};

struct pt_bp {
	uint64_t addr;
	uint8_t orig;	   /* byte under the int3 */
	uint8_t inserted;
	unsigned kinds;
	unsigned returners; /* threads waiting at this PT_BP_RETURN */
};

/* `kind` of an instruction that is no branch. */
#define PT_NOT_BRANCH (-1)
/* Most accesses one instruction can make (e.g. push [mem]: load + store). */
#define PT_MAX_ACCESSES 8

/* The instruction a thread is about to execute (committed at its next stop). */
struct pt_pending {
	uint64_t addr;
	uint8_t len;
	uint8_t bytes[16];
	int8_t kind;	/* enum itrace_branch_kind, or PT_NOT_BRANCH */
	uint8_t is_syscall, is_rep_string, is_trap;
	uint8_t is_block;	/* a PTRACE_SINGLEBLOCK block starting at addr */
	int nmem;
	struct itrace_mem_access mem[PT_MAX_ACCESSES];
	uint64_t sys_nr, sys_args[6];
	/* a rep string instruction: what decides whether its loop ends with
	 * the check that finds the count zero (ITRACE.md 6.5.2) */
	struct itrace_insn_info rep_in;
	struct itrace_regs rep_before;
};

struct pt_process;

struct pt_thread {
	pid_t tid;
	struct pt_process *proc;
	struct pt_thread *next;
	int stopped;	   /* in a ptrace stop (we may issue requests) */
	int started;	   /* its first stop has been seen */
	int exited;
	enum pt_mode mode;
	int has_pending;
	struct pt_pending pending;
	int last_kind;		/* branch kind of the last executed insn */
	int regs_fresh;		/* t->regs read at this stop */
	int deliver_sig;	/* signal of the current signal-delivery-stop */
	/* SIGTRAP blocked while the program has a handler for it (in that
	 * handler, or sigprocmask): a step trap would make the kernel reset the
	 * handler, so the thread runs to its next syscall instead
	 * (PTRACE_SYSCALL), and the trace has a GAP for that stretch.  With the
	 * default action the trap only unblocks SIGTRAP: the thread is stepped. */
	int trap_blocked;
	int trap_gap;		/* in such a stretch */
	uint64_t trap_gap_from;	/* where it began (TRACE_CTL off written there) */
	int announce;		/* a new thread or child: TRACE_ON start at its first step */
	int in_syscall;		/* between syscall-enter and -exit stops */
	int last_req;		/* ptrace request of the last resume */
	int in_window;		/* the policy's window is open (pol.open, once armed) */
	struct policy_thread pol; /* its window and instruction count (policy.h) */
	uint64_t entry_taken;	/* a trigger address whose entry was counted at this stop */
	uint64_t reinsert_bp;	/* breakpoint lifted to step over it (0: none) */
	struct pt_return returns[PT_RETURNS_MAX]; /* innermost last */
	int nreturns;
	uint64_t call_ret, call_slot; /* --only: the last call traced, its return address and slot */
	int pending_sig;	/* signal whose handler address is learnt next stop */
	int step_to_handler;	/* running free: one step into pending_sig's handler */
	struct itrace_signal pending_siginfo;
	int pending_restart;	/* pending_sig interrupted a system call the kernel may restart */
	struct user_regs_struct regs;
};

struct pt_process {
	pid_t pid;
	struct pt_process *next;
	int mem_fd;	   /* /proc/PID/mem, reopened at exec */
	uint32_t code_id;  /* decode-cache generation of this address space */
	struct pt_bp *bps;
	size_t nbps, capbps;
	size_t *bp_slots;  /* index of bps by address (pt_bp_reindex) */
	size_t bp_nslots;
	int triggers_armed; /* symbols resolved, trigger breakpoints set */
	uint64_t only_lo, only_hi; /* --only range (hi = 0: not known) */
	struct policy_proc pol;	/* entry counts of the triggers (policy.h) */
	struct pt_trigger {
		uint64_t addr;	/* where the event's code begins */
		uint32_t index; /* into policy->start or ->stop */
		uint8_t is_stop;
	} trig[2 * POLICY_MAX_EVENTS]; /* resolved --start/--stop events */
	int ntrig;
	int nthreads;
	int detach;	   /* a fork child we do not follow: clean and detach */
	int is_vfork;	   /* shares its parent's memory */
	int awaiting_fork; /* seen before its parent's fork event: held */
	struct maps_seen maps; /* mappings already written as MMAP records */
};

struct pt_session {
	const struct collect_options *opts;
	struct itrace_writer *w;
	struct emit_sink out;	/* the writer w, as the sink of emit.h */
	struct itrace_decoder *dec;
	struct pt_process *procs;
	struct pt_thread *threads;
	pid_t main_pid;		/* started or attached process */
	struct collect_guard guard; /* a started program's guardian (guard.h) */
	int attached;		/* -p: detach at the end */
	int main_status;	/* shell-style exit status of main_pid (-1 unknown) */
	int live_threads;
	uint32_t last_tid;	/* thread of the last record written */
	int io_error;		/* writer failed: stop, report */
	int io_errno;		/* why (ENOSPC, EPIPE, ...), for the footer */
	int singleblock;	/* PTRACE_SINGLEBLOCK honoured */
	int pin_cpu;		/* CPU shared by the collector and a started program; -1 none */
	int blockstep;		/* branch level steps by blocks */
	int use_triggers;	/* --start/--stop/--only given */
	uint64_t steps;
	uint64_t undecoded;	/* steps over instructions the decoder cannot decode */
	struct collect_ring ring;
	int ring_on;
	struct cli_progress progress;
};

/* ptrace_proc.c: records */
/*
 * PT_EMIT(s, emit_fn, args...) - emit_fn(&s->out, args...) (emit.h) while
 * there is a trace to write (opened, no output error yet); a failure is
 * reported by pt_fail_io.
 */
#define PT_EMIT(s, fn, ...)                                      \
	do {                                                     \
		if (!(s)->io_error && (s)->w)                    \
			pt_check_io((s), fn(&(s)->out, __VA_ARGS__)); \
	} while (0)
/* pt_check_io - rc < 0: pt_fail_io. */
void pt_check_io(struct pt_session *s, int rc);
/* pt_ring - the --ring sink, for what thread t does next. */
static inline struct emit_sink *pt_ring(struct pt_session *s, const struct pt_thread *t)
{
	return collect_ring_sink(&s->ring, (uint32_t)t->tid, (uint32_t)t->proc->pid);
}
void pt_switch_to(struct pt_session *s, struct pt_thread *t);
void pt_write_ctl(struct pt_session *s, struct pt_thread *t, int on, int reason, uint64_t addr);
/* A TRACE_CTL of reason TRIGGER naming the option (enum policy_by). */
void pt_write_ctl_trigger(struct pt_session *s, struct pt_thread *t, int on, uint64_t addr, int by,
			  uint32_t index);
void pt_write_thread(struct pt_session *s, int event, pid_t tid, pid_t pid, uint64_t other);
void pt_write_process(struct pt_session *s, int event, pid_t pid, uint64_t other, int64_t status,
		      const char *name);
void pt_write_signal(struct pt_session *s, struct pt_thread *t, const struct itrace_signal *sig);
/* A write failed: report once, then the session stops. */
void pt_fail_io(struct pt_session *s, int rc);
/* pt_tick - let the writer flush (once a second) and notice a closed output pipe. */
void pt_tick(struct pt_session *s);

/* ptrace_proc.c: processes and threads */
void pt_exe_path(pid_t pid, char *buf, size_t len);
/* After an exec: warn if a set-user/group-ID program runs without its
 * privileges (collect_warn_unprivileged). */
void pt_check_privileges(pid_t pid, const char *exe);
int pt_open_mem(pid_t pid);
struct pt_process *pt_find_process(struct pt_session *s, pid_t pid);
struct pt_thread *pt_find_thread(struct pt_session *s, pid_t tid);
struct pt_process *pt_new_process(struct pt_session *s, pid_t pid);
void pt_free_process(struct pt_session *s, struct pt_process *p);
struct pt_thread *pt_new_thread(struct pt_session *s, struct pt_process *p, pid_t tid);
void pt_free_thread(struct pt_session *s, struct pt_thread *t);
/* Mode of a thread that appears now: tracing unless it waits for the
 * entry point (triggers not armed yet) or for --start. */
void pt_set_initial_mode(const struct pt_session *s, struct pt_thread *t);
/* Field ("Tgid:", "SigBlk:", ...) of /proc/TID/status in `base`; 0 if absent. */
unsigned long long pt_status_value(pid_t tid, const char *field, int base);
int pt_signal_is_caught(pid_t tid, int sig);
/* Is SIGTRAP blocked in thread tid while the program handles it?  Then a
 * step trap would reset the program's handler (see pt_thread.trap_blocked). */
int pt_sigtrap_blocked(pid_t tid);

/* ptrace_proc.c: the address space and the trace */
/* The traced process exists and has exec'd (or is attached): open the trace. */
struct pt_process *pt_start_process(struct pt_session *s, pid_t pid);
/* The address space may have changed (mmap, ran unobserved): drop decoded
 * code and write MMAP records for new mappings. */
void pt_code_changed(struct pt_session *s, struct pt_process *p);
/* Decoded code of p is stale (a new code generation). */
void pt_invalidate_code(struct pt_process *p);
/* Run the calling thread on `cpu` only. */
int pt_pin_to(int cpu);

/* How a thread whose window is closed runs: stepped silently while the
 * policy counts its instructions towards an opening, else at full speed. */
static inline enum pt_mode pt_closed_mode(const struct pt_thread *t)
{
	return policy_insns_left(&t->proc->pol, &t->pol) != POLICY_NONE ? PT_MODE_SILENT
									  : PT_MODE_CONT;
}

/* ptrace_step.c: what the policy decided (policy.h) for thread t at
 * addr: the window opens (TRACE_CTL on, stepping) or closes (TRACE_CTL
 * off, full speed or silent counting), or nothing. */
void pt_policy_fire(struct pt_session *s, struct pt_thread *t, struct policy_fire f, uint64_t addr);

/* ptrace_stop.c */
void pt_event_loop(struct pt_session *s);
/* Resolve --start/--stop/--only in p and set their breakpoints. */
int pt_arm_triggers(struct pt_session *s, struct pt_process *p);
int pt_get_regs(struct pt_thread *t);
/* Resume a stopped thread as pt_prepare_resume decides, delivering sig. */
void pt_resume(struct pt_session *s, struct pt_thread *t, int sig);
void pt_on_exit_status(struct pt_session *s, struct pt_thread *t, int status);
/* --ring: write the kept branches (once). */
void pt_flush_ring(struct pt_session *s);

/* ptrace_step.c */
int pt_step_init(struct pt_session *s);
void pt_step_fini(struct pt_session *s);
/* How the stop that commits the pending instruction came about. */
enum pt_commit_how {
	PT_COMMIT_STEP, /* the step trap: it executed */
	PT_COMMIT_STOP, /* another stop: it executed unless rip is still on it */
	PT_COMMIT_EXEC, /* exec event: the execve ran, no return */
	PT_COMMIT_EXIT, /* the thread exited in it (exit syscall) */
};
/* At a stop with t->regs fresh: write the pending instruction if it ran. */
void pt_commit(struct pt_session *s, struct pt_thread *t, int how);
/* A thread in full-speed mode stopped at breakpoint bp (rip rewound). */
void pt_on_breakpoint(struct pt_session *s, struct pt_thread *t, struct pt_bp *bp);
/* Forget the return breakpoints of t (exec, exit). */
void pt_drop_returns(struct pt_thread *t);
/* Decide the mode and prepare the next instruction (or block); returns
 * the ptrace request to resume with: PTRACE_SINGLESTEP, PTRACE_SINGLEBLOCK,
 * PTRACE_SYSCALL (SIGTRAP blocked, or rt_sigprocmask) or PTRACE_CONT. */
int pt_prepare_resume(struct pt_session *s, struct pt_thread *t);
/* A BRANCH record (or a ring entry with --ring). */
void pt_emit_branch(struct pt_session *s, struct pt_thread *t, uint64_t from, uint64_t to,
		    unsigned kind, unsigned flags);
void pt_regs_to_itrace(const struct user_regs_struct *r, struct itrace_regs *a);
int pt_read_mem(struct pt_process *p, uint64_t addr, void *buf, size_t len);

/* ptrace_bp.c */
struct pt_bp *pt_bp_find(struct pt_process *p, uint64_t addr);
int pt_bp_add(struct pt_process *p, uint64_t addr, unsigned kind);
void pt_bp_drop_kind(struct pt_process *p, uint64_t addr, unsigned kind);
int pt_bp_lift(struct pt_process *p, struct pt_bp *bp);   /* restore the original byte */
int pt_bp_insert(struct pt_process *p, struct pt_bp *bp); /* write the int3 */
void pt_bp_remove_all(struct pt_process *p);
/* Rebuild the address index after bps[] or nbps changed behind it (fork, exec). */
int pt_bp_reindex(struct pt_process *p);
/* Replace int3 bytes of our breakpoints in buf (read at addr) by originals. */
void pt_bp_overlay(const struct pt_process *p, uint64_t addr, uint8_t *buf, size_t len);

#endif
