/*
 * test_guard.c - collectors/guard.c, the guardian between the collector
 * and a program it starts: the program's wait status passed through (an
 * exit code, a signal); the program is the guardian's child; guard_poll
 * before and after the end; a daemon the program double-forks into a
 * session of its own keeps running after a normal end, and is killed
 * (with the program and the guardian) when the collector is SIGKILLed;
 * guard_kill and an interrupted guard_wait kill the program.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend.h" /* collect_interrupted, which guard.c reads */
#include "guard.h"

/* Processes a test started that must not outlive it, even when it fails:
 * the teardown kills those still running. */
static pid_t started[8];
static size_t n_started;

static void remember(pid_t pid)
{
	if (n_started < sizeof(started) / sizeof(started[0]))
		started[n_started++] = pid;
}

static int kill_leftovers(void **state)
{
	(void)state;
	for (size_t i = 0; i < n_started; i++)
		kill(started[i], SIGKILL);
	n_started = 0;
	return 0;
}

/* Does pid run?  A zombie or no process: no. */
static int running(pid_t pid)
{
	char path[64], line[256];
	int state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "State: %c", (char *)&state) == 1)
			break;
	fclose(f);
	return state && state != 'Z' && state != 'X';
}

/* Wait up to 5 seconds for pid to end; 1 if it did. */
static int ends(pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		if (!running(pid))
			return 1;
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	return 0;
}

