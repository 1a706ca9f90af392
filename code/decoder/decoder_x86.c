/*
 * decoder_x86.c - x86-64 through Zydis 4 (see itrace.h, section 5).
 *
 * Two Zydis decoders: one in minimal mode (length, mnemonic, category and
 * the raw fields: enough for the branch kind and target) for the fast
 * path, one in full mode whose operands give registers and memory
 * operands.  The execution class comes from Zydis' instruction category,
 * refined by the mnemonic for the vector and x87 categories (Zydis has one
 * "AVX512" category for adds, shuffles and divides alike); a table built
 * once per decoder maps each mnemonic to that refinement.
 */
#include <elf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "decoder_int.h"

/* zclass[] entries: a class, plus this bit for scalar floating point. */
#define HINT_SCALAR 0x80
#define HINT_NONE 0x7f

/* ---- Branch kinds (both paths) ---------------------------------------- */

static int has_rep_prefix(const ZydisDecodedInstruction *in)
{
	for (unsigned i = 0; i < in->raw.prefix_count; i++)
		if ((in->raw.prefixes[i].value == 0xf3 || in->raw.prefixes[i].value == 0xf2) &&
		    in->raw.prefixes[i].type != ZYDIS_PREFIX_TYPE_IGNORED)
			return 1;
	return 0;
}

/* fill_decoded - length, kind and target from the category (Intel SDM
 * vol. 2: jcc, loop*, jcxz/jecxz/jrcxz and xbegin take a rel8/rel32 and
 * may fall through; call/jmp are relative or indirect). */
static void fill_decoded(const ZydisDecodedInstruction *in, uint64_t addr, struct itrace_decoded *out)
{
	int rel = in->raw.imm[0].is_relative;

	out->addr = addr;
	out->target = 0;
	out->len = in->length;
	out->kind = ITRACE_INSN_NOT_BRANCH;
	out->flags = 0;
	if (in->mnemonic == ZYDIS_MNEMONIC_XEND || in->mnemonic == ZYDIS_MNEMONIC_XABORT)
		return; /* Zydis files them under branches: they commit or abort a
			 * transaction, whose abort lands at xbegin's target */
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		out->kind = ITRACE_BRANCH_COND;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		out->kind = rel ? ITRACE_BRANCH_UNCOND : ITRACE_BRANCH_INDIRECT;
		break;
	case ZYDIS_CATEGORY_CALL:
		out->kind = rel ? ITRACE_BRANCH_CALL : ITRACE_BRANCH_INDIRECT_CALL;
		break;
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSRET:
		out->kind = ITRACE_BRANCH_RETURN;
		return;
	case ZYDIS_CATEGORY_SYSCALL:
		out->kind = ITRACE_BRANCH_SYSCALL;
		return;
	case ZYDIS_CATEGORY_INTERRUPT:
		out->kind = ITRACE_BRANCH_SYSCALL;
		out->flags = ITRACE_DECODED_TRAP;
		return;
	case ZYDIS_CATEGORY_STRINGOP:
	case ZYDIS_CATEGORY_IOSTRINGOP:
		if (has_rep_prefix(in))
			out->flags = ITRACE_DECODED_REP;
		return;
	default:
		return;
	}
	if (rel) {
		out->target = addr + in->length + (uint64_t)in->raw.imm[0].value.s;
		out->flags |= ITRACE_DECODED_HAS_TARGET;
	}
}

/* ---- The fast path -------------------------------------------------------
 *
 * Most of what runs is a handful of legacy encodings (80% of libc's .text
 * is one-byte-map opcodes, most of the rest 0F-map integer forms).  For
 * those, length, kind and target follow from the opcode tables of the
 * Intel SDM vol. 2, Appendix A ("Opcode Map") and 2.1 ("Instruction
 * Format"); x86_fast() answers them and hands everything else -- VEX,
 * EVEX, mandatory-prefix SSE forms, lock, unusual prefixes, groups whose
 * ModRM.reg makes some forms invalid -- to Zydis, which stays the
 * authority: test_decoder checks that both agree on every byte offset of
 * this machine's libc and on random bytes.
 */

enum {
	X_NO = 0,	  /* not handled here: Zydis decides */
	X_MODRM = 1u << 0,
	X_I8 = 1u << 1,	  /* imm8 */
	X_IZ = 1u << 2,	  /* imm16 with 66, else imm32 */
	X_IV = 1u << 3,	  /* imm64 with REX.W, imm16 with 66, else imm32 */
	X_I16 = 1u << 4,  /* imm16 (ret imm16; enter adds an imm8) */
	X_MOFFS = 1u << 5, /* 8-byte address (4 with 67) */
	X_REL8 = 1u << 6, /* branch, rel8 */
	X_REL32 = 1u << 7, /* branch, rel32 */
	X_GROUP = 1u << 8, /* ModRM.reg decides: x86_group() */
	X_STRING = 1u << 9, /* movs/cmps/stos/lods/scas: rep with F3 */
	X_ONE = 1u << 10, /* valid with no operand bytes */
	X_BRANCH = 1u << 11, /* kind in the high byte (kind + 1) */
};

#define XK(kind) (X_BRANCH | (uint32_t)((kind) + 1) << 16)

/* One-byte map, 64-bit mode (SDM vol. 2, Table A-2). */
static uint32_t one_byte(unsigned op)
{
	if (op < 0x40) {
		unsigned lo = op & 7;

		if (lo <= 3)
			return X_MODRM; /* add/or/adc/sbb/and/sub/xor/cmp r/m forms */
		if (lo == 4)
			return X_I8;
		if (lo == 5)
			return X_IZ;
		return X_NO; /* push/pop seg, daa..., prefixes: invalid or not here */
	}
	if (op >= 0x50 && op <= 0x5f)
		return X_ONE; /* push/pop r64 */
	if (op >= 0x70 && op <= 0x7f)
		return X_REL8 | XK(ITRACE_BRANCH_COND);
	if (op >= 0x84 && op <= 0x8b)
		return X_MODRM; /* test, xchg, mov */
	if (op >= 0x90 && op <= 0x99)
		return X_ONE; /* nop/xchg, cbw..., cwd... */
	if (op >= 0xb0 && op <= 0xb7)
		return X_I8;
	if (op >= 0xb8 && op <= 0xbf)
		return X_IV;
	if (op == 0xc9)
		return X_ONE; /* leave */
	if (op >= 0xf8 && op <= 0xfd)
		return X_ONE; /* clc stc cli sti cld std */
	switch (op) {
	case 0x63: return X_MODRM;		  /* movsxd */
	case 0x68: return X_IZ;			  /* push imm */
	case 0x69: return X_MODRM | X_IZ;	  /* imul */
	case 0x6a: return X_I8;
	case 0x6b: return X_MODRM | X_I8;
	case 0x80: return X_MODRM | X_I8;	  /* grp1 */
	case 0x81: return X_MODRM | X_IZ;
	case 0x83: return X_MODRM | X_I8;
	case 0x8c: case 0x8d: case 0x8e: case 0x8f: return X_MODRM | X_GROUP;
	case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f: return X_ONE;
	case 0xa0: case 0xa1: case 0xa2: case 0xa3: return X_MOFFS;
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:
	case 0xaa: case 0xab: case 0xac: case 0xad: case 0xae: case 0xaf: return X_STRING;
	case 0xa8: return X_I8;
	case 0xa9: return X_IZ;
	case 0xc0: case 0xc1: return X_MODRM | X_I8; /* grp2 */
	case 0xc2: return X_I16 | XK(ITRACE_BRANCH_RETURN);
	case 0xc3: return X_ONE | XK(ITRACE_BRANCH_RETURN);
	case 0xc6: case 0xc7: return X_MODRM | X_GROUP;
	case 0xc8: return X_I16 | X_I8; /* enter */
	case 0xcc: return X_ONE | XK(ITRACE_BRANCH_SYSCALL);
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: return X_MODRM;
	case 0xe0: case 0xe1: case 0xe2: case 0xe3: return X_REL8 | XK(ITRACE_BRANCH_COND);
	case 0xe8: return X_REL32 | XK(ITRACE_BRANCH_CALL);
	case 0xe9: return X_REL32 | XK(ITRACE_BRANCH_UNCOND);
	case 0xeb: return X_REL8 | XK(ITRACE_BRANCH_UNCOND);
	case 0xf4: case 0xf5: return X_ONE;	  /* hlt, cmc */
	case 0xf6: case 0xf7: case 0xfe: case 0xff: return X_MODRM | X_GROUP;
	default: return X_NO;
	}
}

