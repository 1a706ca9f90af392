/*
 * export_prog.c - C test program for the exporters' callgrind comparison
 * and source-line tests (built -O1 -g, dynamic).  No library calls between
 * main's entry and its return, so a trace from main covers every
 * instruction these functions execute.  The work is small: a few thousand
 * instructions.
 */
#include <setjmp.h>

static jmp_buf escape;
static volatile int sink;

/* A loop with a data-dependent branch: taken ratios that are not 0 or 1. */
__attribute__((noinline)) int collatz_steps(unsigned n)
{
	int steps = 0;

	while (n != 1) {
		if (n & 1)
			n = 3 * n + 1;
		else
			n /= 2;
		steps++;
	}
	return steps;
}

/* Recursion: total instructions must count the outermost call once. */
__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* longjmp out of two frames. */
__attribute__((noinline)) void deep(int n)
{
	if (n == 0)
		longjmp(escape, 1);
	deep(n - 1);
	sink++;
}

__attribute__((noinline)) int never_called(int x)
{
	return x * 7 + sink;
}

int main(int argc, char **argv)
{
	int total = 0;
	unsigned i;

	(void)argv;
	for (i = 1; i < 12; i++)
		total += collatz_steps(i);
	total += fib(8);
	if (setjmp(escape) == 0)
		deep(2);
	if (argc > 5)
		total += never_called(argc);
	return total & 0x7f;
}
