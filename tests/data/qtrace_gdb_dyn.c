/*
 * qtrace_gdb_dyn.c - a dynamically linked x86-64 program for the gdb
 * backend under gdbserver: traced with --start work, it calls into libc
 * (strlen, memset: shared-library code, often AVX2/AVX-512 vector
 * instructions), so the trace needs the libraries' mappings
 * from /proc/PID/maps.  Exit status: the sum of the lengths minus 2, 26.
 */
#include <string.h>

static char buf[64];

__attribute__((noinline)) int work(const char *const *words, int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++) {
		memset(buf, 'x', (size_t)i + 1);
		sum += (int)strlen(words[i]);
	}
	return sum + (buf[0] == 'x' ? 0 : 100);
}

int main(void)
{
	static const char *const words[] = {"alpha", "beta", "gamma", "delta", "epsilon",
					    "pi"};

	return work(words, 6) - 2;
}
