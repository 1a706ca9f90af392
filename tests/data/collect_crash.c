/*
 * collect_crash.c - a program that dies of a signal, for the collectors'
 * crash tests: some work, a line of output, then a load through a null
 * pointer in crash_here() (SIGSEGV, SEGV_MAPERR at address 0), or with
 * the argument "abort", abort() (SIGABRT sent to itself: SI_TKILL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int *volatile nowhere;

__attribute__((noinline)) int crash_here(int x)
{
	return *nowhere + x;
}

int main(int argc, char **argv)
{
	int sum = 0;

	for (int i = 0; i < 100; i++)
		sum += i * (argc + 1);
	printf("sum %d\n", sum);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "abort") == 0)
		abort();
	return crash_here(sum);
}
