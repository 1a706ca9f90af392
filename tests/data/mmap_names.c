/*
 * mmap_names.c - maps a file whose name holds a space, a newline, a byte
 * that is not UTF-8 and a literal backslash-zero-one-two, for
 * tests/e2e/mmap_paths.sh: the trace must name it with exactly those
 * bytes (/proc/PID/maps shows both the newline and the backslash as
 * "\012").  Usage: mmap_names DIR; prints the name it used.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char name[4096];
	void *p;
	int fd;

	if (argc != 2)
		return 2;
	snprintf(name, sizeof(name), "%s/lib a b\nc\377\\012d.so", argv[1]);
	fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return 1;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	fputs(name, stdout);
	munmap(p, 4096);
	close(fd);
	return 0;
}
