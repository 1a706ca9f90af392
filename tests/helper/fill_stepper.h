/*
 * fill_stepper.h - the fill tests' oracle: run a static test program under
 * ptrace single-step, keeping every executed instruction address, and
 * derive from it the branch trace a branch-level collector would record.
 * Filling that branch trace must give back exactly the stepped addresses.
 */
#ifndef FILL_STEPPER_H
#define FILL_STEPPER_H

#include <elf.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itrace.h"
#include "itrace_code.h"

struct step {
	uint64_t addr;
	uint64_t rax; /* for syscall numbers */
	uint8_t bytes[16];
};

struct steps {
	struct step *v;
	size_t n, cap;
	pid_t pid;
};

/* Start `path` (with `nargs` extra arguments "x") stopped at its first instruction. */
static inline pid_t stepper_start(const char *path, int nargs)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		if (nargs)
			execl(path, path, "x", (char *)NULL);
		else
			execl(path, path, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -1;
	return pid;
}

/* Single-step the started program to its exit; returns 0 or -1.  At most `max` steps. */
static inline int stepper_run(pid_t pid, size_t max, struct steps *s)
{
	int status;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	while (s->n < max) {
		struct user_regs_struct regs;
		struct step *st;

		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
			return -1;
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 256;
			s->v = realloc(s->v, s->cap * sizeof(*s->v));
		}
		st = &s->v[s->n++];
		st->addr = regs.rip;
		st->rax = regs.rax;
		for (int i = 0; i < 16; i += 8) {
			long w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(regs.rip + i), NULL);

			memcpy(st->bytes + i, &w, 8);
		}
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0)
			return -1;
		if (waitpid(pid, &status, 0) != pid)
			return -1;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 0;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* Single-step `path` to its exit; returns 0 or -1. */
static inline int step_program(const char *path, size_t max, struct steps *s)
{
	pid_t pid = stepper_start(path, 0);

	memset(s, 0, sizeof(*s));
	return pid < 0 ? -1 : stepper_run(pid, max, s);
}

enum trace_style {
	STYLE_FULL,	  /* every branch, taken or not; syscalls as branches */
	STYLE_TAKEN_ONLY, /* only taken branches (BTS); no syscall branches */
};

/*
 * Write the branch records for the steps: per executed branch instruction
 * (and per repeated iteration of a rep instruction, as a branch to
 * itself), plus a SYSCALL enter record before each syscall.
 */
static inline int write_branches(struct itrace_writer *w, struct itrace_decoder *d,
				 const struct steps *s, enum trace_style style)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct step *st = &s->v[i];
		struct itrace_decoded di;
		int last = i + 1 == s->n, rc;
		uint64_t next = last ? 0 : s->v[i + 1].addr;

		if (itrace_decoder_decode(d, st->bytes, 16, st->addr, &di) < 0)
			return -1;
		if (di.kind == ITRACE_BRANCH_SYSCALL) {
			struct itrace_record rec = { .type = ITRACE_REC_SYSCALL };

			rec.u.syscall.dir = ITRACE_SYSCALL_ENTER;
			rec.u.syscall.nr = st->rax;
			if (itrace_writer_write(w, &rec) < 0)
				return -1;
			if (style == STYLE_TAKEN_ONLY || last)
				continue;
		}
		if (last)
			break;
		if ((di.flags & ITRACE_DECODED_REP) && next == st->addr) {
			rc = itrace_writer_branch(w, st->addr, next, ITRACE_BRANCH_COND, ITRACE_BRANCH_TAKEN);
		} else if (di.kind != ITRACE_INSN_NOT_BRANCH) {
			/* Only a conditional branch can fall through untaken. */
			int taken = di.kind != ITRACE_BRANCH_COND || next != st->addr + di.len;

			if (!taken && style == STYLE_TAKEN_ONLY)
				continue;
			rc = itrace_writer_branch(w, st->addr, next, di.kind, taken ? ITRACE_BRANCH_TAKEN : 0);
		} else {
			continue;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

#endif
