/*
 * ptrace_proc.c - the ptrace backend's bookkeeping, the one owner of
 * process state: the tables of traced processes and threads (created,
 * found and freed only here), the trace they go to (opened by
 * pt_start_process) and the records written about them, and each address
 * space's code generation.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect_writer.h"
#include "emit.h"
#include "itrace_format.h"
#include "ptrace_internal.h"

/* ---- records ----------------------------------------------------------- */

void pt_fail_io(struct pt_session *s, int rc)
{
	if (!s->io_error) {
		s->io_errno = rc == -ITRACE_E_IO ? errno : EIO;
		cli_error("cannot write '%s': %s", s->opts->output, cli_errstr(rc));
	}
	s->io_error = 1;
}

void pt_tick(struct pt_session *s)
{
	int rc;

	if (s->io_error || !s->w)
		return;
	rc = itrace_writer_tick(s->w);
	if (rc < 0)
		pt_fail_io(s, rc);
}

void pt_check_io(struct pt_session *s, int rc)
{
	if (rc < 0)
		pt_fail_io(s, rc);
}

void pt_write_thread(struct pt_session *s, int event, pid_t tid, pid_t pid, uint64_t other)
{
	PT_EMIT(s, emit_thread, event, (uint32_t)tid, (uint32_t)pid, other);
}

void pt_switch_to(struct pt_session *s, struct pt_thread *t)
{
	if (s->last_tid == (uint32_t)t->tid)
		return;
	s->last_tid = (uint32_t)t->tid;
	pt_write_thread(s, ITRACE_THREAD_SWITCH, t->tid, t->proc->pid, 0);
}

void pt_write_ctl(struct pt_session *s, struct pt_thread *t, int on, int reason, uint64_t addr)
{
	if (s->ring_on)
		return;
	pt_switch_to(s, t);
	PT_EMIT(s, emit_ctl, on, reason, addr);
}

void pt_write_ctl_trigger(struct pt_session *s, struct pt_thread *t, int on, uint64_t addr, int by,
			  uint32_t index)
{
	if (s->ring_on)
		return;
	pt_switch_to(s, t);
	if (by == POLICY_BY_BEGIN || by == 0)
		PT_EMIT(s, emit_ctl, on, ITRACE_CTL_TRIGGER, addr);
	else
		PT_EMIT(s, emit_ctl_trigger, on, addr, by, index);
}

void pt_write_process(struct pt_session *s, int event, pid_t pid, uint64_t other,
			  int64_t status, const char *name)
{
	PT_EMIT(s, emit_process, event, (uint32_t)pid, other, status, name);
}

void pt_write_signal(struct pt_session *s, struct pt_thread *t, const struct itrace_signal *sig)
{
	if (s->ring_on) {
		emit_signal(pt_ring(s, t), sig); /* the ring takes every signal */
		return;
	}
	pt_switch_to(s, t);
	PT_EMIT(s, emit_signal, sig);
}

/* ---- processes and threads ---------------------------------------------- */

void pt_check_privileges(pid_t pid, const char *exe)
{
	uid_t euid;
	gid_t egid;

	if (collect_process_ids(pid, &euid, &egid) == 0)
		collect_warn_unprivileged(exe, euid, egid,
					  "the kernel does not give a traced program the privileges of "
					  "its mode (unless the tracer has CAP_SYS_PTRACE)");
}

void pt_exe_path(pid_t pid, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

int pt_open_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	return open(path, O_RDWR | O_CLOEXEC);
}

struct pt_process *pt_find_process(struct pt_session *s, pid_t pid)
{
	for (struct pt_process *p = s->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

struct pt_thread *pt_find_thread(struct pt_session *s, pid_t tid)
{
	for (struct pt_thread *t = s->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

struct pt_process *pt_new_process(struct pt_session *s, pid_t pid)
{
	struct pt_process *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->mem_fd = pt_open_mem(pid);
	pt_invalidate_code(p);
	p->next = s->procs;
	s->procs = p;
	return p;
}

void pt_free_process(struct pt_session *s, struct pt_process *p)
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
	free(p->bp_slots);
	free(p);
}

/* Mode of a thread that appears now: tracing unless it waits for --start. */
void pt_set_initial_mode(const struct pt_session *s, struct pt_thread *t)
{
	struct pt_process *p = t->proc;

	if (!s->use_triggers) {
		t->in_window = 1;
		t->mode = PT_MODE_STEP;
		return;
	}
	t->in_window = 0;
	t->mode = PT_MODE_CONT;
	if (!p->triggers_armed)
		return;
	policy_thread_init(&p->pol, &t->pol);
	t->in_window = t->pol.open;
	t->mode = t->in_window ? PT_MODE_STEP : pt_closed_mode(t);
}

struct pt_thread *pt_new_thread(struct pt_session *s, struct pt_process *p, pid_t tid)
{
	struct pt_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tid = tid;
	t->proc = p;
	t->announce = 1; /* cleared where the start is written otherwise (exec, attach) */
	pt_set_initial_mode(s, t);
	t->next = s->threads;
	s->threads = t;
	p->nthreads++;
	s->live_threads++;
	return t;
}

void pt_free_thread(struct pt_session *s, struct pt_thread *t)
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

unsigned long long pt_status_value(pid_t tid, const char *field, int base)
{
	char path[64], line[256];
	unsigned long long v = 0;
	size_t flen = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, flen) == 0) {
			v = strtoull(line + flen, NULL, base);
			break;
		}
	}
	fclose(f);
	return v;
}

