/*
 * ptrace_backend.c - the ptrace backend of itrace-collect: start or attach
 * to a program, follow its threads (and forks, execs) through ptrace
 * stops, and turn every stop into trace records.  What happens at a step
 * is in ptrace_step.c; breakpoints in ptrace_bp.c.
 *
 * Safety: a started program is seized with PTRACE_O_EXITKILL, so it dies
 * with the collector; the window between fork and seize is covered by
 * PR_SET_PDEATHSIG in the child, which stops itself before exec.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect_writer.h"
#include "itrace_format.h"
#include "maps.h"
#include "ptrace_internal.h"
#include "symbols.h"

#define AT_ENTRY_TAG 9 /* auxv: program entry point */

/* ---- records ----------------------------------------------------------- */

void pt_fail_io(struct pt_session *s, int rc)
{
	if (!s->io_error)
		cli_error("cannot write the trace '%s': %s", s->opts->output, itrace_errstr(rc));
	s->io_error = 1;
}

void pt_write(struct pt_session *s, const struct itrace_record *rec)
{
	int rc;

	if (s->io_error || !s->w)
		return;
	rc = itrace_writer_write(s->w, rec);
	if (rc < 0)
		pt_fail_io(s, rc);
}

static void write_thread(struct pt_session *s, int event, pid_t tid, pid_t pid, uint64_t other)
{
	struct itrace_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_THREAD;
	rec.u.thread.event = (uint8_t)event;
	rec.u.thread.tid = (uint32_t)tid;
	rec.u.thread.pid = (uint32_t)pid;
	rec.u.thread.other = other;
	pt_write(s, &rec);
}

void pt_switch_to(struct pt_session *s, struct pt_thread *t)
{
	if (s->last_tid == (uint32_t)t->tid)
		return;
	s->last_tid = (uint32_t)t->tid;
	write_thread(s, ITRACE_THREAD_SWITCH, t->tid, t->proc->pid, 0);
}

void pt_write_ctl(struct pt_session *s, struct pt_thread *t, int on, int reason, uint64_t addr)
{
	struct itrace_record rec;

	if (s->ring_on)
		return;
	pt_switch_to(s, t);
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_TRACE_CTL;
	rec.u.ctl.on = (uint8_t)on;
	rec.u.ctl.reason = (uint8_t)reason;
	rec.u.ctl.addr = addr;
	pt_write(s, &rec);
}

static void write_process(struct pt_session *s, int event, pid_t pid, uint64_t other,
			  int64_t status, const char *name)
{
	struct itrace_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_PROCESS;
	rec.u.process.event = (uint8_t)event;
	rec.u.process.pid = (uint32_t)pid;
	rec.u.process.other = other;
	rec.u.process.status = status;
	rec.u.process.name = name;
	rec.u.process.name_len = name ? strlen(name) : 0;
	pt_write(s, &rec);
}

static void write_signal(struct pt_session *s, struct pt_thread *t, const struct itrace_signal *sig)
{
	struct itrace_record rec;

	if (s->ring_on) {
		struct collect_ring_entry e = {.tid = (uint32_t)t->tid,
					       .pid = (uint32_t)t->proc->pid,
					       .type = ITRACE_REC_SIGNAL};

		e.u.signal = *sig;
		collect_ring_push(&s->ring, &e);
		return;
	}
	pt_switch_to(s, t);
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_SIGNAL;
	rec.u.signal = *sig;
	pt_write(s, &rec);
}

/* ---- processes and threads ---------------------------------------------- */

static void exe_path(pid_t pid, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static int open_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	return open(path, O_RDWR | O_CLOEXEC);
}

