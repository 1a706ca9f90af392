/*
 * vg_prog.c - a deterministic C program for the valgrind backend's tests:
 * a worker thread (joined before anything else runs), a caught SIGUSR1,
 * a caught SIGSEGV left through siglongjmp, output on stdout and stderr,
 * exit status 5.  The functions named in --start/--stop tests are
 * vg_window (called 3 times) and vg_after.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile long counter;
static volatile sig_atomic_t got_usr1;
static sigjmp_buf recover;

__attribute__((noinline)) long vg_window(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i * 3 + (s & 7);
	return s;
}

__attribute__((noinline)) void vg_after(void)
{
	counter += 1;
}

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++)
		counter += (long)arg;
	return NULL;
}

static void on_usr1(int sig)
{
	got_usr1 = sig;
}

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(recover, 1);
}

int main(void)
{
	pthread_t t;
	long total = 0;

	pthread_create(&t, NULL, worker, (void *)2);
	pthread_join(t, NULL);
	for (int i = 0; i < 3; i++)
		total += vg_window(10 + i);
	vg_after();
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	signal(SIGSEGV, on_segv);
	if (sigsetjmp(recover, 1) == 0)
		*(volatile int *)16 = 1;
	printf("counter=%ld total=%ld usr1=%d\n", counter, total, (int)got_usr1);
	fprintf(stderr, "to stderr\n");
	return 5;
}
