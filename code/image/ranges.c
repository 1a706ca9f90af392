/* ranges.c - sorted, non-overlapping address ranges (see ranges.h). */
#include <sys/types.h>

#include "internal.h"
#include "ranges.h"

static inline struct range *at(const void *v, size_t elem, size_t i)
{
	return (struct range *)((char *)v + i * elem);
}

size_t ranges_find(const void *v, size_t n, size_t elem, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (at(v, elem, mid)->end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void *ranges_lookup(const void *v, size_t n, size_t elem, uint64_t addr)
{
	size_t i = ranges_find(v, n, elem, addr);

	return i < n && at(v, elem, i)->start <= addr ? at(v, elem, i) : NULL;
}

int ranges_pgoff_trim(void *ctx, void *e, uint64_t old_start, uint64_t old_end)
{
	struct file_range *m = e;

	(void)ctx;
	(void)old_end;
	m->pgoff += m->start - old_start;
	return 0;
}

int ranges_pgoff_split(void *ctx, void *left, void *right)
{
	struct file_range *l = left, *r = right;

	(void)ctx;
	r->pgoff = l->pgoff + (r->start - l->start);
	return 0;
}

int ranges_insert(void **v, size_t *n, size_t *cap, size_t elem, size_t i, const void *e)
{
	if (itrace_reserve(v, cap, *n + 1, elem) < 0)
		return -ITRACE_E_NOMEM;
	memmove(at(*v, elem, i + 1), at(*v, elem, i), (*n - i) * elem);
	memcpy(at(*v, elem, i), e, elem);
	(*n)++;
	return 0;
}

/* trim - cut entry i to [start, end), telling the owner. */
static int trim(void *v, size_t elem, size_t i, uint64_t start, uint64_t end,
		const struct range_ops *ops, void *ctx)
{
	struct range *r = at(v, elem, i), old = *r;

	r->start = start;
	r->end = end;
	return ops->trim ? ops->trim(ctx, r, old.start, old.end) : 0;
}

ssize_t ranges_punch(void **v, size_t *n, size_t *cap, size_t elem, uint64_t start,
		     uint64_t end, const struct range_ops *ops, void *ctx)
{
	size_t i = ranges_find(*v, *n, elem, start), j;
	struct range *r = i < *n ? at(*v, elem, i) : NULL;

	if (r && r->start < start && r->end > end) {
		/* The hole lands inside one entry: it becomes two. */
		uint64_t right_end = r->end;
		struct range *left, *right;

		/* room first: the copy's source must not move under it */
		if (itrace_reserve(v, cap, *n + 1, elem) < 0)
			return -ITRACE_E_NOMEM;
		r = at(*v, elem, i);
		if (ranges_insert(v, n, cap, elem, i + 1, r) < 0)
			return -ITRACE_E_NOMEM;
		left = at(*v, elem, i);
		right = at(*v, elem, i + 1);
		left->end = start;
		right->start = end;
		right->end = right_end;
		if (ops->split && ops->split(ctx, left, right) < 0)
			return -ITRACE_E_NOMEM;
		return (ssize_t)i + 1;
	}
	if (r && r->start < start) {
		if (trim(*v, elem, i, r->start, start, ops, ctx) < 0)
			return -ITRACE_E_NOMEM;
		i++;
	}
	for (j = i; j < *n && at(*v, elem, j)->end <= end; j++)
		;
	if (j < *n && at(*v, elem, j)->start < end &&
	    trim(*v, elem, j, end, at(*v, elem, j)->end, ops, ctx) < 0)
		return -ITRACE_E_NOMEM;
	if (j == i)
		return (ssize_t)i; /* nothing covered completely (maybe no entries at all) */
	for (size_t k = i; k < j && ops->drop; k++)
		ops->drop(ctx, at(*v, elem, k)); /* covered completely */
	memmove(at(*v, elem, i), at(*v, elem, j), (*n - j) * elem);
	*n -= j - i;
	return (ssize_t)i;
}
