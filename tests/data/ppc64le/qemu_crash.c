/*
 * qemu_crash.c - a ppc64le program that dies of SIGSEGV: it prints a
 * line, then stores through a null pointer in crash() (no handler).
 */
#include <stdio.h>

__attribute__((noinline)) void crash(volatile int *p)
{
	*p = 42;
}

int main(void)
{
	puts("about to crash");
	fflush(stdout);
	crash((volatile int *)0);
	return 0;
}
