/*
 * fault_spin.c - a program that runs until it is killed, for the
 * fault-injection tests (tests/e2e/fault_*.sh): a busy loop, or with
 * "sleep" a loop that sleeps a second per turn (a traced program that
 * produces nothing for long), or with "fork" a loop whose forked child
 * sleeps too (a child the collector does not follow).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	int sleepy = argc > 1 && strcmp(argv[1], "sleep") == 0;

	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				sleep(1);
		}
		printf("child %d\n", (int)pid);
		fflush(stdout);
	}
	for (;;) {
		for (unsigned long i = 0; i < 100000; i++)
			sink += i;
		if (sleepy)
			sleep(1);
	}
}
