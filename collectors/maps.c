/* maps.c - MMAP/CODE records from /proc/PID/maps (see maps.h). */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "itrace_code.h"
#include "itrace_format.h"

ssize_t maps_read_proc_mem(void *pid_as_ptr, uint64_t addr, void *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)(intptr_t)pid_as_ptr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n;
}

int maps_parse_line(const char *line, struct maps_entry *e)
{
	char perms[8];
	unsigned long long start, end, off, inode;
	int pathpos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n", &start, &end, perms, &off, &inode,
		   &pathpos) < 5 || pathpos == 0 || strlen(perms) < 3)
		return -1;
	e->start = start;
	e->end = end;
	e->pgoff = off;
	e->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	snprintf(e->path, sizeof(e->path), "%s", line + pathpos);
	e->path[strcspn(e->path, "\n")] = '\0';
	return 0;
}

int maps_buildid(const char *path, uint8_t *id, size_t idmax)
{
	int len = itrace_elf_build_id(path, id, idmax);

	return len > 0 ? len : 0;
}

/* Remembers the last file's build-id: a library has several mappings. */
struct buildid_cache {
	char path[4096];
	uint8_t id[ITRACE_BUILDID_MAX];
	int len;
};

static int cached_buildid(struct buildid_cache *c, const char *path, uint8_t *id)
{
	if (strcmp(c->path, path) != 0) {
		snprintf(c->path, sizeof(c->path), "%s", path);
		c->len = maps_buildid(path, c->id, sizeof(c->id));
	}
	memcpy(id, c->id, (size_t)c->len);
	return c->len;
}

static int write_mmap(struct emit_sink *out, pid_t pid, const struct maps_entry *e,
		      struct buildid_cache *cache)
{
	struct itrace_mmap m = {.start = e->start, .len = e->end - e->start, .pgoff = e->pgoff,
				.pid = (uint32_t)pid, .prot = e->prot, .path = e->path,
				.path_len = strlen(e->path)};

	if (e->path[0] == '/')
		m.buildid_len = (uint8_t)cached_buildid(cache, e->path, m.buildid);
	return emit_mmap(out, &m);
}

/* CODE record with the bytes of a mapping that has no file ([vdso]). */
static int write_code(struct emit_sink *out, const struct maps_entry *e, maps_read_fn read,
		      void *read_ctx)
{
	size_t len = e->end - e->start;
	uint8_t *buf;
	ssize_t n;
	int rc;

	if (len > ITRACE_CODE_MAX)
		len = ITRACE_CODE_MAX;
	buf = malloc(len);
	if (!buf)
		return -ITRACE_E_NOMEM;
	n = read(read_ctx, e->start, buf, len);
	if (n <= 0) {
		free(buf);
		return 0; /* unreadable: the reader reports a gap there */
	}
	rc = emit_code(out, e->start, buf, (size_t)n);
	free(buf);
	return rc;
}

static FILE *open_maps(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return fopen(path, "re");
}

static uint64_t hash_path(const char *path)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (; *path; path++)
		h = (h ^ (uint8_t)*path) * 1099511628211ull;
	return h;
}

/*
 * real_path - the file name as the kernel has it.  /proc/PID/maps writes a
 * newline in a name as the four characters "\012" (and leaves a backslash
 * as it is, so the two cannot be told apart there); the link
 * /proc/PID/map_files/START-END reads back the name itself, bytes as they
 * are.  Names without a backslash are taken from maps unchanged.
 */
static void real_path(pid_t pid, struct maps_entry *e)
{
	char link[96], buf[sizeof(e->path)];
	ssize_t n;

	if (e->path[0] != '/' || !strchr(e->path, '\\'))
		return;
	snprintf(link, sizeof(link), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return; /* no access: the escaped form is all there is */
	memcpy(e->path, buf, (size_t)n);
	e->path[n] = '\0';
}

/* Adds e to *seen; returns 1 if it was new, 0 if known, -1 on ENOMEM. */
static int remember(struct maps_seen *seen, const struct maps_entry *e)
{
	struct maps_seen_entry k = {e->start, e->end, e->pgoff, hash_path(e->path), e->prot};

	for (size_t i = 0; i < seen->n; i++) {
		const struct maps_seen_entry *o = &seen->v[i];

		if (o->start == k.start && o->end == k.end && o->pgoff == k.pgoff &&
		    o->path_hash == k.path_hash && o->prot == k.prot)
			return 0;
	}
	if (seen->n == seen->cap) {
		size_t cap = seen->cap ? 2 * seen->cap : 64;
		struct maps_seen_entry *v = realloc(seen->v, cap * sizeof(*v));

		if (!v)
			return -1;
		seen->v = v;
		seen->cap = cap;
	}
	seen->v[seen->n++] = k;
	return 1;
}

void maps_seen_free(struct maps_seen *seen)
{
	free(seen->v);
	memset(seen, 0, sizeof(*seen));
}

int maps_write_new(struct emit_sink *out, pid_t pid, struct maps_seen *seen, maps_read_fn read,
		   void *read_ctx)
{
	static struct buildid_cache cache;
	struct maps_entry e;
	char line[4200];
	int count = 0, rc = 0, isnew;
	FILE *f = open_maps(pid);

	if (!f)
		return -ITRACE_E_IO;
	if (!read) {
		read = maps_read_proc_mem;
		read_ctx = (void *)(intptr_t)pid;
	}
	while (rc >= 0 && fgets(line, sizeof(line), f)) {
		if (maps_parse_line(line, &e) || e.path[0] == '\0' ||
		    strcmp(e.path, "[vsyscall]") == 0)
			continue;
		real_path(pid, &e);
		isnew = remember(seen, &e);
		if (isnew < 0)
			rc = -ITRACE_E_NOMEM;
		if (isnew <= 0)
			continue;
		rc = write_mmap(out, pid, &e, &cache);
		if (rc >= 0 && strcmp(e.path, "[vdso]") == 0)
			rc = write_code(out, &e, read, read_ctx);
		count++;
	}
	fclose(f);
	return rc < 0 ? rc : count;
}

int maps_write_process(struct emit_sink *out, pid_t pid, maps_read_fn read, void *read_ctx)
{
	struct maps_seen seen = {0};
	int rc = maps_write_new(out, pid, &seen, read, read_ctx);

	maps_seen_free(&seen);
	return rc;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int maps_module_matches(const char *path, const char *module, const char *exe)
{
	if (strcmp(module, "main") == 0)
		return strcmp(path, exe) == 0;
	if (strchr(module, '/'))
		return strcmp(path, module) == 0;
	return strcmp(base_name(path), module) == 0;
}

int maps_find_module(pid_t pid, const char *module, uint64_t *lo, uint64_t *hi)
{
	char exe_link[64], exe[PATH_MAX] = "", line[4200];
	struct maps_entry e;
	ssize_t n;
	int found = 0;
	FILE *f;

	snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)pid);
	n = readlink(exe_link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	f = open_maps(pid);
	if (!f)
		return -ITRACE_E_IO;
	while (fgets(line, sizeof(line), f)) {
		if (maps_parse_line(line, &e) || !(e.prot & PROT_EXEC) ||
		    !maps_module_matches(e.path, module, exe))
			continue;
		if (!found || e.start < *lo)
			*lo = e.start;
		if (!found || e.end > *hi)
			*hi = e.end;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -ITRACE_E_NOENT;
}