/* Two-byte map (0F xx) without mandatory prefix (SDM vol. 2, Table A-3). */
static uint32_t two_byte(unsigned op)
{
	if ((op >= 0x40 && op <= 0x4f) || (op >= 0x90 && op <= 0x9f))
		return X_MODRM; /* cmovcc, setcc */
	if (op >= 0x80 && op <= 0x8f)
		return X_REL32 | XK(ITRACE_BRANCH_COND);
	if (op >= 0xc8 && op <= 0xcf)
		return X_ONE; /* bswap */
	switch (op) {
	case 0x05: return X_ONE | XK(ITRACE_BRANCH_SYSCALL); /* syscall */
	case 0x0b: case 0x31: case 0xa2: return X_ONE;      /* ud2, rdtsc, cpuid */
	case 0x1f: return X_MODRM | X_GROUP;		     /* nop r/m (reg 0) */
	case 0xa3: case 0xab: case 0xb3: case 0xbb: case 0xa5: case 0xad: case 0xaf:
	case 0xb0: case 0xb1: case 0xb6: case 0xb7: case 0xbe: case 0xbf: case 0xc0: case 0xc1:
	case 0xbc: case 0xbd:
		return X_MODRM;
	case 0xa4: case 0xac: return X_MODRM | X_I8;	     /* shld/shrd imm8 */
	default: return X_NO;
	}
}

/* Group opcodes: the ModRM.reg values that are valid everywhere, and the
 * kind or immediate they imply (SDM vol. 2, Table A-6).  0: not here. */
static uint32_t x86_group(int two, unsigned op, unsigned modrm)
{
	unsigned reg = (modrm >> 3) & 7, mod = modrm >> 6;

	if (two)
		return reg == 0 ? X_MODRM : X_NO; /* 0F 1F /0 */
	switch (op) {
	case 0x8c: return reg <= 5 ? X_MODRM : X_NO;	      /* mov r/m, Sreg */
	case 0x8d: return mod != 3 ? X_MODRM : X_NO;	      /* lea */
	case 0x8e: return reg <= 5 && reg != 1 ? X_MODRM : X_NO; /* mov Sreg, r/m (not cs) */
	case 0x8f: case 0xc6: case 0xc7: /* pop r/m, mov r/m, imm (other regs: XOP, xabort/xbegin) */
		if (reg)
			return X_NO;
		return X_MODRM | (op == 0xc6 ? X_I8 : op == 0xc7 ? X_IZ : 0);
	case 0xf6: return X_MODRM | (reg <= 1 ? X_I8 : 0);    /* test imm / not neg mul ... */
	case 0xf7: return X_MODRM | (reg <= 1 ? X_IZ : 0);
	case 0xfe: return reg <= 1 ? X_MODRM : X_NO;	      /* inc/dec r/m8 */
	case 0xff:
		switch (reg) {
		case 0: case 1: case 6: return X_MODRM;	      /* inc, dec, push */
		case 2: return X_MODRM | XK(ITRACE_BRANCH_INDIRECT_CALL);
		case 4: return X_MODRM | XK(ITRACE_BRANCH_INDIRECT);
		default: return X_NO;			      /* far forms, /7 */
		}
	default:
		return X_NO;
	}
}

/* modrm_bytes - ModRM, SIB and displacement bytes at c (SDM vol. 2,
 * 2.1.5; 64-bit and 32-bit addressing share the layout). */
static unsigned modrm_bytes(const uint8_t *c, size_t avail)
{
	unsigned mod = c[0] >> 6, rm = c[0] & 7, n = 1;

	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (avail < 2)
			return 0;
		n++;
		if (mod == 0 && (c[1] & 7) == 5)
			n += 4; /* SIB without base: disp32 */
	} else if (mod == 0 && rm == 5) {
		n += 4; /* rip-relative disp32 */
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n;
}

/*
 * x86_fast - length, kind and target of the common legacy encodings at c.
 * Returns 1 with *out filled, 0 for anything it leaves to Zydis (including
 * every invalid or truncated encoding).
 */
static int x86_fast(const uint8_t *c, size_t avail, uint64_t addr, struct itrace_decoded *out)
{
	size_t i = 0;
	int p66 = 0, p67 = 0, pf3 = 0, other = 0, rexw = 0, two = 0;
	unsigned op, imm = 0, n;
	uint32_t f;

	for (; i < avail && i < 4; i++) {
		uint8_t b = c[i];

		if (b == 0x66)
			p66 = 1;
		else if (b == 0x67)
			p67 = 1;
		else if (b == 0xf3)
			pf3 = 1;
		else if (b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65)
			other = 1;
		else
			break;
	}
	if (i < avail && (c[i] & 0xf0) == 0x40) {
		rexw = (c[i] >> 3) & 1;
		i++;
	}
	if (i >= avail)
		return 0;
	op = c[i++];
	if (op == 0x0f) {
		if (i >= avail)
			return 0;
		op = c[i++];
		two = 1;
		/* endbr64/endbr32 (F3 0F 1E FA/FB), at every CET function entry */
		if (op == 0x1e && pf3 && !p66 && !p67 && !other && !rexw && i == 3 && avail >= 4 &&
		    (c[3] == 0xfa || c[3] == 0xfb)) {
			out->addr = addr;
			out->target = 0;
			out->len = 4;
			out->kind = ITRACE_INSN_NOT_BRANCH;
			out->flags = 0;
			return 1;
		}
		/* mandatory prefixes select other (SSE) instructions: Zydis;
		 * 66 0F 1F (nopw) is the one common exception */
		if (pf3 || (p66 && op != 0x1f))
			return 0;
		f = two_byte(op);
	} else {
		f = one_byte(op);
		if (pf3 && !(f & X_STRING))
			return 0; /* rep ret, pause ...: Zydis */
	}
	if (f == X_NO)
		return 0;
	/* branches with prefixes (bnd, notrack, hints, 66, 67): Zydis */
	if ((f & (X_BRANCH | X_REL8 | X_REL32)) && (p66 || p67 || other || pf3))
		return 0;
	n = (unsigned)i;
	if (f & X_MODRM) {
		unsigned m;

		if (n >= avail)
			return 0;
		if (f & X_GROUP) {
			f = x86_group(two, op, c[n]);
			if (f == X_NO)
				return 0;
			if ((f & X_BRANCH) && (p66 || p67 || other))
				return 0;
		}
		m = modrm_bytes(c + n, avail - n);
		if (!m)
			return 0;
		n += m;
	}
	if (f & X_I8)
		imm += 1;
	if (f & X_IZ)
		imm += p66 && !rexw ? 2 : 4;
	if (f & X_IV)
		imm += rexw ? 8 : p66 ? 2 : 4;
	if (f & X_I16)
		imm += 2;
	if (f & X_MOFFS)
		imm += p67 ? 4 : 8;
	if (f & X_REL8)
		imm += 1;
	if (f & X_REL32)
		imm += 4;
	n += imm;
	if (n > avail || n > 15)
		return 0;
	out->addr = addr;
	out->target = 0;
	out->len = (uint8_t)n;
	out->kind = ITRACE_INSN_NOT_BRANCH;
	out->flags = 0;
	if (f & X_BRANCH) {
		out->kind = (uint8_t)((f >> 16) - 1);
		if (op == 0xcc && !two)
			out->flags = ITRACE_DECODED_TRAP;
	}
	if (f & (X_REL8 | X_REL32)) {
		int64_t rel = (f & X_REL8) ? (int8_t)c[n - 1]
					   : (int32_t)((uint32_t)c[n - 4] | (uint32_t)c[n - 3] << 8 |
						       (uint32_t)c[n - 2] << 16 | (uint32_t)c[n - 1] << 24);

		out->target = addr + n + (uint64_t)rel;
		out->flags = ITRACE_DECODED_HAS_TARGET;
	}
	if ((f & X_STRING) && pf3)
		out->flags = ITRACE_DECODED_REP;
	return 1;
}

