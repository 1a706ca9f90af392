/*
 * bench-runtime - run a command and print "WALL CPU" in seconds: the
 * elapsed time (CLOCK_MONOTONIC) and the user + system time of the command
 * and its children (wait4's rusage, microseconds).  time(1) prints both in
 * 10 ms steps, which is several percent of the fast runs the benches time.
 *
 * usage: bench-runtime -o FILE CMD [ARG...]
 * writes the line to FILE (the command's own output stays as it is) and
 * exits with the command's status, or 127 when it cannot be run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	FILE *out;
	int status;
	pid_t pid;

	if (argc < 4 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: bench-runtime -o FILE CMD [ARG...]\n");
		return 2;
	}
	out = fopen(argv[2], "w");
	if (!out) {
		fprintf(stderr, "bench-runtime: cannot open '%s': %s\n", argv[2], strerror(errno));
		return 127;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("bench-runtime: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "bench-runtime: cannot run '%s': %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("bench-runtime: wait4");
		return 127;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(out, "%.6f %.6f\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		seconds(&ru.ru_utime) + seconds(&ru.ru_stime));
	if (fclose(out) != 0) {
		fprintf(stderr, "bench-runtime: cannot write '%s'\n", argv[2]);
		return 127;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
