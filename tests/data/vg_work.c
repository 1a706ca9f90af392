/*
 * vg_work.c - the valgrind backend's benchmark workload: N rounds of a
 * small integer kernel over a 64 KiB table (loads, stores, branches,
 * calls), about 1.2 million instructions per round.  Prints a checksum
 * so the work cannot be optimised away.  Usage: vg_work [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>

#define TABLE 16384

static unsigned table[TABLE];

__attribute__((noinline)) static unsigned mix(unsigned x)
{
	x ^= x >> 15;
	x *= 0x2c1b3c6dU;
	x ^= x >> 12;
	return x;
}

__attribute__((noinline)) static unsigned round_once(unsigned seed)
{
	unsigned acc = seed;

	for (unsigned i = 0; i < TABLE; i++) {
		unsigned j = mix(acc + i) % TABLE;
		if (table[j] & 1)
			acc += table[j] >> 1;
		else
			acc ^= table[j];
		table[i] = acc;
	}
	return acc;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	unsigned acc = 1;

	for (unsigned i = 0; i < TABLE; i++)
		table[i] = i * 2654435761U;
	for (long r = 0; r < rounds; r++)
		acc = round_once(acc);
	printf("checksum %u\n", acc);
	return 0;
}
