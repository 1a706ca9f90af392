/*
 * buf_testutil.h - whole files in memory, for the unit tests that compare
 * written traces byte for byte (format, writer, fill).  Include it after
 * <cmocka.h>.
 */
#ifndef BUF_TESTUTIL_H
#define BUF_TESTUTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct buf {
	uint8_t *data; /* malloc'd, one spare byte */
	size_t len;
};

/* buf_from_fd - every byte of fd, from offset 0; fd is closed. */
static inline struct buf buf_from_fd(int fd)
{
	struct buf b;
	off_t len = lseek(fd, 0, SEEK_END);

	assert_true(len >= 0);
	b.len = (size_t)len;
	b.data = malloc(b.len + 1);
	assert_non_null(b.data);
	assert_int_equal(pread(fd, b.data, b.len, 0), (ssize_t)b.len);
	close(fd);
	return b;
}

/* buf_from_path - every byte of the file at path. */
static inline struct buf buf_from_path(const char *path)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	return buf_from_fd(fd);
}

/* assert_same_bytes - a and b hold the same bytes. */
static inline void assert_same_bytes(const struct buf *a, const struct buf *b)
{
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->data, b->data, a->len);
}

#endif