static struct pt_process *find_process(struct pt_session *s, pid_t pid)
{
	for (struct pt_process *p = s->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct pt_thread *find_thread(struct pt_session *s, pid_t tid)
{
	for (struct pt_thread *t = s->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

static struct pt_process *new_process(struct pt_session *s, pid_t pid)
{
	struct pt_process *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->mem_fd = open_mem(pid);
	pt_invalidate_code(p);
	p->next = s->procs;
	s->procs = p;
	return p;
}

static void free_process(struct pt_session *s, struct pt_process *p)
{
	for (struct pt_process **pp = &s->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	maps_seen_free(&p->maps);
	free(p->bps);
	free(p);
}

/* Mode of a thread that appears now: tracing unless it waits for --start. */
static enum pt_mode initial_mode(const struct pt_session *s, const struct pt_process *p)
{
	if (!p->triggers_armed && s->use_triggers)
		return PT_MODE_CONT; /* runs to the entry breakpoint */
	return p->start_addr ? PT_MODE_CONT : PT_MODE_STEP;
}

static struct pt_thread *new_thread(struct pt_session *s, struct pt_process *p, pid_t tid)
{
	struct pt_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tid = tid;
	t->proc = p;
	t->mode = initial_mode(s, p);
	t->next = s->threads;
	s->threads = t;
	p->nthreads++;
	s->live_threads++;
	return t;
}

static void free_thread(struct pt_session *s, struct pt_thread *t)
{
	for (struct pt_thread **pp = &s->threads; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	t->proc->nthreads--;
	s->live_threads--;
	free(t);
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[256];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* Signal mask `field` ("SigCgt:", "SigBlk:") of /proc/TID/status. */
static unsigned long long status_mask(pid_t tid, const char *field)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	size_t flen = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, flen) == 0 && sscanf(line + flen, "%llx", &mask) == 1)
			break;
	fclose(f);
	return mask;
}

/* Is `sig` caught by a handler in thread `tid`? */
static int signal_is_caught(pid_t tid, int sig)
{
	return (status_mask(tid, "SigCgt:") >> (sig - 1)) & 1;
}

int pt_sigtrap_blocked(pid_t tid)
{
	return (status_mask(tid, "SigBlk:") >> (SIGTRAP - 1)) & 1;
}

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

static int resolve_trigger(pid_t pid, const char *func, int has_addr, uint64_t addr,
			   const char *opt, uint64_t *out)
{
	int rc;

	*out = 0;
	if (has_addr) {
		*out = addr;
		return 0;
	}
	if (!func)
		return 0;
	rc = symbols_lookup(pid, func, out);
	if (rc < 0) {
		cli_error("%s: no function '%s' in the program or its libraries "
			  "(check the name with nm; static functions need a symbol table)",
			  opt, func);
		return -1;
	}
	return 0;
}

/* --only: a breakpoint on every function of the module, so that calls
 * back into it from excluded code (main from libc, callbacks) are seen. */
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
static int arm_triggers(struct pt_session *s, struct pt_process *p)
{
	const struct collect_options *o = s->opts;

	if (resolve_trigger(p->pid, o->start_func, o->has_start_addr, o->start_addr, "--start",
			    &p->start_addr) ||
	    resolve_trigger(p->pid, o->stop_func, o->has_stop_addr, o->stop_addr, "--stop",
			    &p->stop_addr))
		return -1;
	if (o->only_module && maps_find_module(p->pid, o->only_module, &p->only_lo, &p->only_hi)) {
		cli_error("--only: no executable mapping of '%s' in process %d", o->only_module,
			  (int)p->pid);
		return -1;
	}
	if ((p->start_addr && pt_bp_add(p, p->start_addr, PT_BP_START)) ||
	    (p->stop_addr && pt_bp_add(p, p->stop_addr, PT_BP_STOP)) ||
	    (o->only_module && guard_module_entries(p))) {
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
		return arm_triggers(s, p); /* static program: exec stops at entry */
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
	if (arm_triggers(s, p))
		return -1;
	t->mode = initial_mode(s, p);
	if (t->mode == PT_MODE_STEP)
		pt_write_ctl(s, t, 1, ITRACE_CTL_START, t->regs.rip);
	return 0;
}

/* ---- resuming ------------------------------------------------------------ */

static int get_regs(struct pt_thread *t)
{
	if (t->regs_fresh)
		return 0;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) != 0)
		return -1;
	t->regs_fresh = 1;
	return 0;
}

static void resume(struct pt_session *s, struct pt_thread *t, int sig)
{
	int req;

	if (get_regs(t) != 0)
		return; /* gone (ESRCH): its exit is reported by waitpid */
	req = pt_prepare_resume(s, t);
	if (sig && t->mode != PT_MODE_CONT && signal_is_caught(t->tid, sig))
		t->has_pending = 0; /* the handler runs first; rip's insn waits */
	t->regs_fresh = 0;
	t->stopped = 0;
	t->deliver_sig = 0;
	t->last_req = req;
	ptrace(req, t->tid, 0, (long)sig);
	if (s->steps % 4096 == 0)
		cli_progress(&s->progress, s->steps);
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

/* The SIGNAL of a handler just entered: now we know where it starts. */
static void finish_pending_signal(struct pt_session *s, struct pt_thread *t)
{
	if (!t->pending_sig)
		return;
	t->pending_siginfo.handler = t->regs.rip;
	t->trap_blocked = pt_sigtrap_blocked(t->tid); /* the handler's sa_mask */
	write_signal(s, t, &t->pending_siginfo);
	if (s->opts->level == ITRACE_LEVEL_BRANCH && t->mode != PT_MODE_SILENT)
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
	info.signo = (uint32_t)sig;
	info.code = si.si_code;
	info.addr = fault_address(&si);
	info.pc = t->regs.rip;
	if (t->mode != PT_MODE_CONT && signal_is_caught(t->tid, sig)) {
		t->pending_sig = sig; /* written at the handler's first step */
		t->pending_siginfo = info;
	} else if (t->mode != PT_MODE_SILENT) {
		write_signal(s, t, &info);
	}
	t->deliver_sig = sig;
	resume(s, t, sig);
}

/* SIGTRAP: our step or breakpoint (consumed), or the program's own. */
static void on_sigtrap(struct pt_session *s, struct pt_thread *t)
{
	struct pt_bp *bp;
	siginfo_t si;

	if (t->mode == PT_MODE_CONT && t->reinsert_bp) {
		resume(s, t, 0); /* stepped over a lifted breakpoint */
		return;
	}
	if (t->mode != PT_MODE_CONT && !(t->has_pending && t->pending.is_trap)) {
		pt_commit(s, t, PT_COMMIT_STEP); /* the common case: one step done */
		resume(s, t, 0);
		return;
	}
	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si);
	bp = pt_bp_find(t->proc, t->regs.rip - 1);
	if (si.si_code == SI_KERNEL && bp && bp->inserted) {
		t->regs.rip--;
		ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
		if (t->mode != PT_MODE_CONT)
			pt_commit(s, t, PT_COMMIT_STOP); /* a block step ran into it */
		if ((bp->kinds & PT_BP_ENTRY) && on_entry_breakpoint(s, t, bp)) {
			s->io_error = 1; /* fatal: stop the session */
			return;
		}
		bp = pt_bp_find(t->proc, t->regs.rip);
		if (bp)
			pt_on_breakpoint(s, t, bp);
		resume(s, t, 0);
		return;
	}
	if (t->mode != PT_MODE_CONT && si.si_code > 0 && si.si_code != SI_KERNEL) {
		pt_commit(s, t, PT_COMMIT_STEP);
		resume(s, t, 0);
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
	resume(s, t, 0);
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* ---- events -------------------------------------------------------------- */

static struct pt_process *start_process(struct pt_session *s, pid_t pid);

static void on_clone(struct pt_session *s, struct pt_thread *t)
{
	unsigned long msg = 0;
	struct pt_thread *c;

	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
	c = find_thread(s, (pid_t)msg);
	if (!c)
		c = new_thread(s, t->proc, (pid_t)msg);
	if (c)
		write_thread(s, ITRACE_THREAD_CREATE, c->tid, t->proc->pid, (uint64_t)t->tid);
	s->last_tid = 0; /* the next record names its thread again */
}

static void detach_child(struct pt_session *s, struct pt_thread *c)
{
	struct pt_process *p = c->proc;

	if (!p->is_vfork)
		pt_bp_remove_all(p); /* the child got a copy of our int3s */
	ptrace(PTRACE_DETACH, c->tid, 0, 0);
	free_thread(s, c);
	free_process(s, p);
}

static void on_fork(struct pt_session *s, struct pt_thread *t, int vfork)
{
	struct pt_process *parent = t->proc, *cp;
	unsigned long msg = 0;
	struct pt_thread *c;

	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
	c = find_thread(s, (pid_t)msg);
	cp = c ? c->proc : new_process(s, (pid_t)msg);
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
	cp->triggers_armed = parent->triggers_armed;
	cp->start_addr = parent->start_addr;
	cp->stop_addr = parent->stop_addr;
	cp->only_lo = parent->only_lo;
	cp->only_hi = parent->only_hi;
	if (!c)
		c = new_thread(s, cp, (pid_t)msg);
	if (!c)
		return;
	if (cp->detach) {
		if (c->started)
			detach_child(s, c);
		return;
	}
	/* the child is where the parent is: inside the same window, if any */
	c->mode = t->mode == PT_MODE_SILENT ? PT_MODE_STEP : t->mode;
	c->window_rsp = t->window_rsp;
	write_process(s, ITRACE_PROCESS_FORK, parent->pid, (uint64_t)cp->pid, 0, NULL);
	pt_code_changed(s, cp);
	if (c->started && c->stopped)
		resume(s, c, 0);
}

void pt_code_changed(struct pt_session *s, struct pt_process *p)
{
	int rc;

	pt_invalidate_code(p);
	if (!s->w)
		return;
	rc = maps_write_new(s->w, p->pid, &p->maps, NULL, NULL);
	if (rc < 0 && rc != -ITRACE_E_IO) /* IO: /proc gone, the process died */
		pt_fail_io(s, rc);
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
		struct pt_thread *e = find_thread(s, (pid_t)former);

		if (e) {
			e->stopped = 1;
			e->regs_fresh = 0;
			t = e;
		}
	}
	get_regs(t);
	pt_commit(s, t, PT_COMMIT_EXEC);
	/* every other thread is gone */
	for (struct pt_thread *o = s->threads, *next; o; o = next) {
		next = o->next;
		if (o != t && o->proc == p) {
			pt_drop_returns(o);
			write_thread(s, ITRACE_THREAD_EXIT, o->tid, p->pid, 0);
			free_thread(s, o);
		}
	}
	t->tid = p->pid;
	t->has_pending = 0;
	t->in_syscall = 0;
	t->trap_gap = 0;
	t->pending_sig = 0;
	t->trap_blocked = pt_sigtrap_blocked(t->tid);
	t->window_rsp = 0;
	t->nreturns = 0; /* their breakpoints went with the old image */
	t->reinsert_bp = 0;
	close(p->mem_fd);
	p->mem_fd = open_mem(p->pid);
	p->nbps = 0; /* the old image and its int3s are gone */
	p->start_addr = p->stop_addr = p->only_lo = p->only_hi = 0;
	maps_seen_free(&p->maps);
	exe_path(p->pid, exe, sizeof(exe));
	s->last_tid = 0;
	if (!s->w) {
		if (!start_process(s, p->pid))
			return t;
	} else {
		write_process(s, ITRACE_PROCESS_EXEC, p->pid, (uint64_t)former, 0, exe);
		pt_code_changed(s, p);
	}
	if (plan_triggers(s, p, t->regs.rip)) {
		s->io_error = 1;
		return t;
	}
	t->mode = initial_mode(s, p);
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
	resume(s, t, 0);
}

/* First stop of a thread we have not heard of yet (its clone/fork event
 * may come later): attach it to its process, or create the process. */
static struct pt_thread *adopt_thread(struct pt_session *s, pid_t tid)
{
	pid_t tgid = tgid_of(tid);
	struct pt_process *p = find_process(s, tgid ? tgid : tid);

	if (!p) {
		p = new_process(s, tgid ? tgid : tid);
		if (p)
			p->awaiting_fork = 1; /* hold it until its parent's event */
	}
	return p ? new_thread(s, p, tid) : NULL;
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
static void flush_ring(struct pt_session *s)
{
	int rc;

	if (!s->ring_on || !s->w || s->io_error)
		return;
	s->ring_on = 0;
	rc = collect_ring_write(&s->ring, s->w, &s->last_tid);
	if (rc < 0)
		pt_fail_io(s, rc);
}

static void on_exit_status(struct pt_session *s, struct pt_thread *t, int status)
{
	struct pt_process *p = t->proc;
	int64_t pstatus = WIFEXITED(status) ? WEXITSTATUS(status) : -(int64_t)WTERMSIG(status);
	int leader = t->tid == p->pid;

	if (WIFEXITED(status) && is_exit_syscall(t) && t->mode != PT_MODE_CONT)
		pt_commit(s, t, PT_COMMIT_EXIT);
	pt_drop_returns(t);
	if (s->live_threads == 1)
		flush_ring(s); /* the last thread: how it got here comes first */
	write_thread(s, ITRACE_THREAD_EXIT, t->tid, p->pid, (uint64_t)pstatus);
	if (leader) {
		write_process(s, ITRACE_PROCESS_EXIT, p->pid, 0, pstatus, NULL);
		if (p->pid == s->main_pid)
			s->main_status = shell_status(status);
	}
	free_thread(s, t);
	if (p->nthreads == 0 && leader)
		free_process(s, p);
}

static void on_wait_status(struct pt_session *s, pid_t tid, int status)
{
	struct pt_thread *t = find_thread(s, tid);

	if (!t) {
		if (!WIFSTOPPED(status))
			return; /* a thread we already wrote off (exec) */
		t = adopt_thread(s, tid);
		if (!t)
			return;
	}
	if (!WIFSTOPPED(status)) {
		on_exit_status(s, t, status);
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
	if (get_regs(t) == 0)
		finish_pending_signal(s, t);
	if (status >> 16)
		on_event(s, t, status >> 16, WSTOPSIG(status));
	else if (WSTOPSIG(status) == SIGTRAP)
		on_sigtrap(s, t);
	else if (WSTOPSIG(status) == (SIGTRAP | 0x80))
		on_syscall_stop(s, t);
	else
		on_signal(s, t, WSTOPSIG(status));
}

/* ---- starting, attaching, ending ----------------------------------------- */

static long seize_options(const struct pt_session *s, int exitkill)
{
	long o = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD;

	/* fork events also when not following: the child must lose our int3s */
	if (s->opts->follow_fork || s->use_triggers)
		o |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (exitkill)
		o |= PTRACE_O_EXITKILL;
	return o;
}

/* The traced process exists and has exec'd: open the trace. */
static struct pt_process *start_process(struct pt_session *s, pid_t pid)
{
	struct pt_process *p = find_process(s, pid);
	const struct itrace_meta extra[] = {
		{"singleblock", s->singleblock ? "yes" : "no"},
		{"mode", s->attached ? "attach" : "start"},
	};
	uint32_t flags = s->opts->level == ITRACE_LEVEL_INSN ? ITRACE_FF_MEM | ITRACE_FF_INSN_BYTES : 0;
	char exe[4096];

	if (collect_writer_open(s->opts, "ptrace", pid, flags, extra,
				s->opts->level == ITRACE_LEVEL_BRANCH ? 2 : 1, &s->w)) {
		s->io_error = 1;
		return NULL;
	}
	exe_path(pid, exe, sizeof(exe));
	write_process(s, ITRACE_PROCESS_START, pid, 0, 0, exe);
	pt_code_changed(s, p);
	return p;
}

/* Child side of start_program: never returns. */
static void exec_child(const struct collect_options *o, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* covers the window before SEIZE */
	if (getppid() != parent)
		_exit(127);
	if (!o->aslr)
		personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE);
	if (strcmp(o->output, "-") == 0)
		dup2(STDERR_FILENO, STDOUT_FILENO); /* stdout carries the trace */
	raise(SIGSTOP);
	execvp(o->argv[0], o->argv);
	fprintf(stderr, "%s: cannot run '%s': %s\n", cli_progname(), o->argv[0], strerror(errno));
	_exit(127);
}

/* Fork the program stopped, seize it, let it run to its exec event. */
static int start_program(struct pt_session *s)
{
	pid_t parent = getpid(), pid;
	struct pt_process *p;
	struct pt_thread *t;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("cannot fork: %m");
		return -1;
	}
	if (pid == 0)
		exec_child(s->opts, parent);
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SEIZE, pid, 0, seize_options(s, 1)) != 0) {
		cli_error("cannot trace '%s': %m", s->opts->argv[0]);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	s->main_pid = pid;
	p = new_process(s, pid);
	t = p ? new_thread(s, p, pid) : NULL;
	if (!t)
		return -1;
	t->started = 1;
	t->mode = PT_MODE_CONT; /* until exec */
	kill(pid, SIGCONT);
	return 0;
}

static int seize_new_threads(struct pt_session *s, struct pt_process *p)
{
	char path[64];
	struct dirent *de;
	int added = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct pt_thread *t;

		if (tid <= 0 || find_thread(s, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, seize_options(s, 0)) != 0) {
			if (errno == ESRCH)
				continue; /* exited meanwhile */
			closedir(d);
			return -1;
		}
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		t = new_thread(s, p, tid);
		if (!t)
			break;
		added++;
	}
	closedir(d);
	return added;
}

/* -p PID: seize every thread, stop them, describe the process, go. */
static int attach_program(struct pt_session *s, pid_t pid)
{
	struct pt_process *p = new_process(s, pid);
	int n, status;

	if (!p || p->mem_fd < 0) {
		cli_error("cannot attach to process %d: %m", (int)pid);
		return -1;
	}
	s->main_pid = pid;
	s->attached = 1;
	while ((n = seize_new_threads(s, p)) > 0)
		;
	if (n < 0 || p->nthreads == 0) {
		cli_error("cannot attach to process %d: %m (see /proc/sys/kernel/yama/ptrace_scope)",
			  (int)pid);
		return -1;
	}
	for (struct pt_thread *t = s->threads; t; t = t->next) {
		if (waitpid(t->tid, &status, __WALL) == t->tid && WIFSTOPPED(status)) {
			t->started = t->stopped = 1;
		}
	}
	if (!start_process(s, pid) || (s->use_triggers && arm_triggers(s, p)))
		return -1;
	for (struct pt_thread *t = s->threads; t; t = t->next) {
		t->mode = initial_mode(s, p);
		if (t->mode == PT_MODE_STEP && get_regs(t) == 0)
			pt_write_ctl(s, t, 1, ITRACE_CTL_ATTACH, t->regs.rip);
	}
	for (struct pt_thread *t = s->threads; t; t = t->next)
		if (t->stopped)
			resume(s, t, 0);
	return 0;
}

/* Started program, on interrupt or fatal error: kill and reap everything. */
static void kill_all(struct pt_session *s)
{
	int status;
	pid_t tid;

	for (struct pt_process *p = s->procs; p; p = p->next)
		kill(p->pid, SIGKILL);
	while ((tid = waitpid(-1, &status, __WALL)) > 0 || (tid < 0 && errno == EINTR)) {
		struct pt_thread *t = tid > 0 ? find_thread(s, tid) : NULL;

		if (t && !WIFSTOPPED(status))
			on_exit_status(s, t, status);
	}
}

/*
 * A thread interrupted for detaching may still have the SIGTRAP of its
 * last step queued: let it take that signal-delivery-stop now, and drop
 * the signal if it is ours, or the program would die of it after detach.
 */
static void drain_own_sigtrap(struct pt_thread *t)
{
	siginfo_t si;
	int status;

	if (!t->stopped || !((status_mask(t->tid, "SigPnd:") >> (SIGTRAP - 1)) & 1))
		return;
	if (ptrace(PTRACE_CONT, t->tid, 0, 0) != 0 || waitpid(t->tid, &status, __WALL) != t->tid ||
	    !WIFSTOPPED(status))
		return;
	t->regs_fresh = 0;
	t->deliver_sig = status >> 16 ? 0 : WSTOPSIG(status);
	memset(&si, 0, sizeof(si));
	if (t->deliver_sig != SIGTRAP || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) != 0)
		return;
	if (si.si_code > 0 && si.si_code != SI_KERNEL)
		t->deliver_sig = 0; /* a step trap */
	else if (si.si_code == SI_KERNEL && get_regs(t) == 0 && pt_bp_find(t->proc, t->regs.rip - 1))
		t->deliver_sig = 0; /* our int3 (rip is rewound by the caller) */
}

/* Attached program: stop every thread, remove our int3s, let go. */
static void detach_all(struct pt_session *s)
{
	int status;

	for (struct pt_thread *t = s->threads; t; t = t->next)
		if (!t->stopped)
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	for (struct pt_thread *t = s->threads, *next; t; t = next) {
		next = t->next;
		while (!t->stopped && waitpid(t->tid, &status, __WALL) == t->tid) {
			if (!WIFSTOPPED(status)) {
				on_exit_status(s, t, status);
				break;
			}
			t->stopped = 1;
			t->regs_fresh = 0;
			if (!(status >> 16) && WSTOPSIG(status) != SIGTRAP)
				t->deliver_sig = WSTOPSIG(status);
		}
	}
	for (struct pt_thread *t = s->threads; t; t = t->next) {
		struct pt_bp *bp;

		drain_own_sigtrap(t);
		if (get_regs(t) == 0 && (bp = pt_bp_find(t->proc, t->regs.rip - 1)) && bp->inserted &&
		    t->mode == PT_MODE_CONT) {
			t->regs.rip--; /* stopped on our int3: undo it */
			ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
		}
	}
	for (struct pt_process *p = s->procs; p; p = p->next)
		pt_bp_remove_all(p);
	if (s->threads)
		pt_write_ctl(s, s->threads, 0, ITRACE_CTL_DETACH, s->threads->regs.rip);
	for (struct pt_thread *t = s->threads; t; t = t->next)
		ptrace(PTRACE_DETACH, t->tid, 0, (long)t->deliver_sig);
}

static void event_loop(struct pt_session *s)
{
	int status;
	pid_t tid;

	while (s->live_threads > 0 && !s->io_error && !collect_interrupted) {
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: nothing left */
		}
		on_wait_status(s, tid, status);
	}
}

