/*
 * export_signal.c - signal handlers for the exporters' call reconstruction
 * (built -O1 -g, dynamic).  main raises SIGUSR1 twice from `worker`: the
 * first time the handler returns normally (through sigreturn), the second
 * time it leaves with siglongjmp back into main.  Each handler activation
 * calls `in_handler` once.
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static sigjmp_buf back;
static volatile int escape, hits;

__attribute__((noinline)) void in_handler(void)
{
	hits++;
}

static void handler(int sig)
{
	(void)sig;
	in_handler();
	if (escape)
		siglongjmp(back, 1);
}

__attribute__((noinline)) void worker(void)
{
	raise(SIGUSR1);
	hits += 10;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	worker();		/* handler returns */
	escape = 1;
	if (sigsetjmp(back, 1) == 0)
		worker();	/* handler jumps back here */
	return hits == 12 ? 0 : 1;
}
