/* collect_paths.c - programs on $PATH and files beside itrace-collect (collect_paths.h). */
#include "collect_paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int collect_find_in_path(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(name, '/')) {
		if (snprintf(out, outlen, "%s", name) >= (int)outlen)
			return -1;
		return access(out, X_OK);
	}
	for (p = path ? path : "/usr/bin:/bin"; ; p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		/* an empty entry is the current directory */
		if (snprintf(out, outlen, "%.*s/%s", end == p ? 1 : (int)(end - p), end == p ? "." : p,
			     name) < (int)outlen &&
		    access(out, X_OK) == 0)
			return 0;
		if (!*end)
			return -1;
	}
}

int collect_lib_file(const char *env, const char *subdir, const char *name, int mode, char *out,
		     size_t outlen)
{
	const char *dir = env ? getenv(env) : NULL;
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (dir && *dir) {
		if (snprintf(out, outlen, "%s/%s", dir, name) >= (int)outlen)
			return -1;
		return access(out, mode);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (snprintf(out, outlen, "%s/../lib/itrace/%s/%s", self, subdir, name) >= (int)outlen)
		return -1;
	return access(out, mode);
}