/* dec_x86_zydis - the same answer, always from Zydis (tests compare). */
int dec_x86_zydis(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
		  struct itrace_decoded *out)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction in;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d->zmin, &ctx, code, avail, &in)))
		return -ITRACE_E_DECODE;
	fill_decoded(&in, addr, out);
	return 0;
}

static int dec_x86_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
			  struct itrace_decoded *out)
{
	if (x86_fast(code, avail, addr, out))
		return 0;
	return dec_x86_zydis(d, code, avail, addr, out);
}

/* ---- Tables built at open ---------------------------------------------- */


static int ends(const char *s, const char *p)
{
	size_t n = strlen(s), m = strlen(p);

	return n >= m && strcmp(s + n - m, p) == 0;
}

/* Floating-point data types in a mnemonic's suffix: packed or scalar
 * single, double, half (Intel SDM vol. 1, 10.4 and 11.4). */
static int fp_suffix(const char *m)
{
	return ends(m, "ps") || ends(m, "pd") || ends(m, "ss") || ends(m, "sd") || ends(m, "sh") ||
	       ends(m, "ph");
}

/* Scalar floating point: addsd, vfmadd231ss, cvtsi2sd, ucomisd ... */
static int fp_scalar(const char *m)
{
	return ends(m, "ss") || ends(m, "sd") || ends(m, "sh") || strstr(m, "ss2") ||
	       strstr(m, "sd2") || strstr(m, "sh2") || strstr(m, "2ss") || strstr(m, "2sd") ||
	       strstr(m, "2sh") || dec_starts(m, "comi") || dec_starts(m, "ucomi");
}

/*
 * vector_hint - the class of a vector (SSE, AVX, AVX-512, MMX) or mask
 * mnemonic, by what it computes.  `m` is the mnemonic without the VEX 'v'.
 */
static unsigned vector_hint(const char *m)
{
	static const char *const shuffles[] = {
		"shuf", "pshuf", "perm", "pperm", "punpck", "unpck", "pack", "palignr", "align",
		"pinsr", "pextr", "insert", "extract", "broadcast", "pbroadcast", "movddup",
		"movshdup", "movsldup", "pmovzx", "pmovsx", "compress", "pcompress", "expand",
		"pexpand", "pmultishift", "pslldq", "psrldq", "movhlps", "movlhps", "pmovw", "pmovd",
		"pmovq", "pmovb", "pmovus", "pmovs", NULL,
	};
	static const char *const fp_adds[] = {
		"add", "sub", "min", "max", "cmp", "comi", "ucomi", "hadd", "hsub", "round", "rndscale",
		"cvt", "getexp", "getmant", "range", "reduce", "scalef", "fixupimm", "fpclass", NULL,
	};

	if (dec_starts(m, "ldmxcsr") || dec_starts(m, "stmxcsr"))
		return ITRACE_CLASS_SYSTEM;
	if (strstr(m, "fmadd") || strstr(m, "fmsub") || strstr(m, "fnmadd") || strstr(m, "fnmsub") ||
	    dec_starts(m, "dpbf16") || dec_starts(m, "dpph"))
		return ITRACE_CLASS_FP_FMA;
	if (strstr(m, "rsqrt") || strstr(m, "rcp"))
		return ITRACE_CLASS_FP_MUL; /* approximations: multiplier latency */
	if (strstr(m, "sqrt"))
		return ITRACE_CLASS_FP_SQRT;
	if (strstr(m, "div"))
		return ITRACE_CLASS_FP_DIV;
	if (dec_starts(m, "pmul") || dec_starts(m, "pmadd") || dec_starts(m, "pdp") || dec_starts(m, "psadbw") ||
	    dec_starts(m, "dbpsadbw") || dec_starts(m, "p4dp"))
		return ITRACE_CLASS_VEC_MUL;
	if (dec_starts(m, "pclmul"))
		return ITRACE_CLASS_CRYPTO;
	if (dec_starts(m, "kmov"))
		return ITRACE_CLASS_MOVE;
	if (m[0] == 'k')
		return ITRACE_CLASS_VEC_ALU; /* kand, kor, kshift, ktest ... */
	if (dec_starts(m, "movmsk") || dec_starts(m, "pmovmsk") || dec_starts(m, "pmovm2") ||
	    (dec_starts(m, "pmov") && strstr(m, "2m")))
		return ITRACE_CLASS_VEC_ALU;
	if (dec_starts_any(m, shuffles))
		return ITRACE_CLASS_VEC_SHUFFLE;
	if (dec_starts(m, "mov") || dec_starts(m, "lddqu") || dec_starts(m, "maskmov") || strstr(m, "gather") ||
	    strstr(m, "scatter") || dec_starts(m, "pmaskmov") || dec_starts(m, "maskmov"))
		return ITRACE_CLASS_MOVE; /* load, store or copy: by the operands */
	if (dec_starts(m, "dpp"))
		return ITRACE_CLASS_FP_MUL;
	if ((strstr(m, "mul") || dec_starts(m, "cmul") || dec_starts(m, "fcmul") || dec_starts(m, "fmul")) &&
	    fp_suffix(m))
		return ITRACE_CLASS_FP_MUL;
	if (dec_starts_any(m, fp_adds) && (fp_suffix(m) || dec_starts(m, "cvt")))
		return ITRACE_CLASS_FP_ADD;
	if (dec_starts(m, "cvt") || dec_starts(m, "pi2f") || dec_starts(m, "pf2i"))
		return ITRACE_CLASS_FP_ADD;
	if (m[0] == 'p' && m[1] == 'f') /* 3DNow! pfadd, pfmul ... */
		return strstr(m, "mul") ? ITRACE_CLASS_FP_MUL : ITRACE_CLASS_FP_ADD;
	return ITRACE_CLASS_VEC_ALU;
}

