/*
 * readback_testutil.h - every record of a trace file into an array, for
 * a unit test to look at after the reader is closed.  The strings and
 * bytes a record points to are the reader's, valid until its next call
 * (itrace.h): they are copied into one pool here, which the next
 * readback_all() reuses.  Include after <cmocka.h>.
 */
#ifndef READBACK_TESTUTIL_H
#define READBACK_TESTUTIL_H

#include <stddef.h>
#include <string.h>

#include "itrace.h"

/* readback_keep - `len` bytes at `p` into the pool, at *used; the copy. */
static inline const void *readback_keep(const void *p, size_t len, size_t *used)
{
	static unsigned char pool[1 << 20];
	unsigned char *at = pool + *used;

	if (!p)
		return NULL;
	assert_true(len <= sizeof(pool) - *used);
	memcpy(at, p, len);
	*used += len;
	return at;
}

/* readback_all - the first `max` records of `path` into recs[] (the file
 * must open); how many. */
static inline size_t readback_all(const char *path, struct itrace_record *recs, size_t max)
{
	struct itrace_reader *r;
	size_t n = 0, used = 0;

	assert_int_equal(itrace_reader_open(path, &r), 0);
	while (n < max && itrace_reader_next(r, &recs[n], sizeof(recs[n])) == 0) {
		struct itrace_record *x = &recs[n++];

		if (x->type == ITRACE_REC_PROCESS)
			x->u.process.name = readback_keep(x->u.process.name, x->u.process.name_len, &used);
		else if (x->type == ITRACE_REC_THREAD)
			x->u.thread.name = readback_keep(x->u.thread.name, x->u.thread.name_len, &used);
		else if (x->type == ITRACE_REC_MMAP)
			x->u.mmap.path = readback_keep(x->u.mmap.path, x->u.mmap.path_len, &used);
		else if (x->type == ITRACE_REC_CODE)
			x->u.code.bytes = readback_keep(x->u.code.bytes, x->u.code.len, &used);
	}
	itrace_reader_close(r);
	return n;
}

#endif
