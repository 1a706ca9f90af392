/*
 * ptrace_stop.c - the ptrace backend's event loop: what each ptrace stop
 * means (step done, breakpoint, signal, syscall, clone/fork/exec, group
 * stop, exit) and how the thread is resumed.  Start/stop triggers are
 * armed here, at the program's entry point, once its libraries are
 * loaded.  What a step records is in ptrace_step.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include "maps.h"
#include "ptrace_internal.h"
#include "symbols.h"

#define AT_ENTRY_TAG 9 /* auxv: program entry point */

/* ---- triggers ---------------------------------------------------------- */

static uint64_t auxv_entry(pid_t pid)
{
	char path[64];
	uint64_t av[2], entry = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, av, sizeof(av)) == sizeof(av) && av[0] != 0)
		if (av[0] == AT_ENTRY_TAG)
			entry = av[1];
	close(fd);
	return entry;
}

/* Event `index` of --start (is_stop 0) or --stop: the address its code
 * begins at, a breakpoint there, and a row of p->trig saying whose it
 * is.  Events without code (insns:, signal:) need none. */
static int arm_event(struct pt_process *p, const struct policy_event *ev, int is_stop,
		     uint32_t index)
{
	uint64_t addr = ev->addr;

	if (ev->kind != POLICY_EV_FUNC && ev->kind != POLICY_EV_RET && ev->kind != POLICY_EV_ADDR)
		return 0;
	if (ev->kind != POLICY_EV_ADDR && symbols_lookup(p->pid, ev->name, &addr) < 0) {
		symbols_error_missing(is_stop ? "--stop" : "--start", ev->name);
		return -1;
	}
	if (pt_bp_add(p, addr, is_stop ? PT_BP_STOP : PT_BP_START)) {
		cli_error("cannot set a breakpoint in process %d: %m", (int)p->pid);
		return -1;
	}
	p->trig[p->ntrig].addr = addr;
	p->trig[p->ntrig].index = index;
	p->trig[p->ntrig].is_stop = (uint8_t)is_stop;
	p->ntrig++;
	return 0;
}

/* --only: a breakpoint on every function of the module, so that calls
 * back into it from excluded code (main from libc, callbacks) are seen,
 * and on every landing pad (C++ unwinding); the return addresses of its
 * calls get theirs as the calls are traced (guard_return_site). */
static int guard_module_entries(struct pt_process *p)
{
	uint64_t *addrs = NULL;
	size_t n = 0;
	int rc = symbols_functions_in(p->pid, p->only_lo, p->only_hi, &addrs, &n);

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = pt_bp_add(p, addrs[i], PT_BP_SCOPE);
	free(addrs);
	return rc;
}

/* Resolve --start/--stop/--only in process p and set their breakpoints.
 * Called at the program's entry (libraries loaded) or after attaching. */
int pt_arm_triggers(struct pt_session *s, struct pt_process *p)
{
	const struct collect_options *o = s->opts;

	const struct policy_spec *sp = o->policy;

	p->ntrig = 0;
	policy_proc_init(&p->pol, sp);
	for (uint32_t i = 0; i < sp->nstart; i++)
		if (arm_event(p, &sp->start[i], 0, i))
			return -1;
	for (uint32_t i = 0; i < sp->nstop; i++)
		if (arm_event(p, &sp->stop[i], 1, i))
			return -1;
	if (o->only_module && maps_find_module(p->pid, o->only_module, &p->only_lo, &p->only_hi)) {
		cli_error("--only: no executable mapping of '%s' in process %d", o->only_module,
			  (int)p->pid);
		return -1;
	}
	if (o->only_module && guard_module_entries(p)) {
		cli_error("cannot set a breakpoint in process %d: %m", (int)p->pid);
		return -1;
	}
	p->triggers_armed = 1;
	return 0;
}

/* After exec (or at start): wait for the entry point, where the libraries
 * are loaded and the symbols of --start/--stop/--only can be resolved. */