/* x87_hint - class of an x87 mnemonic (Intel SDM vol. 1, 8.3). */
static unsigned x87_hint(const char *m)
{
	if (dec_starts(m, "fldcw") || dec_starts(m, "fldenv") || dec_starts(m, "fnst") || dec_starts(m, "fstcw") ||
	    dec_starts(m, "fstenv") || dec_starts(m, "fsave") || dec_starts(m, "fnsave") || dec_starts(m, "frstor") ||
	    dec_starts(m, "fninit") || dec_starts(m, "fnclex") || dec_starts(m, "fwait") || dec_starts(m, "fxsave") ||
	    dec_starts(m, "fxrstor"))
		return ITRACE_CLASS_SYSTEM;
	if (dec_starts(m, "fld") || dec_starts(m, "fild") || dec_starts(m, "fbld") || dec_starts(m, "fst") ||
	    dec_starts(m, "fist") || dec_starts(m, "fbstp") || dec_starts(m, "fxch") || dec_starts(m, "ffree") ||
	    dec_starts(m, "fincstp") || dec_starts(m, "fdecstp"))
		return ITRACE_CLASS_MOVE; /* load, store or copy: by the operands */
	if (dec_starts(m, "fsqrt"))
		return ITRACE_CLASS_FP_SQRT;
	if (dec_starts(m, "fdiv") || dec_starts(m, "fidiv") || dec_starts(m, "fsin") || dec_starts(m, "fcos") ||
	    dec_starts(m, "fptan") || dec_starts(m, "fpatan") || dec_starts(m, "f2xm1") || dec_starts(m, "fyl2x") ||
	    dec_starts(m, "fscale") || dec_starts(m, "fprem") || dec_starts(m, "fxtract"))
		return ITRACE_CLASS_FP_DIV; /* long-latency microcode */
	if (dec_starts(m, "fmul") || dec_starts(m, "fimul"))
		return ITRACE_CLASS_FP_MUL;
	return ITRACE_CLASS_FP_ADD; /* fadd, fsub, fcom, fucom, fabs, fchs, frndint ... */
}

static unsigned mnemonic_hint(const char *m)
{
	const char *v = m;
	unsigned h;

	if (m[0] == 'f' && !dec_starts(m, "femms"))
		return x87_hint(m);
	if (m[0] == 'v' && !dec_starts(m, "vzero") && !dec_starts(m, "verr") && !dec_starts(m, "verw") &&
	    !dec_starts(m, "vmcall") && !dec_starts(m, "vmread") && !dec_starts(m, "vmwrite"))
		v = m + 1;
	h = vector_hint(v);
	if ((h == ITRACE_CLASS_FP_ADD || h == ITRACE_CLASS_FP_MUL || h == ITRACE_CLASS_FP_FMA ||
	     h == ITRACE_CLASS_FP_DIV || h == ITRACE_CLASS_FP_SQRT) &&
	    fp_scalar(v))
		h |= HINT_SCALAR;
	return h;
}

/* Zydis register -> itrace register id (Zydis orders each class by the
 * hardware encoding, as ITRACE_REG_* does). */
static unsigned map_register(ZydisRegister r)
{
	ZydisRegister big;
	ZyanI8 id;

	if (r == ZYDIS_REGISTER_NONE)
		return ITRACE_REG_NONE;
	switch (r) {
	case ZYDIS_REGISTER_FLAGS:
	case ZYDIS_REGISTER_EFLAGS:
	case ZYDIS_REGISTER_RFLAGS:
		return ITRACE_REG_FLAGS;
	case ZYDIS_REGISTER_MXCSR:
	case ZYDIS_REGISTER_X87CONTROL:
	case ZYDIS_REGISTER_X87STATUS:
	case ZYDIS_REGISTER_X87TAG:
		return ITRACE_REG_FPCTL;
	case ZYDIS_REGISTER_IP:
	case ZYDIS_REGISTER_EIP:
	case ZYDIS_REGISTER_RIP:
		return ITRACE_REG_NONE; /* control flow, not a data dependency */
	default:
		break;
	}
	big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (big == ZYDIS_REGISTER_NONE)
		big = r;
	id = ZydisRegisterGetId(big);
	if (id < 0)
		return ITRACE_REG_SYS;
	switch (ZydisRegisterGetClass(big)) {
	case ZYDIS_REGCLASS_GPR64:
		return ITRACE_REG_GPR(id);
	case ZYDIS_REGCLASS_XMM:
	case ZYDIS_REGCLASS_YMM:
	case ZYDIS_REGCLASS_ZMM:
		return ITRACE_REG_VEC(id);
	case ZYDIS_REGCLASS_MASK:
		return ITRACE_REG_MASK0 + (unsigned)id;
	case ZYDIS_REGCLASS_X87:
	case ZYDIS_REGCLASS_MMX:
		return ITRACE_REG_X87_0 + (unsigned)id;
	case ZYDIS_REGCLASS_TMM:
		return ITRACE_REG_TILE0 + (unsigned)id;
	case ZYDIS_REGCLASS_SEGMENT:
		return ITRACE_REG_SEG(id);
	default:
		return ITRACE_REG_SYS;
	}
}

/*
 * Zydis register -> enum itrace_reg, and mnemonic -> class hint: the same
 * for every decoder, built once per process (naming each of Zydis's ~1,800
 * mnemonics by string costs far more than a decoder's other set-up, and
 * tools and the fuzz targets open decoders often), and only by the first
 * full decode (dec_x86_info), their one user: 8 M instructions, 2-3 ms,
 * that a tool which only follows branches (itrace-fill) never needs, and
 * that itrace-fill -j N paid alone before its threads started.
 */
static uint8_t zreg_table[ZYDIS_REGISTER_MAX_VALUE + 1];
static uint8_t zclass_table[ZYDIS_MNEMONIC_MAX_VALUE + 1];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
	for (int r = 0; r <= ZYDIS_REGISTER_MAX_VALUE; r++)
		zreg_table[r] = (uint8_t)map_register((ZydisRegister)r);
	for (int m = 0; m <= ZYDIS_MNEMONIC_MAX_VALUE; m++) {
		const char *s = ZydisMnemonicGetString((ZydisMnemonic)m);

		zclass_table[m] = s ? (uint8_t)mnemonic_hint(s) : HINT_NONE;
	}
}

static int dec_x86_open(struct itrace_decoder *d, int big_endian)
{
	(void)big_endian; /* never set: the table names little-endian only */
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&d->zmin, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(&d->zmin, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)) ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&d->zfull, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisFormatterInit(&d->zfmt, ZYDIS_FORMATTER_STYLE_INTEL)))
		return -ITRACE_E_INTERNAL;
	/* capstone's Intel style, which the reports used so far: sizes on
	 * memory operands, lower-case hex without padding */
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE);
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED);
	d->zreg = zreg_table; /* filled by dec_x86_info's first call */
	d->zclass = zclass_table;
	return 0;
}

static void dec_x86_close(struct itrace_decoder *d)
{
	d->zreg = d->zclass = NULL; /* the tables are the process's */
}

/* ---- Full decoding ------------------------------------------------------- */

struct x86_ctx {
	struct itrace_decoder *d;
	const ZydisDecodedInstruction *in;
	const ZydisDecodedOperand *ops;
	struct itrace_insn_info *out;
	int mem_read, mem_write; /* some memory operand is read / written */
	int has_imm;
	int has_vec;		 /* a vector or mask register operand */
};

static unsigned reg_id(const struct x86_ctx *x, ZydisRegister r)
{
	return x->d->zreg[r];
}

/* Operands that only name an address, never access it (Intel SDM: LEA,
 * the hint and cache-line instructions). */
static int address_only(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_PREFETCHWT1:
	case ZYDIS_CATEGORY_CLDEMOTE:
	case ZYDIS_CATEGORY_CLFLUSHOPT:
	case ZYDIS_CATEGORY_CLWB:
	case ZYDIS_CATEGORY_MPX:
		return 1;
	default:
		return in->mnemonic == ZYDIS_MNEMONIC_CLFLUSH;
	}
}

