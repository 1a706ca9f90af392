/*
 * bts.h - internal interface of the BTS backend and of itrace-import.
 *
 * The code is split so that everything that can be checked without Intel
 * hardware is pure and byte-oriented:
 *
 *   bts_convert.c  raw BTS buffer (24-byte records) -> branch events,
 *                  snapshot overlap removal, user/kernel address filter
 *   perf_record.c  one PERF_RECORD_* sideband record -> event (shared by
 *                  the perf.data parser and the live data ring)
 *   perfdata.c     a whole perf.data file -> events
 *   bts_sink.c     events -> itrace records through libitrace's writer
 *   bts_live.c     the hardware part: probe, perf_event_open, AUX drain
 *
 * Events carry absolute values and borrowed pointers (valid during the
 * callback only).
 */
#ifndef ITRACE_BTS_H
#define ITRACE_BTS_H

#include <stddef.h>
#include <stdint.h>

#include "../emit.h" /* beside this folder: bts.h is included by path from tests/ */
#include "itrace.h"
#include "itrace_format.h"

/* ---- Raw BTS records -------------------------------------------------- */

/* One 64-bit BTS record: from, to, flags (bit 4 = predicted). */
#define BTS_RECORD_SIZE 24
#define BTS_FLAG_PREDICTED 0x10

/* Which privilege levels to keep (bit set). */
#define BTS_SPACE_USER 1u
#define BTS_SPACE_KERNEL 2u

/*
 * x86-64 kernel addresses are the upper canonical half.  BTS records
 * branches that cross the privilege boundary with one kernel address,
 * whatever the hardware filter, so filtering is done on both ends.
 */
static inline int bts_addr_is_kernel(uint64_t addr)
{
	return addr >= 0xffff800000000000ull;
}

/* bts_branch_wanted - keep a from->to pair under the `spaces` filter? */
int bts_branch_wanted(uint64_t from, uint64_t to, unsigned spaces);

static inline uint64_t bts_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline uint32_t bts_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint16_t bts_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* ---- Events ----------------------------------------------------------- */

enum bts_event_type {
	BTS_EV_BRANCH = 1, /* u.branch */
	BTS_EV_MMAP,	   /* u.mmap */
	BTS_EV_COMM,	   /* u.comm */
	BTS_EV_FORK,	   /* u.task */
	BTS_EV_EXIT,	   /* u.task */
	BTS_EV_LOST,	   /* u.lost */
	BTS_EV_KENTRY,	   /* u.branch: user -> kernel while the kernel is not traced */
};

struct bts_event {
	int type;
	uint32_t pid, tid;
	union {
		struct {
			uint64_t from, to;
		} branch;
		struct {
			uint64_t start, len, pgoff;
			uint8_t prot; /* PROT_* */
			uint8_t kernel; /* cpumode says kernel */
			uint8_t buildid_len;
			uint8_t buildid[ITRACE_BUILDID_MAX];
			const char *path;
			size_t path_len;
		} mmap;
		struct {
			const char *name;
			size_t name_len;
			int exec;
		} comm;
		struct {
			uint32_t ppid, ptid;
		} task;
		struct {
			uint8_t reason; /* enum itrace_lost_reason */
			uint8_t unit;	/* enum itrace_lost_unit */
			uint64_t count;
		} lost;
	} u;
};

/* Receives events; returns 0 to go on or a negative -ITRACE_E_* code. */
typedef int (*bts_event_fn)(void *ctx, const struct bts_event *ev);

/* ---- Raw buffer conversion (bts_convert.c) ---------------------------- */

struct bts_convert_stats {
	uint64_t records;   /* whole 24-byte records seen */
	uint64_t padding;   /* all-zero records skipped (chunk padding) */
	uint64_t sentinels; /* from or to zero: trace begin/end markers */
	uint64_t filtered;  /* dropped by the user/kernel filter */
	uint64_t kentries;  /* user -> kernel crossings (BTS_EV_KENTRY) */
	uint64_t branches;  /* delivered as BTS_EV_BRANCH */
	uint64_t trailing;  /* bytes after the last whole record */
};

/*
 * bts_convert - deliver every record of the raw BTS buffer buf[len] as a
 * BTS_EV_BRANCH event of pid/tid, skipping padding, sentinels and what
 * `spaces` excludes.  When only user space is traced, a record from a user
 * address into the kernel (system call, interrupt, fault: BTS records the
 * crossing even with kernel tracing off) becomes BTS_EV_KENTRY, so the
 * sink can place system calls.  Counts into *st (added to, not reset).  Returns 0
 * or the first negative value `fn` returned.
 */
int bts_convert(const uint8_t *buf, size_t len, uint32_t pid, uint32_t tid, unsigned spaces,
		bts_event_fn fn, void *ctx, struct bts_convert_stats *st);