static int plan_triggers(struct pt_session *s, struct pt_process *p, uint64_t pc)
{
	uint64_t entry;

	p->triggers_armed = 0;
	if (!s->use_triggers)
		return 0;
	entry = auxv_entry(p->pid);
	if (entry && entry == pc)
		return pt_arm_triggers(s, p); /* static program: exec stops at entry */
	if (!entry || pt_bp_add(p, entry, PT_BP_ENTRY)) {
		cli_error("cannot find the entry point of process %d", (int)p->pid);
		return -1;
	}
	return 0;
}

static int on_entry_breakpoint(struct pt_session *s, struct pt_thread *t, struct pt_bp *bp)
{
	struct pt_process *p = t->proc;

	pt_bp_drop_kind(p, bp->addr, PT_BP_ENTRY);
	if (pt_arm_triggers(s, p))
		return -1;
	pt_set_initial_mode(s, t);
	t->announce = 0;
	if (t->mode == PT_MODE_STEP)
		pt_write_ctl(s, t, 1, ITRACE_CTL_START, t->regs.rip);
	return 0;
}

/* ---- resuming ------------------------------------------------------------ */

int pt_get_regs(struct pt_thread *t)
{
	if (t->regs_fresh)
		return 0;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) != 0)
		return -1;
	t->regs_fresh = 1;
	return 0;
}

/* The progress line counts what is recorded (steps with --ring). */
static void show_progress(struct pt_session *s)
{
	struct itrace_writer_stats st;

	if (!s->w || s->ring_on) {
		cli_progress(&s->progress, s->steps);
		return;
	}
	itrace_writer_stats(s->w, &st);
	cli_progress(&s->progress, s->opts->level == ITRACE_LEVEL_INSN ? st.insns : st.branches);
}

void pt_resume(struct pt_session *s, struct pt_thread *t, int sig)
{
	int req;

	if (pt_get_regs(t) != 0)
		return; /* gone (ESRCH): its exit is reported by waitpid */
	req = pt_prepare_resume(s, t);
	if (sig && t->mode != PT_MODE_CONT && pt_signal_is_caught(t->tid, sig))
		t->has_pending = 0; /* the handler runs first; rip's insn waits */
	t->regs_fresh = 0;
	t->stopped = 0;
	t->deliver_sig = 0;
	t->last_req = req;
	ptrace(req, t->tid, 0, (long)sig);
	if (s->progress.enabled && s->steps % 4096 == 0)
		show_progress(s);
}

/* ---- stops --------------------------------------------------------------- */

static uint64_t fault_address(const siginfo_t *si)
{
	switch (si->si_signo) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
		return si->si_code > 0 ? (uint64_t)(uintptr_t)si->si_addr : 0;
	default:
		return 0;
	}
}

/*
 * Did the signal of this signal-delivery-stop interrupt a system call that
 * the kernel restarts, or makes fail with EINTR, as it delivers the signal?
 * The kernel's own test (arch/x86/kernel/signal.c): the thread is in a
 * system call (orig_rax >= 0) that returned one of the -ERESTART* codes
 * (ERESTARTSYS 512, ERESTARTNOINTR 513, ERESTARTNOHAND 514,
 * ERESTART_RESTARTBLOCK 516).
 */
static int in_restartable_syscall(const struct user_regs_struct *r)
{
	int64_t ret = (int64_t)r->rax;

	return (int64_t)r->orig_rax >= 0 && (ret == -512 || ret == -513 || ret == -514 || ret == -516);
}

/*
 * At a handler's first instruction: where it returns to, the rip the
 * kernel saved in the signal frame (struct rt_sigframe: the return address
 * slot at rsp, then the ucontext).  That is the syscall instruction itself
 * when the kernel restarts the call, the next one when it fails with EINTR
 * (SA_RESTART decides, which /proc does not show); `fallback` if unreadable.
 */
static uint64_t frame_resume_pc(struct pt_thread *t, uint64_t fallback)
{
	uint64_t rip;
	uint64_t at = t->regs.rsp + 8 + offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]);

	return pt_read_mem(t->proc, at, &rip, sizeof(rip)) == (int)sizeof(rip) ? rip : fallback;
}

