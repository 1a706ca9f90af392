/*
 * format_workload - a small deterministic program with the usual mix of
 * control flow (loops, calls, returns, a switch, data-dependent branches)
 * for measuring trace size per branch and per instruction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int classify(int v)
{
	switch (v % 7) {
	case 0: return v / 3;
	case 1: return v * 5;
	case 2: return v ^ 0x55;
	case 3: return v - 17;
	case 4: return v + 99;
	case 5: return v << 1;
	default: return v >> 1;
	}
}

int main(void)
{
	static int a[600];
	char word[16];
	unsigned seed = 12345, h = 0;
	long sum = 0;

	for (int i = 0; i < 600; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = (int)(seed >> 16) % 1000;
	}
	qsort(a, 600, sizeof(a[0]), cmp);
	for (int i = 0; i < 600; i++)
		sum += classify(a[i]);
	for (int i = 0; i < 300; i++) {
		snprintf(word, sizeof(word), "w%d", i);
		h ^= hash(word);
	}
	printf("%ld %u\n", sum, h);
	return 0;
}
