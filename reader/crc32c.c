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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * The SSE4.2 crc32 instruction computes exactly this CRC (Castagnoli,
 * reflected; Intel SDM, CRC32), eight bytes a cycle or so: a collector
 * that writes uncompressed chunks spent a tenth of its time in the table
 * version.  Used when the CPU has it (checked at run time: the machine
 * may be any x86-64).
 */
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const uint8_t *p,
							     size_t len)
{
	uint64_t c = ~crc;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;

		memcpy(&v, p, 8); /* the instruction takes the bytes in memory order */
		c = __builtin_ia32_crc32di(c, v);
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

static int have_sse42(void)
{
	static int known = -1;
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (k < 0) {
		k = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k;
}
#else
static int have_sse42(void)
{
	return 0;
}
#define crc_sse42(crc, p, len) (crc)
#endif

uint32_t itrace_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (have_sse42())
		return crc_sse42(crc, p, len);
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
