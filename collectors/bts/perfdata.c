/*
 * perfdata.c - read perf.data files holding branch traces.
 *
 * Supported: file-mode and pipe-mode (perf record -o -) little-endian
 * "PERFILE2" recordings of
 *   - perf record -e intel_bts//u --per-thread [-S]: AUXTRACE_INFO of
 *     type INTEL_BTS, AUXTRACE records followed by raw BTS bytes;
 *   - perf record -e branches:u -c 1 -d: legacy BTS branch samples
 *     (ip = from, addr = to);
 * with MMAP/MMAP2/COMM/FORK/EXIT sideband, build-ids from MMAP2 records or
 * from the HEADER_BUILD_ID feature section, and LOST/TRUNCATED markers.
 * Layouts: tools/perf/Documentation/perf.data-file-format.txt and
 * tools/perf/util/auxtrace.h.
 *
 * Every length and offset in the file is checked against the bytes that
 * exist before use; no allocation is sized from a field of the file
 * (tables grow with records actually present).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bts.h"

#define PD_HEADER_SIZE 104
#define PD_ATTR_MIN 64	     /* PERF_ATTR_SIZE_VER0 */
#define PD_ATTR_MAX 4096
#define PD_SECTION_SIZE 16
#define PD_FEAT_BUILD_ID 2
#define PD_FEAT_PMU_MAPPINGS 16
#define PD_AUXTRACE_INTEL_BTS 2
#define PD_AUXTRACE_HDR 48
#define PR_HEADER_TRACING_DATA 66
#define PR_HEADER_BUILD_ID 67

#define PD_SAMPLE_IP (1ull << 0)
#define PD_SAMPLE_TID (1ull << 1)
#define PD_SAMPLE_TIME (1ull << 2)
#define PD_SAMPLE_ADDR (1ull << 3)
#define PD_SAMPLE_ID (1ull << 6)
#define PD_SAMPLE_IDENTIFIER (1ull << 16)
#define PD_ATTR_FLAG_FREQ (1ull << 10)
#define PD_TYPE_HARDWARE 0
#define PD_HW_BRANCH_INSTRUCTIONS 4

struct pd_section {
	uint64_t off, size;
};

struct pd_attr {
	uint32_t type;
	uint64_t config, period, sample_type, flags;
	const uint8_t *ids; /* ids[nids] u64, inside the file */
	size_t nids;
	int legacy_branches; /* branches:u -c 1 */
};

struct pd_buildid {
	const char *path;
	size_t path_len;
	uint8_t len;
	uint8_t id[20];
};

struct pd_queue {
	uint32_t idx;
	const uint8_t *prev;
	size_t prev_len;
};

struct pd_tid {
	uint32_t tid, pid; /* tid 0 = empty slot (the idle task never runs user code) */
};

struct pd {
	const uint8_t *buf;
	size_t len;
	unsigned spaces;
	bts_event_fn fn;
	void *ctx;
	struct perfdata_stats *st;
	char *err;
	size_t errlen;

	struct pd_attr *attrs;
	size_t nattrs, capattrs;
	int pipe; /* pipe-mode stream: attributes and build-ids come as records */
	struct pd_buildid *bids;
	size_t nbids, capbids;
	struct pd_queue *queues;
	size_t nqueues, capqueues;
	struct pd_tid *tids;
	size_t ntids, captids; /* open addressing, power-of-two capacity */
	uint64_t lost_pending;	/* truncated AUX areas not reported yet */
	uint64_t lost_pending_end;

	int64_t bts_pmu_type; /* -1 = unknown */
	int have_auxtrace_info;
	int snapshot;
	int have_legacy;
};

