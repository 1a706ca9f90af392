/*
 * outfile.c - every output file of itrace goes through here (itrace.h,
 * "Output files"): written as a hidden temporary in the destination's
 * directory, synced, then renamed over the destination.
 *
 * Why each step:
 *  - The temporary is created with O_CREAT|O_EXCL|O_NOFOLLOW under a name
 *    with a random part, so nothing planted in the directory (a symlink
 *    to a victim file) is ever written through, and two writers never
 *    share a temporary.
 *  - rename(2) replaces the destination name itself: a symlink planted
 *    at the destination is replaced, not followed, and readers see either
 *    the previous file or the complete new one, never a half-written file.
 *  - fsync before the rename, so that a crash of the machine cannot leave
 *    the new name on an empty file (the ext4 "zero-length file" problem);
 *    the directory is synced after it, best effort.
 *  - The temporary's name carries the writer's pid: a process killed with
 *    SIGKILL cannot remove it, so the next open in that directory removes
 *    the temporaries of processes that no longer exist.
 *  - Permissions are 0666 filtered by the umask, as for any file a shell
 *    redirection creates.
 * A destination that is not a regular file (a terminal, a FIFO, a device,
 * /dev/stdout and the other /dev and /proc descriptor links) cannot be
 * replaced by rename and is written in place.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Marker of our temporaries: ".NAME" TMP_MARK "PID.RANDOM". */
#define TMP_MARK ".itrace-tmp."
/* Longest part of the destination's name kept in the temporary's name
 * (NAME_MAX is 255 and the rest needs about 40). */
#define TMP_BASE_MAX 200

struct itrace_outfile {
	int fd;
	int own_fd;	/* close it: not stdout */
	int direct;	/* written in place */
	int published;	/* the temporary has been renamed over the path */
	unsigned flags;
	char *path;	/* destination */
	char *tmp;	/* the temporary (NULL once published or when direct) */
	char *dir;	/* directory of both */
};

/* io_error - -ITRACE_E_IO with errno = e. */
static int io_error(int e)
{
	errno = e;
	return -ITRACE_E_IO;
}

static void outfile_free(struct itrace_outfile *o)
{
	int saved = errno;

	if (o->own_fd && o->fd >= 0)
		close(o->fd);
	free(o->path);
	free(o->tmp);
	free(o->dir);
	free(o);
	errno = saved;
}

/* is_descriptor_link - /dev/stdout, /dev/fd/N, /proc/self/fd/N and the
 * like: names for something already open, which must not be replaced. */
static int is_descriptor_link(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

/*
 * in_place - should `path` be written where it is rather than replaced?
 * Returns 1 (in place), 0 (replace through a temporary) or a negative
 * code (a directory: EISDIR; an existing file with NO_CLOBBER: EEXIST).
 */
static int in_place(const char *path, unsigned flags)
{
	struct stat ls, st;

	if (lstat(path, &ls) != 0)
		return errno == ENOENT ? 0 : -ITRACE_E_IO;
	if (S_ISDIR(ls.st_mode))
		return io_error(EISDIR);
	if (S_ISLNK(ls.st_mode)) {
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return io_error(EISDIR);
		if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || is_descriptor_link(path)))
			return 1;
	} else if (!S_ISREG(ls.st_mode)) {
		return 1;
	}
	if (flags & ITRACE_OUT_NO_CLOBBER)
		return io_error(EEXIST);
	return 0;
}

static uint32_t random_u32(void)
{
	static uint32_t counter;
	uint32_t r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec ^ (uint32_t)getpid() << 16 ^ ++counter * 0x9E3779B9u;
}

/* split_path - the directory ("." if none) and the last component. */
static int split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*dir = strdup(".");
		*base = path;
	} else {
		*dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
		*base = slash + 1;
	}
	return *dir ? 0 : -ITRACE_E_NOMEM;
}

/* stale_pid - the pid in one of our temporaries' names, or 0 if it is not one. */
static pid_t stale_pid(const char *name)
{
	const char *m = name[0] == '.' ? strstr(name, TMP_MARK) : NULL;
	char *end;
	long pid;

	if (!m)
		return 0;
	pid = strtol(m + sizeof(TMP_MARK) - 1, &end, 10);
	if (pid <= 0 || *end != '.')
		return 0;
	return (pid_t)pid;
}

