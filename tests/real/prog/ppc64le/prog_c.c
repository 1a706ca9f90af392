/*
 * prog_c.c - README.md's "./prog.ppc64le" and "./prog.power10" in the
 * qemu backend's examples (tests/real/readme.sh): a dynamically linked
 * ppc64le C program, so that its libraries come from the sysroot, with a
 * function "work" for --start.  Built twice: for POWER9, and with
 * -mcpu=power10, where GCC emits prefixed instructions (pld, pstd,
 * paddi).  Prints a line and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

static long table[64];

__attribute__((noinline)) long work(long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		table[i & 63] += i;
		sum += table[(i * 7) & 63];
	}
	return sum;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;

	printf("prog: work(%ld) = %ld\n", n, work(n));
	return 0;
}
