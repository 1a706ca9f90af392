/*
 * fault_spin.c - a program that runs until it is killed, for the
 * fault-injection tests (tests/e2e/fault_*.sh): a busy loop, or with
 * "sleep" a loop that sleeps a second per turn (a traced program that
 * produces nothing for long), with "fork" a loop whose forked child
 * sleeps too (a child the collector does not follow), or with "noisy" a
 * loop of indirect calls whose targets an xorshift generator picks: a
 * trace that keeps growing at a steady rate however well it compresses,
 * where the plain busy loop's compresses to almost nothing after start-up.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

static void __attribute__((noinline)) add(unsigned long v) { sink += v; }
static void __attribute__((noinline)) sub(unsigned long v) { sink -= v; }
static void __attribute__((noinline)) mix(unsigned long v) { sink ^= v; }
static void __attribute__((noinline)) rot(unsigned long v) { sink = sink << 1 | v >> 63; }

/* Marsaglia's xorshift64 ("Xorshift RNGs", 2003): 2 bits per call of
 * entropy in the branch trace, which no compressor removes. */
static void noisy_loop(void)
{
	static void (*const step[4])(unsigned long) = { add, sub, mix, rot };
	unsigned long x = 88172645463325252UL;

	for (;;) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		step[x & 3](x);
	}
}

int main(int argc, char **argv)
{
	int sleepy = argc > 1 && strcmp(argv[1], "sleep") == 0;

	if (argc > 1 && strcmp(argv[1], "noisy") == 0)
		noisy_loop();

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
