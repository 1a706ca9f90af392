/*
 * qtrace_disk.h - on-disk numbers of the qtrace format (internal).
 *
 * Values follow qtrace-tools' qtlib/qtrace.h; the field order is that of
 * qtreader_parse_header() and qtreader_next_record() in qtlib/qtreader.c.
 * Every multi-byte field is big-endian and fields are packed.
 */
#ifndef QTRACE_DISK_H
#define QTRACE_DISK_H

#include <stdint.h>

/* File header flags (hdr_flags). */
#define QT_HDR_MAGIC 0x8000u
#define QT_HDR_VERSION 0x4000u
#define QT_HDR_IAR 0x2000u
#define QT_HDR_IAR_VSID 0x1000u
#define QT_HDR_IAR_RPN 0x0800u
#define QT_HDR_IAR_PAGE_SIZE 0x0040u
#define QT_HDR_IAR_GPAGE_SIZE 0x0010u
#define QT_HDR_COMMENT 0x0002u
#define QT_HDR_KNOWN 0xf852u

/* Primary record flags (flags). */
#define QT_IAR_CHANGE 0x8000u
#define QT_NODE 0x4000u
#define QT_TERMINATION 0x2000u
#define QT_PROCESSOR 0x1000u
#define QT_DATA_ADDRESS 0x0800u
#define QT_DATA_VSID 0x0400u
#define QT_DATA_RPN 0x0200u
#define QT_LENGTH 0x0100u
#define QT_DATA 0x0080u
#define QT_IAR 0x0040u
#define QT_IAR_VSID 0x0020u
#define QT_IAR_RPN 0x0010u
#define QT_REGISTER_TRACE 0x0008u
#define QT_EXTENDED_FLAGS 0x0001u
#define QT_FLAGS_UNHANDLED 0x0006u

/* First extended flags (flags2). */
#define QT2_SEQ_INSN_RPN 0x4000u
#define QT2_TRACE_ERROR_CODE 0x1000u
#define QT2_IAR_PAGE_SIZE 0x0200u
#define QT2_DATA_PAGE_SIZE 0x0100u
#define QT2_SEQ_INSN_PAGE_SIZE 0x0020u
#define QT2_INSN_GPAGE_SIZE 0x0008u
#define QT2_DATA_GPAGE_SIZE 0x0004u
#define QT2_FILE_HEADER 0x0002u
#define QT2_EXTENDED_FLAGS2 0x0001u /* also "radix translation" */
#define QT2_KNOWN 0x532fu

/* Second extended flags (flags3): translation modes and header extras. */
#define QT3_HOST_XLATE_DATA_SHIFT 14
#define QT3_GUEST_XLATE_DATA_SHIFT 12
#define QT3_HOST_XLATE_INSN_SHIFT 10
#define QT3_GUEST_XLATE_INSN_SHIFT 8
#define QT3_XLATE_MASK 0x3u
#define QT3_XLATE_RADIX 0u
#define QT3_PTCR 0x0080u
#define QT3_LPID 0x0040u
#define QT3_PID 0x0020u

/* Limits of qtrace-tools' register arrays (a larger count overflows them). */
#define QT_MAX_GPRS 32
#define QT_MAX_FPRS 3
#define QT_MAX_SPRS 4
#define QT_NR_RADIX_PTES 4

/* Size of a VSID field (skipped by every reader). */
#define QT_VSID_BYTES 7

/* The version from which register blocks carry VSX counts. */
#define QT_VERSION_VSX 0x07000000u

#endif
