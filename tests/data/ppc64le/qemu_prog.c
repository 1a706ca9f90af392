/*
 * qemu_prog.c - a ppc64le program for the qemu backend's tests: work()
 * loads and stores 1, 2, 4 and 8 bytes, floating point of 4 and 8 bytes,
 * 16-byte vectors (an inlined memcpy), an indexed word, and does an atomic
 * add (lwarx/stwcx.), calls, loops and a jump table; main() first sends
 * itself SIGUSR1, whose handler runs once.  Exit status: 42.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>

struct rec {
	uint8_t b;
	uint16_t h;
	uint32_t w;
	uint64_t d;
	double f;
	float s;
};

static volatile int got_signal;
static volatile struct rec recs[8];
static uint64_t vec_src[4] __attribute__((aligned(16))) = {1, 2, 3, 4};
static uint64_t vec_dst[4] __attribute__((aligned(16)));
static uint32_t counter;
static volatile uint32_t words[8] = {0x11223344, 0x55667788, 1, 2, 3, 4, 5, 6};

static void on_usr1(int sig)
{
	got_signal = sig;
}

__attribute__((noinline)) static int classify(int x)
{
	switch (x & 7) {
	case 0: return 3;
	case 1: return 5;
	case 2: return 7;
	case 3: return 11;
	case 4: return 13;
	case 5: return 17;
	default: return 1;
	}
}

__attribute__((noinline)) int work(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++) {
		volatile struct rec *r = &recs[i & 7];

		r->b = (uint8_t)i;
		r->h = (uint16_t)(i * 3);
		r->w = (uint32_t)(i * 5);
		r->d = (uint64_t)i << 40;
		r->f = i * 0.5;
		r->s = (float)i;
		sum += r->b + r->h + (int)r->w + (int)(r->d >> 40) + (int)r->f + (int)r->s;
		sum += classify(i);
		sum += (int)__builtin_bswap32(words[i & 7]) & 0xff;
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
	}
	memcpy(vec_dst, vec_src, sizeof(vec_dst));
	return sum + (int)vec_dst[3];
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	return work(20) == 0 ? 1 : 42 + (got_signal == SIGUSR1 ? 0 : 1) + (counter == 20 ? 0 : 2);
}
