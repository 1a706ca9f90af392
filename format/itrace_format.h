/*
 * itrace_format.h - on-disk definitions of the itrace trace format.
 *
 * This header is the only place where the numbers of the format live:
 * magic values, version numbers, record types, flags and fixed sizes.
 * format/ITRACE.md is the prose specification; both change together.
 *
 * Everything on disk is little-endian.  Variable-length integers are
 * unsigned LEB128 ("varint", at most 10 bytes); signed values use zigzag
 * coding on top of it ("svarint").
 */
#ifndef ITRACE_FORMAT_H
#define ITRACE_FORMAT_H

#include <stdint.h>

/* ---- Versions and features ---------------------------------------- */

/*
 * The format's version, major.minor (ITRACE.md 4.2).  A reader refuses a
 * major it does not implement; a newer minor only adds what an older
 * reader may skip or ignore (record types that touch no coding state,
 * appended payload fields, flag bits, enum values, metadata keys,
 * compatible feature bits).  What a file needs of its reader beyond the
 * major is said by its incompatible feature bits, not by a version.
 */
#define ITRACE_FORMAT_MAJOR 1
#define ITRACE_FORMAT_MINOR 1

/*
 * Incompatible features (header offset 36): a reader MUST refuse a file
 * with a bit it does not know.  Each says a kind of record may appear; a
 * record of such a type in a file without its bit is corrupt.
 */
enum itrace_incompat_features {
	ITRACE_FEAT_BLOCK = 1u << 0,	  /* BLOCK records (type 15, 6.5.15) */
	ITRACE_FEAT_BRANCH_SEQ = 1u << 1, /* BRANCH_SEQ records (type 16, 6.5.16) */
	ITRACE_FEAT_INCOMPAT_KNOWN = 0x3,
};

/* Compatible features (header offset 40): none defined in 1.0; a reader
 * may ignore a bit it does not know (and reports it). */
#define ITRACE_FEAT_COMPAT_KNOWN 0u

/*
 * The MEM table (6.5.4) has 1 << mem_table_log2 entries, a header
 * parameter: 7 (128 entries) by default, 10 (1024) for writers of many
 * memory-accessing instructions; readers accept 6..12.
 */
#define ITRACE_MEM_TABLE_LOG2_MIN 6
#define ITRACE_MEM_TABLE_LOG2_MAX 12
#define ITRACE_MEM_TABLE_LOG2_DEFAULT 7
#define ITRACE_MEM_TABLE_LOG2_WIDE 10

/* ---- File header ------------------------------------------------------- */

/* "\x89ITR\r\n\x1a\n": catches text-mode transfers and truncation to 7 bits. */
#define ITRACE_FILE_MAGIC "\x89ITR\r\n\x1a\n"
#define ITRACE_FILE_MAGIC_LEN 8

/*
 * Fixed part of the file header, 64 bytes, followed by the metadata block
 * (meta_size bytes of "key=value\0" entries) at offset fixed_size.
 * header_size covers both and tells where the first chunk starts.
 *
 *  off size field
 *    0    8 magic
 *    8    2 major             ITRACE_FORMAT_MAJOR; a reader refuses others
 *   10    2 minor             ITRACE_FORMAT_MINOR; newer ones are read
 *   12    1 mem_table_log2    log2 of the MEM table's entries (6..12)
 *   13    1 reserved          zero, ignored by readers
 *   14    2 fixed_size        size of this fixed part (64; readers accept
 *                             more and skip it; 48 in pre-1.0 drafts)
 *   16    4 header_size       fixed part + metadata, = offset of first chunk
 *   20    2 machine           ELF e_machine of the traced code (EM_*)
 *   22    1 target_endian     1 = little, 2 = big (ELF EI_DATA values)
 *   23    1 level             ITRACE_LEVEL_*_DISK
 *   24    4 flags             enum itrace_file_flags (descriptive)
 *   28    4 meta_size         bytes of metadata
 *   32    4 meta_count        number of key=value entries
 *   36    4 incompat_features enum itrace_incompat_features
 *   40    4 compat_features   none in 1.0
 *   44    4 crc32c            CRC-32C of bytes [0, header_size) with this
 *                             field taken as zero
 *   48   16 reserved          written zero, ignored by readers
 */
#define ITRACE_FILE_FIXED_SIZE 64
#define ITRACE_FILE_HEADER_MAX (1u << 20) /* metadata is at most 1 MiB */

/*
 * Files of the drafts before 1.0 (written by itrace 0.x until format 1.0)
 * have a fixed part of 48 bytes (offset 14) and a "read version" 1..5 at
 * offset 8.  Readers refuse them, naming the read version (ITRACE.md 4.4).
 */
