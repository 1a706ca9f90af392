/*
 * perf_record.c - decode the perf sideband records both the perf.data
 * parser and the live data ring see (layouts from the UAPI
 * include/uapi/linux/perf_event.h).  Every read is checked against the
 * record's own size; a name must end with a NUL inside the record.
 */
#include <string.h>
#include <sys/mman.h>

#include "bts.h"

/* A NUL-terminated string starting at rec[off], inside rec[len]. */
static int record_string(const uint8_t *rec, size_t len, size_t off, const char **s, size_t *n)
{
	const uint8_t *nul;

	if (off >= len)
		return -1;
	nul = memchr(rec + off, 0, len - off);
	if (!nul)
		return -1;
	*s = (const char *)rec + off;
	*n = (size_t)(nul - (rec + off));
	return 0;
}

static int decode_mmap(const uint8_t *rec, size_t len, int v2, struct bts_event *ev)
{
	uint16_t misc = bts_le16(rec + 4);
	size_t name_off = v2 ? 72 : 40;

	if (len < name_off + 1)
		return -1;
	ev->type = BTS_EV_MMAP;
	ev->pid = bts_le32(rec + 8);
	ev->tid = bts_le32(rec + 12);
	ev->u.mmap.start = bts_le64(rec + 16);
	ev->u.mmap.len = bts_le64(rec + 24);
	ev->u.mmap.pgoff = bts_le64(rec + 32);
	ev->u.mmap.kernel = (misc & PR_MISC_CPUMODE_MASK) == PR_MISC_KERNEL;
	ev->u.mmap.buildid_len = 0;
	if (v2) {
		uint32_t prot = bts_le32(rec + 64);
		ev->u.mmap.prot = (uint8_t)(prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
		if (misc & PR_MISC_MMAP_BUILD_ID) {
			uint8_t n = rec[40];
			if (n > 20)
				return -1;
			ev->u.mmap.buildid_len = n;
			memcpy(ev->u.mmap.buildid, rec + 44, n);
		}
	} else {
		/* MMAP (v1) has no prot: MISC_MMAP_DATA marks non-code maps. */
		ev->u.mmap.prot = (misc & PR_MISC_MMAP_DATA) ? PROT_READ : PROT_READ | PROT_EXEC;
	}
	return record_string(rec, len, name_off, &ev->u.mmap.path, &ev->u.mmap.path_len);
}

static int decode_task(const uint8_t *rec, size_t len, int type, struct bts_event *ev)
{
	if (len < 24)
		return -1;
	ev->type = type;
	ev->pid = bts_le32(rec + 8);
	ev->u.task.ppid = bts_le32(rec + 12);
	ev->tid = bts_le32(rec + 16);
	ev->u.task.ptid = bts_le32(rec + 20);
	return 0;
}

int perf_record_sideband(const uint8_t *rec, size_t len, struct bts_event *ev)
{
	uint32_t type;

	if (len < PR_HEADER_SIZE)
		return -1;
	type = bts_le32(rec);
	memset(ev, 0, sizeof *ev);
	switch (type) {
	case PR_MMAP:
	case PR_MMAP2:
		return decode_mmap(rec, len, type == PR_MMAP2, ev) ? -1 : 1;
	case PR_COMM:
		if (len < 17)
			return -1;
		ev->type = BTS_EV_COMM;
		ev->pid = bts_le32(rec + 8);
		ev->tid = bts_le32(rec + 12);
		ev->u.comm.exec = !!(bts_le16(rec + 4) & PR_MISC_COMM_EXEC);
		return record_string(rec, len, 16, &ev->u.comm.name, &ev->u.comm.name_len) ? -1 : 1;
	case PR_FORK:
		return decode_task(rec, len, BTS_EV_FORK, ev) ? -1 : 1;
	case PR_EXIT:
		return decode_task(rec, len, BTS_EV_EXIT, ev) ? -1 : 1;
	default:
		return 0;
	}
}

int perf_record_aux(const uint8_t *rec, size_t len, struct perf_aux_info *aux)
{
	if (len < 32)
		return -1;
	aux->offset = bts_le64(rec + 8);
	aux->size = bts_le64(rec + 16);
	aux->flags = bts_le64(rec + 24);
	return 0;
}
