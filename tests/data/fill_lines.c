/* fill_lines.c - a dynamic C program with debug info, for the symbolizer's
 * source-line tests and the fill tests over shared libraries. */
#include <stdio.h>
#include <stdlib.h>

int __attribute__((noinline)) fill_square(int x);

int fill_square(int x)
{
	return x * x;
}

int main(int argc, char **argv)
{
	int sum = 0;

	(void)argv;
	for (int i = 0; i < argc + 3; i++)
		sum += fill_square(i);
	printf("%d\n", sum);
	return 0;
}
