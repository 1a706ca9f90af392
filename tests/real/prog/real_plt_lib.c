/*
 * real_plt_lib.c - libreal_plt.so: exported functions that call each other.
 * Built -fPIC without -Bsymbolic or hidden visibility, so calls between
 * them go through the library's own PLT (the symbols could be
 * interposed), lazily bound unless LD_BIND_NOW is set: plt_fib calls
 * plt_fib_of through the PLT, which jumps back to plt_fib through the
 * PLT (a tail call); plt_even and plt_odd tail-call each other.
 */
int plt_fib(int n);
int plt_fib_of(int n);
int plt_even(unsigned n);
int plt_odd(unsigned n);

int plt_fib(int n)
{
	return n < 2 ? n : plt_fib_of(n - 1) + plt_fib_of(n - 2);
}

int plt_fib_of(int n)
{
	return plt_fib(n);
}

int plt_even(unsigned n)
{
	return n == 0 ? 1 : plt_odd(n - 1);
}

int plt_odd(unsigned n)
{
	return n == 0 ? 0 : plt_even(n - 1);
}