int itrace_outfile_sweep(const char *dir)
{
	int dfd, removed = 0;
	DIR *d;
	struct dirent *e;

	if (!dir)
		return -ITRACE_E_INVAL;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return -ITRACE_E_IO;
	}
	while ((e = readdir(d)) != NULL) {
		pid_t pid = stale_pid(e->d_name);
		struct stat st;

		/* Only the temporaries of dead processes, and only our own. */
		if (pid == 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (unlinkat(dfd, e->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

/* create_temp - a new temporary beside the destination. */
static int create_temp(struct itrace_outfile *o, const char *base)
{
	size_t n = strlen(o->dir) + strlen(base) + 64;

	o->tmp = malloc(n);
	if (!o->tmp)
		return -ITRACE_E_NOMEM;
	itrace_outfile_sweep(o->dir);
	for (int tries = 0; tries < 100; tries++) {
		snprintf(o->tmp, n, "%s/.%.*s" TMP_MARK "%d.%08x", o->dir, TMP_BASE_MAX, base,
			 (int)getpid(), random_u32());
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (o->fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -ITRACE_E_IO;
	}
	return -ITRACE_E_IO; /* errno EEXIST */
}

int itrace_outfile_open(const char *path, unsigned flags, struct itrace_outfile **op)
{
	struct itrace_outfile *o;
	const char *base;
	int rc;

	if (!op)
		return -ITRACE_E_INVAL;
	*op = NULL;
	if (!path || !*path || (flags & ~(unsigned)ITRACE_OUT_NO_CLOBBER))
		return -ITRACE_E_INVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ITRACE_E_NOMEM;
	o->fd = -1;
	o->flags = flags;
	o->path = strdup(path);
	if (!o->path) {
		outfile_free(o);
		return -ITRACE_E_NOMEM;
	}
	if (strcmp(path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		o->direct = 1;
		*op = o;
		return 0;
	}
	o->own_fd = 1;
	rc = in_place(path, flags);
	if (rc == 1) {
		o->direct = 1;
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
		rc = o->fd < 0 ? -ITRACE_E_IO : 0;
	} else if (rc == 0) {
		base = NULL;
		rc = split_path(path, &o->dir, &base);
		if (rc == 0 && !*base)
			rc = io_error(EISDIR); /* "dir/" */
		if (rc == 0)
			rc = create_temp(o, base);
	}
	if (rc < 0) {
		outfile_free(o);
		return rc;
	}
	*op = o;
	return 0;
}

int itrace_outfile_fd(const struct itrace_outfile *o)
{
	return o ? o->fd : -1;
}

const char *itrace_outfile_path(const struct itrace_outfile *o)
{
	return o ? o->path : NULL;
}

int itrace_outfile_rename(struct itrace_outfile *o, const char *path)
{
	const char *base;
	char *dir, *copy;
	int same;

	if (!o || !path)
		return -ITRACE_E_INVAL;
	if (o->direct || o->published)
		return -ITRACE_E_STATE;
	if (split_path(path, &dir, &base) < 0)
		return -ITRACE_E_NOMEM;
	same = strcmp(dir, o->dir) == 0 && *base;
	free(dir);
	if (!same)
		return -ITRACE_E_INVAL;
	if (!(copy = strdup(path)))
		return -ITRACE_E_NOMEM;
	free(o->path);
	o->path = copy;
	return 0;
}

const char *itrace_outfile_temp(const struct itrace_outfile *o)
{
	return o ? o->tmp : NULL;
}

/* sync_dir - make the rename durable; failure is not an error (some file
 * systems cannot sync a directory). */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* rename_noreplace - rename unless `to` exists (EEXIST). */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* A file system without RENAME_NOREPLACE: link() fails on EEXIST too. */
	if (link(from, to) != 0)
		return -1;
	unlink(from);
	return 0;
}

int itrace_outfile_publish(struct itrace_outfile *o)
{
	int rc;

	if (!o)
		return -ITRACE_E_INVAL;
	if (o->direct || o->published)
		return 0;
	/* EINVAL: a descriptor that cannot be synced is still written. */
	if (fsync(o->fd) != 0 && errno != EINVAL)
		return -ITRACE_E_IO;
	if (o->flags & ITRACE_OUT_NO_CLOBBER)
		rc = rename_noreplace(o->tmp, o->path);
	else
		rc = rename(o->tmp, o->path);
	if (rc != 0)
		return -ITRACE_E_IO;
	o->published = 1;
	free(o->tmp);
	o->tmp = NULL;
	sync_dir(o->dir);
	return 0;
}

int itrace_outfile_commit(struct itrace_outfile *o)
{
	int rc;

	if (!o)
		return 0;
	rc = itrace_outfile_publish(o);
	if (rc < 0) {
		itrace_outfile_discard(o);
		return rc;
	}
	if (o->own_fd && close(o->fd) != 0)
		rc = -ITRACE_E_IO; /* a late write error (NFS, quota) */
	o->own_fd = 0;
	outfile_free(o);
	return rc;
}

void itrace_outfile_discard(struct itrace_outfile *o)
{
	int saved = errno;

	if (!o)
		return;
	if (o->tmp)
		unlink(o->tmp);
	outfile_free(o);
	errno = saved;
}