/* ---- PTRACE_SINGLEBLOCK probe ---------------------------------------------- */

/* Straight-line code then a taken jump: a block step from probe_block
 * stops at probe_target, a plain step at probe_block + 1. */
__asm__(".pushsection .text\n"
	".globl itrace_probe_block\n"
	"itrace_probe_block:\n"
	"	nop\n	nop\n	nop\n	nop\n"
	"	jmp itrace_probe_target\n"
	"	ud2\n"
	"itrace_probe_target:\n"
	"	nop\n"
	"1:	jmp 1b\n"
	".popsection\n");
extern char itrace_probe_block[], itrace_probe_target[];

/* Does the kernel + CPU honour PTRACE_SINGLEBLOCK?  Returns 1 or 0. */
static int probe_singleblock(void)
{
	struct user_regs_struct regs;
	int status, honoured = 0;
	pid_t pid = fork();

	if (pid < 0)
		return 0;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status) &&
	    ptrace(PTRACE_GETREGS, pid, 0, &regs) == 0) {
		regs.rip = (uintptr_t)itrace_probe_block;
		regs.orig_rax = (unsigned long long)-1; /* no syscall restart */
		if (ptrace(PTRACE_SETREGS, pid, 0, &regs) == 0 &&
		    ptrace(PTRACE_SINGLEBLOCK, pid, 0, 0) == 0 && waitpid(pid, &status, 0) == pid &&
		    WIFSTOPPED(status) && ptrace(PTRACE_GETREGS, pid, 0, &regs) == 0)
			honoured = regs.rip == (uintptr_t)itrace_probe_target;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return honoured;
}

