/*
 * vg_div.c - integer division faults for the valgrind backend's tests.
 * vg_divide() computes (without memory accesses) and then divides: once
 * by zero under a SIGFPE handler left through siglongjmp, then once by
 * zero with the default action, which kills the program (signal 8).
 * Valgrind runs a division as the host's own div, which faults in the
 * middle of a translated block: the instructions before it must be in
 * the trace, the division itself not, and the signal must be reported at
 * the division (as the ptrace backend sees it).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static sigjmp_buf recover;
static volatile int zero;

__attribute__((noinline)) int vg_divide(int a, int b)
{
	int x = a * 3 + 7;

	x ^= 5;
	x += a << 2;
	return x / b;
}

static void on_fpe(int sig)
{
	(void)sig;
	siglongjmp(recover, 1);
}

int main(int argc, char **argv)
{
	int r = 0;

	(void)argv;
	signal(SIGFPE, on_fpe);
	if (sigsetjmp(recover, 1) == 0)
		r = vg_divide(argc, zero);
	printf("recovered r=%d\n", r);
	fflush(stdout);
	signal(SIGFPE, SIG_DFL);
	return vg_divide(argc + 1, zero);
}
