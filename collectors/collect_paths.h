/*
 * collect_paths.h - finding the programs and helper files a backend runs:
 * a command on $PATH, and a file installed beside itrace-collect under
 * <bindir>/../lib/itrace/ (the build tree and `make install` both lay
 * them out so), with an environment variable to override it.
 */
#ifndef ITRACE_COLLECT_PATHS_H
#define ITRACE_COLLECT_PATHS_H

#include <stddef.h>

/*
 * collect_find_in_path - `name` as execvp would run it: as given when it
 * has a slash, else the first executable $PATH entry.  Returns 0 with the
 * path in out, or -1 if there is none.
 */
int collect_find_in_path(const char *name, char *out, size_t outlen);

/*
 * collect_lib_file - $env/name when the environment variable `env` is
 * set, else <dir of itrace-collect>/../lib/itrace/<subdir>/<name>.
 * Returns 0 if that file exists with access `mode` (R_OK, X_OK: path in
 * out), -1 otherwise (out still holds the path looked at, for the
 * message).
 */
int collect_lib_file(const char *env, const char *subdir, const char *name, int mode, char *out,
		     size_t outlen);

#endif
