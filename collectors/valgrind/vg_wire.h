/*
 * vg_wire.h - the raw event stream between the itrace Valgrind tool and
 * itrace-collect.  Private to collectors/valgrind/; it never reaches disk.
 *
 * The tool appends 64-bit words (host byte order) to a buffer in its own
 * memory from generated code and hands whole buffers to the collector
 * through a pipe.  Instruction and memory words are built so that the
 * generated code stores a constant (or a constant OR-ed into an address):
 *
 *   bits 63..60 tag, bits 59..48 aux, bits 47..0 address
 *
 * User-space addresses on x86-64 fit in 47 bits; anything the tool cannot
 * express that way uses the *_FULL forms, which carry the address in the
 * next word.  A zero word is padding (a guarded access that did not
 * happen) and is skipped.
 *
 * At branch level most of the stream is BSITE units of 32 bits (below),
 * two to a word: a word whose tag is VGW_BSITE holds two, its low half
 * first; a word whose tag is 0 and whose high half is zero holds one, in
 * its low half.  A zero unit is padding.  Every other record starts on a
 * word, as above.
 */
#ifndef ITRACE_VG_WIRE_H
#define ITRACE_VG_WIRE_H

#define VGW_TAG_SHIFT 60
#define VGW_AUX_SHIFT 48
#define VGW_ADDR_MASK 0x0000ffffffffffffULL
#define VGW_AUX_MASK 0xfffULL

#define VGW_TAG(w) ((unsigned)((w) >> VGW_TAG_SHIFT))
#define VGW_AUX(w) ((unsigned)(((w) >> VGW_AUX_SHIFT) & VGW_AUX_MASK))
/* The address field, sign-extended from bit 47 (canonical form). */
#define VGW_ADDR(w) ((unsigned long long)((long long)((w) << 16) >> 16))

enum vgw_tag {
	VGW_INSN = 1,	    /* aux = length | VGW_INSN_REP; address = instruction */
	VGW_LOAD = 2,	    /* aux = size; address = effective address */
	VGW_STORE = 3,	    /* aux = size */
	VGW_BRANCH = 4,	    /* aux = len | kind << 4; address = from; next word = to */
	VGW_INSN_FULL = 5,  /* aux = length; next word = address */
	VGW_BRANCH_FULL = 6, /* aux as BRANCH; next words = from, to */
	VGW_SCOPE_OUT = 7,  /* an excluded superblock ran; address = its start */
	VGW_GROUP = 8,	    /* address field = id of a GROUP event: its instructions ran; at
			     * insn level followed by one LOAD or STORE word per access of
			     * the group (0: a guarded access that did not happen) */
	VGW_BSITE = 9,	    /* branch level: a word of two BSITE units (below) */
	VGW_EVENT = 15,	    /* aux = enum vgw_event; bits 31..0 = payload words */
};

/* INSN aux bit: a rep-prefixed string instruction.  It has one INSN word
 * per entry (ITRACE.md 6.5.2): per iteration, and one for the entry that
 * finds the count zero (the whole of an execution with a zero count). */
#define VGW_INSN_REP 0x10

/*
 * A BSITE unit (branch level), 32 bits: tag VGW_BSITE in bits 31..28, the
 * id of a BSITE event in bits 27..1, and in bit 0 the way the branch went
 * (1: its target 1, 0: its target 0).  Half a word: at branch level the
 * tool writes 93% of its words for conditional branches, and the
 * collector's core has to fetch every byte the tool's core wrote
 * (bench/README.md, issue 22).  A branch whose event id does not fit
 * (more than VGW_BSITE_ID_MAX sites in one image) gets BRANCH words.
 */
#define VGW_UNIT_TAG_SHIFT 28
#define VGW_BSITE_ID_MAX ((1u << 27) - 1)
#define VGW_BSITE_UNIT(id, way) \
	((unsigned)VGW_BSITE << VGW_UNIT_TAG_SHIFT | (unsigned)(id) << 1 | (unsigned)(way))

