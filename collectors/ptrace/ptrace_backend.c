/*
 * ptrace_backend.c - the ptrace backend of itrace-collect: start or attach
 * to a program, run the event loop (ptrace_stop.c), and end the trace:
 * normally, on SIGINT/SIGTERM (kill a started program, detach from an
 * attached one) or on a write error.  Also the PTRACE_SINGLEBLOCK probe.
 *
 * Safety: a started program is seized with PTRACE_O_EXITKILL, so it dies
 * with the collector, and runs under a guardian (guard.h), which kills
 * what it started, followed or not, if the collector dies first; before
 * the seize it waits for the collector's word to exec, and the end of
 * file of a dead collector ends it.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect_writer.h"
#include "itrace_format.h"
#include "ptrace_internal.h"

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


/*
 * The CPU the collector and the program it starts share (-1: none).  They
 * run strictly in turn, one stopped while the other runs, so on one CPU
 * every stop and resume is a switch on that CPU instead of a wake-up of
 * another one (an inter-processor interrupt, costly in a virtual machine):
 * several times faster per step.  The one the collector runs on now,
 * which its affinity allows.
 */
static int pick_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0 || sched_getaffinity(0, sizeof(set), &set) != 0 || !CPU_ISSET(cpu, &set))
		return -1;
	return cpu;
}


/*
 * Child side of start_program: never returns.  It execs when the
 * collector, having seized it, writes to `go` (the program is the
 * guardian's child: the collector cannot wait for it to stop).
 */
static void exec_child(const struct collect_options *o, int go, int cpu)
{
	char word;
	ssize_t n;

	if (cpu >= 0)
		pt_pin_to(cpu); /* the program and its threads: pick_cpu() */
	collect_restore_signals();
	if (!o->aslr)
		personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE);
	while ((n = read(go, &word, 1)) < 0 && errno == EINTR)
		;
	if (n != 1) /* the collector gave up, or died, before seizing us */
		_exit(127);
	close(go);
	execvp(o->argv[0], o->argv);
	fprintf(stderr, "%s: cannot run '%s': %s\n", cli_progname(), o->argv[0], strerror(errno));
	_exit(127);
}

/*
 * Fork the program under its guardian, seize it, let it run to its exec
 * event.  PTRACE_SEIZE of a grandchild is allowed under Yama's
 * ptrace_scope 1: it is a descendant.
 */
static int start_program(struct pt_session *s)
{
	struct pt_process *p;
	struct pt_thread *t = NULL;
	int go[2], status;
	pid_t pid;

	fflush(NULL);
	if (pipe2(go, O_CLOEXEC) != 0) {
		cli_error("cannot create a pipe: %m");
		return -1;
	}
	pid = guard_fork(&s->guard);
	if (pid < 0) {
		cli_error("cannot fork: %m");
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		exec_child(s->opts, go[0], s->pin_cpu);
	}
	close(go[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, seize_options(s, 1)) != 0) {
		cli_error("cannot trace '%s': %m", s->opts->argv[0]);
		close(go[1]);
		guard_kill(&s->guard);
		guard_wait(&s->guard, &status);
		return -1;
	}
	s->main_pid = pid;
	p = pt_new_process(s, pid);
	if (p)
		t = pt_new_thread(s, p, pid);
	if (t) {
		t->started = 1;
		t->mode = PT_MODE_CONT; /* until exec */
		if (write(go[1], "g", 1) != 1)
			t = NULL;
	}
	close(go[1]); /* without the word, the program ends (127) */
	return t ? 0 : -1;
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

		if (tid <= 0 || pt_find_thread(s, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, seize_options(s, 0)) != 0) {
			if (errno == ESRCH)
				continue; /* exited meanwhile */
			closedir(d);
			return -1;
		}
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		t = pt_new_thread(s, p, tid);
		if (!t)
			break;
		added++;
	}
	closedir(d);
	return added;
}