/* ---- the backend ------------------------------------------------------------ */

static int getenv_flag(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "1") == 0;
}

static int finish_trace(struct pt_session *s, struct collect_result *res)
{
	int end, status, rc;

	if (!s->w) /* never started tracing: exec failed (127) or no trace file */
		return s->io_error || s->main_status < 0 ? -1 : s->main_status;
	flush_ring(s);
	if (collect_interrupted) {
		end = ITRACE_END_INTERRUPTED, status = collect_interrupted;
	} else if (s->io_error) {
		end = ITRACE_END_ERROR, status = EIO;
	} else if (s->main_status >= 128) {
		end = ITRACE_END_CRASHED, status = s->main_status - 128;
	} else {
		end = ITRACE_END_COMPLETE, status = s->main_status;
	}
	itrace_writer_flush(s->w);
	itrace_writer_stats(s->w, &res->stats);
	res->end_reason = end;
	res->end_status = status;
	rc = itrace_writer_close(s->w, end, status);
	s->w = NULL;
	if (rc < 0 && !s->io_error)
		cli_error("cannot finish the trace '%s': %s", s->opts->output, itrace_errstr(rc));
	if (s->io_error || rc < 0)
		return -1;
	if (collect_interrupted)
		return 128 + collect_interrupted;
	return s->main_status >= 0 ? s->main_status : 0;
}