/* The SIGNAL of a handler just entered: now we know where it starts. */
static void finish_pending_signal(struct pt_session *s, struct pt_thread *t)
{
	if (!t->pending_sig)
		return;
	t->pending_siginfo.handler = t->regs.rip;
	/* ITRACE.md 6.5.10: pc is where the handler returns to */
	if (t->pending_restart)
		t->pending_siginfo.pc = frame_resume_pc(t, t->pending_siginfo.pc);
	t->trap_blocked = pt_sigtrap_blocked(t->tid); /* the handler's sa_mask */
	pt_write_signal(s, t, &t->pending_siginfo);
	if (s->opts->level == ITRACE_LEVEL_BRANCH && t->mode == PT_MODE_STEP)
		pt_emit_branch(s, t, t->pending_siginfo.pc, t->regs.rip, ITRACE_BRANCH_INTERRUPT,
			       ITRACE_BRANCH_TAKEN);
	t->pending_sig = 0;
}

/* A signal-delivery-stop: record the signal and deliver it unchanged. */
static void on_signal(struct pt_session *s, struct pt_thread *t, int sig)
{
	struct itrace_signal info = {0};
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si);
	if (t->mode != PT_MODE_CONT)
		pt_commit(s, t, PT_COMMIT_STOP);
	/* signal:NAME: the window opens (or closes) with the delivery, so
	 * that the SIGNAL record and the handler are inside (outside) it */
	if (s->use_triggers && t->proc->triggers_armed)
		pt_policy_fire(s, t, policy_on_signal(&t->proc->pol, &t->pol, sig), t->regs.rip);
	info.signo = (uint32_t)sig;
	info.code = si.si_code;
	info.addr = fault_address(&si);
	info.pc = t->regs.rip;
	if (pt_signal_is_caught(t->tid, sig)) {
		t->pending_sig = sig; /* written at the handler's first step */
		t->pending_siginfo = info;
		t->pending_restart = in_restartable_syscall(&t->regs);
		/* Running free (outside a window, in excluded code): one step,
		 * the delivery, to learn the handler, instead of a SIGNAL that
		 * says "default action" (handler 0) for a caught signal. */
		t->step_to_handler = t->mode == PT_MODE_CONT;
	} else if (t->mode != PT_MODE_SILENT) {
		/* No handler runs: a restart the thread does not see, the call
		 * goes on after the syscall instruction (6.5.10). */
		pt_write_signal(s, t, &info);
	}
	t->deliver_sig = sig;
	pt_resume(s, t, sig);
}

/* Thread t is at breakpoint bp (its int3 not run, or undone): what it
 * stands for, then on. */
static void at_breakpoint(struct pt_session *s, struct pt_thread *t, struct pt_bp *bp)
{
	if ((bp->kinds & PT_BP_ENTRY) && on_entry_breakpoint(s, t, bp)) {
		s->io_error = 1; /* fatal: stop the session */
		return;
	}
	bp = pt_bp_find(t->proc, t->regs.rip);
	if (bp)
		pt_on_breakpoint(s, t, bp);
	pt_resume(s, t, 0);
}

/* The step into a handler (step_to_handler) stopped at its first
 * instruction, which may hold a breakpoint: a --start there. */
static void on_handler_entry(struct pt_session *s, struct pt_thread *t)
{
	struct pt_bp *bp = pt_bp_find(t->proc, t->regs.rip);

	if (bp && bp->inserted) {
		at_breakpoint(s, t, bp);
		return;
	}
	pt_resume(s, t, 0);
}

/* SIGTRAP: our step or breakpoint (consumed), or the program's own. */
static void on_sigtrap(struct pt_session *s, struct pt_thread *t)
{
	struct pt_bp *bp;
	siginfo_t si;

	if (t->mode == PT_MODE_CONT && t->reinsert_bp) {
		pt_resume(s, t, 0); /* stepped over a lifted breakpoint */
		return;
	}
	if (t->mode != PT_MODE_CONT && !(t->has_pending && t->pending.is_trap)) {
		pt_commit(s, t, PT_COMMIT_STEP); /* the common case: one step done */
		pt_resume(s, t, 0);
		return;
	}
	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si);
	bp = pt_bp_find(t->proc, t->regs.rip - 1);
	/* Ours even when lifted now: another thread may have lifted it to
	 * step over it after this one executed the int3 (threads run on
	 * while one steps); the program's own int3 is one whose byte was
	 * 0xcc before ours. */
	if (si.si_code == SI_KERNEL && bp && (bp->inserted || bp->orig != 0xcc)) {
		t->regs.rip--;
		ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
		if (t->mode != PT_MODE_CONT)
			pt_commit(s, t, PT_COMMIT_STOP); /* a block step ran into it */
		at_breakpoint(s, t, bp);
		return;
	}
	if (t->mode != PT_MODE_CONT && si.si_code > 0 && si.si_code != SI_KERNEL) {
		pt_commit(s, t, PT_COMMIT_STEP);
		pt_resume(s, t, 0);
		return;
	}
	on_signal(s, t, SIGTRAP); /* the program's own int3 or raise(SIGTRAP) */
}

