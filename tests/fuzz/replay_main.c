/*
 * replay_main.c - run a libFuzzer target over a corpus without libFuzzer,
 * so `make check` replays every saved input with the normal compiler.
 * Usage: replay [-v] DIR|FILE...  Prints one TAP line per file named and
 * one per directory.  With -v each input's path goes to stderr before it
 * runs, so that the input a sanitizer stops on is the last one named
 * (tests/fuzz/run_target.sh keeps it).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int test_no;
static int verbose;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		printf("not ok %d - %s: cannot read\n", ++test_no, path);
		if (f)
			fclose(f);
		return 1;
	}
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		printf("not ok %d - %s: cannot read\n", ++test_no, path);
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	if (verbose)
		fprintf(stderr, "replaying %s\n", path);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays a directory in name order, one TAP line for the whole directory. */
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int bad = 0;

	if (!d) {
		printf("not ok %d - %s: cannot open corpus\n", ++test_no, dir);
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), compare_names);
	for (i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		bad |= replay_file(path);
		free(names[i]);
	}
	free(names);
	if (!bad)
		printf("ok %d - %s: %zu inputs replayed\n", ++test_no, dir, n);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (!strcmp(argv[i], "-v")) {
			verbose = 1;
			continue;
		}
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			bad |= replay_dir(argv[i]);
		else if (!(bad |= replay_file(argv[i])))
			printf("ok %d - %s\n", ++test_no, argv[i]);
	}
	return bad;
}
