/*
 * real_threads.c - four threads, each started and joined in turn, sum
 * disjoint ranges into a mutex-protected total; the main thread prints it.
 * One thread at a time runs, so the run is the same under every tool
 * (Valgrind serialises threads, and which runs when would otherwise
 * depend on its scheduler's time slices).
 */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define PER_THREAD 500

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long total;

static unsigned long square_sum(unsigned long from, unsigned long to)
{
	unsigned long s = 0;

	for (unsigned long i = from; i < to; i++)
		s += i * i % 7;
	return s;
}

static void *worker(void *arg)
{
	unsigned long k = (unsigned long)arg;
	unsigned long s = square_sum(k * PER_THREAD, (k + 1) * PER_THREAD);

	pthread_mutex_lock(&lock);
	total += s;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	for (unsigned long k = 0; k < NTHREADS; k++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, (void *)k) || pthread_join(t, NULL))
			return 2;
	}
	printf("total %lu (expected %lu)\n", total, square_sum(0, NTHREADS * PER_THREAD));
	return total == square_sum(0, NTHREADS * PER_THREAD) ? 0 : 1;
}