/* Syscall stops come only from PTRACE_SYSCALL, used while SIGTRAP is
 * (or may become) blocked; at the exit, see whether it still is. */
static void on_syscall_stop(struct pt_session *s, struct pt_thread *t)
{
	t->in_syscall = !t->in_syscall;
	if (t->in_syscall) {
		/* rip is already past the syscall insn: nothing to decide yet */
		t->stopped = 0;
		t->regs_fresh = 0;
		ptrace(PTRACE_SYSCALL, t->tid, 0, 0);
		return;
	}
	if (t->has_pending && t->pending.is_syscall)
		pt_commit(s, t, PT_COMMIT_STEP);
	t->trap_blocked = pt_sigtrap_blocked(t->tid);
	pt_resume(s, t, 0);
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* ---- events -------------------------------------------------------------- */

/*
 * Is thread `tid` of process `tgid` there, running or with an exit still
 * to be waited for?  A new thread may have run and ended, or a new thread
 * or child been killed before its first stop, before its creator's clone
 * or fork event: it must not be counted as live then, or the event loop
 * waits forever.
 */
static int still_there(pid_t tgid, pid_t tid)
{
	return tgkill(tgid, tid, 0) == 0 || errno == EPERM;
}

static void on_clone(struct pt_session *s, struct pt_thread *t)
{
	unsigned long msg = 0;
	struct pt_thread *c;
	int gone = 0;

	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
	c = pt_find_thread(s, (pid_t)msg);
	if (!c) {
		/* gone: it may have run, and ended, before this event */
		gone = !still_there(t->proc->pid, (pid_t)msg);
		if (!gone)
			c = pt_new_thread(s, t->proc, (pid_t)msg);
	}
	if (c || gone)
		pt_write_thread(s, ITRACE_THREAD_CREATE, (pid_t)msg, t->proc->pid, (uint64_t)t->tid);
	s->last_tid = 0; /* the next record names its thread again */
}

static void detach_child(struct pt_session *s, struct pt_thread *c)
{
	struct pt_process *p = c->proc;

	if (!p->is_vfork)
		pt_bp_remove_all(p); /* the child got a copy of our int3s */
	ptrace(PTRACE_DETACH, c->tid, 0, 0);
	pt_free_thread(s, c);
	pt_free_process(s, p);
}

static void on_fork(struct pt_session *s, struct pt_thread *t, int vfork)
{
	struct pt_process *parent = t->proc, *cp;
	unsigned long msg = 0;
	struct pt_thread *c;

	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
	c = pt_find_thread(s, (pid_t)msg);
	if (!c && !still_there((pid_t)msg, (pid_t)msg))
		return;
	cp = c ? c->proc : pt_new_process(s, (pid_t)msg);
	if (!cp)
		return;
	cp->is_vfork = vfork;
	cp->awaiting_fork = 0;
	cp->detach = !s->opts->follow_fork;
	/* the child has the parent's memory, breakpoints included */
	if (parent->nbps) {
		cp->bps = malloc(parent->nbps * sizeof(*cp->bps));
		if (cp->bps) {
			memcpy(cp->bps, parent->bps, parent->nbps * sizeof(*cp->bps));
			cp->nbps = cp->capbps = parent->nbps;
		}
	}
	for (size_t i = 0; i < cp->nbps; i++)
		cp->bps[i].returners = 0;
	pt_bp_reindex(cp); /* (out of memory, lookups fail; removal still works) */
	cp->triggers_armed = parent->triggers_armed;
	memcpy(cp->trig, parent->trig, sizeof(cp->trig));
	cp->ntrig = parent->ntrig;
	policy_proc_fork(&cp->pol, &parent->pol);
	cp->only_lo = parent->only_lo;
	cp->only_hi = parent->only_hi;
	if (!c)
		c = pt_new_thread(s, cp, (pid_t)msg);
	if (!c)
		return;
	if (cp->detach) {
		if (c->started)
			detach_child(s, c);
		return;
	}
	/* the child is where the parent is: inside the same window, if any */
	c->mode = t->mode == PT_MODE_SILENT && t->in_window ? PT_MODE_STEP : t->mode;
	c->in_window = t->in_window;
	c->pol = t->pol; /* the same stack: the same activations */
	pt_write_process(s, ITRACE_PROCESS_FORK, parent->pid, (uint64_t)cp->pid, 0, NULL);
	pt_code_changed(s, cp);
	if (c->started && c->stopped)
		pt_resume(s, c, 0);
}


/* Returns the thread that carries on (the one that exec'd). */
static struct pt_thread *on_exec(struct pt_session *s, struct pt_thread *t)
{
	struct pt_process *p = t->proc;
	unsigned long former = 0;
	char exe[4096];

	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &former);
	if ((pid_t)former != t->tid) {
		/* a non-leader exec'd: it carries on under the pid, in its own state */
		struct pt_thread *e = pt_find_thread(s, (pid_t)former);

		if (e) {
			e->stopped = 1;
			e->regs_fresh = 0;
			t = e;
		}
	}
	pt_get_regs(t);
	pt_commit(s, t, PT_COMMIT_EXEC);
	/* every other thread is gone */
	for (struct pt_thread *o = s->threads, *next; o; o = next) {
		next = o->next;
		if (o != t && o->proc == p) {
			pt_drop_returns(o);
			pt_write_thread(s, ITRACE_THREAD_EXIT, o->tid, p->pid, 0);
			pt_free_thread(s, o);
		}
	}
	t->tid = p->pid;
	t->has_pending = 0;
	t->in_syscall = 0;
	t->trap_gap = 0;
	t->pending_sig = 0;
	t->trap_blocked = pt_sigtrap_blocked(t->tid);
	t->nreturns = 0; /* their breakpoints went with the old image */
	t->reinsert_bp = 0;
	close(p->mem_fd);
	p->mem_fd = pt_open_mem(p->pid);
	p->nbps = 0; /* the old image and its int3s are gone */
	pt_bp_reindex(p);
	p->ntrig = 0;
	p->only_lo = p->only_hi = 0;
	maps_seen_free(&p->maps);
	pt_exe_path(p->pid, exe, sizeof(exe));
	s->last_tid = 0;
	if (!s->w) {
		if (!pt_start_process(s, p->pid))
			return t;
	} else {
		pt_write_process(s, ITRACE_PROCESS_EXEC, p->pid, (uint64_t)former, 0, exe);
		pt_code_changed(s, p);
		pt_check_privileges(p->pid, exe);
	}
	if (plan_triggers(s, p, t->regs.rip)) {
		s->io_error = 1;
		return t;
	}
	pt_set_initial_mode(s, t);
	t->announce = 0;
	if (t->mode == PT_MODE_STEP)
		pt_write_ctl(s, t, 1, ITRACE_CTL_START, t->regs.rip);
	return t;
}

