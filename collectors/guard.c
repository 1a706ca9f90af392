/*
 * guard.c - the guardian between itrace-collect and the program it starts
 * (the rule it enforces, and why a pipe: guard.h).
 *
 * The guardian's loop: reap every child that ends (the program, and the
 * orphans the kernel hands to a subreaper, see prctl(2)
 * PR_SET_CHILD_SUBREAPER), report the program's wait status once, and
 * wait for the collector's order: release (exit, leaving the rest alone)
 * or kill; end of file on the order pipe (the collector died) is kill.
 * Killing repeats "SIGKILL every child, reap" until it has none, since a
 * dying process's children arrive as orphans after their parent was
 * killed.
 */
#include "guard.h"
#include "backend.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ORDER_RELEASE 'r'
#define ORDER_KILL 'k'

/*
 * What a terminal (^C, ^\, hang-up, ^Z) or timeout(1) sends to the whole
 * process group, and SIGPIPE: the guardian ignores them.  The program
 * gets them as it would without us, and the collector decides.
 */
static const int group_signals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP,
				    SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU};
#define N_GROUP_SIGNALS (sizeof(group_signals) / sizeof(group_signals[0]))

/* ---- the guardian ------------------------------------------------------ */

static void on_child(int signo)
{
	(void)signo; /* only wakes ppoll */
}

static void send_int(int fd, int32_t v)
{
	while (write(fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
}

/* Close the descriptors from `first` to `last`. */
static void close_fds(unsigned first, unsigned last)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (first > last || close_range(first, last, 0) == 0)
		return;
	for (long fd = first; fd <= (long)last && fd < max; fd++)
		close((int)fd); /* a kernel before 5.9 */
}

/*
 * The guardian holds no descriptor of the collector's (a pipe's write end
 * it kept would hide the end of the stream from its reader): /dev/null on
 * 0, 1, 2, its two pipes, nothing else.
 */
static void keep_only(int *rep, int *ord)
{
	int null = open("/dev/null", O_RDWR), lo, hi;

	if (*rep < 3)
		*rep = fcntl(*rep, F_DUPFD_CLOEXEC, 3);
	if (*ord < 3)
		*ord = fcntl(*ord, F_DUPFD_CLOEXEC, 3);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		if (null != fd)
			dup2(null, fd);
	lo = *rep < *ord ? *rep : *ord;
	hi = *rep < *ord ? *ord : *rep;
	close_fds(3, (unsigned)lo - 1);
	close_fds((unsigned)lo + 1, (unsigned)hi - 1);
	close_fds((unsigned)hi + 1, ~0u);
}

/* Reap what ended; the program's status goes to the collector, once. */
static pid_t reap(pid_t prog, int rep, int *reported)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == prog && !*reported) {
			send_int(rep, status);
			*reported = 1;
		}
	return pid;
}

/*
 * SIGKILL every child of `self` (PPid in /proc/PID/stat, after the name).
 * Returns -1 without /proc.
 */
static int kill_children(pid_t self)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[512], *end;
		long pid = strtol(e->d_name, &end, 10);
		int fd, ppid;
		ssize_t n;
		char state;

		if (pid <= 0 || *end)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		/* "pid (name) state ppid ...": the name may hold ")" */
		end = strrchr(buf, ')');
		if (end && sscanf(end + 1, " %c %d", &state, &ppid) == 2 && ppid == self)
			kill((pid_t)pid, SIGKILL);
	}
	closedir(d);
	return 0;
}

static _Noreturn void kill_everything(pid_t prog, int rep, int *reported)
{
	const struct timespec pause = {0, 5 * 1000 * 1000};
	pid_t self = getpid();

	for (;;) {
		/* without /proc, the program at least; its orphans go to init */
		int blind = kill_children(self) < 0;

		if (blind && !*reported)
			kill(prog, SIGKILL);
		if ((reap(prog, rep, reported) < 0 && errno == ECHILD) || (blind && *reported))
			_exit(0);
		nanosleep(&pause, NULL);
	}
}

static _Noreturn void guardian_loop(pid_t prog, int rep, int ord, const sigset_t *wake)
{
	struct pollfd p = {.fd = ord, .events = POLLIN};
	int reported = 0;

	for (;;) {
		char order = 0;
		ssize_t n;

		reap(prog, rep, &reported);
		if (ppoll(&p, 1, NULL, wake) < 0)
			continue; /* EINTR: SIGCHLD */
		n = read(ord, &order, 1);
		if (n < 0 && errno == EINTR)
			continue;
		/* The collector took the status and ends normally: leave the
		 * rest as the program left it.  _exit: our copy of the
		 * collector's stdio buffers is not ours to flush. */
		if (n == 1 && order == ORDER_RELEASE && reported) {
			reap(prog, rep, &reported); /* what ended meanwhile */
			_exit(0);
		}
		kill_everything(prog, rep, &reported);
	}
}