/* Register and memory operands -> read[], write[], mem[]. */
static void collect_operands(struct x86_ctx *x)
{
	const ZydisDecodedInstruction *in = x->in;
	struct itrace_insn_info *out = x->out;
	int addr_only = address_only(in);

	for (unsigned i = 0; i < in->operand_count; i++) {
		const ZydisDecodedOperand *op = &x->ops[i];
		int rd = (op->actions & (ZYDIS_OPERAND_ACTION_READ | ZYDIS_OPERAND_ACTION_CONDREAD)) != 0;
		int wr = (op->actions & (ZYDIS_OPERAND_ACTION_WRITE | ZYDIS_OPERAND_ACTION_CONDWRITE)) != 0;
		struct itrace_insn_mem *m;

		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			x->has_imm = 1;
			continue;
		}
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			/* k0 as the write mask means "no mask": nothing is read */
			if (op->encoding == ZYDIS_OPERAND_ENCODING_MASK && op->reg.value == ZYDIS_REGISTER_K0)
				continue;
			if (rd)
				info_add_read(out, reg_id(x, op->reg.value));
			if (wr)
				info_add_write(out, reg_id(x, op->reg.value));
			/* an 8- or 16-bit write keeps the rest of the register:
			 * the result depends on its old value */
			if (wr && (ZydisRegisterGetClass(op->reg.value) == ZYDIS_REGCLASS_GPR8 ||
				   ZydisRegisterGetClass(op->reg.value) == ZYDIS_REGCLASS_GPR16))
				info_add_read(out, reg_id(x, op->reg.value));
			switch (ZydisRegisterGetClass(op->reg.value)) {
			case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM:
			case ZYDIS_REGCLASS_MMX: case ZYDIS_REGCLASS_MASK:
				x->has_vec = 1;
				break;
			default:
				break;
			}
			if (wr && op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
			    op->reg.value == ZYDIS_REGISTER_RSP)
				out->attrs |= ITRACE_ATTR_STACK;
			continue;
		}
		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (op->mem.base != ZYDIS_REGISTER_RIP)
			info_add_read(out, reg_id(x, op->mem.base));
		info_add_read(out, reg_id(x, op->mem.index));
		if (op->mem.type == ZYDIS_MEMOP_TYPE_AGEN || op->mem.type == ZYDIS_MEMOP_TYPE_MIB ||
		    addr_only) {
			out->attrs |= ITRACE_ATTR_ADDRESS_ONLY;
			continue;
		}
		m = info_add_mem(out);
		if (!m)
			continue;
		if (!rd && !wr)
			rd = 1;
		x->mem_read |= rd;
		x->mem_write |= wr;
		m->flags = (uint16_t)((rd ? ITRACE_MEMOP_READ : 0) | (wr ? ITRACE_MEMOP_WRITE : 0));
		m->size = in->meta.category == ZYDIS_CATEGORY_XSAVE ? 0 : op->size / 8u;
		if (op->mem.base == ZYDIS_REGISTER_RIP)
			m->flags |= ITRACE_MEMOP_PCREL;
		else
			m->base = (uint8_t)reg_id(x, op->mem.base);
		m->index = (uint8_t)reg_id(x, op->mem.index);
		m->scale = op->mem.scale ? op->mem.scale : 1;
		m->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
		if (op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS)
			m->segment = (uint8_t)reg_id(x, op->mem.segment);
		if (op->mem.type == ZYDIS_MEMOP_TYPE_VSIB)
			m->flags |= ITRACE_MEMOP_VSIB;
		if (in->address_width == 32)
			m->flags |= ITRACE_MEMOP_ADDR32;
		if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN) {
			m->flags |= ITRACE_MEMOP_IMPLICIT;
			/* push, call, enter, pushf: the CPU stores below rsp */
			if (wr && op->mem.base == ZYDIS_REGISTER_RSP)
				m->flags |= ITRACE_MEMOP_PUSH;
		} else if (in->mnemonic == ZYDIS_MNEMONIC_POP && op->mem.base == ZYDIS_REGISTER_RSP) {
			/* Intel SDM, POP: "If the ESP register is used as a base
			 * register for addressing a destination operand in memory,
			 * the POP instruction computes the effective address of
			 * the operand after it increments the ESP register." */
			m->flags |= ITRACE_MEMOP_AFTER_POP;
		}
		if (in->mnemonic == ZYDIS_MNEMONIC_XLAT) {
			/* xlat: [rbx + al] (Zydis lists the base only) */
			m->index = ITRACE_REG_GPR(0);
			m->flags |= ITRACE_MEMOP_INDEX8;
		}
	}
	/* CET (Intel SDM vol. 1, 17.2): the shadow-stack pointer */
	if (in->meta.category == ZYDIS_CATEGORY_CET && in->mnemonic != ZYDIS_MNEMONIC_ENDBR32 &&
	    in->mnemonic != ZYDIS_MNEMONIC_ENDBR64) {
		info_add_read(out, ITRACE_REG_SSP);
		if (in->mnemonic != ZYDIS_MNEMONIC_RDSSPD && in->mnemonic != ZYDIS_MNEMONIC_RDSSPQ)
			info_add_write(out, ITRACE_REG_SSP);
	}
}

/* The explicit register operands, write mask left out. */
static unsigned visible_regs(const struct x86_ctx *x, ZydisRegister *regs, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < x->in->operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &x->ops[i];

		if (op->type == ZYDIS_OPERAND_TYPE_MEMORY)
			return 0; /* idioms and eliminable moves are register-only */
		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    op->encoding == ZYDIS_OPERAND_ENCODING_MASK)
			continue;
		if (n < max)
			regs[n++] = op->reg.value;
	}
	return n;
}

static int masked(const ZydisDecodedInstruction *in)
{
	return in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX &&
	       in->avx.mask.mode != ZYDIS_MASK_MODE_DISABLED && in->avx.mask.reg != ZYDIS_REGISTER_K0;
}

/* Same sources: `xor eax, eax`, `vpxor xmm1, xmm2, xmm2`. */
static int same_sources(const struct x86_ctx *x)
{
	ZydisRegister r[4];
	unsigned n = visible_regs(x, r, 4);

	if (masked(x->in))
		return 0;
	return (n == 2 && r[0] == r[1]) || (n == 3 && r[1] == r[2]);
}

/* The attribute an instruction earns when its two sources are the same
 * register: zero for xor/sub/andn/pcmpgt, all ones for pcmpeq.  The EVEX
 * compares write a mask register and are no idiom. */
