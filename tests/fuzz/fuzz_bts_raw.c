/*
 * fuzz_bts_raw.c - the raw BTS buffer converter and the snapshot overlap
 * search on arbitrary bytes.  The first byte picks the filter and where
 * to split the input into two "consecutive snapshots".
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../collectors/bts/bts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check(void *ctx, const struct bts_event *ev)
{
	(void)ctx;
	/* Padding and sentinels never come out as branches. */
	if (!ev->u.branch.from || !ev->u.branch.to)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bts_convert_stats st;
	uint8_t *copy;
	size_t split, overlap;
	unsigned spaces;

	if (size < 1)
		return 0;
	spaces = (data[0] & 3) ? (data[0] & 3) : BTS_SPACE_USER;
	data++;
	size--;
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memset(&st, 0, sizeof st);
	if (bts_convert(copy, size, 1, 1, spaces, check, NULL, &st))
		abort();
	if (st.records != size / BTS_RECORD_SIZE || st.trailing != size % BTS_RECORD_SIZE ||
	    st.padding + st.sentinels + st.filtered + st.branches + st.kentries != st.records)
		abort();
	split = size ? (size_t)data[0] * size / 256 : 0;
	overlap = bts_snapshot_overlap(copy, split, copy + split, size - split);
	if (overlap % BTS_RECORD_SIZE || overlap > size - split || overlap > split)
		abort();
	free(copy);
	return 0;
}
