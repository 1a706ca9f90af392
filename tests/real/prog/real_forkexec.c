/*
 * real_forkexec.c - the parent forks; the child computes a little, then
 * execs the program again ("child N") which prints N; the parent waits
 * and reports the child's status.  "exec": no fork, the process itself
 * execs the program again.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int triangle(int n)
{
	return n ? n + triangle(n - 1) : 0;
}

/* exec_self - run the program again as "child N".  By its path: exec of
 * /proc/self/exe would start Valgrind's tool under Valgrind (readlink of
 * it is the one call Valgrind answers with the program's path). */
static void exec_self(const char *argv0, int n)
{
	char self[4096], arg[32];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len < 0)
		return;
	self[len] = '\0';
	snprintf(arg, sizeof(arg), "%d", n);
	execl(self, argv0, "child", arg, (char *)NULL);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc == 3 && strcmp(argv[1], "child") == 0) {
		printf("exec'd child: %s\n", argv[2]);
		return 7;
	}
	if (argc == 2 && strcmp(argv[1], "exec") == 0) {
		exec_self(argv[0], triangle(20));
		return 127;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		exec_self(argv[0], triangle(40));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 3;
	printf("parent: child exited %d, %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       triangle(30));
	return 0;
}