static int pd_fail(struct pd *p, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int pd_fail(struct pd *p, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* [off, off+size) lies inside the file. */
static int pd_section_ok(const struct pd *p, struct pd_section s)
{
	return s.off <= p->len && s.size <= p->len - s.off;
}

static struct pd_section pd_section_at(const uint8_t *q)
{
	struct pd_section s = {bts_le64(q), bts_le64(q + 8)};
	return s;
}

/* ---- tid -> pid -------------------------------------------------------- */

static int pd_tid_grow(struct pd *p)
{
	size_t ncap = p->captids ? p->captids * 2 : 64;
	struct pd_tid *n = calloc(ncap, sizeof *n);

	if (!n)
		return -ITRACE_E_NOMEM;
	for (size_t i = 0; i < p->captids; i++) {
		if (!p->tids[i].tid)
			continue;
		size_t h = (p->tids[i].tid * 2654435761u) & (ncap - 1);
		while (n[h].tid)
			h = (h + 1) & (ncap - 1);
		n[h] = p->tids[i];
	}
	free(p->tids);
	p->tids = n;
	p->captids = ncap;
	return 0;
}

static int pd_tid_set(struct pd *p, uint32_t tid, uint32_t pid)
{
	size_t h;

	if (!tid || tid == (uint32_t)-1)
		return 0;
	if ((p->ntids + 1) * 2 > p->captids) {
		int rc = pd_tid_grow(p);
		if (rc)
			return rc;
	}
	h = (tid * 2654435761u) & (p->captids - 1);
	while (p->tids[h].tid && p->tids[h].tid != tid)
		h = (h + 1) & (p->captids - 1);
	if (!p->tids[h].tid)
		p->ntids++;
	p->tids[h].tid = tid;
	p->tids[h].pid = pid;
	return 0;
}

/* The process of `tid`, or tid itself when no sideband named it. */
static uint32_t pd_tid_pid(const struct pd *p, uint32_t tid)
{
	if (!p->captids || !tid)
		return tid;
	size_t h = (tid * 2654435761u) & (p->captids - 1);
	while (p->tids[h].tid) {
		if (p->tids[h].tid == tid)
			return p->tids[h].pid;
		h = (h + 1) & (p->captids - 1);
	}
	return tid;
}

/* ---- header, attributes, features ------------------------------------- */

static int pd_check_magic(struct pd *p)
{
	if (p->len < 16)
		return pd_fail(p, -ITRACE_E_TRUNCATED, "file is %zu bytes, too short for a perf.data header",
			       p->len);
	if (!memcmp(p->buf, "2ELIFREP", 8))
		return pd_fail(p, -ITRACE_E_NOTSUP,
			       "big-endian perf.data is not supported; convert it on a big-endian machine with 'perf inject'");
	if (!memcmp(p->buf, "PERFFILE", 8))
		return pd_fail(p, -ITRACE_E_NOTSUP,
			       "perf.data version 1 (magic PERFFILE) is not supported; record with a newer perf");
	if (memcmp(p->buf, "PERFILE2", 8))
		return pd_fail(p, -ITRACE_E_BADMAGIC, "not a perf.data file (no PERFILE2 magic)");
	if (bts_le64(p->buf + 8) == 16) {
		p->pipe = 1; /* perf record -o -: no sections, everything in-stream */
		return 0;
	}
	if (p->len < PD_HEADER_SIZE)
		return pd_fail(p, -ITRACE_E_TRUNCATED, "file is %zu bytes, too short for the %d-byte header",
			       p->len, PD_HEADER_SIZE);
	if (bts_le64(p->buf + 8) < PD_HEADER_SIZE || bts_le64(p->buf + 8) > p->len)
		return pd_fail(p, -ITRACE_E_CORRUPT, "header size %llu is invalid",
			       (unsigned long long)bts_le64(p->buf + 8));
	return 0;
}

/* The fields itrace needs from a perf_event_attr of `len` >= 64 bytes. */
static int pd_attr_fields(struct pd *p, const uint8_t *a, const uint8_t *ids, size_t nids,
			  struct pd_attr *at)
{
	at->type = bts_le32(a);
	at->config = bts_le64(a + 8);
	at->period = bts_le64(a + 16);
	at->sample_type = bts_le64(a + 24);
	at->flags = bts_le64(a + 40);
	at->ids = ids;
	at->nids = nids;
	at->legacy_branches = at->type == PD_TYPE_HARDWARE && at->config == PD_HW_BRANCH_INSTRUCTIONS;
	if (at->legacy_branches && ((at->flags & PD_ATTR_FLAG_FREQ) || at->period != 1))
		return pd_fail(p, -ITRACE_E_NOTSUP,
			       "the branches event samples every %llu%s branch, not all of them; record with 'perf record -e branches:u -c 1 -d'",
			       (unsigned long long)at->period,
			       (at->flags & PD_ATTR_FLAG_FREQ) ? "th (frequency mode)" : "th");
	if (at->legacy_branches && (at->sample_type & (PD_SAMPLE_IP | PD_SAMPLE_ADDR | PD_SAMPLE_TID)) !=
					   (PD_SAMPLE_IP | PD_SAMPLE_ADDR | PD_SAMPLE_TID))
		return pd_fail(p, -ITRACE_E_NOTSUP,
			       "the branches samples lack the target address or thread (sample_type %#llx); record with 'perf record -e branches:u -c 1 -d'",
			       (unsigned long long)at->sample_type);
	p->have_legacy |= at->legacy_branches;
	return 0;
}

/* File mode: an attrs entry is the attr, then its ids section {offset, size}. */
static int pd_read_attr(struct pd *p, const uint8_t *a, size_t attr_size, struct pd_attr *at)
{
	struct pd_section ids = pd_section_at(a + attr_size - PD_SECTION_SIZE);

	if (!pd_section_ok(p, ids) || ids.size % 8)
		return pd_fail(p, -ITRACE_E_CORRUPT, "event ids section {%llu, %llu} lies outside the file",
			       (unsigned long long)ids.off, (unsigned long long)ids.size);
	return pd_attr_fields(p, a, p->buf + ids.off, ids.size / 8, at);
}

/* Pipe mode: PERF_RECORD_HEADER_ATTR {header, attr[attr.size], u64 ids[]}. */
static int pd_header_attr(struct pd *p, const uint8_t *rec, size_t size, size_t pos)
{
	uint32_t asize;

	if (size < PR_HEADER_SIZE + PD_ATTR_MIN)
		return pd_fail(p, -ITRACE_E_CORRUPT, "HEADER_ATTR record at offset %zu is too short", pos);
	asize = bts_le32(rec + PR_HEADER_SIZE + 4);
	if (asize < PD_ATTR_MIN || asize > size - PR_HEADER_SIZE || (size - PR_HEADER_SIZE - asize) % 8)
		return pd_fail(p, -ITRACE_E_CORRUPT, "HEADER_ATTR record at offset %zu has attribute size %u",
			       pos, asize);
	if (p->nattrs == p->capattrs) {
		size_t ncap = p->capattrs ? p->capattrs * 2 : 4;
		struct pd_attr *n = realloc(p->attrs, ncap * sizeof *n);
		if (!n)
			return -ITRACE_E_NOMEM;
		p->attrs = n;
		p->capattrs = ncap;
	}
	const uint8_t *ids = rec + PR_HEADER_SIZE + asize;
	int rc = pd_attr_fields(p, rec + PR_HEADER_SIZE, ids, (size - PR_HEADER_SIZE - asize) / 8,
				&p->attrs[p->nattrs]);
	if (!rc)
		p->nattrs++;
	return rc;
}

static int pd_read_attrs(struct pd *p)
{
	uint64_t attr_size = bts_le64(p->buf + 16);
	struct pd_section s = pd_section_at(p->buf + 24);

	if (attr_size < PD_ATTR_MIN + PD_SECTION_SIZE || attr_size > PD_ATTR_MAX)
		return pd_fail(p, -ITRACE_E_CORRUPT, "attribute size %llu is invalid",
			       (unsigned long long)attr_size);
	if (!pd_section_ok(p, s) || s.size % attr_size)
		return pd_fail(p, -ITRACE_E_CORRUPT, "attributes section {%llu, %llu} is invalid",
			       (unsigned long long)s.off, (unsigned long long)s.size);
	if (!s.size)
		return pd_fail(p, -ITRACE_E_CORRUPT, "perf.data lists no events");
	p->nattrs = p->capattrs = s.size / attr_size; /* bounded by the file size */
	p->attrs = calloc(p->nattrs, sizeof *p->attrs);
	if (!p->attrs)
		return -ITRACE_E_NOMEM;
	for (size_t i = 0; i < p->nattrs; i++) {
		int rc = pd_read_attr(p, p->buf + s.off + i * attr_size, attr_size, &p->attrs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int pd_add_buildid(struct pd *p, const char *path, size_t path_len, const uint8_t *id,
			  uint8_t len)
{
	if (p->nbids == p->capbids) {
		size_t ncap = p->capbids ? p->capbids * 2 : 16;
		struct pd_buildid *n = realloc(p->bids, ncap * sizeof *n);
		if (!n)
			return -ITRACE_E_NOMEM;
		p->bids = n;
		p->capbids = ncap;
	}
	struct pd_buildid *b = &p->bids[p->nbids++];
	b->path = path;
	b->path_len = path_len;
	b->len = len;
	memcpy(b->id, id, len);
	return 0;
}

/*
 * HEADER_BUILD_ID: a sequence of build_id_event {header, pid, build_id[24],
 * filename[]}; with misc bit 15 the id's length is byte 20 of build_id.
 */
static int pd_buildid_entry(struct pd *p, const uint8_t *q, size_t size)
{
	uint16_t misc = bts_le16(q + 4);
	const uint8_t *nul;
	uint8_t len = 20;

	if (size < 37)
		return pd_fail(p, -ITRACE_E_CORRUPT, "build-id entry at offset %zu has invalid size %zu",
			       (size_t)(q - p->buf), size);
	nul = memchr(q + 36, 0, size - 36);
	if (!nul)
		return pd_fail(p, -ITRACE_E_CORRUPT, "build-id entry at offset %zu: file name without NUL",
			       (size_t)(q - p->buf));
	if (misc & (1u << 15)) {
		len = q[12 + 20];
		if (len > 20)
			return pd_fail(p, -ITRACE_E_CORRUPT, "build-id entry at offset %zu: length %u over 20",
				       (size_t)(q - p->buf), len);
	}
	p->st->buildids++;
	return pd_add_buildid(p, (const char *)q + 36, (size_t)(nul - (q + 36)), q + 12, len);
}

static int pd_read_buildids(struct pd *p, struct pd_section s)
{
	const uint8_t *q = p->buf + s.off, *end = q + s.size;

	while (end - q >= PR_HEADER_SIZE) {
		size_t size = bts_le16(q + 6);
		int rc;

		if (size > (size_t)(end - q))
			return pd_fail(p, -ITRACE_E_CORRUPT, "build-id entry at offset %zu has invalid size %zu",
				       (size_t)(q - p->buf), size);
		rc = pd_buildid_entry(p, q, size);
		if (rc)
			return rc;
		q += size;
	}
	return 0;
}

/* HEADER_PMU_MAPPINGS: u32 nr, then nr x {u32 type, u32 len, char name[len]}. */
static int pd_read_pmu_mappings(struct pd *p, struct pd_section s)
{
	const uint8_t *q = p->buf + s.off, *end = q + s.size;
	uint32_t nr;

	if (s.size < 4)
		return 0;
	nr = bts_le32(q);
	q += 4;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t type, len;
		if (end - q < 8)
			break;
		type = bts_le32(q);
		len = bts_le32(q + 4);
		q += 8;
		if (len > (size_t)(end - q))
			break;
		if (len >= 9 && !memcmp(q, "intel_bts", 9) && (len == 9 || !q[9]))
			p->bts_pmu_type = type;
		q += len;
	}
	return 0;
}

/* Feature sections: a table of {offset, size} after the data, one per bit set. */
static int pd_read_features(struct pd *p, struct pd_section data)
{
	const uint8_t *bits = p->buf + 72;
	uint64_t table = data.off + data.size;
	unsigned n = 0;

	for (unsigned bit = 0; bit < 256; bit++) {
		if (!(bits[bit / 8] & (1u << (bit % 8))))
			continue;
		struct pd_section e = {table + (uint64_t)n * PD_SECTION_SIZE, PD_SECTION_SIZE};
		n++;
		if (bit != PD_FEAT_BUILD_ID && bit != PD_FEAT_PMU_MAPPINGS)
			continue;
		if (!pd_section_ok(p, e))
			return pd_fail(p, -ITRACE_E_TRUNCATED,
				       "feature table entry %u at offset %llu lies outside the file", bit,
				       (unsigned long long)e.off);
		struct pd_section f = pd_section_at(p->buf + e.off);
		if (!pd_section_ok(p, f))
			return pd_fail(p, -ITRACE_E_CORRUPT, "feature %u section {%llu, %llu} lies outside the file",
				       bit, (unsigned long long)f.off, (unsigned long long)f.size);
		int rc = bit == PD_FEAT_BUILD_ID ? pd_read_buildids(p, f) : pd_read_pmu_mappings(p, f);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- data records ------------------------------------------------------ */

static int pd_emit(struct pd *p, const struct bts_event *ev)
{
	return p->fn(p->ctx, ev);
}

static int pd_emit_lost(struct pd *p, uint32_t pid, uint32_t tid, uint8_t unit, uint64_t count)
{
	struct bts_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_LOST;
	ev.pid = pid;
	ev.tid = tid;
	ev.u.lost.reason = ITRACE_LOST_OVERFLOW;
	ev.u.lost.unit = unit;
	ev.u.lost.count = count;
	return pd_emit(p, &ev);
}

static const struct pd_buildid *pd_find_buildid(const struct pd *p, const char *path, size_t n)
{
	for (size_t i = 0; i < p->nbids; i++)
		if (p->bids[i].path_len == n && !memcmp(p->bids[i].path, path, n))
			return &p->bids[i];
	return NULL;
}

static int pd_sideband(struct pd *p, const uint8_t *rec, size_t size, size_t pos)
{
	struct bts_event ev;
	int rc = perf_record_sideband(rec, size, &ev);

	if (rc < 0)
		return pd_fail(p, -ITRACE_E_CORRUPT, "record at offset %zu (type %u) is malformed", pos,
			       bts_le32(rec));
	if (ev.type == BTS_EV_MMAP && !ev.u.mmap.buildid_len) {
		const struct pd_buildid *b = pd_find_buildid(p, ev.u.mmap.path, ev.u.mmap.path_len);
		if (b) {
			ev.u.mmap.buildid_len = b->len;
			memcpy(ev.u.mmap.buildid, b->id, b->len);
		}
	}
	if (ev.type == BTS_EV_EXIT)
		rc = 0;
	else
		rc = pd_tid_set(p, ev.tid, ev.pid);
	return rc ? rc : pd_emit(p, &ev);
}

static int pd_auxtrace_info(struct pd *p, const uint8_t *rec, size_t size, size_t pos)
{
	static const char *const names[] = {"unknown", "Intel PT", "Intel BTS", "CoreSight ETM",
					    "Arm SPE", "s390 CPU-MF", "HiSilicon PTT"};
	uint32_t type;

	if (size < 16)
		return pd_fail(p, -ITRACE_E_CORRUPT, "AUXTRACE_INFO at offset %zu is too short", pos);
	type = bts_le32(rec + 8);
	if (type != PD_AUXTRACE_INTEL_BTS)
		return pd_fail(p, -ITRACE_E_NOTSUP,
			       "perf.data holds %s data (AUXTRACE type %u); itrace-import reads Intel BTS (intel_bts) and legacy branch samples only",
			       type < sizeof names / sizeof *names ? names[type] : "unknown", type);
	/* priv[]: PMU_TYPE 0, TIME_SHIFT..CAP_USER_TIME_ZERO 1-4, SNAPSHOT_MODE 5 */
	if (size < 16 + 5 * 8)
		return pd_fail(p, -ITRACE_E_CORRUPT, "Intel BTS AUXTRACE_INFO at offset %zu is too short", pos);
	p->bts_pmu_type = (int64_t)bts_le64(rec + 16);
	p->snapshot = size >= 16 + 6 * 8 && bts_le64(rec + 16 + 5 * 8);
	p->have_auxtrace_info = 1;
	p->st->mode = p->snapshot ? PERFDATA_MODE_SNAPSHOT : PERFDATA_MODE_BTS;
	return 0;
}

static struct pd_queue *pd_queue(struct pd *p, uint32_t idx)
{
	for (size_t i = 0; i < p->nqueues; i++)
		if (p->queues[i].idx == idx)
			return &p->queues[i];
	if (p->nqueues == p->capqueues) {
		size_t ncap = p->capqueues ? p->capqueues * 2 : 8;
		struct pd_queue *n = realloc(p->queues, ncap * sizeof *n);
		if (!n)
			return NULL;
		p->queues = n;
		p->capqueues = ncap;
	}
	struct pd_queue *q = &p->queues[p->nqueues++];
	q->idx = idx;
	q->prev = NULL;
	q->prev_len = 0;
	return q;
}

/* Truncated AUX areas are reported after the trace data that precedes the loss. */
static int pd_flush_lost(struct pd *p, uint32_t pid, uint32_t tid)
{
	int rc;

	if (!p->lost_pending)
		return 0;
	rc = pd_emit_lost(p, pid, tid, ITRACE_UNIT_RECORDS, p->lost_pending);
	p->lost_pending = 0;
	p->lost_pending_end = 0;
	return rc;
}

static int pd_auxtrace(struct pd *p, const uint8_t *rec, size_t hsize, size_t pos, size_t avail)
{
	uint64_t size, offset;
	uint32_t idx, tid, pid;
	const uint8_t *data = rec + hsize;
	struct pd_queue *q;
	int rc;

	if (hsize < PD_AUXTRACE_HDR)
		return pd_fail(p, -ITRACE_E_CORRUPT, "AUXTRACE record at offset %zu is too short", pos);
	if (!p->have_auxtrace_info)
		return pd_fail(p, -ITRACE_E_CORRUPT,
			       "AUXTRACE record at offset %zu comes before any AUXTRACE_INFO", pos);
	size = bts_le64(rec + 8);
	offset = bts_le64(rec + 16);
	idx = bts_le32(rec + 32);
	tid = bts_le32(rec + 36);
	if (size > avail - hsize)
		return pd_fail(p, -ITRACE_E_TRUNCATED,
			       "AUXTRACE record at offset %zu announces %llu bytes but only %zu remain", pos,
			       (unsigned long long)size, avail - hsize);
	p->st->auxtrace_buffers++;
	pid = pd_tid_pid(p, tid);
	q = pd_queue(p, idx);
	if (!q)
		return -ITRACE_E_NOMEM;
	size_t skip = 0;
	if (p->snapshot && q->prev)
		skip = bts_snapshot_overlap(q->prev, q->prev_len, data, (size_t)size);
	p->st->overlap_bytes += skip;
	q->prev = data;
	q->prev_len = (size_t)size;
	rc = bts_convert(data + skip, (size_t)size - skip, pid, tid, p->spaces, p->fn, p->ctx, &p->st->bts);
	if (rc)
		return rc;
	if (p->lost_pending && offset + size >= p->lost_pending_end)
		return pd_flush_lost(p, pid, tid);
	return 0;
}

/* The attribute a sample belongs to, or NULL. */
static const struct pd_attr *pd_sample_attr(const struct pd *p, const uint8_t *body, size_t n)
{
	uint64_t st, id;
	size_t off;

	if (!p->nattrs)
		return NULL; /* pipe mode: a sample before any HEADER_ATTR */
	st = p->attrs[0].sample_type;
	if (p->nattrs == 1)
		return &p->attrs[0];
	if (st & PD_SAMPLE_IDENTIFIER) {
		off = 0;
	} else if (st & PD_SAMPLE_ID) {
		/* ID follows IP, TID, TIME and ADDR; valid if all events agree. */
		for (size_t i = 1; i < p->nattrs; i++)
			if (p->attrs[i].sample_type != st)
				return NULL;
		off = 8 * (!!(st & PD_SAMPLE_IP) + !!(st & PD_SAMPLE_TID) + !!(st & PD_SAMPLE_TIME) +
			   !!(st & PD_SAMPLE_ADDR));
	} else {
		return NULL;
	}
	if (off + 8 > n)
		return NULL;
	id = bts_le64(body + off);
	for (size_t i = 0; i < p->nattrs; i++)
		for (size_t j = 0; j < p->attrs[i].nids; j++)
			if (bts_le64(p->attrs[i].ids + 8 * j) == id)
				return &p->attrs[i];
	return NULL;
}

/* Legacy BTS: PERF_RECORD_SAMPLE with ip = from, addr = to. */
static int pd_sample(struct pd *p, const uint8_t *rec, size_t size, size_t pos)
{
	const uint8_t *body = rec + PR_HEADER_SIZE;
	size_t n = size - PR_HEADER_SIZE, off = 0;
	const struct pd_attr *a = pd_sample_attr(p, body, n);
	struct bts_event ev;

	if (!a) {
		if (!p->have_legacy) {
			p->st->other_samples++;
			return 0;
		}
		return pd_fail(p, -ITRACE_E_NOTSUP,
			       "sample at offset %zu cannot be matched to its event (no sample id)", pos);
	}
	if (!a->legacy_branches) {
		p->st->other_samples++;
		return 0;
	}
	/* Fields in order: IDENTIFIER, IP, TID (pid, tid), TIME, ADDR. */
	size_t need = 8 * (!!(a->sample_type & PD_SAMPLE_IDENTIFIER) + 3 +
			   !!(a->sample_type & PD_SAMPLE_TIME));
	if (n < need)
		return pd_fail(p, -ITRACE_E_CORRUPT, "branch sample at offset %zu is too short", pos);
	memset(&ev, 0, sizeof ev);
	ev.type = BTS_EV_BRANCH;
	if (a->sample_type & PD_SAMPLE_IDENTIFIER)
		off += 8;
	ev.u.branch.from = bts_le64(body + off);
	off += 8;
	ev.pid = bts_le32(body + off);
	ev.tid = bts_le32(body + off + 4);
	off += 8;
	if (a->sample_type & PD_SAMPLE_TIME)
		off += 8;
	ev.u.branch.to = bts_le64(body + off);
	p->st->branch_samples++;
	if (p->st->mode == PERFDATA_MODE_NONE)
		p->st->mode = PERFDATA_MODE_LEGACY;
	if (!bts_branch_wanted(ev.u.branch.from, ev.u.branch.to, p->spaces)) {
		p->st->bts.filtered++;
		return 0;
	}
	p->st->bts.branches++;
	return pd_emit(p, &ev);
}

/*
 * Bytes a record occupies in the stream: header.size, plus the payload
 * that AUXTRACE and HEADER_TRACING_DATA records carry after themselves.
 * 0 if that payload does not fit in `avail`.
 */
static size_t pd_extent(const uint8_t *rec, size_t size, size_t avail)
{
	uint32_t type = bts_le32(rec);
	uint64_t extra = 0;

	if (type == PR_AUXTRACE && size >= PD_AUXTRACE_HDR)
		extra = bts_le64(rec + 8);
	else if (type == PR_HEADER_TRACING_DATA && size >= 12)
		extra = (bts_le32(rec + 8) + 7ull) & ~7ull;
	if (extra > avail - size)
		return 0;
	return size + (size_t)extra;
}

/* Pipe mode sends build-ids at the end: collect them before the MMAPs need them. */
static int pd_prescan_buildids(struct pd *p, size_t pos, size_t end)
{
	while (end - pos >= PR_HEADER_SIZE) {
		size_t size = bts_le16(p->buf + pos + 6), ext;
		int rc;

		if (size < PR_HEADER_SIZE || size > end - pos)
			return 0; /* the main pass reports it */
		ext = pd_extent(p->buf + pos, size, end - pos);
		if (!ext)
			return 0;
		if (bts_le32(p->buf + pos) == PR_HEADER_BUILD_ID && (rc = pd_buildid_entry(p, p->buf + pos, size)))
			return rc;
		pos += ext;
	}
	return 0;
}

static int pd_record(struct pd *p, const uint8_t *rec, size_t size, size_t pos, size_t avail,
		     size_t *consumed)
{
	uint32_t type = bts_le32(rec);
	struct perf_aux_info aux;

	*consumed = size;
	switch (type) {
	case PR_MMAP:
	case PR_MMAP2:
	case PR_COMM:
	case PR_FORK:
	case PR_EXIT:
		return pd_sideband(p, rec, size, pos);
	case PR_SAMPLE:
		return pd_sample(p, rec, size, pos);
	case PR_AUXTRACE_INFO:
		return pd_auxtrace_info(p, rec, size, pos);
	case PR_AUXTRACE:
		if (pd_extent(rec, size, avail))
			*consumed = pd_extent(rec, size, avail);
		return pd_auxtrace(p, rec, size, pos, avail);
	case PR_HEADER_ATTR:
		return pd_header_attr(p, rec, size, pos);
	case PR_HEADER_BUILD_ID:
		return 0; /* taken by pd_prescan_buildids */
	case PR_HEADER_TRACING_DATA:
		*consumed = pd_extent(rec, size, avail);
		if (!*consumed)
			return pd_fail(p, -ITRACE_E_TRUNCATED, "tracing data at offset %zu runs past the end", pos);
		return 0;
	case PR_AUX:
		if (perf_record_aux(rec, size, &aux))
			return pd_fail(p, -ITRACE_E_CORRUPT, "AUX record at offset %zu is too short", pos);
		if (aux.flags & PR_AUX_FLAG_TRUNCATED) {
			p->st->truncated_aux++;
			p->lost_pending++;
			p->lost_pending_end = aux.offset + aux.size;
		}
		return 0;
	case PR_LOST:
		if (size < 24)
			return pd_fail(p, -ITRACE_E_CORRUPT, "LOST record at offset %zu is too short", pos);
		p->st->lost_records += bts_le64(rec + 16);
		return pd_emit_lost(p, 0, 0, ITRACE_UNIT_RECORDS, bts_le64(rec + 16));
	case PR_LOST_SAMPLES:
		if (size < 16)
			return pd_fail(p, -ITRACE_E_CORRUPT, "LOST_SAMPLES record at offset %zu is too short", pos);
		p->st->lost_records += bts_le64(rec + 8);
		return pd_emit_lost(p, 0, 0, p->have_legacy ? ITRACE_UNIT_BRANCHES : ITRACE_UNIT_RECORDS,
				    bts_le64(rec + 8));
	case PR_COMPRESSED:
	case PR_COMPRESSED2:
		return pd_fail(p, -ITRACE_E_NOTSUP,
			       "perf.data is compressed (perf record -z); record again without -z");
	default:
		p->st->unknown_records++;
		return 0;
	}
}

static int pd_read_data(struct pd *p, struct pd_section data)
{
	size_t pos = (size_t)data.off, end = (size_t)(data.off + data.size);

	while (pos < end) {
		size_t size, consumed;
		int rc;

		if (end - pos < PR_HEADER_SIZE)
			return pd_fail(p, -ITRACE_E_TRUNCATED, "data ends inside a record header at offset %zu", pos);
		size = bts_le16(p->buf + pos + 6);
		if (size < PR_HEADER_SIZE)
			return pd_fail(p, -ITRACE_E_CORRUPT, "record at offset %zu has invalid size %zu", pos, size);
		if (size > end - pos)
			return pd_fail(p, -ITRACE_E_TRUNCATED, "record at offset %zu (%zu bytes) runs past the data end",
				       pos, size);
		p->st->records++;
		rc = pd_record(p, p->buf + pos, size, pos, end - pos, &consumed);
		if (rc)
			return rc;
		pos += consumed;
	}
	return pd_flush_lost(p, 0, 0);
}

int perfdata_parse(const uint8_t *buf, size_t len, unsigned spaces, bts_event_fn fn, void *ctx,
		   struct perfdata_stats *st, char *err, size_t errlen)
{
	struct pd p;
	struct pd_section data;
	int rc;

	memset(&p, 0, sizeof p);
	memset(st, 0, sizeof *st);
	p.buf = buf;
	p.len = len;
	p.spaces = spaces;
	p.fn = fn;
	p.ctx = ctx;
	p.st = st;
	p.err = err;
	p.errlen = errlen;
	p.bts_pmu_type = -1;
	if (errlen)
		err[0] = 0;

	rc = pd_check_magic(&p);
	if (rc)
		goto out;
	if (p.pipe) {
		data.off = 16;
		data.size = len - 16;
		rc = pd_prescan_buildids(&p, 16, len);
		if (!rc)
			rc = pd_read_data(&p, data);
		goto check;
	}
	data = pd_section_at(buf + 40);
	if (!pd_section_ok(&p, data)) {
		rc = pd_fail(&p, -ITRACE_E_TRUNCATED, "data section {%llu, %llu} runs past the file end (%zu bytes)",
			     (unsigned long long)data.off, (unsigned long long)data.size, len);
		goto out;
	}
	if (!data.size) {
		rc = pd_fail(&p, -ITRACE_E_TRUNCATED,
			     "perf.data has an empty data section: the recording was not finished (perf record killed?)");
		goto out;
	}
	rc = pd_read_attrs(&p);
	if (!rc)
		rc = pd_read_features(&p, data);
	if (!rc)
		rc = pd_read_data(&p, data);
check:
	if (!rc && !p.have_auxtrace_info && !p.have_legacy)
		rc = pd_fail(&p, -ITRACE_E_NOTSUP,
			     "perf.data holds no branch trace; record with 'perf record -e intel_bts//u --per-thread' or 'perf record -e branches:u -c 1 -d'");
out:
	free(p.attrs);
	free(p.bids);
	free(p.queues);
	free(p.tids);
	return rc;
}
