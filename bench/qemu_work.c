/*
 * qemu_work.c - the qemu backend's benchmark workload, a gzip-like job
 * built for ppc64le and x86-64: LZ77 compression with hash chains (as
 * deflate's longest_match) of N KiB of generated text, then a checksum of
 * the output.  About 180 million ppc64le instructions per MiB.  Prints
 * the sizes and the checksum so the work cannot be optimised away.
 * Usage: qemu_work [KIB]   (default 1024)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_BITS 15
#define MAX_CHAIN 16
#define MAX_MATCH 258

static const char *const words[] = {"the ",	"quick ", "brown ", "fox ", "jumps ", "over ",
				    "lazy ",	"dog ",	  "and ",   "runs ", "\n"};

/* Pseudo-text: words in a linear congruential order. */
static void make_text(unsigned char *in, size_t n)
{
	uint32_t s = 12345;

	for (size_t k = 0; k < n;) {
		const char *w;
		size_t l;

		s = s * 1103515245u + 12345u;
		w = words[(s >> 16) % (sizeof(words) / sizeof(words[0]))];
		l = strlen(w);
		if (l > n - k)
			l = n - k;
		memcpy(in + k, w, l);
		k += l;
	}
}

static unsigned hash3(const unsigned char *p)
{
	return ((unsigned)p[0] << 10 ^ (unsigned)p[1] << 5 ^ p[2]) & ((1u << HASH_BITS) - 1);
}

/* Literals as themselves, matches as 0xff, length, distance (2 bytes). */
static size_t compress(const unsigned char *in, size_t n, unsigned char *out, int32_t *head,
		       int32_t *prev)
{
	size_t o = 0, i = 0;

	memset(head, -1, sizeof(int32_t) << HASH_BITS);
	while (i < n) {
		size_t best = 0, from = 0;

		if (i + 3 <= n) {
			unsigned h = hash3(in + i);
			int32_t p = head[h];

			for (int chain = MAX_CHAIN; p >= 0 && chain--; p = prev[p]) {
				size_t l = 0;

				while (i + l < n && l < MAX_MATCH && in[p + l] == in[i + l])
					l++;
				if (l > best) {
					best = l;
					from = (size_t)p;
				}
			}
			prev[i] = head[h];
			head[h] = (int32_t)i;
		}
		if (best >= 3) {
			out[o++] = 0xff;
			out[o++] = (unsigned char)best;
			out[o++] = (unsigned char)(i - from);
			out[o++] = (unsigned char)((i - from) >> 8);
			for (size_t j = 1; j < best; j++)
				if (i + j + 3 <= n) {
					unsigned h = hash3(in + i + j);

					prev[i + j] = head[h];
					head[h] = (int32_t)(i + j);
				}
			i += best;
		} else {
			out[o++] = in[i++];
		}
	}
	return o;
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 1024) * 1024, o;
	unsigned char *in = malloc(n + 1), *out = malloc(n + n / 2 + 16);
	int32_t *head = malloc(sizeof(int32_t) << HASH_BITS), *prev = malloc(sizeof(int32_t) * (n + 1));
	uint64_t sum = 0;

	if (!in || !out || !head || !prev)
		return 1;
	make_text(in, n);
	o = compress(in, n, out, head, prev);
	for (size_t j = 0; j < o; j++)
		sum = sum * 31 + out[j];
	printf("%zu -> %zu bytes, checksum %016llx\n", n, o, (unsigned long long)sum);
	return 0;
}
