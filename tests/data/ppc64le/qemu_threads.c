/*
 * qemu_threads.c - threads, an asynchronous signal, a fork: two workers
 * sum arrays; the main thread interrupts the first with SIGUSR2
 * (pthread_kill) while it spins on a flag, so the signal arrives between
 * two blocks of a conditional loop; then the program forks a child that
 * exits with status 7.  Exit status: 0 if everything came out right.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int spin_go, handled;
static volatile long sums[2];
static long data[2][1000];

static void on_usr2(int sig)
{
	handled = sig;
	spin_go = 1;
}

static void *worker(void *arg)
{
	long k = (long)arg, s = 0;

	for (int i = 0; i < 1000; i++)
		s += data[k][i] = i * (k + 1);
	if (k == 0)
		while (!spin_go) /* the main thread's SIGUSR2 ends this */
			s++;
	sums[k] = s;
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int status = 0;
	pid_t child;

	signal(SIGUSR2, on_usr2);
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	usleep(20000);
	pthread_kill(t[0], SIGUSR2);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	child = fork();
	if (child == 0)
		_exit(7);
	waitpid(child, &status, 0);
	printf("handled %d, child %d\n", handled, WEXITSTATUS(status));
	return handled == SIGUSR2 && WEXITSTATUS(status) == 7 && sums[1] == 999000 ? 0 : 1;
}
