/*
 * writer_testutil.h - a trace writer on an anonymous in-memory file, for
 * the unit tests that compare written traces byte for byte.  Include it
 * after <cmocka.h>, "buf_testutil.h" and "itrace.h".
 */
#ifndef WRITER_TESTUTIL_H
#define WRITER_TESTUTIL_H

#include <sys/mman.h>

/* memfd_writer - a writer with options o on a new memfd, returned in *fd. */
static inline struct itrace_writer *memfd_writer(const struct itrace_writer_options *o, int *fd)
{
	struct itrace_writer *w;

	*fd = memfd_create("itrace-test", 0);
	assert_true(*fd >= 0);
	assert_int_equal(itrace_writer_open_fd(*fd, o, &w), 0);
	return w;
}

/* close_and_slurp - close w as a complete trace; every byte written to fd. */
static inline struct buf close_and_slurp(struct itrace_writer *w, int fd)
{
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	return buf_from_fd(fd);
}

#endif
