/*
 * guard_prog.c - a program that leaves processes behind, for
 * tests/e2e/collect_guard.sh: guard_prog MODE PIDFILE [CODE].
 *
 * It forks a child that sleeps, and a daemon the classic way (fork,
 * setsid, fork again, the middle process exits: the daemon's parent is
 * gone and it has a session of its own), both sleeping 100 s.  Then it
 * writes "prog PID", "child PID", "daemon PID" to PIDFILE (through a
 * rename: the file appears complete) and, by MODE:
 *   wait   sleeps until a signal ends it
 *   exit   exits with CODE
 *   segv   dies of SIGSEGV
 *   cat    copies standard input to standard output, then exits 0
 *   int    exits 42 when SIGINT comes (a handler; the program's own)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void sleeper(void)
{
	sleep(100);
	_exit(0);
}

static void on_int(int signo)
{
	(void)signo;
	_exit(42);
}

/* fork, setsid, fork: returns the daemon's pid (through a pipe). */
static pid_t daemonize(void)
{
	int p[2], status;
	pid_t mid, daemon = -1;

	if (pipe(p) != 0)
		return -1;
	mid = fork();
	if (mid == 0) {
		pid_t d;

		setsid();
		d = fork();
		if (d == 0)
			sleeper();
		if (write(p[1], &d, sizeof(d)) != (ssize_t)sizeof(d))
			_exit(1);
		_exit(0);
	}
	if (mid < 0 || read(p[0], &daemon, sizeof(daemon)) != (ssize_t)sizeof(daemon))
		daemon = -1;
	waitpid(mid, &status, 0);
	close(p[0]);
	close(p[1]);
	return daemon;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[1] : "";
	char tmp[4096];
	pid_t child, daemon;
	FILE *f;
	int c;

	if (argc < 3) {
		fprintf(stderr, "usage: guard_prog wait|exit|segv|cat|int PIDFILE [CODE]\n");
		return 2;
	}
	if (strcmp(mode, "int") == 0)
		signal(SIGINT, on_int);
	child = fork();
	if (child == 0)
		sleeper();
	daemon = daemonize();
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	f = fopen(tmp, "w");
	if (!f || child < 0 || daemon < 0)
		return 3;
	fprintf(f, "prog %d\nchild %d\ndaemon %d\n", (int)getpid(), (int)child, (int)daemon);
	if (fclose(f) != 0 || rename(tmp, argv[2]) != 0)
		return 3;
	if (strcmp(mode, "exit") == 0)
		return argc > 3 ? atoi(argv[3]) : 0;
	if (strcmp(mode, "segv") == 0) {
		volatile int *volatile null = NULL;

		return *null; /* a fault, as a real crash */
	}
	if (strcmp(mode, "cat") == 0) {
		while ((c = getchar()) != EOF)
			putchar(c);
		return 0;
	}
	for (;;)
		pause();
}
