/*
 * guard.h - the guardian between itrace-collect and a program it starts.
 *
 *     itrace-collect -> guardian -> program
 *
 * Every backend that starts a program forks it through guard_fork().  The
 * guardian is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every
 * process the program starts and leaves behind becomes the guardian's
 * child instead of init's.  The rule it enforces:
 *
 *   - itrace-collect ends before the program's end reached it (SIGKILL of
 *     the collector, a crash, an interrupt, an error: guard_kill()): the
 *     program and everything it started, followed or not, daemons in a
 *     session of their own included, are killed (SIGKILL, repeated until
 *     none is left) and reaped.
 *   - The program ended by itself and the collector took its status
 *     (guard_wait(), guard_poll()): whatever the program left running on
 *     purpose keeps running, as it does without itrace-collect.
 *
 * The guardian learns of the collector's death from a pipe only the
 * collector writes: the kernel closes it when the collector dies, however
 * it dies, so there is no window between fork and set-up to cover (as
 * PR_SET_PDEATHSIG would need, which also fires when the forking *thread*
 * ends).  It stays in the collector's process group and session (no job
 * control change), ignores the signals a terminal or timeout(1) sends to
 * the whole group (the program gets them as it would without us), and
 * passes the program's wait status (exit code, or signal and core flag)
 * to the collector unchanged.
 */
#ifndef ITRACE_COLLECT_GUARD_H
#define ITRACE_COLLECT_GUARD_H

#include <sys/types.h>

struct collect_guard {
	pid_t pid;	/* the program (the guardian's child) */
	pid_t guardian; /* our child; 0 once reaped */
	int report;	/* from the guardian: the program's pid, then its wait status */
	int order;	/* to the guardian: release or kill */
	int status;	/* the program's wait status, once ended */
	int active;	/* guard_fork succeeded */
	int ended;	/* the program's status is known */
	int released;	/* the guardian is gone (guard_wait) */
	int killed;	/* guard_kill() was called */
};

/*
 * guard_fork - fork the program under a new guardian.  Returns 0 in the
 * program's process (which then execs; it dies with SIGKILL if the
 * guardian dies), the program's pid in the collector, or -1 with errno.
 * Signal dispositions and mask, descriptors, process group and session
 * are the collector's, as after a plain fork().
 */
pid_t guard_fork(struct collect_guard *g);

/*
 * guard_wait - wait for the program to end (killing it, and all it
 * started, if itrace-collect is interrupted meanwhile: SIGINT, SIGTERM),
 * then end the guardian: it leaves what the program left running, or,
 * after guard_kill(), kills it all.  *status is the program's wait status
 * as waitpid() gives it; SIGKILL's if the guardian was killed without
 * telling.  Every guard_fork() in the collector ends with a guard_wait().
 * Returns 0, or -1 with errno ECHILD if no program was started.
 */
int guard_wait(struct collect_guard *g, int *status);

/*
 * guard_poll - has the program ended?  1 with *status if so, 0 while it
 * runs.  The guardian waits on for guard_wait() (or guard_kill()).
 */
int guard_poll(struct collect_guard *g, int *status);

/*
 * guard_kill - SIGKILL the program and every process it started, also
 * after the program's end was polled, until guard_wait() ended the
 * guardian; the guardian reaps them.  guard_wait() still gives the status.
 */
void guard_kill(struct collect_guard *g);

#endif
