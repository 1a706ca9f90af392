/*
 * vg_launch.c - itrace-vg-launch, the launcher Valgrind runs for a program
 * that the traced program execs (--trace-children=yes; valgrind's execve
 * runs $VALGRIND_LAUNCHER with its own options and the new program).
 *
 * Valgrind's own launcher would look for the tool in its installation
 * (VALGRIND_LIB), where the itrace tool is not.  This one starts the tool
 * installed beside it, as itrace-collect starts it for the first program:
 * with VALGRIND_LAUNCHER naming this launcher, and no VALGRIND_LIB in the
 * program's environment.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL_NAME "itrace-amd64-linux"

int main(int argc, char **argv)
{
	char self[PATH_MAX], tool[PATH_MAX + sizeof(TOOL_NAME)];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0 || argc < 1) {
		fprintf(stderr, "itrace-vg-launch: cannot find myself: %s\n", strerror(errno));
		return 127;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	snprintf(tool, sizeof(tool), "%.*s/%s", (int)(slash ? slash - self : 0), self, TOOL_NAME);
	if (setenv("VALGRIND_LAUNCHER", self, 1) != 0 || unsetenv("VALGRIND_LIB") != 0) {
		fprintf(stderr, "itrace-vg-launch: %s\n", strerror(errno));
		return 127;
	}
	argv[0] = tool;
	execv(tool, argv);
	fprintf(stderr, "itrace-vg-launch: cannot run '%s': %s\n", tool, strerror(errno));
	return 127;
}