/*
 * In the new guardian: become the subreaper, fork the program.  Returns
 * in the program's process only.
 */
static void become_guardian(int rep, int ord)
{
	struct sigaction saved[N_GROUP_SIGNALS], saved_chld, sa;
	sigset_t chld, old, wake;
	pid_t self = getpid(), prog;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_NAME, "itrace-guardian"); /* as ps shows it */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, &saved_chld);
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < N_GROUP_SIGNALS; i++)
		sigaction(group_signals[i], &sa, &saved[i]);

	prog = fork();
	if (prog == 0) {
		for (size_t i = 0; i < N_GROUP_SIGNALS; i++)
			sigaction(group_signals[i], &saved[i], NULL);
		sigaction(SIGCHLD, &saved_chld, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(rep);
		close(ord);
		prctl(PR_SET_NAME, "itrace-collect"); /* (until exec) */
		/* the guardian never ends before us unless it is killed */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(127);
		return;
	}
	send_int(rep, prog > 0 ? (int32_t)prog : -errno);
	if (prog < 0)
		_exit(127);
	keep_only(&rep, &ord);
	wake = old;
	sigdelset(&wake, SIGCHLD);
	guardian_loop(prog, rep, ord, &wake);
}

/* ---- the collector's side ---------------------------------------------- */

/* The guardian's next word: 1, 0 at end of file, -1 with errno. */
static int read_int(int fd, int32_t *v)
{
	ssize_t n = read(fd, v, sizeof(*v));

	if (n == (ssize_t)sizeof(*v))
		return 1;
	if (n >= 0) /* writes of 4 bytes to a pipe are atomic: no part word */
		return 0;
	return -1;
}

/* The guardian's end: release it (or it kills, after guard_kill), reap it. */
static void end_guardian(struct collect_guard *g)
{
	char order = ORDER_RELEASE;
	int status;

	if (!g->killed)
		while (write(g->order, &order, 1) < 0 && errno == EINTR)
			;
	close(g->order);
	close(g->report);
	g->order = g->report = -1;
	/* ECHILD: a waitpid(-1) of the backend's reaped it already */
	while (waitpid(g->guardian, &status, 0) < 0 && errno == EINTR)
		;
	g->guardian = 0;
	g->released = 1;
}

/* The status word has come (or the guardian is gone): take it. */
static void take_status(struct collect_guard *g, int got, int32_t status)
{
	/* a guardian killed before it could tell: the program got SIGKILL */
	g->status = got == 1 ? status : SIGKILL;
	g->ended = 1;
}

pid_t guard_fork(struct collect_guard *g)
{
	int rep[2], ord[2], e, status;
	int32_t pid = 0;

	memset(g, 0, sizeof(*g));
	g->report = g->order = -1;
	if (pipe2(rep, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(ord, O_CLOEXEC) != 0) {
		e = errno;
		close(rep[0]);
		close(rep[1]);
		errno = e;
		return -1;
	}
	g->guardian = fork();
	if (g->guardian == 0) {
		close(rep[0]);
		close(ord[1]);
		become_guardian(rep[1], ord[0]);
		return 0;
	}
	e = errno;
	close(rep[1]);
	close(ord[0]);
	if (g->guardian > 0) {
		while (read_int(rep[0], &pid) < 0 && errno == EINTR)
			;
		e = pid < 0 ? -pid : ECHILD;
	}
	if (pid <= 0) {
		close(rep[0]);
		close(ord[1]);
		while (g->guardian > 0 && waitpid(g->guardian, &status, 0) < 0 && errno == EINTR)
			;
		errno = e;
		return -1;
	}
	g->pid = pid;
	g->report = rep[0];
	g->order = ord[1];
	g->active = 1;
	return pid;
}

int guard_wait(struct collect_guard *g, int *status)
{
	if (!g->active) {
		errno = ECHILD;
		return -1;
	}
	while (!g->ended) {
		int32_t st = 0;
		int got;

		if (collect_interrupted)
			guard_kill(g);
		got = read_int(g->report, &st);
		if (got < 0 && errno == EINTR)
			continue;
		take_status(g, got, st);
	}
	if (!g->released)
		end_guardian(g);
	*status = g->status;
	return 0;
}

int guard_poll(struct collect_guard *g, int *status)
{
	struct pollfd p = {.fd = g->report, .events = POLLIN};
	int32_t st = 0;
	int got;

	if (!g->active || (!g->ended && poll(&p, 1, 0) <= 0))
		return 0;
	if (!g->ended) {
		got = read_int(g->report, &st);
		take_status(g, got, st);
	}
	*status = g->status;
	return 1;
}

void guard_kill(struct collect_guard *g)
{
	char order = ORDER_KILL;

	if (!g->active || g->released || g->killed)
		return;
	g->killed = 1;
	/* EPIPE (the guardian is gone) is no news: SIGPIPE is ignored */
	while (write(g->order, &order, 1) < 0 && errno == EINTR)
		;
}