/*
 * bts_snapshot_overlap - in snapshot mode consecutive buffers of a thread
 * overlap: the end of `prev` reappears at the start of `cur`.  Returns how
 * many leading bytes of `cur` repeat the end of `prev` (the longest such
 * overlap, in whole records, as perf does); 0 if none.
 */
size_t bts_snapshot_overlap(const uint8_t *prev, size_t prev_len, const uint8_t *cur,
			    size_t cur_len);

/* ---- One perf record (perf_record.c) ---------------------------------- */

/* The perf record types itrace understands (UAPI and perf tool values). */
#define PR_MMAP 1
#define PR_LOST 2
#define PR_COMM 3
#define PR_EXIT 4
#define PR_FORK 7
#define PR_SAMPLE 9
#define PR_MMAP2 10
#define PR_AUX 11
#define PR_ITRACE_START 12
#define PR_LOST_SAMPLES 13
#define PR_HEADER_ATTR 64
#define PR_FINISHED_ROUND 68
#define PR_AUXTRACE_INFO 70
#define PR_AUXTRACE 71
#define PR_COMPRESSED 81
#define PR_COMPRESSED2 83
#define PR_HEADER_SIZE 8

#define PR_MISC_CPUMODE_MASK 7
#define PR_MISC_KERNEL 1
#define PR_MISC_COMM_EXEC (1u << 13)
#define PR_MISC_MMAP_DATA (1u << 13)
#define PR_MISC_MMAP_BUILD_ID (1u << 14)

#define PR_AUX_FLAG_TRUNCATED 0x01
#define PR_AUX_FLAG_OVERWRITE 0x02
#define PR_AUX_FLAG_PARTIAL 0x04
#define PR_AUX_FLAG_COLLISION 0x08

/*
 * perf_record_sideband - decode the MMAP, MMAP2, COMM, FORK or EXIT
 * record rec[len] (len = header.size, already checked to fit) into *ev.
 * Returns 1 if it is one of those, 0 for another type, or -1 if it is
 * malformed (too short, no NUL in a name).  ev->u.mmap.path and
 * ev->u.comm.name point into rec.
 */
int perf_record_sideband(const uint8_t *rec, size_t len, struct bts_event *ev);

/* PERF_RECORD_AUX payload. */
struct perf_aux_info {
	uint64_t offset, size, flags;
};
/* perf_record_aux - decode a PERF_RECORD_AUX; 0 or -1 if too short. */
int perf_record_aux(const uint8_t *rec, size_t len, struct perf_aux_info *aux);

/* ---- perf.data files (perfdata.c) ------------------------------------- */

enum perfdata_mode {
	PERFDATA_MODE_NONE = 0,
	PERFDATA_MODE_BTS = 1,	    /* intel_bts AUX area, full trace */
	PERFDATA_MODE_SNAPSHOT = 2, /* intel_bts AUX area, snapshots */
	PERFDATA_MODE_LEGACY = 3,   /* branch samples (branches -c 1 -d) */
};

struct perfdata_stats {
	int mode;		      /* enum perfdata_mode */
	uint64_t records;	      /* perf records in the data section */
	uint64_t auxtrace_buffers;    /* AUXTRACE records */
	uint64_t overlap_bytes;	      /* removed snapshot overlap */
	uint64_t branch_samples;      /* legacy samples used */
	uint64_t other_samples;	      /* samples of other events, ignored */
	uint64_t truncated_aux;	      /* AUX records with TRUNCATED */
	uint64_t lost_records;	      /* PERF_RECORD_LOST counts */
	uint64_t unknown_records;     /* types skipped */
	uint64_t buildids;	      /* entries of the build-id feature */
	struct bts_convert_stats bts; /* raw buffer conversion */
};

/*
 * perfdata_parse - parse the perf.data file buf[len] and deliver its
 * sideband and branches, in file order, as events.  `spaces` filters
 * branches by address (BTS_SPACE_*).  On failure returns a negative
 * -ITRACE_E_* code and writes a one-line reason into err[errlen] (naming
 * the file offset for damage); every event before the fault has been
 * delivered.  -ITRACE_E_NOTSUP is valid perf.data that itrace cannot
 * import (other PMU, compressed, big-endian).  Pipe-mode streams are read too.
 */
int perfdata_parse(const uint8_t *buf, size_t len, unsigned spaces, bts_event_fn fn, void *ctx,
		   struct perfdata_stats *st, char *err, size_t errlen);

/* ---- itrace output (bts_sink.c) --------------------------------------- */

/*
 * The sink turns events into itrace records: BRANCH (kind unknown, taken)
 * with THREAD switch records when the thread changes, MMAP, THREAD and
 * PROCESS records for the sideband, LOST for lost data.
 */
