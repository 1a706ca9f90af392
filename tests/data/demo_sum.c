/*
 * demo_sum - the bundled example of `make demo`: a short program with a
 * loop, a function pointer, a data-dependent branch and a few syscalls.
 */
#include <stdio.h>

static int square(int x) { return x * x; }
static int twice(int x) { return 2 * x; }

int main(void)
{
	int (*op[2])(int) = { square, twice };
	long sum = 0;

	for (int i = 0; i < 200; i++)
		sum += op[i % 3 == 0](i);
	printf("sum = %ld\n", sum);
	return 0;
}