static unsigned dependency_idiom(const ZydisDecodedInstruction *in)
{
	int evex = in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX;

	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_PXOR: case ZYDIS_MNEMONIC_VPXOR: case ZYDIS_MNEMONIC_VPXORD:
	case ZYDIS_MNEMONIC_VPXORQ: case ZYDIS_MNEMONIC_XORPS: case ZYDIS_MNEMONIC_XORPD:
	case ZYDIS_MNEMONIC_VXORPS: case ZYDIS_MNEMONIC_VXORPD:
	case ZYDIS_MNEMONIC_PANDN: case ZYDIS_MNEMONIC_VPANDN: case ZYDIS_MNEMONIC_VPANDND:
	case ZYDIS_MNEMONIC_VPANDNQ: case ZYDIS_MNEMONIC_ANDNPS: case ZYDIS_MNEMONIC_ANDNPD:
	case ZYDIS_MNEMONIC_VANDNPS: case ZYDIS_MNEMONIC_VANDNPD:
	case ZYDIS_MNEMONIC_PSUBB: case ZYDIS_MNEMONIC_PSUBW: case ZYDIS_MNEMONIC_PSUBD:
	case ZYDIS_MNEMONIC_PSUBQ: case ZYDIS_MNEMONIC_VPSUBB: case ZYDIS_MNEMONIC_VPSUBW:
	case ZYDIS_MNEMONIC_VPSUBD: case ZYDIS_MNEMONIC_VPSUBQ:
	case ZYDIS_MNEMONIC_PCMPGTB: case ZYDIS_MNEMONIC_PCMPGTW: case ZYDIS_MNEMONIC_PCMPGTD:
	case ZYDIS_MNEMONIC_PCMPGTQ:
		return ITRACE_ATTR_ZERO_IDIOM;
	case ZYDIS_MNEMONIC_VPCMPGTB: case ZYDIS_MNEMONIC_VPCMPGTW: case ZYDIS_MNEMONIC_VPCMPGTD:
	case ZYDIS_MNEMONIC_VPCMPGTQ:
		return evex ? 0 : ITRACE_ATTR_ZERO_IDIOM;
	case ZYDIS_MNEMONIC_PCMPEQB: case ZYDIS_MNEMONIC_PCMPEQW: case ZYDIS_MNEMONIC_PCMPEQD:
	case ZYDIS_MNEMONIC_PCMPEQQ:
		return ITRACE_ATTR_ONES_IDIOM;
	case ZYDIS_MNEMONIC_VPCMPEQB: case ZYDIS_MNEMONIC_VPCMPEQW: case ZYDIS_MNEMONIC_VPCMPEQD:
	case ZYDIS_MNEMONIC_VPCMPEQQ:
		return evex ? 0 : ITRACE_ATTR_ONES_IDIOM;
	default:
		return 0;
	}
}

/*
 * Dependency-breaking idioms and eliminable moves, as the optimisation
 * manuals list them (Intel 64 and IA-32 Architectures Optimization
 * Reference Manual, "Clearing Registers and Dependency Breaking Idioms"
 * and "Move Elimination"; AMD Software Optimization Guide for Zen 4,
 * "Zero Idioms"/"Move Elimination").
 */
static void idioms(struct x86_ctx *x)
{
	const ZydisDecodedInstruction *in = x->in;
	struct itrace_insn_info *out = x->out;
	ZydisRegister r[4];

	if (dependency_idiom(in) && same_sources(x))
		out->attrs |= dependency_idiom(in);
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_MOV:
		/* mov r64, r64 and mov r32, r32 (which zero-extends) */
		if (visible_regs(x, r, 4) == 2 &&
		    ZydisRegisterGetClass(r[0]) == ZydisRegisterGetClass(r[1]) &&
		    (ZydisRegisterGetClass(r[0]) == ZYDIS_REGCLASS_GPR64 ||
		     ZydisRegisterGetClass(r[0]) == ZYDIS_REGCLASS_GPR32))
			out->attrs |= ITRACE_ATTR_REG_MOVE;
		break;
	case ZYDIS_MNEMONIC_MOVAPS: case ZYDIS_MNEMONIC_MOVAPD: case ZYDIS_MNEMONIC_MOVUPS:
	case ZYDIS_MNEMONIC_MOVUPD: case ZYDIS_MNEMONIC_MOVDQA: case ZYDIS_MNEMONIC_MOVDQU:
	case ZYDIS_MNEMONIC_VMOVAPS: case ZYDIS_MNEMONIC_VMOVAPD: case ZYDIS_MNEMONIC_VMOVUPS:
	case ZYDIS_MNEMONIC_VMOVUPD: case ZYDIS_MNEMONIC_VMOVDQA: case ZYDIS_MNEMONIC_VMOVDQU:
	case ZYDIS_MNEMONIC_VMOVDQA32: case ZYDIS_MNEMONIC_VMOVDQA64:
	case ZYDIS_MNEMONIC_VMOVDQU8: case ZYDIS_MNEMONIC_VMOVDQU16: case ZYDIS_MNEMONIC_VMOVDQU32:
	case ZYDIS_MNEMONIC_VMOVDQU64:
		if (!masked(in) && visible_regs(x, r, 4) == 2)
			out->attrs |= ITRACE_ATTR_REG_MOVE;
		break;
	default:
		break;
	}
	/* Macro-fusion candidates (Optimization Reference Manual,
	 * "Macro-Fusion"): not with both an immediate and a memory operand,
	 * not rip-relative. */
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_CMP: case ZYDIS_MNEMONIC_TEST: case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC: {
		int mem = out->nmem > 0, pcrel = mem && (out->mem[0].flags & ITRACE_MEMOP_PCREL);

		if (!(x->has_imm && mem) && !pcrel)
			out->attrs |= ITRACE_ATTR_FUSIBLE;
		break;
	}
	default:
		break;
	}
}

/* data_class - a copy: load, store, register move, or an atomic exchange. */
static unsigned data_class(const struct x86_ctx *x)
{
	if (x->mem_read && x->mem_write)
		return ITRACE_CLASS_ATOMIC; /* xchg with memory (locked) */
	if (x->mem_read)
		return ITRACE_CLASS_LOAD;
	if (x->mem_write)
		return ITRACE_CLASS_STORE;
	return ITRACE_CLASS_MOVE;
}

/* Register-only data-transfer forms that compute something. */
static unsigned dataxfer_class(const struct x86_ctx *x)
{
	unsigned c = data_class(x);

	if (c != ITRACE_CLASS_MOVE)
		return c;
	switch (x->in->mnemonic) {
	case ZYDIS_MNEMONIC_MOVZX: case ZYDIS_MNEMONIC_MOVSX: case ZYDIS_MNEMONIC_MOVSXD:
	case ZYDIS_MNEMONIC_BSWAP: case ZYDIS_MNEMONIC_XCHG:
		return ITRACE_CLASS_INT_ALU;
	case ZYDIS_MNEMONIC_MOVSS: case ZYDIS_MNEMONIC_MOVSD: case ZYDIS_MNEMONIC_VMOVSS:
	case ZYDIS_MNEMONIC_VMOVSD: case ZYDIS_MNEMONIC_VMOVSH: case ZYDIS_MNEMONIC_MOVHLPS:
	case ZYDIS_MNEMONIC_MOVLHPS: case ZYDIS_MNEMONIC_VMOVHLPS: case ZYDIS_MNEMONIC_VMOVLHPS:
		return ITRACE_CLASS_VEC_SHUFFLE; /* register forms merge lanes */
	default:
		return ITRACE_CLASS_MOVE;
	}
}

static unsigned misc_class(const struct x86_ctx *x)
{
	switch (x->in->mnemonic) {
	case ZYDIS_MNEMONIC_LEA:
		return ITRACE_CLASS_INT_ALU;
	case ZYDIS_MNEMONIC_LEAVE:
	case ZYDIS_MNEMONIC_XLAT:
		return ITRACE_CLASS_LOAD;
	case ZYDIS_MNEMONIC_ENTER:
		return ITRACE_CLASS_STORE;
	case ZYDIS_MNEMONIC_PAUSE:
		return ITRACE_CLASS_NOP;
	case ZYDIS_MNEMONIC_LFENCE:
	case ZYDIS_MNEMONIC_MFENCE:
	case ZYDIS_MNEMONIC_SFENCE:
		return ITRACE_CLASS_FENCE;
	default:
		return ITRACE_CLASS_SYSTEM; /* cpuid, ud2, clflush, ... */
	}
}

