/*
 * collect_prog.c - deterministic behaviours for itrace-collect's tests,
 * one per mode (argv[1]).  Every mode prints the same output with and
 * without the tracer, then "EXIT-SUCCESS", and exits with a fixed status.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int counter;

/* Called through a pointer; the switch compiles to a jump table. */
static int __attribute__((noinline)) classify(int v)
{
	switch (v) {
	case 0: return 3;
	case 1: return 5;
	case 2: return 7;
	case 3: return 11;
	case 4: return 13;
	case 5: return 17;
	default: return 1;
	}
}

static int __attribute__((noinline)) fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int __attribute__((noinline)) work(int n)
{
	int (*volatile fp)(int) = classify;
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += fp(i % 7);
	return sum + fib(6);
}

int __attribute__((noinline)) helper(int x)
{
	return x * 3 + 1;
}

static jmp_buf env;

static void __attribute__((noinline)) jump_back(int v)
{
	longjmp(env, v);
}

static void on_usr1(int sig)
{
	counter += sig;
}

static void on_trap(int sig)
{
	counter += 100 + sig;
}

static void *thread_main(void *arg)
{
	counter += (int)(long)arg;
	return (void *)((long)arg * 2);
}

static int mode_threads(void)
{
	pthread_t th[3];
	long total = 0;

	for (long i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, thread_main, (void *)(i + 1));
	for (int i = 0; i < 3; i++) {
		void *r;

		pthread_join(th[i], &r);
		total += (long)r;
	}
	printf("threads %ld\n", total);
	return 0;
}

static int mode_fork(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(helper(4));
	waitpid(pid, &status, 0);
	printf("child exit %d\n", WEXITSTATUS(status));
	return 0;
}

/* A child that stops itself (SIGSTOP) and is continued by its parent. */
static int mode_stopcont(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		raise(SIGSTOP);
		_exit(helper(2));
	}
	waitpid(pid, &status, WUNTRACED);
	printf("stopped %d\n", WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	kill(pid, SIGCONT);
	waitpid(pid, &status, 0);
	printf("child exit %d\n", WEXITSTATUS(status));
	return 0;
}

static int mode_exec(const char *self)
{
	fflush(stdout);
	execl(self, self, "work", (char *)NULL);
	perror("execl");
	return 1;
}

static void *exec_thread(void *self)
{
	execl((const char *)self, (const char *)self, "calls", (char *)NULL);
	perror("execl");
	return NULL;
}

/* exec from a thread that is not the leader: the pid stays, the tid changes */
static int mode_threadexec(const char *self)
{
	pthread_t th;

	fflush(stdout);
	pthread_create(&th, NULL, exec_thread, (void *)self);
	pthread_join(th, NULL);
	return 1;
}

static int mode_repmovs(void)
{
	char src[64], dst[64];

	memset(src, 'x', sizeof(src));
	__asm__ volatile("rep movsb"
			 : "+D"((char *){dst}), "+S"((char *){src}), "+c"((long){sizeof(src)})
			 :
			 : "memory");
	printf("copied %d\n", dst[0] == 'x' && dst[63] == 'x');
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "work";
	int rc = 0;

	if (strcmp(mode, "work") == 0) {
		printf("work %d\n", work(20));
	} else if (strcmp(mode, "calls") == 0) {
		int s = 0;

		for (int i = 0; i < 3; i++)
			s += helper(i);
		printf("calls %d %d\n", s, work(3));
	} else if (strcmp(mode, "longjmp") == 0) {
		int v = setjmp(env);

		if (v == 0)
			jump_back(42);
		printf("longjmp %d\n", v);
	} else if (strcmp(mode, "signal") == 0) {
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
		printf("signal %d\n", counter);
	} else if (strcmp(mode, "trap") == 0) {
		signal(SIGTRAP, on_trap);
		__asm__ volatile("int3");
		raise(SIGTRAP);
		printf("trap %d\n", counter);
	} else if (strcmp(mode, "threads") == 0) {
		rc = mode_threads();
	} else if (strcmp(mode, "fork") == 0) {
		rc = mode_fork();
	} else if (strcmp(mode, "sigign") == 0) {
		/* the signal dispositions it inherited (the tracer's must not leak) */
		char line[256];
		FILE *f = fopen("/proc/self/status", "r");

		while (f && fgets(line, sizeof(line), f))
			if (strncmp(line, "SigIgn:", 7) == 0)
				fputs(line, stdout);
		if (f)
			fclose(f);
	} else if (strcmp(mode, "stopcont") == 0) {
		rc = mode_stopcont();
	} else if (strcmp(mode, "exec") == 0) {
		return mode_exec(argv[0]);
	} else if (strcmp(mode, "threadexec") == 0) {
		return mode_threadexec(argv[0]);
	} else if (strcmp(mode, "repmovs") == 0) {
		rc = mode_repmovs();
	} else if (strcmp(mode, "vdso") == 0) {
		/* time() runs in the vDSO without a retry loop: clock_gettime()
		 * retries its seqlock read when a timer tick lands inside it,
		 * which single-stepping makes likely, so two runs (the fill
		 * oracle's branch- and instruction-level ones) would differ. */
		printf("vdso %d\n", time(NULL) > 0);
	} else if (strcmp(mode, "libc") == 0) {
		char buf[64];
		unsigned sum = 0;

		for (int i = 0; i < 50; i++) {
			snprintf(buf, sizeof(buf), "%d-%x", i, i * 7);
			sum += (unsigned)strlen(buf) + (unsigned)helper(i);
		}
		printf("libc %u\n", sum);
	} else if (strcmp(mode, "segv") == 0) {
		volatile int *p = (int *)(long)work(2) - 100000;

		printf("segv\n");
		fflush(stdout);
		*p = 1;
	} else if (strcmp(mode, "sleep") == 0) {
		printf("sleeping\n");
		fflush(stdout);
		for (int i = 0; i < 300; i++) {
			usleep(10000);
			counter += helper(i) & 1;
		}
		printf("slept %d\n", counter);
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	printf("EXIT-SUCCESS\n");
	return rc + 5;
}
