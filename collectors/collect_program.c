/* collect_program.c - the program to start (see collect_program.h). */
#include "collect_program.h"
#include "collect_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int collect_resolve_program(const char *prog, char *out, size_t outlen)
{
	struct stat st;

	if (collect_find_in_path(prog, out, outlen) != 0)
		return strchr(prog, '/') && access(prog, F_OK) == 0 ? EACCES : ENOENT;
	if (stat(out, &st) != 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	return 0;
}

int collect_elf_machine(const char *path, int *endian)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, "\177ELF", 4) != 0)
		return n < 0 ? -1 : 0;
	*endian = h[5];
	/* e_machine, at offset 18 in both classes, in the file's byte order */
	return h[5] == 2 ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
}

int collect_is_setid(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID));
}
