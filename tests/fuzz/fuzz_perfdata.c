/*
 * fuzz_perfdata.c - the perf.data parser on arbitrary bytes: it must
 * return a code (with a message when it fails), never read outside the
 * input or crash, for every user/kernel filter.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../collectors/bts/bts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touch every byte an event points to, so overreads show up under ASan. */
static int consume(void *ctx, const struct bts_event *ev)
{
	unsigned *sum = ctx;

	if (ev->type == BTS_EV_MMAP)
		for (size_t i = 0; i < ev->u.mmap.path_len; i++)
			*sum += (unsigned char)ev->u.mmap.path[i];
	if (ev->type == BTS_EV_COMM)
		for (size_t i = 0; i < ev->u.comm.name_len; i++)
			*sum += (unsigned char)ev->u.comm.name[i];
	*sum += (unsigned)ev->type;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned spaces[] = {BTS_SPACE_USER, BTS_SPACE_KERNEL, BTS_SPACE_USER | BTS_SPACE_KERNEL};
	/* A private copy of exactly `size` bytes: any overread is detected. */
	uint8_t *copy = malloc(size ? size : 1);
	struct perfdata_stats st;
	char err[256];
	unsigned sum = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (size_t i = 0; i < sizeof spaces / sizeof *spaces; i++) {
		int rc = perfdata_parse(copy, size, spaces[i], consume, &sum, &st, err, sizeof err);
		if (rc > 0 || (rc < 0 && !err[0] && rc != -ITRACE_E_NOMEM))
			abort(); /* failures always explain themselves */
	}
	free(copy);
	return 0;
}
