/*
 * real_env.c - prints what a process inherits and can see of itself: its
 * open descriptors below its descriptor limit, its signal dispositions
 * and blocked signals, its environment, working directory, umask and
 * resource limits (but the descriptor limit, which Valgrind lowers to
 * keep descriptors of its own).  A collector must leave all of it as it
 * would be without tracing.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static void descriptors(void)
{
	struct rlimit rl;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char seen[1024] = {0};

	getrlimit(RLIMIT_NOFILE, &rl);
	while (d && (e = readdir(d))) {
		long fd = strtol(e->d_name, NULL, 10);

		if (e->d_name[0] != '.' && fd != dirfd(d) && (rlim_t)fd < rl.rlim_cur && fd < 1024)
			seen[fd] = 1;
	}
	if (d)
		closedir(d);
	printf("descriptors:");
	for (int fd = 0; fd < 1024; fd++)
		if (seen[fd])
			printf(" %d", fd);
	printf("\n");
}

static void signals(void)
{
	sigset_t blocked;

	sigprocmask(SIG_BLOCK, NULL, &blocked);
	printf("signals (ignored, handled, blocked):");
	for (int s = 1; s < 32; s++) {
		struct sigaction sa;

		if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL)
			printf(" %d:%s", s, sa.sa_handler == SIG_IGN ? "ign" : "handler");
		if (sigismember(&blocked, s))
			printf(" %d:blocked", s);
	}
	printf("\n");
}

static void limits(void)
{
	static const int which[] = {RLIMIT_CORE, RLIMIT_CPU, RLIMIT_DATA, RLIMIT_FSIZE,
				    RLIMIT_STACK, RLIMIT_AS, RLIMIT_NPROC, RLIMIT_MEMLOCK};

	printf("limits:");
	for (unsigned i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
		struct rlimit rl;

		getrlimit(which[i], &rl);
		printf(" %llu/%llu", (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
	}
	printf("\n");
}

int main(void)
{
	char cwd[4096];
	mode_t m = umask(0);

	umask(m);
	descriptors();
	signals();
	limits();
	printf("umask: %03o\ncwd: %s\n", (unsigned)m, getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	for (char **e = environ; *e; e++)
		printf("env: %s\n", *e);
	return 0;
}
