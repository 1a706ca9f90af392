/* real_plt.c - calls into libreal_plt.so, which recurses through its PLT. */
#include <stdio.h>

int plt_fib(int n);
int plt_even(unsigned n);

int main(void)
{
	int fib = plt_fib(12);
	int even = plt_even(25);

	printf("fib(12) = %d, even(25) = %d\n", fib, even);
	return fib == 144 && even == 0 ? 0 : 1;
}