static void write_pid(int fd, pid_t pid)
{
	if (write(fd, &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		_exit(126);
}

static pid_t read_pid(int fd)
{
	pid_t pid = 0;

	assert_int_equal(read(fd, &pid, sizeof(pid)), sizeof(pid));
	assert_true(pid > 0);
	return pid;
}

/* In the program: double-fork a daemon in a session of its own that
 * writes its pid to fd and sleeps; returns when the daemon runs. */
static void start_daemon(int fd)
{
	pid_t mid = fork();
	int status;

	if (mid < 0)
		_exit(125);
	if (mid == 0) {
		setsid();
		if (fork() == 0) {
			write_pid(fd, getpid());
			for (;;)
				pause();
		}
		_exit(0);
	}
	waitpid(mid, &status, 0);
}

static void test_exit_status(void **state)
{
	struct collect_guard g;
	int fds[2], status = 0;
	pid_t pid, parent;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = guard_fork(&g);
	assert_true(pid >= 0);
	if (pid == 0) {
		write_pid(fds[1], getppid());
		_exit(42);
	}
	assert_int_equal(pid, g.pid);
	parent = read_pid(fds[0]);
	/* itrace-collect -> guardian -> program */
	assert_int_equal(parent, g.guardian);
	assert_true(parent != getpid());
	assert_int_equal(guard_wait(&g, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
	assert_false(running(parent)); /* released and reaped */
	close(fds[0]);
	close(fds[1]);

	/* a signal, as waitpid gives it */
	pid = guard_fork(&g);
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGUSR1, SIG_DFL);
		raise(SIGUSR1);
		_exit(1);
	}
	assert_int_equal(guard_wait(&g, &status), 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGUSR1);
}

static void test_poll(void **state)
{
	struct collect_guard g;
	int go[2], status = -1;
	pid_t pid;
	char c = 0;

	(void)state;
	assert_int_equal(pipe(go), 0);
	pid = guard_fork(&g);
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(124);
		_exit(7);
	}
	close(go[0]);
	assert_int_equal(guard_poll(&g, &status), 0); /* waits for us */
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	for (int i = 0; i < 500 && !guard_poll(&g, &status); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	assert_int_equal(guard_poll(&g, &status), 1);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	status = -1;
	assert_int_equal(guard_wait(&g, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 7);
}

/* A program that ended by itself leaves its daemon running, as without us. */
static void test_daemon_left_after_exit(void **state)
{
	struct collect_guard g;
	int fds[2], status = -1;
	pid_t pid, daemon;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = guard_fork(&g);
	assert_true(pid >= 0);
	if (pid == 0) {
		start_daemon(fds[1]);
		_exit(0);
	}
	daemon = read_pid(fds[0]);
	remember(daemon);
	assert_int_equal(guard_wait(&g, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
	assert_true(running(daemon));
	assert_true(getsid(daemon) != getsid(0)); /* a session of its own */
	kill(daemon, SIGKILL);
	assert_true(ends(daemon));
	close(fds[0]);
	close(fds[1]);
}

/* The collector SIGKILLed: the program, its daemon and the guardian end. */
static void test_collector_killed(void **state)
{
	int fds[2], status;
	pid_t collector, prog, guardian, daemon;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	collector = fork();
	assert_true(collector >= 0);
	if (collector == 0) {
		struct collect_guard g;
		pid_t p = guard_fork(&g);

		if (p < 0)
			_exit(120);
		if (p == 0) { /* the program */
			start_daemon(fds[1]);
			for (;;)
				pause();
		}
		write_pid(fds[1], p);
		write_pid(fds[1], g.guardian);
		for (;;)
			pause();
	}
	remember(collector);
	/* the daemon's pid and the collector's two come in either order */
	{
		pid_t a = read_pid(fds[0]), b = read_pid(fds[0]), c = read_pid(fds[0]);
		pid_t v[3] = {a, b, c};

		remember(a);
		remember(b);
		remember(c);

		prog = guardian = daemon = 0;
		for (int i = 0; i < 3; i++) {
			if (getsid(v[i]) != getsid(0)) /* the one in a session of its own */
				daemon = v[i];
		}
		assert_true(daemon > 0);
		/* of the other two, in the collector's order: program, guardian */
		for (int i = 0, k = 0; i < 3; i++) {
			if (v[i] == daemon)
				continue;
			if (k++ == 0)
				prog = v[i];
			else
				guardian = v[i];
		}
	}
	assert_true(running(prog) && running(guardian) && running(daemon));
	assert_int_equal(kill(collector, SIGKILL), 0);
	assert_int_equal(waitpid(collector, &status, 0), collector);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_true(ends(daemon));
	assert_true(ends(prog));
	assert_true(ends(guardian));
	close(fds[0]);
	close(fds[1]);
}

/* A program that sleeps until killed, under a new guardian. */
static pid_t start_sleeper(struct collect_guard *g)
{
	pid_t pid = guard_fork(g);

	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/* The program got SIGKILL and is gone. */
static void assert_killed(int status, pid_t pid)
{
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_true(ends(pid));
}

/* guard_kill: the program gets SIGKILL; guard_wait gives that status. */
static void test_kill(void **state)
{
	struct collect_guard g;
	pid_t pid = start_sleeper(&g);
	int status = 0;

	(void)state;
	guard_kill(&g);
	assert_int_equal(guard_wait(&g, &status), 0);
	assert_killed(status, pid);
}

/* The collector interrupted (SIGINT, SIGTERM) while it waits: the same. */
static void test_interrupted_wait(void **state)
{
	struct collect_guard g;
	pid_t pid = start_sleeper(&g);
	int status = 0;

	(void)state;
	collect_interrupted = SIGINT;
	assert_int_equal(guard_wait(&g, &status), 0);
	collect_interrupted = 0;
	assert_killed(status, pid);
}

static void test_nothing_started(void **state)
{
	struct collect_guard g;
	int status = 0;

	(void)state;
	memset(&g, 0, sizeof(g));
	errno = 0;
	assert_int_equal(guard_wait(&g, &status), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(guard_poll(&g, &status), 0);
	guard_kill(&g); /* nothing to kill: no effect */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_exit_status, kill_leftovers),
		cmocka_unit_test_teardown(test_poll, kill_leftovers),
		cmocka_unit_test_teardown(test_daemon_left_after_exit, kill_leftovers),
		cmocka_unit_test_teardown(test_collector_killed, kill_leftovers),
		cmocka_unit_test_teardown(test_kill, kill_leftovers),
		cmocka_unit_test_teardown(test_interrupted_wait, kill_leftovers),
		cmocka_unit_test_teardown(test_nothing_started, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
