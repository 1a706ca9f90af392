/*
 * qemu_exec.c - execs argv[1] with the rest of the arguments after a line
 * of output; if the execve fails, says why and exits with status 3.
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	puts("before exec");
	fflush(stdout);
	if (argc > 1)
		execv(argv[1], argv + 1);
	perror("execv");
	return 3;
}