static unsigned x86_class(const struct x86_ctx *x)
{
	const ZydisDecodedInstruction *in = x->in;
	unsigned hint = x->d->zclass[in->mnemonic] & ~HINT_SCALAR;

	switch (in->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_PREFETCHWT1:
	case ZYDIS_CATEGORY_CLDEMOTE:
	case ZYDIS_CATEGORY_MPX:
		return ITRACE_CLASS_NOP;
	case ZYDIS_CATEGORY_CET:
		return in->mnemonic == ZYDIS_MNEMONIC_ENDBR64 || in->mnemonic == ZYDIS_MNEMONIC_ENDBR32
			       ? ITRACE_CLASS_NOP : ITRACE_CLASS_SYSTEM;
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return ITRACE_CLASS_BRANCH;
	case ZYDIS_CATEGORY_BINARY:
	case ZYDIS_CATEGORY_LOGICAL:
	case ZYDIS_CATEGORY_SHIFT:
	case ZYDIS_CATEGORY_CONVERT:
		if (x->has_vec) /* Zydis files paddd, pxor, psllw, cvtsi2sd here */
			return hint == ITRACE_CLASS_MOVE ? dataxfer_class(x)
			       : hint == HINT_NONE ? ITRACE_CLASS_VEC_ALU : hint;
		/* fall through */
	case ZYDIS_CATEGORY_BMI2:
		if (in->mnemonic == ZYDIS_MNEMONIC_MUL || in->mnemonic == ZYDIS_MNEMONIC_IMUL ||
		    in->mnemonic == ZYDIS_MNEMONIC_MULX)
			return ITRACE_CLASS_INT_MUL;
		if (in->mnemonic == ZYDIS_MNEMONIC_DIV || in->mnemonic == ZYDIS_MNEMONIC_IDIV)
			return ITRACE_CLASS_INT_DIV;
		return ITRACE_CLASS_INT_ALU;
	case ZYDIS_CATEGORY_ROTATE:
	case ZYDIS_CATEGORY_BITBYTE:
	case ZYDIS_CATEGORY_CMOV:
	case ZYDIS_CATEGORY_SETCC:
	case ZYDIS_CATEGORY_FLAGOP:
	case ZYDIS_CATEGORY_BMI1:
	case ZYDIS_CATEGORY_LZCNT:
	case ZYDIS_CATEGORY_ADOX_ADCX:
	case ZYDIS_CATEGORY_TBM:
	case ZYDIS_CATEGORY_DECIMAL:
		return ITRACE_CLASS_INT_ALU;
	case ZYDIS_CATEGORY_DATAXFER:
		return hint == ITRACE_CLASS_MOVE || hint == ITRACE_CLASS_VEC_SHUFFLE ||
			       in->meta.isa_ext == ZYDIS_ISA_EXT_BASE || in->meta.isa_ext == ZYDIS_ISA_EXT_LONGMODE
			       ? dataxfer_class(x) : hint;
	case ZYDIS_CATEGORY_PUSH:
		return ITRACE_CLASS_STORE;
	case ZYDIS_CATEGORY_POP:
		return ITRACE_CLASS_LOAD;
	case ZYDIS_CATEGORY_STRINGOP:
	case ZYDIS_CATEGORY_IOSTRINGOP:
		return ITRACE_CLASS_STRING;
	case ZYDIS_CATEGORY_SEMAPHORE:
		return (in->attributes & ZYDIS_ATTRIB_HAS_LOCK) ? ITRACE_CLASS_ATOMIC : ITRACE_CLASS_INT_ALU;
	case ZYDIS_CATEGORY_AES:
	case ZYDIS_CATEGORY_SHA:
	case ZYDIS_CATEGORY_GFNI:
	case ZYDIS_CATEGORY_PCLMULQDQ:
	case ZYDIS_CATEGORY_VAES:
	case ZYDIS_CATEGORY_VPCLMULQDQ:
	case ZYDIS_CATEGORY_KEYLOCKER:
	case ZYDIS_CATEGORY_KEYLOCKER_WIDE:
	case ZYDIS_CATEGORY_PADLOCK:
		return ITRACE_CLASS_CRYPTO;
	case ZYDIS_CATEGORY_AMX_TILE:
		if (in->mnemonic == ZYDIS_MNEMONIC_TILELOADD || in->mnemonic == ZYDIS_MNEMONIC_TILELOADDT1)
			return ITRACE_CLASS_LOAD;
		if (in->mnemonic == ZYDIS_MNEMONIC_TILESTORED)
			return ITRACE_CLASS_STORE;
		if (in->mnemonic == ZYDIS_MNEMONIC_LDTILECFG || in->mnemonic == ZYDIS_MNEMONIC_STTILECFG ||
		    in->mnemonic == ZYDIS_MNEMONIC_TILERELEASE)
			return ITRACE_CLASS_SYSTEM;
		return ITRACE_CLASS_MATRIX;
	case ZYDIS_CATEGORY_MISC:
		return misc_class(x);
	case ZYDIS_CATEGORY_SERIALIZE:
		return ITRACE_CLASS_FENCE;
	case ZYDIS_CATEGORY_MOVDIR:
		return data_class(x);
	case ZYDIS_CATEGORY_X87_ALU:
	case ZYDIS_CATEGORY_FCMOV:
	case ZYDIS_CATEGORY_SSE:
	case ZYDIS_CATEGORY_AVX:
	case ZYDIS_CATEGORY_AVX2:
	case ZYDIS_CATEGORY_AVX2GATHER:
	case ZYDIS_CATEGORY_AVX512:
	case ZYDIS_CATEGORY_AVX512_4FMAPS:
	case ZYDIS_CATEGORY_AVX512_4VNNIW:
	case ZYDIS_CATEGORY_AVX512_BITALG:
	case ZYDIS_CATEGORY_AVX512_VBMI:
	case ZYDIS_CATEGORY_AVX512_VP2INTERSECT:
	case ZYDIS_CATEGORY_BLEND:
	case ZYDIS_CATEGORY_BROADCAST:
	case ZYDIS_CATEGORY_COMPRESS:
	case ZYDIS_CATEGORY_CONFLICT:
	case ZYDIS_CATEGORY_EXPAND:
	case ZYDIS_CATEGORY_FMA4:
	case ZYDIS_CATEGORY_FP16:
	case ZYDIS_CATEGORY_GATHER:
	case ZYDIS_CATEGORY_SCATTER:
	case ZYDIS_CATEGORY_IFMA:
	case ZYDIS_CATEGORY_KMASK:
	case ZYDIS_CATEGORY_LOGICAL_FP:
	case ZYDIS_CATEGORY_MMX:
	case ZYDIS_CATEGORY_AMD3DNOW:
	case ZYDIS_CATEGORY_STTNI:
	case ZYDIS_CATEGORY_VBMI2:
	case ZYDIS_CATEGORY_VEX:
	case ZYDIS_CATEGORY_VFMA:
	case ZYDIS_CATEGORY_XOP:
	case ZYDIS_CATEGORY_UFMA:
		if (hint == ITRACE_CLASS_MOVE)
			return dataxfer_class(x);
		return hint == HINT_NONE ? ITRACE_CLASS_VEC_ALU : hint;
	default:
		/* SYSCALL, SYSRET, INTERRUPT, SYSTEM, XSAVE, RDRAND, RDWRFSGS,
		 * CLFLUSHOPT, CLWB, SGX, VTX, PKU, IO, SEGOP, WAITPKG, ... */
		return ITRACE_CLASS_SYSTEM;
	}
}

/* vec_bits - the operation's vector length: 0 for scalar work and for
 * VEX/EVEX instructions without vector registers (BMI, mask moves). */
