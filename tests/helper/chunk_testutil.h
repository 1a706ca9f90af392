/*
 * chunk_testutil.h - files made by hand around a chunk's record bytes, for
 * the unit tests of the reader's checks on hostile records (BLOCK,
 * BRANCH_SEQ).  Include it after <cmocka.h>, "buf_testutil.h",
 * "internal.h" and "itrace.h".
 */
#ifndef CHUNK_TESTUTIL_H
#define CHUNK_TESTUTIL_H

/* A file holding one chunk with the given records; its header has the
 * incompatible features and the MEM table's log2 asked. */
static inline struct buf one_chunk(uint32_t features, unsigned mem_table_log2, const uint8_t *recs,
				   size_t len, unsigned nrec)
{
	struct buf b = { 0 };
	uint8_t h[ITRACE_FILE_FIXED_SIZE] = { 0 }, c[72] = { 0 };
	const size_t hl = sizeof(h);

	memcpy(h, "\x89ITR\r\n\x1a\n", 8);
	put_le16(h + 8, ITRACE_FORMAT_MAJOR);
	h[12] = (uint8_t)mem_table_log2;
	put_le16(h + 14, (uint16_t)hl);
	put_le32(h + 16, (uint32_t)hl);
	put_le16(h + 20, 62);
	h[22] = 1;
	h[23] = 2;
	put_le32(h + 24, ITRACE_FF_MEM);
	put_le32(h + 36, features);
	put_le32(h + 44, itrace_crc32c(0, h, hl));
	memcpy(c, "ICHK", 4);
	put_le32(c + 4, 72);
	put_le32(c + 16, nrec);
	put_le32(c + 20, (uint32_t)len);
	put_le32(c + 24, (uint32_t)len);
	put_le32(c + 32, itrace_crc32c(0, recs, len));
	put_le32(c + 68, itrace_crc32c(0, c, 68));
	b.len = hl + 72 + len;
	b.data = malloc(b.len);
	assert_non_null(b.data);
	memcpy(b.data, h, hl);
	memcpy(b.data + hl, c, 72);
	memcpy(b.data + hl + 72, recs, len);
	return b;
}

/* count_until_error - records delivered before the first error (or EOF). */
static inline int count_until_error(const struct buf *b, int *err)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	int n = 0, rc;

	assert_int_equal(itrace_reader_open_mem(b->data, b->len, &r), 0);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0 && rec.type != ITRACE_REC_GAP)
		n++;
	*err = rc;
	itrace_reader_close(r);
	return n;
}

#endif
