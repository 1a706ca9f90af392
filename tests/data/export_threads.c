/*
 * export_threads.c - two threads for the exporters' per-thread call
 * reconstruction (built -O1 -g, dynamic, -pthread).  main starts a thread
 * running `spin(300)` and runs `spin(200)` itself, then joins it.
 */
#include <pthread.h>

static volatile unsigned sink;

__attribute__((noinline)) void spin(unsigned n)
{
	while (n--)
		sink += n;
}

static void *thread_main(void *arg)
{
	(void)arg;
	spin(300);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_main, NULL) != 0)
		return 1;
	spin(200);
	pthread_join(t, NULL);
	return 0;
}
