/*
 * decoder_int.h - the decoder's internals (code/decoder/): the decoder
 * object and the per-architecture back ends behind itrace_decoder_*.
 * Internal to libitrace-code.
 *
 *   decoder.c         the public entry points, which pick a back end's
 *                     operations table by ELF machine, and effective
 *                     addresses (itrace_insn_mem_accesses)
 *   decoder_x86.c     x86-64 through Zydis (dec_x86_ops)
 *   decoder_ppc.c     64-bit POWER through capstone, classes and memory
 *                     operands from the instruction forms (dec_ppc_ops)
 *   decoder_ppc_isa.c libitrace's own table: Power ISA 3.0/3.1
 *                     instructions capstone 4 lacks, prefixed instructions
 *   decoder_util.c    the register-list, memory-operand and mnemonic
 *                     helpers the back ends share
 *
 * Calls go one way, decoder -> {x86, ppc -> ppc_isa} -> util (make
 * layers checks it): a back end never calls the dispatcher.
 */
#ifndef ITRACE_DECODER_INT_H
#define ITRACE_DECODER_INT_H

#include <capstone/capstone.h>
#include <Zydis/Zydis.h>

#include "itrace_code.h"

struct itrace_decoder;

/*
 * One back end: the ELF machine and byte orders it decodes and its
 * operations, which decoder.c's entry points call once it has checked
 * their arguments (code non-NULL, out zeroed for info, buf non-empty for
 * text).  Each back end defines one such object.
 */
struct dec_ops {
	uint16_t machine;		/* EM_* */
	unsigned little_endian : 1;	/* decodes ELFDATA2LSB code */
	unsigned big_endian : 1;	/* decodes ELFDATA2MSB code */
	/* open - set up the back end's part of d; close undoes it, and is
	 * called after a failed open too */
	int (*open)(struct itrace_decoder *d, int big_endian);
	void (*close)(struct itrace_decoder *d);
	int (*decode)(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		      struct itrace_decoded *out);
	int (*info)(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		    struct itrace_insn_info *out);
	int (*text)(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		    char *buf, size_t cap);
	const char *(*reg_name)(unsigned reg);
};

extern const struct dec_ops dec_x86_ops; /* decoder_x86.c */
extern const struct dec_ops dec_ppc_ops; /* decoder_ppc.c */

struct itrace_decoder {
	const struct dec_ops *ops;
	/* x86-64 */
	ZydisDecoder zmin;  /* minimal mode: length, mnemonic, category */
	ZydisDecoder zfull; /* operands and every attribute */
	ZydisFormatter zfmt;
	const uint8_t *zreg;   /* ZydisRegister -> enum itrace_reg */
	const uint8_t *zclass; /* ZydisMnemonic -> class hint (decoder_x86.c) */
	/* POWER */
	csh cs;
	cs_insn *ci;	    /* one reusable capstone instruction (detail on) */
	int big_endian;
};

/* ---- shared helpers (decoder_util.c) ------------------------------------- */

/* info_add_read/info_add_write - add a register once; NONE is ignored; a
 * full list sets ITRACE_ATTR_REGS_CUT. */
void info_add_read(struct itrace_insn_info *in, unsigned reg);
void info_add_write(struct itrace_insn_info *in, unsigned reg);

/* info_add_mem - append a memory operand (NULL when the list is full). */
struct itrace_insn_mem *info_add_mem(struct itrace_insn_info *in);

/* dec_starts - s begins with prefix; dec_starts_any - with one of the
 * NULL-terminated prefixes (mnemonic classification). */
int dec_starts(const char *s, const char *prefix);
int dec_starts_any(const char *s, const char *const *prefixes);

/* ---- x86-64 (decoder_x86.c) --------------------------------------------- */

/* dec_x86_zydis - dec_x86_ops.decode without the fast path of common
 * legacy encodings: Zydis alone (the tests check that both agree). */
int dec_x86_zydis(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		  struct itrace_decoded *out);

/* ---- POWER's own table (decoder_ppc_isa.c) ------------------------------ */

/*
 * What libitrace's own POWER table says about one instruction (a word, or
 * a prefix/suffix pair): ppc_isa_lookup() fills `info` (class, registers,
 * memory operands, attributes; `info->d` is left to the caller) and, when
 * `text` is not NULL, "mnemonic operands" in capstone's style.  Returns 1
 * when the table knows the instruction, 0 when it does not.
 */
int ppc_isa_lookup(uint32_t word, struct itrace_insn_info *info, char *text, size_t cap);
/* ppc_isa_memory - the same for load, store and cache instructions only,
 * whether capstone knows them or not (their memory operands come from
 * this table always). */
int ppc_isa_memory(uint32_t word, struct itrace_insn_info *info, char *text, size_t cap);
int ppc_isa_prefixed(uint32_t prefix, uint32_t suffix, uint64_t addr,
		     struct itrace_insn_info *info, char *text, size_t cap);

#endif
