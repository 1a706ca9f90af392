/*
 * crc32c.c - CRC-32C (Castagnoli polynomial, reflected 0x82F63B78), the
 * checksum of file headers, chunk headers, payloads and the footer.  None
 * of the project's fixed dependencies exposes a CRC, so it lives here.
 */
#include "internal.h"

static uint32_t crc_table[8][256];
static int crc_ready;

/* Slicing-by-8 tables; built once (idempotent, so a race is harmless). */
static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & -(c & 1));
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xff];
	__atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t itrace_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
		crc_init();
	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = crc ^ get_le32(p);
		uint32_t hi = get_le32(p + 4);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