static unsigned vec_bits(const struct x86_ctx *x, unsigned cls)
{
	const ZydisDecodedInstruction *in = x->in;
	unsigned bits = 0;

	if (x->d->zclass[in->mnemonic] & HINT_SCALAR)
		return 0;
	if (cls == ITRACE_CLASS_MATRIX || cls == ITRACE_CLASS_SYSTEM ||
	    in->meta.category == ZYDIS_CATEGORY_AMX_TILE)
		return 0;
	for (unsigned i = 0; i < in->operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &x->ops[i];

		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		switch (ZydisRegisterGetClass(op->reg.value)) {
		case ZYDIS_REGCLASS_XMM:
			bits = bits > 128 ? bits : 128;
			break;
		case ZYDIS_REGCLASS_YMM:
			bits = bits > 256 ? bits : 256;
			break;
		case ZYDIS_REGCLASS_ZMM:
			bits = 512;
			break;
		case ZYDIS_REGCLASS_MMX:
			bits = bits > 64 ? bits : 64;
			break;
		default:
			break;
		}
	}
	/* the encoded length wins where there is one (a 512-bit operation
	 * may name an xmm register: vpmovzxbw zmm, ymm) */
	if (bits && in->avx.vector_length &&
	    (in->encoding == ZYDIS_INSTRUCTION_ENCODING_VEX || in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX ||
	     in->encoding == ZYDIS_INSTRUCTION_ENCODING_XOP))
		return in->avx.vector_length;
	return bits;
}

/*
 * add/sub/inc/dec of a 32- or 64-bit register with an immediate: Golden
 * Cove's renamer folds these into the register's mapping instead of
 * executing them in order on an ALU (Intel Optimization Reference Manual,
 * Golden Cove microarchitecture; chipsandcheese.com, "Popping the Hood on
 * Golden Cove").  The decoder names the candidates; a core model decides.
 */
static int add_immediate(const struct x86_ctx *x)
{
	ZydisRegister r[4];
	unsigned n;

	switch (x->in->mnemonic) {
	case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB:
		if (!x->has_imm)
			return 0;
		break;
	case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC:
		break;
	default:
		return 0;
	}
	n = visible_regs(x, r, 4);
	return n == 1 && (ZydisRegisterGetClass(r[0]) == ZYDIS_REGCLASS_GPR64 ||
			  ZydisRegisterGetClass(r[0]) == ZYDIS_REGCLASS_GPR32);
}

static void attributes(struct x86_ctx *x)
{
	const ZydisDecodedInstruction *in = x->in;
	struct itrace_insn_info *out = x->out;

	if ((in->attributes & ZYDIS_ATTRIB_HAS_LOCK) ||
	    (in->mnemonic == ZYDIS_MNEMONIC_XCHG && x->mem_read && x->mem_write))
		out->attrs |= ITRACE_ATTR_LOCK; /* xchg with memory locks (SDM, XCHG) */
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO: case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		out->attrs |= ITRACE_ATTR_TRAP;
		break;
	default:
		break;
	}
	/* the prefixes Zydis accepts as repe/repne: cmps and scas only (the
	 * others' F3 is rep, whatever the flags) */
	if (out->d.flags & ITRACE_DECODED_REP) {
		if (in->attributes & ZYDIS_ATTRIB_HAS_REPE)
			out->attrs |= ITRACE_ATTR_REPE;
		else if (in->attributes & ZYDIS_ATTRIB_HAS_REPNE)
			out->attrs |= ITRACE_ATTR_REPNE;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_CPUID: case ZYDIS_MNEMONIC_SERIALIZE: case ZYDIS_MNEMONIC_LFENCE:
	case ZYDIS_MNEMONIC_MFENCE: case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO: case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ: case ZYDIS_MNEMONIC_WRMSR: case ZYDIS_MNEMONIC_XSETBV:
	case ZYDIS_MNEMONIC_RDTSCP:
		out->attrs |= ITRACE_ATTR_SERIALIZING;
		break;
	default:
		break;
	}
}

static int dec_x86_info(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
			struct itrace_insn_info *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	struct x86_ctx x = {d, &in, ops, out, 0, 0, 0, 0};

	pthread_once(&tables_once, build_tables);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->zfull, code, avail, &in, ops)))
		return -ITRACE_E_DECODE;
	fill_decoded(&in, addr, &out->d);
	collect_operands(&x);
	attributes(&x);
	out->cls = (uint8_t)x86_class(&x);
	if (out->cls == ITRACE_CLASS_INT_ALU && (out->attrs & ITRACE_ATTR_LOCK) &&
	    (x.mem_read || x.mem_write))
		out->cls = ITRACE_CLASS_ATOMIC; /* lock add [m], ... */
	out->vec_bits = (uint16_t)vec_bits(&x, out->cls);
	out->op_bits = (uint8_t)in.operand_width;
	idioms(&x);
	if (add_immediate(&x))
		out->attrs |= ITRACE_ATTR_ADD_IMM;
	return 0;
}

static int dec_x86_text(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
			char *buf, size_t cap)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->zfull, code, avail, &in, ops)))
		return -ITRACE_E_DECODE;
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->zfmt, &in, ops, in.operand_count_visible,
							  buf, cap, addr, NULL)))
		buf[0] = '\0'; /* only when `cap` is too small for anything */
	return in.length;
}

static const char *dec_x86_reg_name(unsigned reg)
{
	static const char *const gpr[16] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
	};
	static const char *const vec[32] = {
		"zmm0",	 "zmm1",  "zmm2",  "zmm3",  "zmm4",  "zmm5",  "zmm6",  "zmm7",
		"zmm8",	 "zmm9",  "zmm10", "zmm11", "zmm12", "zmm13", "zmm14", "zmm15",
		"zmm16", "zmm17", "zmm18", "zmm19", "zmm20", "zmm21", "zmm22", "zmm23",
		"zmm24", "zmm25", "zmm26", "zmm27", "zmm28", "zmm29", "zmm30", "zmm31",
	};
	static const char *const k[8] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
	static const char *const st[8] = {"st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7"};
	static const char *const tmm[8] = {"tmm0", "tmm1", "tmm2", "tmm3", "tmm4", "tmm5", "tmm6", "tmm7"};
	static const char *const seg[6] = {"es", "cs", "ss", "ds", "fs", "gs"};

	if (reg >= ITRACE_REG_GPR(0) && reg < ITRACE_REG_GPR(16))
		return gpr[reg - ITRACE_REG_GPR0];
	if (reg >= ITRACE_REG_VEC(0) && reg < ITRACE_REG_VEC(32))
		return vec[reg - ITRACE_REG_VEC0];
	if (reg >= ITRACE_REG_MASK0 && reg < ITRACE_REG_MASK0 + 8)
		return k[reg - ITRACE_REG_MASK0];
	if (reg >= ITRACE_REG_X87_0 && reg < ITRACE_REG_X87_0 + 8)
		return st[reg - ITRACE_REG_X87_0];
	if (reg >= ITRACE_REG_TILE0 && reg < ITRACE_REG_TILE0 + 8)
		return tmm[reg - ITRACE_REG_TILE0];
	if (reg >= ITRACE_REG_SEG(0) && reg < ITRACE_REG_SEG(6))
		return seg[reg - ITRACE_REG_SEG0];
	switch (reg) {
	case ITRACE_REG_FLAGS:
		return "rflags";
	case ITRACE_REG_FPCTL:
		return "mxcsr";
	case ITRACE_REG_SSP:
		return "ssp";
	case ITRACE_REG_SYS:
		return "sys";
	default:
		return NULL;
	}
}

/* The x86-64 (little-endian only) back end, picked by decoder.c by ELF machine. */
const struct dec_ops dec_x86_ops = {
	.machine = EM_X86_64,
	.little_endian = 1,
	.open = dec_x86_open,
	.close = dec_x86_close,
	.decode = dec_x86_decode,
	.info = dec_x86_info,
	.text = dec_x86_text,
	.reg_name = dec_x86_reg_name,
};
