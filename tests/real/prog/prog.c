/*
 * prog.c - the program README.md's examples call "prog" (tests/real/readme.sh
 * runs them with this one in the working directory and on PATH): it has
 * the functions they name (main, parse, emit), prints a line and exits 0.
 * Arguments are parsed as numbers; "sleep" makes it wait a second first
 * (an example attaches to a running program).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) long parse(const char *s)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

__attribute__((noinline)) void emit(long total)
{
	printf("prog: total %ld\n", total);
}

int main(int argc, char **argv)
{
	long total = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "sleep") == 0)
			sleep(1);
		total += parse(argv[i]);
	}
	for (int i = 0; i < 100; i++)
		total += i % 7;
	emit(total);
	return 0;
}