struct bts_sink {
	struct emit_sink out; /* the writer, as the sink of emit.h */
	uint32_t cur_tid;
	int have_tid;
	int include_kernel_maps;
	/* perf's build-id cache (~/.debug): [vdso]/<build-id>/vdso gives the
	 * vDSO's bytes for a CODE record; NULL = do not look. */
	const char *buildid_dir;
	/* The start of a program exec'd during the recording (bts_entry.c). */
	struct {
		uint32_t pid;
		int state; /* 0 none, 1 want executable, 2 want interpreter, 3 known */
		uint64_t entry;
		char interp[256];
	} exec;
	uint64_t branches, mmaps, lost_events;
	uint64_t lost_count;
	uint64_t syscalls, kentries_dropped, vdso_code;
	/* Code mappings seen, to read the instruction at a kernel entry. */
	struct bts_map {
		uint32_t pid;
		uint64_t start, len, pgoff;
		char *path;
	} *maps;
	size_t nmaps, capmaps;
};

void bts_sink_init(struct bts_sink *s, struct itrace_writer *w, unsigned spaces);
/*
 * bts_sink_code - write a CODE record with `len` bytes at `addr` (the vDSO
 * of a live process).  Returns 0 or a negative -ITRACE_E_* code.
 */
int bts_sink_code(struct bts_sink *s, uint64_t addr, const uint8_t *bytes, size_t len);
/* bts_sink_fini - free what the sink holds (not the writer). */
void bts_sink_fini(struct bts_sink *s);
/* bts_sink_event - a bts_event_fn; ctx is the struct bts_sink. */
int bts_sink_event(void *ctx, const struct bts_event *ev);

/*
 * bts_elf_entry - the ELF entry point of `path` mapped at `start` from
 * file offset `pgoff` (load bias applied), and its PT_INTERP ("" if
 * none).  Returns 0, or -1 if the file cannot be read as ELF.
 */
int bts_elf_entry(const char *path, uint64_t start, uint64_t pgoff, uint64_t *entry, char *interp,
		  size_t interp_len);

/* Writer options every BTS trace uses: branch level, taken-only flag. */
void bts_writer_options(struct itrace_writer_options *o);

/* ---- The kernel's mapped buffers (bts_ring.c) ------------------------- */

#include <linux/perf_event.h>

/*
 * A perf event's mappings: page 0 (struct perf_event_mmap_page with
 * data_head/data_tail/aux_head/aux_tail), the data ring and the AUX
 * area.  Events opened by the backend use sample_type TID|IDENTIFIER
 * (AUX) or IDENTIFIER|IP|TID|ADDR (legacy) with sample_id_all, so every
 * sideband record ends with {pid, tid, identifier}.
 */
struct bts_ring {
	struct perf_event_mmap_page *pg;
	uint8_t *data; /* data ring, data_size bytes (a power of two) */
	size_t data_size;
	uint8_t *aux; /* AUX area (NULL on the legacy path) */
	size_t aux_size;
	int legacy;    /* branches come as samples (ip = from, addr = to) */
	int overwrite; /* --ring: the AUX area is read once, by bts_ring_snapshot */
	unsigned spaces;
	bts_event_fn fn;
	void *ctx;
	struct bts_convert_stats cst;
	uint64_t truncated; /* AUX records with TRUNCATED */
	uint8_t *scratch;   /* records that wrap around a ring's end */
	size_t scratch_size;
};

/*
 * bts_ring_drain - handle every complete record between data_tail and
 * data_head (sideband, AUX areas in full-trace mode, legacy samples,
 * LOST), then advance data_tail.  Returns 0 or the first error.
 */
int bts_ring_drain(struct bts_ring *r);
/*
 * bts_ring_snapshot - overwrite mode: deliver the newest `last` records
 * of the AUX area as branches of pid/tid.  The hardware fills 24-byte slots from the start of
 * the area and wraps; aux_head is then the offset of the next slot, so
 * oldest to newest runs from aux_head to the end and on from the start.
 */
int bts_ring_snapshot(struct bts_ring *r, uint32_t pid, uint32_t tid, uint64_t last);
/* bts_ring_fini - free the scratch buffer. */
void bts_ring_fini(struct bts_ring *r);

/* ---- Why BTS is missing (bts_probe.c) -------------------------------- */

#include <stdio.h>

/* What /proc/cpuinfo says about BTS support. */
struct bts_cpu_facts {
	char vendor[32]; /* vendor_id, e.g. "GenuineIntel" */
	int hypervisor, pti, dtes64;
};

/* bts_cpu_facts_parse - vendor and flags of the first CPU in cpuinfo text. */
void bts_cpu_facts_parse(FILE *f, struct bts_cpu_facts *c);
/* bts_cpu_facts - the same from /proc/cpuinfo. */
void bts_cpu_facts(struct bts_cpu_facts *c);
/* bts_explain_missing_pmu - why there is no intel_bts PMU, in words. */
void bts_explain_missing_pmu(const struct bts_cpu_facts *c, char *buf, size_t len);

#endif /* ITRACE_BTS_H */
