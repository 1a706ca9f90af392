/*
 * decoder_int.h - the decoder's internals (reader/decoder*.c): the decoder
 * object and the per-architecture back ends behind itrace_decoder_*.
 * Internal to libitrace.
 *
 *   decoder.c         the public entry points, register-list helpers and
 *                     effective addresses (itrace_insn_mem_accesses)
 *   decoder_x86.c     x86-64 through Zydis
 *   decoder_ppc.c     64-bit POWER through capstone, classes and memory
 *                     operands from the instruction forms
 *   decoder_ppc_isa.c libitrace's own table: Power ISA 3.0/3.1
 *                     instructions capstone 4 lacks, prefixed instructions
 */
#ifndef ITRACE_DECODER_INT_H
#define ITRACE_DECODER_INT_H

#include <capstone/capstone.h>
#include <Zydis/Zydis.h>

#include "itrace_code.h"

enum dec_arch { DEC_X86_64, DEC_PPC64 };

struct itrace_decoder {
	enum dec_arch arch;
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

/* ---- shared helpers (decoder.c) ----------------------------------------- */

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

int dec_x86_open(struct itrace_decoder *d);
void dec_x86_close(struct itrace_decoder *d);
int dec_x86_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		   struct itrace_decoded *out);
/* dec_x86_zydis - dec_x86_decode without the fast path of common legacy
 * encodings: Zydis alone (the tests check that both agree). */
int dec_x86_zydis(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		  struct itrace_decoded *out);
int dec_x86_info(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		 struct itrace_insn_info *out);
int dec_x86_text(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		 char *buf, size_t cap);
const char *dec_x86_reg_name(unsigned reg);

/* ---- POWER (decoder_ppc.c, decoder_ppc_isa.c) ----------------------------- */

int dec_ppc_open(struct itrace_decoder *d, int big_endian);
void dec_ppc_close(struct itrace_decoder *d);
int dec_ppc_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		   struct itrace_decoded *out);
int dec_ppc_info(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		 struct itrace_insn_info *out);
int dec_ppc_text(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		 char *buf, size_t cap);
const char *dec_ppc_reg_name(unsigned reg);

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