/* A number from a /proc/sys file, or -1 if it does not exist. */
static long sysctl_value(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * Why PTRACE_SEIZE of `pid` failed (err), in one line: the process is
 * gone, another tracer has it (TracerPid), Yama forbids it (where Yama
 * exists), or it belongs to another user.
 */
static void explain_attach_failure(pid_t pid, int err)
{
	pid_t tracer = (pid_t)pt_status_value(pid, "TracerPid:", 10);
	long yama = sysctl_value("/proc/sys/kernel/yama/ptrace_scope");
	uid_t uid = (uid_t)pt_status_value(pid, "Uid:", 10);
	char comm_path[64], comm[64] = "";
	FILE *f;

	if (err == ESRCH || (err == ENOENT && kill(pid, 0) != 0)) {
		cli_error("cannot attach to process %d: no such process", (int)pid);
		return;
	}
	if (tracer > 0) {
		snprintf(comm_path, sizeof(comm_path), "/proc/%d/comm", (int)tracer);
		f = fopen(comm_path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		cli_error("cannot attach to process %d: it is already traced by process %d%s%s%s, "
			  "and a process has one tracer at a time: detach that one first",
			  (int)pid, (int)tracer, comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
	} else if (err == EPERM && yama > 0) {
		cli_error("cannot attach to process %d: not permitted by Yama "
			  "(/proc/sys/kernel/yama/ptrace_scope is %ld; 0 allows it, or run as root)",
			  (int)pid, yama);
	} else if (err == EPERM && uid != geteuid() && geteuid() != 0) {
		cli_error("cannot attach to process %d: it runs as uid %u and you are uid %u "
			  "(tracing another user's process needs CAP_SYS_PTRACE)",
			  (int)pid, (unsigned)uid, (unsigned)geteuid());
	} else {
		cli_error("cannot attach to process %d: %s", (int)pid, strerror(err));
	}
}

/* -p PID: seize every thread, stop them, describe the process, go. */
static int attach_program(struct pt_session *s, pid_t pid)
{
	struct pt_process *p = pt_new_process(s, pid);
	int n, status;

	if (!p || p->mem_fd < 0) {
		explain_attach_failure(pid, errno);
		return -1;
	}
	s->main_pid = pid;
	s->attached = 1;
	while ((n = seize_new_threads(s, p)) > 0)
		;
	if (n < 0 || p->nthreads == 0) {
		explain_attach_failure(pid, errno);
		return -1;
	}
	for (struct pt_thread *t = s->threads; t; t = t->next) {
		if (waitpid(t->tid, &status, __WALL) == t->tid && WIFSTOPPED(status)) {
			t->started = t->stopped = 1;
		}
	}
	if (!pt_start_process(s, pid) || (s->use_triggers && pt_arm_triggers(s, p)))
		return -1;
	for (struct pt_thread *t = s->threads; t; t = t->next) {
		pt_set_initial_mode(s, t);
		t->announce = 0; /* TRACE_ON attach says where it is */
		if (t->mode == PT_MODE_STEP && pt_get_regs(t) == 0)
			pt_write_ctl(s, t, 1, ITRACE_CTL_ATTACH, t->regs.rip);
	}
	for (struct pt_thread *t = s->threads; t; t = t->next)
		if (t->stopped)
			pt_resume(s, t, 0);
	return 0;
}

/*
 * Started program, on interrupt or fatal error: kill and reap everything
 * (the guardian too, which kills what we did not trace, and ends).
 */
static void kill_all(struct pt_session *s)
{
	int status;
	pid_t tid;

	guard_kill(&s->guard);
	for (struct pt_process *p = s->procs; p; p = p->next)
		kill(p->pid, SIGKILL);
	while ((tid = waitpid(-1, &status, __WALL)) > 0 || (tid < 0 && errno == EINTR)) {
		struct pt_thread *t = tid > 0 ? pt_find_thread(s, tid) : NULL;

		if (t && !WIFSTOPPED(status))
			pt_on_exit_status(s, t, status);
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

	if (!t->stopped || !((pt_status_value(t->tid, "SigPnd:", 16) >> (SIGTRAP - 1)) & 1))
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
	else if (si.si_code == SI_KERNEL && pt_get_regs(t) == 0 && pt_bp_find(t->proc, t->regs.rip - 1))
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
				pt_on_exit_status(s, t, status);
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
		if (pt_get_regs(t) == 0 && (bp = pt_bp_find(t->proc, t->regs.rip - 1)) && bp->inserted &&
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
	pt_flush_ring(s);
	if (collect_interrupted) {
		end = ITRACE_END_INTERRUPTED, status = collect_interrupted;
	} else if (s->io_error) {
		end = ITRACE_END_ERROR, status = s->io_errno;
	} else if (s->main_status >= 128) {
		end = ITRACE_END_CRASHED, status = s->main_status - 128;
	} else {
		end = ITRACE_END_COMPLETE, status = s->main_status;
	}
	end = collect_final_end(s->opts, s->w, end, &status);
	itrace_writer_flush(s->w);
	itrace_writer_stats(s->w, &res->stats);
	res->end_reason = end;
	res->end_status = status;
	rc = itrace_writer_close(s->w, end, status);
	s->w = NULL;
	if (rc < 0 && !s->io_error)
		cli_error("cannot finish the trace '%s': %s", s->opts->output, cli_errstr(rc));
	if (s->io_error || rc < 0)
		return -1;
	if (collect_interrupted)
		return 128 + collect_interrupted;
	return s->main_status >= 0 ? s->main_status : 0;
}

static void free_session(struct pt_session *s)
{
	while (s->threads)
		pt_free_thread(s, s->threads);
	while (s->procs)
		pt_free_process(s, s->procs);
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
	int rc, status;

	memset(&s, 0, sizeof(s));
	s.opts = opts;
	s.main_status = -1;
	/* a program we start shares the collector's CPU; an attached one
	 * keeps its own affinity */
	s.pin_cpu = opts->no_pin || opts->attach_pid ? -1 : pick_cpu();
	s.use_triggers = opts->policy->nstart || opts->policy->nstop || opts->policy->for_insns ||
			 opts->policy->every_insns || opts->only_module;
	if (pt_step_init(&s)) {
		cli_error("cannot initialise the instruction decoder");
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
		/* the policy counts instructions one step at a time */
		if (policy_counts_insns(opts->policy))
			s.blockstep = 0;
		if (!s.singleblock && !opts->quiet)
			cli_warn("PTRACE_SINGLEBLOCK is not honoured on this machine; "
				 "single-stepping and keeping the branches");
	}
	cli_progress_init(&s.progress,
			  opts->ring ? "steps" : opts->level == ITRACE_LEVEL_INSN ? "instructions" : "branches",
			  0, opts->quiet);
	rc = opts->attach_pid ? attach_program(&s, opts->attach_pid) : start_program(&s);
	collect_ticker_start();
	if (rc == 0)
		pt_event_loop(&s);
	collect_ticker_stop();
	if (s.attached && (collect_interrupted || s.io_error || rc))
		detach_all(&s);
	else if (collect_interrupted || s.io_error || rc)
		kill_all(&s);
	/* its exit status came through ptrace; this lets the guardian go */
	guard_wait(&s.guard, &status);
	cli_progress_end(&s.progress);
	res->steps = s.steps;
	res->seconds = cli_now() - t0;
	rc = finish_trace(&s, res);
	free_session(&s);
	return rc;
}

/* The trigger forms ptrace does not implement yet (policy_forms). */
static const char *ptrace_policy_forms(const struct policy_spec *spec)
{
	for (uint32_t k = 0; k < spec->nstart + spec->nstop; k++) {
		int is_stop = k >= spec->nstart;
		const struct policy_event *ev = is_stop ? &spec->stop[k - spec->nstart] : &spec->start[k];

		if (ev->is_glob)
			return "globs";
		if (ev->kind == POLICY_EV_ADDR && ev->name[0])
			return "addr:A@MODULE";
		if (ev->kind == POLICY_EV_RET && !is_stop)
			return "--start ret:FUNC";
	}
	return NULL;
}

const struct collect_backend collect_backend_ptrace = {
	.name = "ptrace",
	.description = "single-steps the program with ptrace (any x86-64 Linux)",
	.levels = COLLECT_LEVEL_BIT(ITRACE_LEVEL_INSN) | COLLECT_LEVEL_BIT(ITRACE_LEVEL_BRANCH),
	.probe = ptrace_probe,
	.run = ptrace_run,
	.policy_forms = ptrace_policy_forms,
};