/* Is `sig` caught by a handler in thread `tid`? */
int pt_signal_is_caught(pid_t tid, int sig)
{
	return (pt_status_value(tid, "SigCgt:", 16) >> (sig - 1)) & 1;
}

int pt_sigtrap_blocked(pid_t tid)
{
	unsigned long long bit = 1ull << (SIGTRAP - 1);

	/* The kernel forces a step trap on a blocked SIGTRAP by resetting its
	 * action to the default and unblocking it (force_sig_info): harmless
	 * to a program that had the default action, fatal to a handler. */
	return (pt_status_value(tid, "SigBlk:", 16) & bit) && (pt_status_value(tid, "SigCgt:", 16) & bit);
}

/* ---- the address space and the trace ------------------------------------ */

/* Decode-cache generations: a new one whenever code may have changed. */
static uint32_t next_code_id = 1;

void pt_invalidate_code(struct pt_process *p)
{
	p->code_id = next_code_id++;
}

void pt_code_changed(struct pt_session *s, struct pt_process *p)
{
	int rc;

	pt_invalidate_code(p);
	if (!s->w)
		return;
	rc = maps_write_new(&s->out, p->pid, &p->maps, NULL, NULL);
	if (rc < 0 && rc != -ITRACE_E_IO) /* IO: /proc gone, the process died */
		pt_fail_io(s, rc);
}

/* Run the calling thread on `cpu` only. */
int pt_pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The traced process exists and has exec'd: open the trace. */
struct pt_process *pt_start_process(struct pt_session *s, pid_t pid)
{
	struct pt_process *p = pt_find_process(s, pid);
	char pin[32];
	const struct itrace_meta extra[] = {
		{"pinned", pin},
		{"mode", s->attached ? "attach" : "start"},
		{"singleblock", s->singleblock ? "yes" : "no"},
	};
	uint32_t flags = s->opts->level != ITRACE_LEVEL_INSN ? 0
			 : s->opts->insn_bytes ? ITRACE_FF_MEM | ITRACE_FF_INSN_BYTES : ITRACE_FF_MEM;
	char exe[4096];

	if (s->pin_cpu >= 0)
		snprintf(pin, sizeof(pin), "cpu %d", s->pin_cpu);
	else
		snprintf(pin, sizeof(pin), "no");
	if (collect_writer_open(s->opts, "ptrace", pid, flags, extra,
				s->opts->level == ITRACE_LEVEL_BRANCH ? 3 : 2, &s->w)) {
		s->io_error = 1;
		return NULL;
	}
	s->out = emit_writer_sink(s->w);
	/* The tracing thread joins the program on its CPU now: the writer's
	 * compression thread, started by the open, keeps every CPU. */
	if (s->pin_cpu >= 0 && pt_pin_to(s->pin_cpu) != 0)
		s->pin_cpu = -1;
	pt_exe_path(pid, exe, sizeof(exe));
	if (!s->attached)
		pt_check_privileges(pid, exe);
	if (s->opts->verbose)
		fprintf(stderr, "%s: tracing process %d (%s) at %s level%s%s%s\n", cli_progname(),
			(int)pid, exe, s->opts->level == ITRACE_LEVEL_INSN ? "insn" : "branch",
			s->blockstep ? " with PTRACE_SINGLEBLOCK" : "",
			s->pin_cpu >= 0 ? ", collector and program on CPU " : "",
			s->pin_cpu >= 0 ? pin + 4 : "");
	pt_write_process(s, ITRACE_PROCESS_START, pid, 0, 0, exe);
	pt_code_changed(s, p);
	return p;
}
