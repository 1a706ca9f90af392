/*
 * bts_convert.c - raw Branch Trace Store buffers to branch events.
 *
 * The hardware writes 24-byte records {from, to, flags} (Intel SDM vol. 3B
 * §16.4.9).  The intel_bts driver zero-pads the unusable tail of each
 * buffer chunk, so all-zero records are padding, not branches.  perf
 * treats from == 0 as "trace begin" and to == 0 as "trace end"; neither
 * is a real branch, so they are counted and skipped.
 */
#include <string.h>

#include "bts.h"

int bts_branch_wanted(uint64_t from, uint64_t to, unsigned spaces)
{
	int kfrom = bts_addr_is_kernel(from), kto = bts_addr_is_kernel(to);

	if (!(spaces & BTS_SPACE_KERNEL) && (kfrom || kto))
		return 0;
	if (!(spaces & BTS_SPACE_USER) && (!kfrom || !kto))
		return 0;
	return 1;
}

int bts_convert(const uint8_t *buf, size_t len, uint32_t pid, uint32_t tid, unsigned spaces,
		bts_event_fn fn, void *ctx, struct bts_convert_stats *st)
{
	struct bts_event ev;
	size_t n = len / BTS_RECORD_SIZE;

	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_BRANCH;
	ev.pid = pid;
	ev.tid = tid;
	st->trailing += len % BTS_RECORD_SIZE;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = buf + i * BTS_RECORD_SIZE;
		uint64_t from = bts_le64(r), to = bts_le64(r + 8);
		int rc;

		st->records++;
		if (!from && !to) {
			st->padding++;
			continue;
		}
		if (!from || !to) {
			st->sentinels++;
			continue;
		}
		ev.type = BTS_EV_BRANCH;
		if (!bts_branch_wanted(from, to, spaces)) {
			if (spaces != BTS_SPACE_USER || bts_addr_is_kernel(from)) {
				st->filtered++;
				continue;
			}
			ev.type = BTS_EV_KENTRY;
		}
		ev.u.branch.from = from;
		ev.u.branch.to = to;
		rc = fn(ctx, &ev);
		if (rc < 0)
			return rc;
		if (ev.type == BTS_EV_KENTRY)
			st->kentries++;
		else
			st->branches++;
	}
	return 0;
}

size_t bts_snapshot_overlap(const uint8_t *prev, size_t prev_len, const uint8_t *cur,
			    size_t cur_len)
{
	size_t offs;

	prev_len -= prev_len % BTS_RECORD_SIZE;
	cur_len -= cur_len % BTS_RECORD_SIZE;
	/* Try the longest candidate first: the whole of cur, or all of prev. */
	offs = prev_len > cur_len ? prev_len - cur_len : 0;
	for (; offs < prev_len; offs += BTS_RECORD_SIZE) {
		size_t n = prev_len - offs;
		if (!memcmp(prev + offs, cur, n))
			return n;
	}
	return 0;
}