#define ITRACE_FILE_FIXED_SIZE_DRAFT 48
#define ITRACE_DRAFT_READ_VERSION_MAX 5

#define ITRACE_LEVEL_BRANCH_DISK 1
#define ITRACE_LEVEL_INSN_DISK 2

enum itrace_file_flags {
	ITRACE_FF_MEM = 1u << 0,	/* MEM records present (insn level) */
	ITRACE_FF_INSN_BYTES = 1u << 1, /* INSN records carry their bytes */
	ITRACE_FF_TAKEN_ONLY = 1u << 2, /* not-taken branches absent (BTS) */
	ITRACE_FF_FILLED = 1u << 3,	/* produced by gap filling */
	ITRACE_FF_KNOWN_MASK = 0xf,
};

/* ---- Chunks ------------------------------------------------------------ */

/*
 * Chunk header, 72 bytes, followed by payload_size bytes of payload.  The
 * payload decompresses to raw_size bytes of records.  Every chunk starts
 * with fresh coding state (delta bases zero, tables empty) plus the
 * absolute state below, so it decodes on its own.
 *
 *  off size field
 *    0    4 magic "ICHK"
 *    4    4 header_size     72
 *    8    8 seq             0, 1, 2, ... in file order
 *   16    4 record_count    records in the chunk (runs count once each)
 *   20    4 payload_size    stored bytes
 *   24    4 raw_size        decompressed bytes (= payload_size if none)
 *   28    1 compression     enum itrace_compression_disk
 *   29    3 reserved        must be zero
 *   32    4 payload_crc32c  CRC-32C of the stored payload bytes
 *   36    4 tid             thread current at chunk start (0 = none yet)
 *   40    4 pid             process current at chunk start
 *   44    4 reserved2       must be zero
 *   48    8 time_ns         last TIMESTAMP value before the chunk
 *   56    8 first_insn      instructions in all earlier chunks
 *   64    4 first_branch_lo branches in all earlier chunks, low 32 bits
 *   68    4 header_crc32c   CRC-32C of bytes [0, 68)
 */
#define ITRACE_CHUNK_MAGIC "ICHK"
#define ITRACE_CHUNK_HEADER_SIZE 72
#define ITRACE_CHUNK_RAW_MAX (16u << 20)   /* decoded payload limit */
#define ITRACE_CHUNK_RECORDS_MAX (16u << 20)

#define ITRACE_COMP_NONE_DISK 0
#define ITRACE_COMP_ZSTD_DISK 1

/* ---- Footer ------------------------------------------------------------ */

/*
 * Footer, after the last chunk:
 *
 *  off size field
 *    0    4 magic "IFTR"
 *    4    4 footer_size     whole footer including the trailer
 *    8    1 end_reason      enum itrace_end_disk
 *    9    3 reserved
 *   12    4 end_status      exit status / signal / errno, per end_reason
 *   16    8 chunk_count
 *   24    8 record_count    records as delivered (runs expanded)
 *   32    8 insn_count
 *   40    8 branch_count
 *   48    8 mem_count
 *   56    8 lost_count      sum of LOST counts
 *   64    8 gap_count       number of GAP records
 *   72   16*chunk_count     index: per chunk, u64 offset, u64 first_insn
 *    …    4 crc32c          CRC-32C of footer bytes before it
 *    …   16 trailer: u64 footer_offset, "ITREND\0\0"
 */
#define ITRACE_FOOTER_MAGIC "IFTR"
#define ITRACE_FOOTER_FIXED_SIZE 72
#define ITRACE_TRAILER_MAGIC "ITREND\0\0"
#define ITRACE_TRAILER_SIZE 16

#define ITRACE_END_UNKNOWN_DISK 0     /* no footer: writer killed */
#define ITRACE_END_COMPLETE_DISK 1    /* program exited; status = code */
#define ITRACE_END_INTERRUPTED_DISK 2 /* collector stopped by a signal */
#define ITRACE_END_CRASHED_DISK 3     /* program killed; status = signo */
#define ITRACE_END_ERROR_DISK 4	      /* collector failed; status = errno */
#define ITRACE_END_DETACHED_DISK 5    /* collector detached, program runs */
#define ITRACE_END_NOT_TRIGGERED_DISK 6 /* window/scope never entered */

/* ---- Records ----------------------------------------------------------- */

/*
 * Framing.  Each record starts with a header byte H.
 *  - H & 0x80: a "repeat" record.  Bits 6..0 select a slot of the
 *    chunk's repeat table, which holds the last BRANCH, INSN_RUN, BLOCK or
 *    BRANCH_SEQ stored there; the record repeats it (a BLOCK's repeat byte
 *    is followed by the block's address deltas).
 *  - otherwise H is the record type (1..127), followed by a varint payload
 *    size and that many payload bytes.  Readers skip unknown types.
 */
