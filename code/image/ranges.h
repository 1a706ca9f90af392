/*
 * ranges.h - sorted, non-overlapping address ranges (ranges.c), which the
 * image keeps its mappings and code pieces in, and the analysis its
 * mappings.  Internal to libitrace-code.
 */
#ifndef ITRACE_RANGES_H
#define ITRACE_RANGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A vector of entries of `elem` bytes that begin with
 * struct range, sorted by start and never overlapping, as an address
 * space is: a new range replaces the parts of older ones that it covers
 * (the image's mappings and CODE pieces, the analysis' mappings).  Finding
 * the range of an address is a binary search, so each MMAP record costs
 * O(log n) plus a memmove, and memory stays proportional to what is mapped
 * now, not to how many records mapped it.
 */
struct range {
	uint64_t start, end;
};

/* What an owner does when its entries change (NULL: nothing to do). */
struct range_ops {
	/* e was cut to [e->start, e->end) from [old_start, old_end). */
	int (*trim)(void *ctx, void *e, uint64_t old_start, uint64_t old_end);
	/* a hole split one entry into left and right (a copy of it, whose
	 * owned resources must be duplicated or shared) */
	int (*split)(void *ctx, void *left, void *right);
	/* e is gone: free what it owns */
	void (*drop)(void *ctx, void *e);
};

/*
 * Entries that map a file begin with struct file_range; these range_ops
 * callbacks keep their file offset right (a cut at the start moves it, the
 * right part of a split starts further into the file).
 */
struct file_range {
	uint64_t start, end, pgoff;
};
int ranges_pgoff_trim(void *ctx, void *e, uint64_t old_start, uint64_t old_end);
int ranges_pgoff_split(void *ctx, void *left, void *right);

/* ranges_find - index of the first entry whose end is above addr (n: none). */
size_t ranges_find(const void *v, size_t n, size_t elem, uint64_t addr);

/* ranges_lookup - the entry holding addr, or NULL. */
void *ranges_lookup(const void *v, size_t n, size_t elem, uint64_t addr);

/*
 * ranges_punch - remove [start, end) from the entries (*v, *n, capacity
 * *cap), cutting or splitting those that overlap it.  Returns the index
 * where an entry for [start, end) belongs, or -ITRACE_E_NOMEM.
 */
ssize_t ranges_punch(void **v, size_t *n, size_t *cap, size_t elem, uint64_t start,
		     uint64_t end, const struct range_ops *ops, void *ctx);

/* ranges_insert - put entry e at index `at`.  0 or -ITRACE_E_NOMEM. */
int ranges_insert(void **v, size_t *n, size_t *cap, size_t elem, size_t at, const void *e);

#endif
