/*
 * collect_bare_step.c - the benchmark baseline: run a program under the plainest
 * possible tracer, PTRACE_SINGLESTEP + waitpid in a loop, and print
 * "steps N seconds S".  Address randomisation is off, as in
 * itrace-collect, so both step the same instructions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long steps = 0;
	double t0;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: collect-bare-step PROGRAM [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return 1; /* the exec SIGTRAP */
	t0 = now();
	while (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) == 0 && waitpid(pid, &status, 0) == pid &&
	       WIFSTOPPED(status))
		steps++;
	printf("steps %llu seconds %.6f\n", steps, now() - t0);
	return 0;
}