#define ITRACE_REPEAT_BIT 0x80
#define ITRACE_REPEAT_SLOTS 128
/* MEM delta bases per chunk at most: 1 << ITRACE_MEM_TABLE_LOG2_MAX. */
#define ITRACE_MEM_SLOTS_MAX (1u << ITRACE_MEM_TABLE_LOG2_MAX)

enum itrace_record_type_disk {
	ITRACE_T_BRANCH = 1,	 /* svarint from-cursor, svarint to-from, u8 kind|flags<<4 */
	ITRACE_T_INSN_RUN = 2,	 /* svarint start-cursor, varint n, lengths */
	ITRACE_T_INSN = 3,	 /* svarint addr-cursor, u8 len, bytes[len] */
	ITRACE_T_MEM = 4,	 /* u8 flags, varint size, svarint addr-prevmem */
	ITRACE_T_MMAP = 5,	 /* see ITRACE.md */
	ITRACE_T_CODE = 6,	 /* varint addr, varint len, bytes */
	ITRACE_T_THREAD = 7,	 /* u8 event, varint tid, pid, other, varint len + name */
	ITRACE_T_PROCESS = 8,	 /* u8 event, varint pid, varint other, svarint status, str */
	ITRACE_T_SYSCALL = 9,	 /* u8 dir, varint nr, svarint ret, u8 nargs, varint args */
	ITRACE_T_SIGNAL = 10,	 /* varint signo, svarint code, varint addr, pc, handler */
	ITRACE_T_TIMESTAMP = 11, /* svarint ns - cur_time (chunk header's time_ns first) */
	ITRACE_T_TRACE_CTL = 12, /* u8 on, u8 reason, varint addr */
	ITRACE_T_LOST = 13,	 /* u8 reason, u8 unit, varint count */
	ITRACE_T_GAP = 14,	 /* u8 reason, varint addr, varint resume, varint count */
	ITRACE_T_BLOCK = 15,	 /* (ITRACE_FEAT_BLOCK) svarint start-cursor, varint n<<1|uniform,
				  * lengths, varint m, m x (varint index step, varint size<<1|store),
				  * m x svarint address delta; its repeat byte is followed by the
				  * m address deltas */
	ITRACE_T_BRANCH_SEQ = 16, /* (ITRACE_FEAT_BRANCH_SEQ) k branches: svarint from[0]-cursor,
				   * varint k, svarint to[0]-from[0], u8 kind|flags<<4, then
				   * k-1 x (svarint from[i]-to[i-1], svarint to[i]-from[i],
				   * u8 kind|flags<<4) */
	ITRACE_T_MAX_1_0 = 16,	 /* the last type of format 1.0; later minors'
				  * types are sized and skipped (6.2) */
};

/* Branch kind byte. */
enum itrace_branch_kind_disk {
	ITRACE_BK_COND = 0,
	ITRACE_BK_UNCOND = 1,
	ITRACE_BK_CALL = 2,
	ITRACE_BK_RETURN = 3,
	ITRACE_BK_INDIRECT = 4,	    /* indirect jump */
	ITRACE_BK_INDIRECT_CALL = 5,
	ITRACE_BK_SYSCALL = 6,
	ITRACE_BK_INTERRUPT = 7,    /* signal delivery, exception */
	ITRACE_BK_SIGRETURN = 8,
	ITRACE_BK_UNKNOWN = 9,	    /* source cannot classify (BTS) */
	ITRACE_BK_MAX = 9,
};

/* Branch flags byte. */
enum itrace_branch_flags_disk {
	ITRACE_BF_TAKEN = 1u << 0,
	ITRACE_BF_PRED_KNOWN = 1u << 1,
	ITRACE_BF_PRED_CORRECT = 1u << 2,
	ITRACE_BF_KNOWN_MASK = 0x7,
};

/* MEM flags byte. */
enum itrace_mem_flags_disk {
	ITRACE_MF_STORE = 1u << 0, /* else load */
	ITRACE_MF_KNOWN_MASK = 0x1,
};

#define ITRACE_INSN_MAX_LEN 15	    /* longest instruction (x86) */
#define ITRACE_RUN_MAX 255	    /* instructions in one INSN_RUN or BLOCK */
#define ITRACE_BLOCK_ACCESS_MAX 255 /* memory accesses in one BLOCK */
#define ITRACE_SEQ_MAX 255	    /* branches in one BRANCH_SEQ */
#define ITRACE_SYSCALL_MAX_ARGS 6
#define ITRACE_PATH_MAX 4096
#define ITRACE_BUILDID_MAX 64
#define ITRACE_CODE_MAX (1u << 20)

#endif /* ITRACE_FORMAT_H */