static void free_session(struct pt_session *s)
{
	while (s->threads)
		free_thread(s, s->threads);
	while (s->procs)
		free_process(s, s->procs);
	collect_ring_free(&s->ring);
	pt_step_fini(s);
}

static int ptrace_probe(const struct collect_options *opts, char *err, size_t errlen)
{
	if (opts->remote) {
		snprintf(err, errlen, "it traces local programs; --remote needs --backend gdb");
		return -1;
	}
	return 0;
}

static int ptrace_run(const struct collect_options *opts, struct collect_result *res)
{
	struct pt_session s;
	double t0 = cli_now();
	int rc;

	memset(&s, 0, sizeof(s));
	s.opts = opts;
	s.main_status = -1;
	s.use_triggers = opts->start_func || opts->stop_func || opts->has_start_addr ||
			 opts->has_stop_addr || opts->only_module;
	if (pt_step_init(&s)) {
		cli_error("cannot initialise capstone");
		return -1;
	}
	if (opts->ring && collect_ring_init(&s.ring, opts->ring) < 0) {
		cli_error("--ring %llu: out of memory", (unsigned long long)opts->ring);
		free_session(&s);
		return -1;
	}
	s.ring_on = opts->ring != 0;
	if (opts->level == ITRACE_LEVEL_BRANCH) {
		s.singleblock = probe_singleblock();
		/* ITRACE_COLLECT_BLOCKSTEP=1 forces the block-step path (tests: on a
		 * machine without it, each block is one instruction) */
		s.blockstep = s.singleblock || getenv_flag("ITRACE_COLLECT_BLOCKSTEP");
		if (!s.singleblock && !opts->quiet)
			cli_warn("PTRACE_SINGLEBLOCK is not honoured on this machine; "
				 "single-stepping and keeping the branches");
	}
	cli_progress_init(&s.progress, "steps", 0, opts->quiet);
	rc = opts->attach_pid ? attach_program(&s, opts->attach_pid) : start_program(&s);
	if (rc == 0)
		event_loop(&s);
	if (s.attached && (collect_interrupted || s.io_error || rc))
		detach_all(&s);
	else if (collect_interrupted || s.io_error || rc)
		kill_all(&s);
	cli_progress_end(&s.progress);
	res->steps = s.steps;
	res->seconds = cli_now() - t0;
	rc = finish_trace(&s, res);
	free_session(&s);
	return rc;
}

const struct collect_backend collect_backend_ptrace = {
	.name = "ptrace",
	.description = "single-steps the program with ptrace (any x86-64 Linux)",
	.levels = COLLECT_LEVEL_BIT(ITRACE_LEVEL_INSN) | COLLECT_LEVEL_BIT(ITRACE_LEVEL_BRANCH),
	.probe = ptrace_probe,
	.run = ptrace_run,
};
