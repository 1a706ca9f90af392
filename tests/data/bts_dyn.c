/* bts_dyn.c - a small dynamically linked program for the BTS import
 * tests: the interpreter's entry point, PLT calls into libc, a loop and a
 * vDSO call (clock_gettime). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int collatz(long n)
{
	int steps = 0;
	while (n != 1) {
		n = (n & 1) ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	long n = argc > 1 ? atol(argv[1]) : 27;
	int s = collatz(n);

	if (clock_gettime(CLOCK_MONOTONIC, &ts) || ts.tv_sec < 0)
		return 2;
	if (write(1, s > 100 ? "long\n" : "short\n", s > 100 ? 5 : 6) < 0)
		return 1;
	return 0;
}