/* Events carry their payload in the following words. */
enum vgw_event {
	VGW_EV_HELLO = 1,	  /* version, pid, level, flags */
	VGW_EV_THREAD = 2,	  /* kind (enum itrace_thread_event), tid, pid, other */
	VGW_EV_SYSCALL_ENTER = 3, /* nr, nargs, args[nargs] */
	VGW_EV_SYSCALL_EXIT = 4,  /* nr, ret */
	VGW_EV_SIGNAL = 5,	  /* signo, code, addr (as Valgrind delivers them), pc,
				   * handler, recording (1: the thread is tracing, 0:
				   * outside a --start window) */
	VGW_EV_MMAP = 6,	  /* start, len, pgoff, prot, pathlen, path bytes padded */
	VGW_EV_CODE = 7,	  /* addr, len, bytes padded */
	VGW_EV_TRACE_CTL = 8,	  /* on, reason, addr */
	VGW_EV_EXIT = 9,	  /* exit status */
	VGW_EV_EXEC = 10,	  /* follow (enum vgw_exec), pathlen, path: execve called; if
				   * it works, a new HELLO (followed) or the end of the
				   * stream (not followed) comes next */
	VGW_EV_EXEC_FAILED = 12,  /* (none): that execve failed, tracing goes on */
	VGW_EV_ERROR = 11,	  /* message bytes padded: the tool gives up */
	VGW_EV_ENTRY = 13,	  /* (none): the program reached its entry point; the tool
				   * waits until every slot is converted before it goes on */
	VGW_EV_FATAL = 14,	  /* tid, pc, int3: the thread that ran when a fatal signal
				   * killed the process, where, and whether pc is just past
				   * an int3 instruction (a SIGTRAP there is its own) */
	VGW_EV_BSITE = 16,	  /* id, from, aux (as a BRANCH word's), target 0, target 1: a
				   * branch whose targets are known when the tool translates
				   * it (direct jumps and calls, both ways of a conditional
				   * branch), made then; ids count from 0 in each image.  A
				   * BSITE unit then stands for a BRANCH word pair. */
	VGW_EV_GROUP = 15,	  /* id, start, n, m, then bytes padded: n lengths, m access
				   * descriptors of VGW_ACC_BYTES (struct below): instructions
				   * that follow each other in memory with their memory
				   * accesses, made when the tool translates their code; ids
				   * count from 0 in each image (HELLO).  A GROUP word then
				   * stands for the n INSN words and, in the m words after
				   * it, the accesses' LOAD/STORE words.  Fewer than m such
				   * words after it (another word, or the end of the slot):
				   * the execution stopped before the instruction of the first
				   * one missing (a fault). */
};

/* VGW_EV_EXEC's first word: will the exec'd program be traced? */
enum vgw_exec {
	VGW_EXEC_FOLLOW = 0,	  /* yes: Valgrind runs it under the tool */
	VGW_EXEC_SETUID = 1,	  /* no: set-user/group-ID, it runs natively with its privileges */
	VGW_EXEC_FOREIGN = 2,	  /* no: not an x86-64 program Valgrind's amd64 tool can run */
	VGW_EXEC_UNKNOWN = 3,	  /* no: execveat relative to a directory descriptor */
};

/*
 * The buffer shared between the tool and the collector: VGW_SLOTS slots of
 * VGW_SLOT_WORDS words.  A slot always holds whole records.  The pipe
 * carries one 64-bit note per filled slot: slot << 32 | bytes used.
 */
#define VGW_SLOTS 8
#define VGW_SLOT_WORDS (128 * 1024)

/* THREAD exit "other" when the tool does not know the status (a fatal signal). */
#define VGW_STATUS_UNKNOWN 0xffffffffffffffffULL

#define VGW_VERSION 5
#define VGW_LEVEL_BRANCH 1
#define VGW_LEVEL_INSN 2

/* Most instructions and accesses in one GROUP event. */
#define VGW_GROUP_MAX 64
#define VGW_GROUP_ACC_MAX 64

/* An access descriptor of a GROUP event, VGW_ACC_BYTES bytes: the index of
 * its instruction in the group, 1 for a store (0: load), and its size as
 * a 16-bit little-endian number (sizes above VGW_AUX_MASK are clipped to
 * it, as in LOAD/STORE words). */
#define VGW_ACC_BYTES 4
#define VGW_ACC_INSN(d) ((d)[0])
#define VGW_ACC_STORE(d) ((d)[1])
#define VGW_ACC_SIZE(d) ((unsigned)(d)[2] | (unsigned)(d)[3] << 8)

/* Is word w a LOAD or STORE word (tags 2 and 3)? */
#define VGW_IS_ACCESS(w) (((w) >> 61) == 1)

/* Payload words needed for `n` bytes of string or code. */
#define VGW_BYTES_WORDS(n) (((n) + 7) / 8)

#endif