static void on_event(struct pt_session *s, struct pt_thread *t, int event, int sig)
{
	switch (event) {
	case PTRACE_EVENT_CLONE:
		on_clone(s, t);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		on_fork(s, t, event == PTRACE_EVENT_VFORK);
		break;
	case PTRACE_EVENT_EXEC:
		t = on_exec(s, t);
		break;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig)) {
			/* group-stop: stay stopped until SIGCONT, as without us */
			t->stopped = 0;
			ptrace(PTRACE_LISTEN, t->tid, 0, 0);
			return;
		}
		break;
	default:
		break;
	}
	if (s->io_error)
		return;
	if (event != PTRACE_EVENT_EXEC && t->has_pending && t->last_req) {
		/* mid-instruction (clone, fork, a stop): carry on as before */
		t->stopped = 0;
		t->regs_fresh = 0;
		ptrace(t->last_req, t->tid, 0, 0);
		return;
	}
	pt_resume(s, t, 0);
}

/* First stop of a thread we have not heard of yet (its clone/fork event
 * may come later): attach it to its process, or create the process. */
static struct pt_thread *adopt_thread(struct pt_session *s, pid_t tid)
{
	pid_t tgid = (pid_t)pt_status_value(tid, "Tgid:", 10);
	struct pt_process *p = pt_find_process(s, tgid ? tgid : tid);

