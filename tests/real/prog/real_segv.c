/*
 * real_segv.c - "handled": SIGSEGV caught by a handler that leaves with
 * siglongjmp, three times; "crash": then a store through NULL with no
 * handler, which kills the program.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf env;
static volatile int *volatile nowhere;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

__attribute__((noinline)) static void fault(int v)
{
	*nowhere = v;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int recovered = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < 3; i++) {
		if (sigsetjmp(env, 1) == 0)
			fault(i);
		else
			recovered++;
	}
	printf("recovered %d\n", recovered);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "crash") == 0) {
		sa.sa_handler = SIG_DFL;
		sigaction(SIGSEGV, &sa, NULL);
		fault(42);
	}
	return recovered == 3 ? 0 : 1;
}