	if (!p) {
		p = pt_new_process(s, tgid ? tgid : tid);
		if (p)
			p->awaiting_fork = 1; /* hold it until its parent's event */
	}
	return p ? pt_new_thread(s, p, tid) : NULL;
}

static int shell_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int is_exit_syscall(const struct pt_thread *t)
{
	return t->has_pending && t->pending.is_syscall &&
	       (t->pending.sys_nr == SYS_exit || t->pending.sys_nr == SYS_exit_group);
}

/* --ring: write the kept branches (once), before the exit records. */
void pt_flush_ring(struct pt_session *s)
{
	int rc;

	if (!s->ring_on || !s->w || s->io_error)
		return;
	s->ring_on = 0;
	rc = collect_ring_write(&s->ring, &s->out, &s->last_tid);
	if (rc < 0)
		pt_fail_io(s, rc);
}

void pt_on_exit_status(struct pt_session *s, struct pt_thread *t, int status)
{
	struct pt_process *p = t->proc;
	int64_t pstatus = WIFEXITED(status) ? WEXITSTATUS(status) : -(int64_t)WTERMSIG(status);
	int leader = t->tid == p->pid;

	if (WIFEXITED(status) && is_exit_syscall(t) && t->mode != PT_MODE_CONT)
		pt_commit(s, t, PT_COMMIT_EXIT);
	pt_drop_returns(t);
	if (s->live_threads == 1)
		pt_flush_ring(s); /* the last thread: how it got here comes first */
	pt_write_thread(s, ITRACE_THREAD_EXIT, t->tid, p->pid, (uint64_t)pstatus);
	if (leader) {
		pt_write_process(s, ITRACE_PROCESS_EXIT, p->pid, 0, pstatus, NULL);
		if (p->pid == s->main_pid)
			s->main_status = shell_status(status);
	}
	pt_free_thread(s, t);
	if (p->nthreads == 0 && leader)
		pt_free_process(s, p);
}

static void on_wait_status(struct pt_session *s, pid_t tid, int status)
{
	struct pt_thread *t = pt_find_thread(s, tid);
	int stepped_in;

	if (!t) {
		if (!WIFSTOPPED(status))
			return; /* a thread we already wrote off (exec) */
		t = adopt_thread(s, tid);
		if (!t)
			return;
	}
	if (!WIFSTOPPED(status)) {
		pt_on_exit_status(s, t, status);
		return;
	}
	t->stopped = 1;
	t->regs_fresh = 0;
	if (!t->started) {
		t->started = 1;
		if (t->proc->detach) {
			detach_child(s, t);
			return;
		}
		if (t->proc->awaiting_fork)
			return;
	}
	stepped_in = t->step_to_handler;
	t->step_to_handler = 0;
	if (pt_get_regs(t) == 0)
		finish_pending_signal(s, t);
	if (status >> 16)
		on_event(s, t, status >> 16, WSTOPSIG(status));
	else if (WSTOPSIG(status) == SIGTRAP && stepped_in)
		on_handler_entry(s, t);
	else if (WSTOPSIG(status) == SIGTRAP)
		on_sigtrap(s, t);
	else if (WSTOPSIG(status) == (SIGTRAP | 0x80))
		on_syscall_stop(s, t);
	else
		on_signal(s, t, WSTOPSIG(status));
}

void pt_event_loop(struct pt_session *s)
{
	int status;
	pid_t tid;

	while (s->live_threads > 0 && !s->io_error && !collect_interrupted) {
		tid = waitpid(-1, &status, __WALL);
		pt_tick(s);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: nothing left */
		}
		on_wait_status(s, tid, status);
	}
}
