/*
 * decoder_ppc_isa.c - libitrace's own POWER instruction table.
 *
 * Capstone 4 predates Power ISA 3.0 (POWER9) and 3.1 (POWER10) and misses
 * part of ISA 2.07 (POWER8), all of which glibc, libstdc++ and GCC with
 * -mcpu=power9/power10 emit.  This table knows, from the instruction
 * fields:
 *   - every load and store form (Book I, "Fixed-Point Load and Store
 *     Instructions", "Floating-Point Load and Store Instructions",
 *     "Vector Load/Store Instructions", "VSX Storage Access Instructions",
 *     "Load And Reserve and Store Conditional Instructions", "Atomic
 *     Memory Operations"), for capstone-known ones too: their size,
 *     direction and addressing are the memory operands;
 *   - the ISA 2.07/3.0/3.1 instructions capstone 4 cannot decode
 *     (fixed-point "Fixed-Point Arithmetic/Logical Instructions" additions,
 *     "Move To/From VSR", VSX scalar single and quad precision, vector
 *     integer, the "Set Boolean" and byte-reverse instructions, ...);
 *   - the prefixed instructions of ISA 3.1 (Book I, 1.6.3 "Instruction
 *     Prefix Formats": 8LS, MLS and 8RR forms): one 8-byte instruction.
 * Opcode values are those of the ISA's "Appendix: Opcode Maps".
 *
 * Bit numbers in comments are the ISA's: bit 0 is the most significant
 * bit of the 32-bit word.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "decoder_int.h"

/* ---- Fields --------------------------------------------------------------- */

#define F_RT(w) (((w) >> 21) & 31) /* bits 6-10 */
#define F_RA(w) (((w) >> 16) & 31) /* bits 11-15 */
#define F_RB(w) (((w) >> 11) & 31) /* bits 16-20 */
#define F_RC(w) (((w) >> 6) & 31)  /* bits 21-25 */

/* Operand codes: which field, which register file, read or written. */
enum {
	O_END = 0,
	O_RT_W,	  /* GPR bits 6-10, written */
	O_RS_R,	  /* GPR bits 6-10, read */
	O_RA_W,	  /* GPR bits 11-15, written (logical ops: RA is the target) */
	O_RA_R,	  /* GPR bits 11-15, read */
	O_RA0_R,  /* GPR bits 11-15, read; 0 reads as the value 0 */
	O_RB_R,	  /* GPR bits 16-20, read */
	O_RC_R,	  /* GPR bits 21-25, read */
	O_RTP_W,  /* GPR pair RT, RT+1, written */
	O_RSP_R,  /* GPR pair, read */
	O_VT_W,	  /* VR bits 6-10, written */
	O_VT_RW,  /* VR bits 6-10, read and written */
	O_VS_R,	  /* VR bits 6-10, read */
	O_VA_R,	  /* VR bits 11-15 */
	O_VB_R,	  /* VR bits 16-20 */
	O_VC_R,	  /* VR bits 21-25 */
	O_XT_W,	  /* VSR T bits 6-10 + TX bit 31, written */
	O_XT_RW,  /* ... read and written */
	O_XS_R,	  /* VSR S bits 6-10 + SX bit 31, read */
	O_XA_R,	  /* VSR A bits 11-15 + AX bit 29 */
	O_XB_R,	  /* VSR B bits 16-20 + BX bit 30 */
	O_XC_R,	  /* VSR C bits 21-25 + CX bit 28 (XX4) */
	O_XTQ_W,  /* VSR T bits 6-10 + TX bit 28 (DQ form), written */
	O_XSQ_R,  /* ... read */
	O_XTP_W,  /* VSR pair Tp bits 6-9 + TX bit 10, written */
	O_XSP_R,  /* ... read */
	O_XT8_W,  /* VSR T bits 6-10 + TX bit 15 (8RR suffix), written */
	O_XT8_RW,
	O_XT4_W,  /* VSR T bits 6-10 + TX bit 31 with XX4 (same as XT) */
	O_QT_W,	  /* VR bits 6-10 as quad-precision VSR 32+n, written */
	O_QT_RW,
	O_QA_R,
	O_QB_R,
	O_FT_W,	  /* FPR bits 6-10, written */
	O_FTP_W,  /* FPR pair, written */
	O_FS_R,	  /* FPR bits 6-10, read */
	O_FSP_R,
	O_FB_R,	  /* FPR bits 16-20, read */
	O_BF_W,	  /* CR field bits 6-8, written */
	O_BFA_R,  /* CR field bits 11-13, read */
	O_BI_R,	  /* CR bit bits 11-15: its field, read */
	O_MEM,	  /* the memory operand, as text d(ra) or ra, rb */
	O_IMM,	  /* an immediate (text only): the entry's imm field says which */
	O_IMM2,	  /* a second immediate, the field after it (see imm2_of) */
};

/* Immediate fields for O_IMM (text only). */
enum {
	I_NONE,
	I_U8_13,     /* bits 13-20 (xxspltib) */
	I_SH6,	     /* bits 16-20 and bit 30 (extswsli) */
	I_UIM4_12,   /* bits 12-15 */
	I_U2_14,     /* bits 14-15 (darn L) */
	I_U3_13,     /* bits 13-15 */
	I_U3_18,     /* bits 18-20 */
	I_U2_19,     /* bits 19-20 */
	I_U5_16,     /* bits 16-20 */
	I_U5_11,     /* bits 11-15 */
	I_U1_10,     /* bit 10 */
	I_U2_21,     /* bits 21-22 */
	I_U3_23,     /* bits 23-25 */
	I_U1_16,     /* bit 16 */
	I_U1_15,     /* bit 15 */
	I_D16,	     /* bits 16-31 signed (addpcis: d0 d1 d2 assembled) */
	I_LEV,	     /* bits 20-26 */
	I_U7_9,      /* bits 9-15 (DCMX of xststdcqp) */
	I_U1_31,     /* bit 31 */
	I_U4_17,     /* bits 17-20 (vshasigma SIX) */
};

/* The second immediate of an entry: RMC after R (xsrqpi), SIX after ST. */
static unsigned imm2_of(unsigned imm)
{
	return imm == I_U1_15 ? I_U2_21 : imm == I_U1_16 ? I_U4_17 : I_NONE;
}

/* Memory addressing forms. */
enum {
	MF_NONE,
	MF_D,	  /* (RA|0) + EXTS(D), D bits 16-31 */
	MF_DS,	  /* (RA|0) + EXTS(DS || 0b00), DS bits 16-29 */
	MF_DQ,	  /* (RA|0) + EXTS(DQ || 0b0000), DQ bits 16-27 */
	MF_X,	  /* (RA|0) + (RB) */
	MF_XLEN,  /* (RA|0), bytes = min(16, RB bits 0-7) (lxvl, stxvl) */
	MF_XNB,	  /* (RA|0), bytes = NB bits 16-20 (0 = 32) (lswi) */
	MF_XRA,	  /* (RA|0) only, length elsewhere (lswx: XER) or an AMO */
	MF_ADDR,  /* (RA|0) + (RB), address only (dcbt, lvsl) */
};

/* Entry flags. */
enum {
	P_STORE = 1u << 0,   /* the memory operand is written (else read) */
	P_RMW = 1u << 1,     /* read and written (atomic memory operations) */
	P_UPDATE = 1u << 2,  /* RA receives the effective address */
	P_RC0 = 1u << 3,     /* bit 31 is Rc: '.' sets CR0 */
	P_RC6 = 1u << 4,     /* bit 21 is Rc: '.' sets CR6 (vector compares) */
	P_DOT = 1u << 5,     /* always a record form: sets CR0 */
	P_XER_R = 1u << 6,
	P_XER_W = 1u << 7,
	P_FPSCR_R = 1u << 8,
	P_FPSCR_W = 1u << 9,
	P_V128 = 1u << 10,   /* a 128-bit vector operation */
	P_RO = 1u << 11,     /* bit 31 is RO: 'o' suffix (round to odd) */
	P_RESERVE = 1u << 12, /* load and reserve */
	P_COND = 1u << 13,   /* store conditional */
	P_SERIAL = 1u << 14,
	P_LMW = 1u << 15,    /* size = 4 * (32 - RT) */
	P_EX = 1u << 16,     /* bit 31 is EX: 'x' suffix (xsrqpix) */
};

struct ppc_op {
	uint32_t mask, match;
	const char *name;
	uint8_t cls;
	uint8_t opnd[5];
	uint8_t imm;	/* I_* for an O_IMM operand */
	uint8_t mform;	/* MF_* */
	uint8_t size;	/* bytes accessed */
	uint8_t align;	/* EA rounded down to this (lvx: 16) */
	uint32_t flags; /* P_* */
};

/* Encoding helpers: primary opcode and extended opcode placements. */
#define PO(p) ((uint32_t)(p) << 26)
#define M_PO 0xfc000000u
#define X(xo) (PO(31) | (uint32_t)(xo) << 1)	   /* X-form, XO bits 21-30 */
#define M_X 0xfc0007feu				   /* ... bit 31 free */
#define M_X1 0xfc0007ffu			   /* ... bit 31 fixed */
#define XP(p, xo) (PO(p) | (uint32_t)(xo) << 1)	   /* X-form of another PO */
#define VX(xo) (PO(4) | (uint32_t)(xo))		   /* VX-form, XO bits 21-31 */
#define M_VX 0xfc0007ffu
#define M_VX0 0xfc1f07ffu			   /* ... with bits 11-15 fixed */
#define VXA(xo, ra) (VX(xo) | (uint32_t)(ra) << 16)
#define M_VC 0xfc0003ffu			   /* VC-form: XO bits 22-31 */
#define VA(xo) (PO(4) | (uint32_t)(xo))		   /* VA-form, XO bits 26-31 */
#define M_VA 0xfc00003fu
#define XX2(xo) (PO(60) | (uint32_t)(xo) << 2)	   /* XX2: XO bits 21-29 */
#define M_XX2 0xfc1f07fcu
#define XX2A(xo, a) (XX2(xo) | (uint32_t)(a) << 16) /* ... bits 11-15 = a */
#define XX3(xo) (PO(60) | (uint32_t)(xo) << 3)	   /* XX3: XO bits 21-28 */
#define M_XX3 0xfc0007f8u
#define X63(xo) XP(63, xo)
#define X63A(xo, a) (XP(63, xo) | (uint32_t)(a) << 16)
#define M_X63A 0xfc1f07feu

#define LS(n, po_xo, m, cls, o1, o2, mf, sz, al, fl) \
	{ m, po_xo, n, cls, { o1, o2, 0, 0, 0 }, I_NONE, mf, sz, al, fl }
#define OP(n, match, m, cls, o1, o2, o3, o4, imm, fl) \
	{ m, match, n, cls, { o1, o2, o3, o4, 0 }, imm, MF_NONE, 0, 1, fl }

#define L ITRACE_CLASS_LOAD
#define S ITRACE_CLASS_STORE
#define A ITRACE_CLASS_ATOMIC
#define ALU ITRACE_CLASS_INT_ALU
#define VALU ITRACE_CLASS_VEC_ALU
#define VMUL ITRACE_CLASS_VEC_MUL
#define VSHUF ITRACE_CLASS_VEC_SHUFFLE
#define FADD ITRACE_CLASS_FP_ADD
#define FMUL ITRACE_CLASS_FP_MUL
#define FFMA ITRACE_CLASS_FP_FMA
#define FDIV ITRACE_CLASS_FP_DIV
#define FSQRT ITRACE_CLASS_FP_SQRT
#define MOV ITRACE_CLASS_MOVE
#define SYS ITRACE_CLASS_SYSTEM

/*
 * Loads and stores, every form of ISA 3.1.  D/DS/DQ forms match on the
 * primary opcode (and the DS/DQ extended opcode), X forms on XO.
 */
static const struct ppc_op mem_ops[] = {
	/* D-form (Book I, 3.3.2-3.3.5, 4.6.2-4.6.3) */
	LS("lwz", PO(32), M_PO, L, O_RT_W, O_MEM, MF_D, 4, 1, 0),
	LS("lwzu", PO(33), M_PO, L, O_RT_W, O_MEM, MF_D, 4, 1, P_UPDATE),
	LS("lbz", PO(34), M_PO, L, O_RT_W, O_MEM, MF_D, 1, 1, 0),
	LS("lbzu", PO(35), M_PO, L, O_RT_W, O_MEM, MF_D, 1, 1, P_UPDATE),
	LS("stw", PO(36), M_PO, S, O_RS_R, O_MEM, MF_D, 4, 1, P_STORE),
	LS("stwu", PO(37), M_PO, S, O_RS_R, O_MEM, MF_D, 4, 1, P_STORE | P_UPDATE),
	LS("stb", PO(38), M_PO, S, O_RS_R, O_MEM, MF_D, 1, 1, P_STORE),
	LS("stbu", PO(39), M_PO, S, O_RS_R, O_MEM, MF_D, 1, 1, P_STORE | P_UPDATE),
	LS("lhz", PO(40), M_PO, L, O_RT_W, O_MEM, MF_D, 2, 1, 0),
	LS("lhzu", PO(41), M_PO, L, O_RT_W, O_MEM, MF_D, 2, 1, P_UPDATE),
	LS("lha", PO(42), M_PO, L, O_RT_W, O_MEM, MF_D, 2, 1, 0),
	LS("lhau", PO(43), M_PO, L, O_RT_W, O_MEM, MF_D, 2, 1, P_UPDATE),
	LS("sth", PO(44), M_PO, S, O_RS_R, O_MEM, MF_D, 2, 1, P_STORE),
	LS("sthu", PO(45), M_PO, S, O_RS_R, O_MEM, MF_D, 2, 1, P_STORE | P_UPDATE),
	LS("lmw", PO(46), M_PO, L, O_RT_W, O_MEM, MF_D, 0, 1, P_LMW),
	LS("stmw", PO(47), M_PO, S, O_RS_R, O_MEM, MF_D, 0, 1, P_STORE | P_LMW),
	LS("lfs", PO(48), M_PO, L, O_FT_W, O_MEM, MF_D, 4, 1, 0),
	LS("lfsu", PO(49), M_PO, L, O_FT_W, O_MEM, MF_D, 4, 1, P_UPDATE),
	LS("lfd", PO(50), M_PO, L, O_FT_W, O_MEM, MF_D, 8, 1, 0),
	LS("lfdu", PO(51), M_PO, L, O_FT_W, O_MEM, MF_D, 8, 1, P_UPDATE),
	LS("stfs", PO(52), M_PO, S, O_FS_R, O_MEM, MF_D, 4, 1, P_STORE),
	LS("stfsu", PO(53), M_PO, S, O_FS_R, O_MEM, MF_D, 4, 1, P_STORE | P_UPDATE),
	LS("stfd", PO(54), M_PO, S, O_FS_R, O_MEM, MF_D, 8, 1, P_STORE),
	LS("stfdu", PO(55), M_PO, S, O_FS_R, O_MEM, MF_D, 8, 1, P_STORE | P_UPDATE),
	/* DQ/DS-form: lq, ld/ldu/lwa, std/stdu/stq, lfdp/stfdp, and the
	 * ISA 3.0 VSX scalar and vector forms sharing opcodes 57 and 61 */
	LS("lq", PO(56), 0xfc00000fu, L, O_RTP_W, O_MEM, MF_DQ, 16, 1, 0),
	LS("lfdp", PO(57) | 0, 0xfc000003u, L, O_FTP_W, O_MEM, MF_DS, 16, 1, 0),
	LS("lxsd", PO(57) | 2, 0xfc000003u, L, O_VT_W, O_MEM, MF_DS, 8, 1, 0),
	LS("lxssp", PO(57) | 3, 0xfc000003u, L, O_VT_W, O_MEM, MF_DS, 4, 1, 0),
	LS("ld", PO(58) | 0, 0xfc000003u, L, O_RT_W, O_MEM, MF_DS, 8, 1, 0),
	LS("ldu", PO(58) | 1, 0xfc000003u, L, O_RT_W, O_MEM, MF_DS, 8, 1, P_UPDATE),
	LS("lwa", PO(58) | 2, 0xfc000003u, L, O_RT_W, O_MEM, MF_DS, 4, 1, 0),
	LS("stfdp", PO(61) | 0, 0xfc000003u, S, O_FSP_R, O_MEM, MF_DS, 16, 1, P_STORE),
	LS("lxv", PO(61) | 1, 0xfc000007u, L, O_XTQ_W, O_MEM, MF_DQ, 16, 1, 0),
	LS("stxsd", PO(61) | 2, 0xfc000003u, S, O_VS_R, O_MEM, MF_DS, 8, 1, P_STORE),
	LS("stxssp", PO(61) | 3, 0xfc000003u, S, O_VS_R, O_MEM, MF_DS, 4, 1, P_STORE),
	LS("stxv", PO(61) | 5, 0xfc000007u, S, O_XSQ_R, O_MEM, MF_DQ, 16, 1, P_STORE),
	LS("std", PO(62) | 0, 0xfc000003u, S, O_RS_R, O_MEM, MF_DS, 8, 1, P_STORE),
	LS("stdu", PO(62) | 1, 0xfc000003u, S, O_RS_R, O_MEM, MF_DS, 8, 1, P_STORE | P_UPDATE),
	LS("stq", PO(62) | 2, 0xfc000003u, S, O_RSP_R, O_MEM, MF_DS, 16, 1, P_STORE),
	/* ISA 3.1 paired vector loads/stores (DQ-form, opcode 6) */
	LS("lxvp", PO(6) | 0, 0xfc00000fu, L, O_XTP_W, O_MEM, MF_DQ, 32, 1, 0),
	LS("stxvp", PO(6) | 1, 0xfc00000fu, S, O_XSP_R, O_MEM, MF_DQ, 32, 1, P_STORE),
	/* X-form fixed-point */
	LS("lwzx", X(23), M_X1, L, O_RT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lwzux", X(55), M_X1, L, O_RT_W, O_MEM, MF_X, 4, 1, P_UPDATE),
	LS("lbzx", X(87), M_X1, L, O_RT_W, O_MEM, MF_X, 1, 1, 0),
	LS("lbzux", X(119), M_X1, L, O_RT_W, O_MEM, MF_X, 1, 1, P_UPDATE),
	LS("stwx", X(151), M_X1, S, O_RS_R, O_MEM, MF_X, 4, 1, P_STORE),
	LS("stwux", X(183), M_X1, S, O_RS_R, O_MEM, MF_X, 4, 1, P_STORE | P_UPDATE),
	LS("stbx", X(215), M_X1, S, O_RS_R, O_MEM, MF_X, 1, 1, P_STORE),
	LS("stbux", X(247), M_X1, S, O_RS_R, O_MEM, MF_X, 1, 1, P_STORE | P_UPDATE),
	LS("lhzx", X(279), M_X1, L, O_RT_W, O_MEM, MF_X, 2, 1, 0),
	LS("lhzux", X(311), M_X1, L, O_RT_W, O_MEM, MF_X, 2, 1, P_UPDATE),
	LS("lhax", X(343), M_X1, L, O_RT_W, O_MEM, MF_X, 2, 1, 0),
	LS("lhaux", X(375), M_X1, L, O_RT_W, O_MEM, MF_X, 2, 1, P_UPDATE),
	LS("sthx", X(407), M_X1, S, O_RS_R, O_MEM, MF_X, 2, 1, P_STORE),
	LS("sthux", X(439), M_X1, S, O_RS_R, O_MEM, MF_X, 2, 1, P_STORE | P_UPDATE),
	LS("ldx", X(21), M_X1, L, O_RT_W, O_MEM, MF_X, 8, 1, 0),
	LS("ldux", X(53), M_X1, L, O_RT_W, O_MEM, MF_X, 8, 1, P_UPDATE),
	LS("stdx", X(149), M_X1, S, O_RS_R, O_MEM, MF_X, 8, 1, P_STORE),
	LS("stdux", X(181), M_X1, S, O_RS_R, O_MEM, MF_X, 8, 1, P_STORE | P_UPDATE),
	LS("lwax", X(341), M_X1, L, O_RT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lwaux", X(373), M_X1, L, O_RT_W, O_MEM, MF_X, 4, 1, P_UPDATE),
	/* byte-reversed (Book I, 3.3.6) */
	LS("lhbrx", X(790), M_X1, L, O_RT_W, O_MEM, MF_X, 2, 1, 0),
	LS("lwbrx", X(534), M_X1, L, O_RT_W, O_MEM, MF_X, 4, 1, 0),
	LS("ldbrx", X(532), M_X1, L, O_RT_W, O_MEM, MF_X, 8, 1, 0),
	LS("sthbrx", X(918), M_X1, S, O_RS_R, O_MEM, MF_X, 2, 1, P_STORE),
	LS("stwbrx", X(662), M_X1, S, O_RS_R, O_MEM, MF_X, 4, 1, P_STORE),
	LS("stdbrx", X(660), M_X1, S, O_RS_R, O_MEM, MF_X, 8, 1, P_STORE),
	/* load and reserve (bit 31 is the EH hint), store conditional (Rc = 1)
	 * (Book II, 4.4.2) */
	LS("lbarx", X(52), M_X, A, O_RT_W, O_MEM, MF_X, 1, 1, P_RESERVE),
	LS("lharx", X(116), M_X, A, O_RT_W, O_MEM, MF_X, 2, 1, P_RESERVE),
	LS("lwarx", X(20), M_X, A, O_RT_W, O_MEM, MF_X, 4, 1, P_RESERVE),
	LS("ldarx", X(84), M_X, A, O_RT_W, O_MEM, MF_X, 8, 1, P_RESERVE),
	LS("lqarx", X(276), M_X, A, O_RTP_W, O_MEM, MF_X, 16, 1, P_RESERVE),
	LS("stbcx.", X(694) | 1, M_X1, A, O_RS_R, O_MEM, MF_X, 1, 1, P_STORE | P_COND | P_DOT),
	LS("sthcx.", X(726) | 1, M_X1, A, O_RS_R, O_MEM, MF_X, 2, 1, P_STORE | P_COND | P_DOT),
	LS("stwcx.", X(150) | 1, M_X1, A, O_RS_R, O_MEM, MF_X, 4, 1, P_STORE | P_COND | P_DOT),
	LS("stdcx.", X(214) | 1, M_X1, A, O_RS_R, O_MEM, MF_X, 8, 1, P_STORE | P_COND | P_DOT),
	LS("stqcx.", X(182) | 1, M_X1, A, O_RSP_R, O_MEM, MF_X, 16, 1, P_STORE | P_COND | P_DOT),
	/* atomic memory operations (Book II, 4.5): FC in the RB field */
	LS("lwat", X(582), M_X1, A, O_RT_W, O_MEM, MF_XRA, 4, 1, P_RMW),
	LS("ldat", X(614), M_X1, A, O_RT_W, O_MEM, MF_XRA, 8, 1, P_RMW),
	LS("stwat", X(710), M_X1, A, O_RS_R, O_MEM, MF_XRA, 4, 1, P_RMW),
	LS("stdat", X(742), M_X1, A, O_RS_R, O_MEM, MF_XRA, 8, 1, P_RMW),
	/* string and multiple (Book I, 3.3.7) */
	LS("lswi", X(597), M_X1, L, O_RT_W, O_MEM, MF_XNB, 0, 1, 0),
	LS("lswx", X(533), M_X1, L, O_RT_W, O_MEM, MF_X, 0, 1, P_XER_R),
	LS("stswi", X(725), M_X1, S, O_RS_R, O_MEM, MF_XNB, 0, 1, P_STORE),
	LS("stswx", X(661), M_X1, S, O_RS_R, O_MEM, MF_X, 0, 1, P_STORE | P_XER_R),
	/* floating point (Book I, 4.6) */
	LS("lfsx", X(535), M_X1, L, O_FT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lfsux", X(567), M_X1, L, O_FT_W, O_MEM, MF_X, 4, 1, P_UPDATE),
	LS("lfdx", X(599), M_X1, L, O_FT_W, O_MEM, MF_X, 8, 1, 0),
	LS("lfdux", X(631), M_X1, L, O_FT_W, O_MEM, MF_X, 8, 1, P_UPDATE),
	LS("stfsx", X(663), M_X1, S, O_FS_R, O_MEM, MF_X, 4, 1, P_STORE),
	LS("stfsux", X(695), M_X1, S, O_FS_R, O_MEM, MF_X, 4, 1, P_STORE | P_UPDATE),
	LS("stfdx", X(727), M_X1, S, O_FS_R, O_MEM, MF_X, 8, 1, P_STORE),
	LS("stfdux", X(759), M_X1, S, O_FS_R, O_MEM, MF_X, 8, 1, P_STORE | P_UPDATE),
	LS("lfiwax", X(855), M_X1, L, O_FT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lfiwzx", X(887), M_X1, L, O_FT_W, O_MEM, MF_X, 4, 1, 0),
	LS("stfiwx", X(983), M_X1, S, O_FS_R, O_MEM, MF_X, 4, 1, P_STORE),
	LS("lfdpx", X(791), M_X1, L, O_FTP_W, O_MEM, MF_X, 16, 1, 0),
	LS("stfdpx", X(919), M_X1, S, O_FSP_R, O_MEM, MF_X, 16, 1, P_STORE),
	/* vector (Book I, 6.7.2-6.7.3): EA aligned to the element */
	LS("lvebx", X(7), M_X1, L, O_VT_W, O_MEM, MF_X, 1, 1, P_V128),
	LS("lvehx", X(39), M_X1, L, O_VT_W, O_MEM, MF_X, 2, 2, P_V128),
	LS("lvewx", X(71), M_X1, L, O_VT_W, O_MEM, MF_X, 4, 4, P_V128),
	LS("lvx", X(103), M_X1, L, O_VT_W, O_MEM, MF_X, 16, 16, P_V128),
	LS("lvxl", X(359), M_X1, L, O_VT_W, O_MEM, MF_X, 16, 16, P_V128),
	LS("stvebx", X(135), M_X1, S, O_VS_R, O_MEM, MF_X, 1, 1, P_STORE | P_V128),
	LS("stvehx", X(167), M_X1, S, O_VS_R, O_MEM, MF_X, 2, 2, P_STORE | P_V128),
	LS("stvewx", X(199), M_X1, S, O_VS_R, O_MEM, MF_X, 4, 4, P_STORE | P_V128),
	LS("stvx", X(231), M_X1, S, O_VS_R, O_MEM, MF_X, 16, 16, P_STORE | P_V128),
	LS("stvxl", X(487), M_X1, S, O_VS_R, O_MEM, MF_X, 16, 16, P_STORE | P_V128),
	LS("lvsl", X(6), M_X1, VSHUF, O_VT_W, O_MEM, MF_ADDR, 0, 1, P_V128),
	LS("lvsr", X(38), M_X1, VSHUF, O_VT_W, O_MEM, MF_ADDR, 0, 1, P_V128),
	/* VSX (Book I, 7.6.1): XX1-form, TX/SX in bit 31 */
	LS("lxsiwzx", X(12), M_X, L, O_XT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lxsiwax", X(76), M_X, L, O_XT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lxsspx", X(524), M_X, L, O_XT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lxsdx", X(588), M_X, L, O_XT_W, O_MEM, MF_X, 8, 1, 0),
	LS("lxsibzx", X(781), M_X, L, O_XT_W, O_MEM, MF_X, 1, 1, 0),
	LS("lxsihzx", X(813), M_X, L, O_XT_W, O_MEM, MF_X, 2, 1, 0),
	LS("lxvd2x", X(844), M_X, L, O_XT_W, O_MEM, MF_X, 16, 1, P_V128),
	LS("lxvw4x", X(780), M_X, L, O_XT_W, O_MEM, MF_X, 16, 1, P_V128),
	LS("lxvh8x", X(812), M_X, L, O_XT_W, O_MEM, MF_X, 16, 1, P_V128),
	LS("lxvb16x", X(876), M_X, L, O_XT_W, O_MEM, MF_X, 16, 1, P_V128),
	LS("lxvdsx", X(332), M_X, L, O_XT_W, O_MEM, MF_X, 8, 1, P_V128),
	LS("lxvwsx", X(364), M_X, L, O_XT_W, O_MEM, MF_X, 4, 1, P_V128),
	LS("lxvx", X(268), M_X, L, O_XT_W, O_MEM, MF_X, 16, 1, P_V128),
	LS("lxvl", X(269), M_X, L, O_XT_W, O_MEM, MF_XLEN, 16, 1, P_V128),
	LS("lxvll", X(301), M_X, L, O_XT_W, O_MEM, MF_XLEN, 16, 1, P_V128),
	LS("lxvrbx", X(13), M_X, L, O_XT_W, O_MEM, MF_X, 1, 1, 0),
	LS("lxvrhx", X(45), M_X, L, O_XT_W, O_MEM, MF_X, 2, 1, 0),
	LS("lxvrwx", X(77), M_X, L, O_XT_W, O_MEM, MF_X, 4, 1, 0),
	LS("lxvrdx", X(109), M_X, L, O_XT_W, O_MEM, MF_X, 8, 1, 0),
	LS("stxsiwx", X(140), M_X, S, O_XS_R, O_MEM, MF_X, 4, 1, P_STORE),
	LS("stxsspx", X(652), M_X, S, O_XS_R, O_MEM, MF_X, 4, 1, P_STORE),
	LS("stxsdx", X(716), M_X, S, O_XS_R, O_MEM, MF_X, 8, 1, P_STORE),
	LS("stxsibx", X(909), M_X, S, O_XS_R, O_MEM, MF_X, 1, 1, P_STORE),
	LS("stxsihx", X(941), M_X, S, O_XS_R, O_MEM, MF_X, 2, 1, P_STORE),
	LS("stxvd2x", X(972), M_X, S, O_XS_R, O_MEM, MF_X, 16, 1, P_STORE | P_V128),
	LS("stxvw4x", X(908), M_X, S, O_XS_R, O_MEM, MF_X, 16, 1, P_STORE | P_V128),
	LS("stxvh8x", X(940), M_X, S, O_XS_R, O_MEM, MF_X, 16, 1, P_STORE | P_V128),
	LS("stxvb16x", X(1004), M_X, S, O_XS_R, O_MEM, MF_X, 16, 1, P_STORE | P_V128),
	LS("stxvx", X(396), M_X, S, O_XS_R, O_MEM, MF_X, 16, 1, P_STORE | P_V128),
	LS("stxvl", X(397), M_X, S, O_XS_R, O_MEM, MF_XLEN, 16, 1, P_STORE | P_V128),
	LS("stxvll", X(429), M_X, S, O_XS_R, O_MEM, MF_XLEN, 16, 1, P_STORE | P_V128),
	LS("stxvrbx", X(141), M_X, S, O_XS_R, O_MEM, MF_X, 1, 1, P_STORE),
	LS("stxvrhx", X(173), M_X, S, O_XS_R, O_MEM, MF_X, 2, 1, P_STORE),
	LS("stxvrwx", X(205), M_X, S, O_XS_R, O_MEM, MF_X, 4, 1, P_STORE),
	LS("stxvrdx", X(237), M_X, S, O_XS_R, O_MEM, MF_X, 8, 1, P_STORE),
	LS("lxvpx", X(333), M_X1, L, O_XTP_W, O_MEM, MF_X, 32, 1, P_V128),
	LS("stxvpx", X(461), M_X1, S, O_XSP_R, O_MEM, MF_X, 32, 1, P_STORE | P_V128),
	/* cache management (Book II, 4.3): addresses only, except dcbz,
	 * which zeroes a block whose size the implementation chooses */
	LS("dcbt", X(278), M_X1, ITRACE_CLASS_NOP, O_MEM, O_END, MF_ADDR, 0, 1, 0),
	LS("dcbtst", X(246), M_X1, ITRACE_CLASS_NOP, O_MEM, O_END, MF_ADDR, 0, 1, 0),
	LS("icbt", X(22), M_X1, ITRACE_CLASS_NOP, O_MEM, O_END, MF_ADDR, 0, 1, 0),
	LS("dcbf", X(86), M_X1, SYS, O_MEM, O_END, MF_ADDR, 0, 1, 0),
	LS("dcbst", X(54), M_X1, SYS, O_MEM, O_END, MF_ADDR, 0, 1, 0),
	LS("icbi", X(982), M_X1, SYS, O_MEM, O_END, MF_ADDR, 0, 1, 0),
	LS("dcbz", X(1014), M_X1, S, O_MEM, O_END, MF_X, 0, 1, P_STORE),
};

/*
 * Instructions capstone 4 does not decode, other than loads and stores.
 * Register operands name the register files the ISA gives them.
 */
static const struct ppc_op own_ops[] = {
	/* fixed point (Book I, 3.3.9-3.3.16, 3.3.20) */
	OP("cnttzw", X(538), M_X, ALU, O_RA_W, O_RS_R, 0, 0, 0, P_RC0),
	OP("cnttzd", X(570), M_X, ALU, O_RA_W, O_RS_R, 0, 0, 0, P_RC0),
	OP("cntlzdm", X(59), M_X1, ALU, O_RA_W, O_RS_R, O_RB_R, 0, 0, 0),
	OP("cnttzdm", X(571), M_X1, ALU, O_RA_W, O_RS_R, O_RB_R, 0, 0, 0),
	OP("cfuged", X(220), M_X1, ALU, O_RA_W, O_RS_R, O_RB_R, 0, 0, 0),
	OP("pdepd", X(156), M_X1, ALU, O_RA_W, O_RS_R, O_RB_R, 0, 0, 0),
	OP("pextd", X(188), M_X1, ALU, O_RA_W, O_RS_R, O_RB_R, 0, 0, 0),
	OP("bpermd", X(252), M_X1, ALU, O_RA_W, O_RS_R, O_RB_R, 0, 0, 0),
	OP("brh", X(219), 0xfc00ffffu, ALU, O_RA_W, O_RS_R, 0, 0, 0, 0),
	OP("brw", X(155), 0xfc00ffffu, ALU, O_RA_W, O_RS_R, 0, 0, 0, 0),
	OP("brd", X(187), 0xfc00ffffu, ALU, O_RA_W, O_RS_R, 0, 0, 0, 0),
	OP("modsw", X(779), M_X1, ITRACE_CLASS_INT_DIV, O_RT_W, O_RA_R, O_RB_R, 0, 0, 0),
	OP("modsd", X(777), M_X1, ITRACE_CLASS_INT_DIV, O_RT_W, O_RA_R, O_RB_R, 0, 0, 0),
	OP("moduw", X(267), M_X1, ITRACE_CLASS_INT_DIV, O_RT_W, O_RA_R, O_RB_R, 0, 0, 0),
	OP("modud", X(265), M_X1, ITRACE_CLASS_INT_DIV, O_RT_W, O_RA_R, O_RB_R, 0, 0, 0),
	OP("darn", X(755), 0xfc1cffffu, SYS, O_RT_W, O_IMM, 0, 0, I_U2_14, 0),
	OP("setb", X(128), 0xfc03ffffu, ALU, O_RT_W, O_BFA_R, 0, 0, 0, 0),
	OP("setbc", X(384), 0xfc00ffffu, ALU, O_RT_W, O_BI_R, 0, 0, 0, 0),
	OP("setbcr", X(416), 0xfc00ffffu, ALU, O_RT_W, O_BI_R, 0, 0, 0, 0),
	OP("setnbc", X(448), 0xfc00ffffu, ALU, O_RT_W, O_BI_R, 0, 0, 0, 0),
	OP("setnbcr", X(480), 0xfc00ffffu, ALU, O_RT_W, O_BI_R, 0, 0, 0, 0),
	OP("cmpeqb", X(224), 0xfc6007ffu, ALU, O_BF_W, O_RA_R, O_RB_R, 0, 0, 0),
	OP("cmprb", X(192), 0xfc4007ffu, ALU, O_BF_W, O_IMM, O_RA_R, O_RB_R, I_U1_10, 0),
	OP("mcrxrx", X(576), 0xfc7fffffu, ALU, O_BF_W, 0, 0, 0, 0, P_XER_R),
	/* extswsli: XS-form, XO bits 21-29 */
	OP("extswsli", PO(31) | 445u << 2, 0xfc0007fcu, ALU, O_RA_W, O_RS_R, O_IMM, 0, I_SH6, P_RC0),
	/* addex: Z23-form, XO bits 23-30, CY bits 21-22 */
	OP("addex", PO(31) | 170u << 1, 0xfc0001ffu, ALU, O_RT_W, O_RA_R, O_RB_R, O_IMM, I_U2_21,
	   P_XER_R | P_XER_W),
	/* addpcis (DX-form, XO bits 26-30 = 2): RT = NIA + (d << 16) */
	OP("addpcis", PO(19) | 2u << 1, 0xfc00003eu, ALU, O_RT_W, O_IMM, 0, 0, I_D16, 0),
	/* copy-paste facility (Book II, 4.4.5) */
	OP("copy", X(774) | 1u << 21, 0xffe007ffu, SYS, O_RA0_R, O_RB_R, 0, 0, 0, 0),
	OP("paste.", X(902) | 1u << 21 | 1, 0xffe007ffu, SYS, O_RA0_R, O_RB_R, 0, 0, 0, P_DOT),
	OP("cpabort", X(838), 0xffffffffu, SYS, 0, 0, 0, 0, 0, 0),
	/* transactional memory (Book II, 5) */
	OP("tbegin.", X(654) | 1, 0xffdfffffu, SYS, O_IMM, 0, 0, 0, I_U1_10, P_DOT | P_SERIAL),
	OP("tend.", X(686) | 1, 0xfdffffffu, SYS, 0, 0, 0, 0, 0, P_DOT | P_SERIAL),
	OP("tabort.", X(910) | 1, 0xffe0ffffu, SYS, O_RA_R, 0, 0, 0, 0, P_DOT | P_SERIAL),
	OP("tabortwc.", X(782) | 1, M_X1, SYS, O_IMM, O_RA_R, O_RB_R, 0, I_U5_11, P_DOT | P_SERIAL),
	OP("tabortwci.", X(846) | 1, M_X1, SYS, O_IMM, O_RA_R, 0, 0, I_U5_11, P_DOT | P_SERIAL),
	OP("tabortdc.", X(814) | 1, M_X1, SYS, O_IMM, O_RA_R, O_RB_R, 0, I_U5_11, P_DOT | P_SERIAL),
	OP("tabortdci.", X(878) | 1, M_X1, SYS, O_IMM, O_RA_R, 0, 0, I_U5_11, P_DOT | P_SERIAL),
	OP("tcheck", X(718), 0xfc7fffffu, SYS, O_BF_W, 0, 0, 0, 0, 0),
	OP("tsr.", X(750) | 1, 0xffdfffffu, SYS, O_IMM, 0, 0, 0, I_U1_10, P_DOT),
	OP("treclaim.", X(942) | 1, 0xffe0ffffu, SYS, O_RA_R, 0, 0, 0, 0, P_DOT | P_SERIAL),
	OP("trechkpt.", X(1006) | 1, 0xffffffffu, SYS, 0, 0, 0, 0, 0, P_DOT | P_SERIAL),
	/* move to/from VSR (Book I, 7.6.1.x "VSX Move Instructions") */
	OP("mfvsrd", X(51), 0xfc00fffeu, MOV, O_RA_W, O_XS_R, 0, 0, 0, 0),
	OP("mfvsrwz", X(115), 0xfc00fffeu, MOV, O_RA_W, O_XS_R, 0, 0, 0, 0),
	OP("mfvsrld", X(307), 0xfc00fffeu, MOV, O_RA_W, O_XS_R, 0, 0, 0, 0),
	OP("mtvsrd", X(179), 0xfc00fffeu, MOV, O_XT_W, O_RA_R, 0, 0, 0, 0),
	OP("mtvsrwa", X(211), 0xfc00fffeu, MOV, O_XT_W, O_RA_R, 0, 0, 0, 0),
	OP("mtvsrwz", X(243), 0xfc00fffeu, MOV, O_XT_W, O_RA_R, 0, 0, 0, 0),
	OP("mtvsrws", X(403), 0xfc00fffeu, MOV, O_XT_W, O_RA_R, 0, 0, 0, P_V128),
	OP("mtvsrdd", X(435), M_X, MOV, O_XT_W, O_RA0_R, O_RB_R, 0, 0, P_V128),
	/* VSX immediates and byte-reverse (Book I, 7.6.1) */
	OP("xxspltib", XP(60, 360), 0xfc1807feu, MOV, O_XT_W, O_IMM, 0, 0, I_U8_13, P_V128),
	OP("lxvkq", XP(60, 360) | 31u << 16, 0xfc1f07feu, MOV, O_XT_W, O_IMM, 0, 0, I_U5_16, P_V128),
	OP("xxbrh", XX2A(475, 7), M_XX2, VSHUF, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xxbrw", XX2A(475, 15), M_XX2, VSHUF, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xxbrd", XX2A(475, 23), M_XX2, VSHUF, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xxbrq", XX2A(475, 31), M_XX2, VSHUF, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xvxexpdp", XX2A(475, 0), M_XX2, VALU, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xvxsigdp", XX2A(475, 1), M_XX2, VALU, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xvxexpsp", XX2A(475, 8), M_XX2, VALU, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xvxsigsp", XX2A(475, 9), M_XX2, VALU, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xvcvbf16spn", XX2A(475, 16), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xvcvspbf16", XX2A(475, 17), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_V128),
	OP("xvcvhpsp", XX2A(475, 24), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_V128 | P_FPSCR_W),
	OP("xvcvsphp", XX2A(475, 25), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_V128 | P_FPSCR_W),
	OP("xsxexpdp", XX2A(347, 0), 0xfc1f07fdu, ALU, O_RT_W, O_XB_R, 0, 0, 0, 0),
	OP("xsxsigdp", XX2A(347, 1), 0xfc1f07fdu, ALU, O_RT_W, O_XB_R, 0, 0, 0, 0),
	OP("xscvhpdp", XX2A(347, 16), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvdphp", XX2A(347, 17), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xxextractuw", XX2(165), 0xfc1007fcu, VSHUF, O_XT_W, O_XB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("xxinsertw", XX2(181), 0xfc1007fcu, VSHUF, O_XT_RW, O_XB_R, O_IMM, 0, I_UIM4_12, P_V128),
	/* VSX scalar single precision (ISA 2.07) */
	OP("xscvdpspn", XX2(267), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, 0),
	OP("xscvspdpn", XX2(331), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, 0),
	OP("xsrsp", XX2(281), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvsxdsp", XX2(312), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvuxdsp", XX2(296), M_XX2, FADD, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xssqrtsp", XX2(11), M_XX2, FSQRT, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xsresp", XX2(26), M_XX2, FMUL, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xsrsqrtesp", XX2(10), M_XX2, FMUL, O_XT_W, O_XB_R, 0, 0, 0, P_FPSCR_W),
	OP("xsaddsp", XX3(0), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xssubsp", XX3(8), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmulsp", XX3(16), M_XX3, FMUL, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsdivsp", XX3(24), M_XX3, FDIV, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmaddasp", XX3(1), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmaddmsp", XX3(9), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmsubasp", XX3(17), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmsubmsp", XX3(25), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsnmaddasp", XX3(129), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsnmaddmsp", XX3(137), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsnmsubasp", XX3(145), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsnmsubmsp", XX3(153), M_XX3, FFMA, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	/* VSX ISA 3.0 scalar compare/min/max, permutes, exponents */
	OP("xscmpeqdp", XX3(3), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xscmpgtdp", XX3(11), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xscmpgedp", XX3(19), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmaxcdp", XX3(128), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmincdp", XX3(136), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsmaxjdp", XX3(144), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xsminjdp", XX3(152), M_XX3, FADD, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xscmpexpdp", XX3(59), 0xfc6007f9u, FADD, O_BF_W, O_XA_R, O_XB_R, 0, 0, P_FPSCR_W),
	OP("xxperm", XX3(26), M_XX3, VSHUF, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_V128),
	OP("xxpermr", XX3(58), M_XX3, VSHUF, O_XT_RW, O_XA_R, O_XB_R, 0, 0, P_V128),
	OP("xviexpsp", XX3(216), M_XX3, VALU, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_V128),
	OP("xviexpdp", XX3(248), M_XX3, VALU, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_V128),
	OP("xxleqv", XX3(186), M_XX3, VALU, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_V128),
	OP("xxlnand", XX3(178), M_XX3, VALU, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_V128),
	OP("xxlorc", XX3(170), M_XX3, VALU, O_XT_W, O_XA_R, O_XB_R, 0, 0, P_V128),
	OP("xsiexpdp", XP(60, 918), M_X, VALU, O_XT_W, O_RA_R, O_RB_R, 0, 0, 0),
	OP("xxgenpcvbm", XP(60, 916), M_X, VSHUF, O_XT_W, O_VB_R, O_IMM, 0, I_U5_11, P_V128),
	OP("xxgenpcvhm", XP(60, 917), M_X, VSHUF, O_XT_W, O_VB_R, O_IMM, 0, I_U5_11, P_V128),
	OP("xxgenpcvwm", XP(60, 948), M_X, VSHUF, O_XT_W, O_VB_R, O_IMM, 0, I_U5_11, P_V128),
	OP("xxgenpcvdm", XP(60, 949), M_X, VSHUF, O_XT_W, O_VB_R, O_IMM, 0, I_U5_11, P_V128),
	/* FPSCR moves (Book I, 4.6.10 "Floating-Point Status and Control
	 * Register Instructions"): mffs with bits 11-15 selecting the form */
	OP("mffsce", X63A(583, 1), 0xfc1fffffu, SYS, O_FT_W, 0, 0, 0, 0, P_FPSCR_R | P_FPSCR_W),
	OP("mffscdrn", X63A(583, 20), 0xfc1f07ffu, SYS, O_FT_W, O_FB_R, 0, 0, 0, P_FPSCR_R | P_FPSCR_W),
	OP("mffscdrni", X63A(583, 21), 0xfc1fc7ffu, SYS, O_FT_W, O_IMM, 0, 0, I_U3_18, P_FPSCR_R | P_FPSCR_W),
	OP("mffscrn", X63A(583, 22), 0xfc1f07ffu, SYS, O_FT_W, O_FB_R, 0, 0, 0, P_FPSCR_R | P_FPSCR_W),
	OP("mffscrni", X63A(583, 23), 0xfc1fe7ffu, SYS, O_FT_W, O_IMM, 0, 0, I_U2_19, P_FPSCR_R | P_FPSCR_W),
	OP("mffsl", X63A(583, 24), 0xfc1fffffu, MOV, O_FT_W, 0, 0, 0, 0, P_FPSCR_R),
	/* VSX scalar quad precision (Book I, 7.6.1, ISA 3.0): VRs as VSR 32-63 */
	OP("xsaddqp", X63(4), M_X, FADD, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xsmulqp", X63(36), M_X, FMUL, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xsdivqp", X63(548), M_X, FDIV, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xssubqp", X63(516), M_X, FADD, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xsmaddqp", X63(388), M_X, FFMA, O_QT_RW, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xsmsubqp", X63(420), M_X, FFMA, O_QT_RW, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xsnmaddqp", X63(452), M_X, FFMA, O_QT_RW, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xsnmsubqp", X63(484), M_X, FFMA, O_QT_RW, O_QA_R, O_QB_R, 0, 0, P_RO | P_FPSCR_W),
	OP("xscpsgnqp", X63(100), M_X1, VALU, O_QT_W, O_QA_R, O_QB_R, 0, 0, 0),
	OP("xscmpoqp", X63(132), 0xfc6007ffu, FADD, O_BF_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xscmpuqp", X63(644), 0xfc6007ffu, FADD, O_BF_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xscmpexpqp", X63(164), 0xfc6007ffu, FADD, O_BF_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xscmpeqqp", X63(68), M_X1, FADD, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xscmpgeqp", X63(196), M_X1, FADD, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xscmpgtqp", X63(228), M_X1, FADD, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xsmaxcqp", X63(676), M_X1, FADD, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xsmincqp", X63(740), M_X1, FADD, O_QT_W, O_QA_R, O_QB_R, 0, 0, P_FPSCR_W),
	OP("xsiexpqp", X63(868), M_X1, VALU, O_QT_W, O_QA_R, O_QB_R, 0, 0, 0),
	OP("xststdcqp", X63(708), 0xfc0007ffu, FADD, O_BF_W, O_QB_R, O_IMM, 0, I_U7_9, 0),
	OP("xsabsqp", X63A(804, 0), M_X63A | 1, VALU, O_QT_W, O_QB_R, 0, 0, 0, 0),
	OP("xsxexpqp", X63A(804, 2), M_X63A | 1, VALU, O_QT_W, O_QB_R, 0, 0, 0, 0),
	OP("xsnabsqp", X63A(804, 8), M_X63A | 1, VALU, O_QT_W, O_QB_R, 0, 0, 0, 0),
	OP("xsnegqp", X63A(804, 16), M_X63A | 1, VALU, O_QT_W, O_QB_R, 0, 0, 0, 0),
	OP("xsxsigqp", X63A(804, 18), M_X63A | 1, VALU, O_QT_W, O_QB_R, 0, 0, 0, 0),
	OP("xssqrtqp", X63A(804, 27), M_X63A, FSQRT, O_QT_W, O_QB_R, 0, 0, 0, P_RO | P_FPSCR_W),
	OP("xscvqpuqz", X63A(836, 0), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvqpuwz", X63A(836, 1), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvudqp", X63A(836, 2), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvuqqp", X63A(836, 3), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvqpsqz", X63A(836, 8), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvqpswz", X63A(836, 9), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvsdqp", X63A(836, 10), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvsqqp", X63A(836, 11), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvqpudz", X63A(836, 17), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvqpdp", X63A(836, 20), M_X63A, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_RO | P_FPSCR_W),
	OP("xscvdpqp", X63A(836, 22), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	OP("xscvqpsdz", X63A(836, 25), M_X63A | 1, FADD, O_QT_W, O_QB_R, 0, 0, 0, P_FPSCR_W),
	/* Z23-form: XO bits 23-30, R bit 15, RMC bits 21-22, EX bit 31 */
	OP("xsrqpi", PO(63) | 5u << 1, 0xfc1e01feu, FADD, O_IMM, O_QT_W, O_QB_R, O_IMM2, I_U1_15,
	   P_FPSCR_W | P_EX),
	OP("xsrqpxp", PO(63) | 37u << 1, 0xfc1e01ffu, FADD, O_IMM, O_QT_W, O_QB_R, O_IMM2, I_U1_15,
	   P_FPSCR_W),
	/* vector integer: ISA 2.07 (POWER8) additions capstone 4 lacks */
	OP("vgbbd", VX(1292), M_VX0, VSHUF, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vbpermq", VX(1356), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vbpermd", VX(1484), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vupkhsw", VX(1614), M_VX0, VSHUF, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vupklsw", VX(1742), M_VX0, VSHUF, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vpkudum", VX(1102), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpkudus", VX(1230), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpksdus", VX(1358), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpksdss", VX(1486), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vadduqm", VX(256), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vaddcuq", VX(320), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsubuqm", VX(1280), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsubcuq", VX(1344), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vaddudm", VX(192), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsubudm", VX(1216), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmaxsd", VX(450), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmaxud", VX(194), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vminsd", VX(962), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vminud", VX(706), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vrld", VX(196), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsld", VX(1476), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsrd", VX(1732), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsrad", VX(964), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmrgew", VX(1932), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmrgow", VX(1676), M_VX, VSHUF, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpopcntb", VX(1795), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vpopcnth", VX(1859), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vpopcntw", VX(1923), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vpopcntd", VX(1987), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vclzb", VX(1794), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vclzh", VX(1858), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vclzw", VX(1922), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vclzd", VX(1986), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("veqv", VX(1668), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vnand", VX(1412), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vorc", VX(1348), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulouw", VX(136), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulosw", VX(392), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmuleuw", VX(648), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulesw", VX(904), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmuluwm", VX(137), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vcipher", VX(1288), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vcipherlast", VX(1289), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vncipher", VX(1352), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vncipherlast", VX(1353), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsbox", VX(1480), 0xfc00ffffu, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, 0, 0, 0, P_V128),
	OP("vshasigmaw", VX(1666), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_IMM, O_IMM2, I_U1_16, P_V128),
	OP("vshasigmad", VX(1730), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_IMM, O_IMM2, I_U1_16, P_V128),
	OP("vpmsumb", VX(1032), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpmsumh", VX(1096), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpmsumw", VX(1160), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpmsumd", VX(1224), M_VX, ITRACE_CLASS_CRYPTO, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	/* vector integer: ISA 3.0 (POWER9) */
	OP("vrlwnm", VX(389), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vrlwmi", VX(133), M_VX, VALU, O_VT_RW, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vrldnm", VX(453), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vrldmi", VX(197), M_VX, VALU, O_VT_RW, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vslv", VX(1860), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsrv", VX(1796), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmul10uq", VX(513), 0xfc00ffffu, VMUL, O_VT_W, O_VA_R, 0, 0, 0, P_V128),
	OP("vmul10cuq", VX(1), 0xfc00ffffu, VMUL, O_VT_W, O_VA_R, 0, 0, 0, P_V128),
	OP("vmul10euq", VX(577), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmul10ecuq", VX(65), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vabsdub", VX(1027), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vabsduh", VX(1091), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vabsduw", VX(1155), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vinsertb", VX(781), 0xfc1007ffu, VSHUF, O_VT_RW, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vinserth", VX(845), 0xfc1007ffu, VSHUF, O_VT_RW, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vinsertw", VX(909), 0xfc1007ffu, VSHUF, O_VT_RW, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vinsertd", VX(973), 0xfc1007ffu, VSHUF, O_VT_RW, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vextractub", VX(525), 0xfc1007ffu, VSHUF, O_VT_W, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vextractuh", VX(589), 0xfc1007ffu, VSHUF, O_VT_W, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vextractuw", VX(653), 0xfc1007ffu, VSHUF, O_VT_W, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vextractd", VX(717), 0xfc1007ffu, VSHUF, O_VT_W, O_VB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vextublx", VX(1549), M_VX, VSHUF, O_RT_W, O_RA_R, O_VB_R, 0, 0, 0),
	OP("vextubrx", VX(1805), M_VX, VSHUF, O_RT_W, O_RA_R, O_VB_R, 0, 0, 0),
	OP("vextuhlx", VX(1613), M_VX, VSHUF, O_RT_W, O_RA_R, O_VB_R, 0, 0, 0),
	OP("vextuhrx", VX(1869), M_VX, VSHUF, O_RT_W, O_RA_R, O_VB_R, 0, 0, 0),
	OP("vextuwlx", VX(1677), M_VX, VSHUF, O_RT_W, O_RA_R, O_VB_R, 0, 0, 0),
	OP("vextuwrx", VX(1933), M_VX, VSHUF, O_RT_W, O_RA_R, O_VB_R, 0, 0, 0),
	/* VX 1538: bits 11-15 select (Book I, 6.9-6.10) */
	OP("vclzlsbb", VXA(1538, 0), M_VX0, VALU, O_RT_W, O_VB_R, 0, 0, 0, 0),
	OP("vctzlsbb", VXA(1538, 1), M_VX0, VALU, O_RT_W, O_VB_R, 0, 0, 0, 0),
	OP("vnegw", VXA(1538, 6), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vnegd", VXA(1538, 7), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vprtybw", VXA(1538, 8), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vprtybd", VXA(1538, 9), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vprtybq", VXA(1538, 10), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vextsb2w", VXA(1538, 16), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vextsh2w", VXA(1538, 17), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vextsb2d", VXA(1538, 24), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vextsh2d", VXA(1538, 25), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vextsw2d", VXA(1538, 26), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vextsd2q", VXA(1538, 27), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vctzb", VXA(1538, 28), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vctzh", VXA(1538, 29), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vctzw", VXA(1538, 30), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vctzd", VXA(1538, 31), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	/* VX 1602 (ISA 3.1 "Vector Mask Manipulation"): bits 11-15 select */
	OP("vexpandbm", VXA(1602, 0), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vexpandhm", VXA(1602, 1), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vexpandwm", VXA(1602, 2), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vexpanddm", VXA(1602, 3), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vexpandqm", VXA(1602, 4), M_VX0, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128),
	OP("vextractbm", VXA(1602, 8), M_VX0, VALU, O_RT_W, O_VB_R, 0, 0, 0, 0),
	OP("vextracthm", VXA(1602, 9), M_VX0, VALU, O_RT_W, O_VB_R, 0, 0, 0, 0),
	OP("vextractwm", VXA(1602, 10), M_VX0, VALU, O_RT_W, O_VB_R, 0, 0, 0, 0),
	OP("vextractdm", VXA(1602, 11), M_VX0, VALU, O_RT_W, O_VB_R, 0, 0, 0, 0),
	OP("vextractqm", VXA(1602, 12), M_VX0, VALU, O_RT_W, O_VB_R, 0, 0, 0, 0),
	OP("mtvsrbm", VXA(1602, 16), M_VX0, MOV, O_VT_W, O_RB_R, 0, 0, 0, P_V128),
	OP("mtvsrhm", VXA(1602, 17), M_VX0, MOV, O_VT_W, O_RB_R, 0, 0, 0, P_V128),
	OP("mtvsrwm", VXA(1602, 18), M_VX0, MOV, O_VT_W, O_RB_R, 0, 0, 0, P_V128),
	OP("mtvsrdm", VXA(1602, 19), M_VX0, MOV, O_VT_W, O_RB_R, 0, 0, 0, P_V128),
	OP("mtvsrqm", VXA(1602, 20), M_VX0, MOV, O_VT_W, O_RB_R, 0, 0, 0, P_V128),
	OP("vcntmbb", VXA(1602, 24), 0xfc1e07ffu, VALU, O_RT_W, O_VB_R, O_IMM, 0, I_U1_15, 0),
	OP("vcntmbh", VXA(1602, 26), 0xfc1e07ffu, VALU, O_RT_W, O_VB_R, O_IMM, 0, I_U1_15, 0),
	OP("vcntmbw", VXA(1602, 28), 0xfc1e07ffu, VALU, O_RT_W, O_VB_R, O_IMM, 0, I_U1_15, 0),
	OP("vcntmbd", VXA(1602, 30), 0xfc1e07ffu, VALU, O_RT_W, O_VB_R, O_IMM, 0, I_U1_15, 0),
	/* vector integer: ISA 3.1 (POWER10) */
	OP("vdivsw", VX(395), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivuw", VX(139), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivsd", VX(459), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivud", VX(203), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivsq", VX(267), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivuq", VX(11), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivesw", VX(907), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdiveuw", VX(651), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivesd", VX(971), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdiveud", VX(715), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdivesq", VX(779), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vdiveuq", VX(523), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmodsw", VX(1931), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmoduw", VX(1675), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmodsd", VX(1995), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmodud", VX(1739), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmodsq", VX(1803), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmoduq", VX(1547), M_VX, ITRACE_CLASS_INT_DIV, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulld", VX(457), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulhsw", VX(905), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulhuw", VX(649), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulhsd", VX(969), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulhud", VX(713), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulesd", VX(968), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmuleud", VX(712), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmulosd", VX(456), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vmuloud", VX(200), M_VX, VMUL, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vcfuged", VX(1357), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpdepd", VX(1485), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vpextd", VX(1421), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vclzdm", VX(1924), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vctzdm", VX(1988), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vgnb", VX(1228), 0xfc1807ffu, VALU, O_RT_W, O_VB_R, O_IMM, 0, I_U3_13, 0),
	OP("vclrlb", VX(397), M_VX, VSHUF, O_VT_W, O_VA_R, O_RB_R, 0, 0, P_V128),
	OP("vclrrb", VX(461), M_VX, VSHUF, O_VT_W, O_VA_R, O_RB_R, 0, 0, P_V128),
	OP("vrlq", VX(5), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vrlqnm", VX(325), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vrlqmi", VX(69), M_VX, VALU, O_VT_RW, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vslq", VX(261), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsrq", VX(517), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vsraq", VX(773), M_VX, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128),
	OP("vcmpuq", VX(257), 0xfc6007ffu, VALU, O_BF_W, O_VA_R, O_VB_R, 0, 0, 0),
	OP("vcmpsq", VX(321), 0xfc6007ffu, VALU, O_BF_W, O_VA_R, O_VB_R, 0, 0, 0),
	OP("vinsw", VX(207), 0xfc1007ffu, VSHUF, O_VT_RW, O_RB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vinsd", VX(463), 0xfc1007ffu, VSHUF, O_VT_RW, O_RB_R, O_IMM, 0, I_UIM4_12, P_V128),
	OP("vinsblx", VX(527), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinsbrx", VX(783), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinshlx", VX(591), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinshrx", VX(847), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinswlx", VX(655), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinswrx", VX(911), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinsdlx", VX(719), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinsdrx", VX(975), M_VX, VSHUF, O_VT_RW, O_RA_R, O_RB_R, 0, 0, P_V128),
	OP("vinsbvlx", VX(15), M_VX, VSHUF, O_VT_RW, O_RA_R, O_VB_R, 0, 0, P_V128),
	OP("vinsbvrx", VX(271), M_VX, VSHUF, O_VT_RW, O_RA_R, O_VB_R, 0, 0, P_V128),
	OP("vinshvlx", VX(79), M_VX, VSHUF, O_VT_RW, O_RA_R, O_VB_R, 0, 0, P_V128),
	OP("vinshvrx", VX(335), M_VX, VSHUF, O_VT_RW, O_RA_R, O_VB_R, 0, 0, P_V128),
	OP("vinswvlx", VX(143), M_VX, VSHUF, O_VT_RW, O_RA_R, O_VB_R, 0, 0, P_V128),
	OP("vinswvrx", VX(399), M_VX, VSHUF, O_VT_RW, O_RA_R, O_VB_R, 0, 0, P_V128),
	/* string isolate (VC-like: Rc bit 21, bits 11-15 select) */
	OP("vstribl", VXA(13, 0), 0xfc1f03ffu, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128 | P_RC6),
	OP("vstribr", VXA(13, 1), 0xfc1f03ffu, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128 | P_RC6),
	OP("vstrihl", VXA(13, 2), 0xfc1f03ffu, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128 | P_RC6),
	OP("vstrihr", VXA(13, 3), 0xfc1f03ffu, VALU, O_VT_W, O_VB_R, 0, 0, 0, P_V128 | P_RC6),
	/* VN-form shifts: XO bits 26-31 = 22, bits 21-22 select */
	OP("vsldbi", PO(4) | 22, 0xfc00063fu, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_IMM, I_U3_23, P_V128),
	OP("vsrdbi", PO(4) | 1u << 9 | 22, 0xfc00063fu, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_IMM, I_U3_23,
	   P_V128),
	/* VC-form compares: XO bits 22-31, Rc bit 21 sets CR6 */
	OP("vcmpneb", VX(7), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpneh", VX(71), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpnew", VX(135), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpnezb", VX(263), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpnezh", VX(327), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpnezw", VX(391), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpequd", VX(199), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpgtsd", VX(967), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpgtud", VX(711), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpequq", VX(455), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpgtsq", VX(903), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	OP("vcmpgtuq", VX(647), M_VC, VALU, O_VT_W, O_VA_R, O_VB_R, 0, 0, P_V128 | P_RC6),
	/* VA-form (XO bits 26-31) */
	OP("vpermr", VA(59), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vpermxor", VA(45), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vmsumudm", VA(35), M_VA, VMUL, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vmsumcud", VA(23), M_VA, VMUL, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vaddeuqm", VA(60), M_VA, VALU, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vaddecuq", VA(61), M_VA, VALU, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vsubeuqm", VA(62), M_VA, VALU, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vsubecuq", VA(63), M_VA, VALU, O_VT_W, O_VA_R, O_VB_R, O_VC_R, 0, P_V128),
	OP("vextdubvlx", VA(24), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	OP("vextdubvrx", VA(25), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	OP("vextduhvlx", VA(26), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	OP("vextduhvrx", VA(27), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	OP("vextduwvlx", VA(28), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	OP("vextduwvrx", VA(29), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	OP("vextddvlx", VA(30), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	OP("vextddvrx", VA(31), M_VA, VSHUF, O_VT_W, O_VA_R, O_VB_R, O_RC_R, 0, P_V128),
	/* fixed-point multiply-add (VA-form on opcode 4, GPRs) */
	OP("maddhd", VA(48), M_VA, ITRACE_CLASS_INT_MUL, O_RT_W, O_RA_R, O_RB_R, O_RC_R, 0, 0),
	OP("maddhdu", VA(49), M_VA, ITRACE_CLASS_INT_MUL, O_RT_W, O_RA_R, O_RB_R, O_RC_R, 0, 0),
	OP("maddld", VA(51), M_VA, ITRACE_CLASS_INT_MUL, O_RT_W, O_RA_R, O_RB_R, O_RC_R, 0, 0),
	/* scv (SC-form, bit 31 = 1; Book III, "System Call Vectored") */
	OP("scv", PO(17) | 1, 0xfffff01fu, SYS, O_IMM, 0, 0, 0, I_LEV, P_SERIAL),
};

/* ---- Operands -> registers and text ------------------------------------- */

static unsigned vsr_bit(uint32_t w, unsigned field_shift, unsigned x_shift)
{
	return ((w >> field_shift) & 31) | ((w >> x_shift) & 1) << 5;
}

/* Register of operand code `o` in word w; *written says its direction. */
static unsigned opnd_reg(uint32_t w, unsigned o, int *rd, int *wr, int *pair)
{
	*rd = *wr = *pair = 0;
	switch (o) {
	case O_RT_W: *wr = 1; return ITRACE_REG_GPR(F_RT(w));
	case O_RTP_W: *wr = *pair = 1; return ITRACE_REG_GPR(F_RT(w));
	case O_RS_R: *rd = 1; return ITRACE_REG_GPR(F_RT(w));
	case O_RSP_R: *rd = *pair = 1; return ITRACE_REG_GPR(F_RT(w));
	case O_RA_W: *wr = 1; return ITRACE_REG_GPR(F_RA(w));
	case O_RA_R: *rd = 1; return ITRACE_REG_GPR(F_RA(w));
	case O_RA0_R: *rd = 1; return F_RA(w) ? ITRACE_REG_GPR(F_RA(w)) : ITRACE_REG_NONE;
	case O_RB_R: *rd = 1; return ITRACE_REG_GPR(F_RB(w));
	case O_RC_R: *rd = 1; return ITRACE_REG_GPR(F_RC(w));
	case O_VT_W: *wr = 1; return ITRACE_REG_VEC(32 + F_RT(w));
	case O_VT_RW: *rd = *wr = 1; return ITRACE_REG_VEC(32 + F_RT(w));
	case O_VS_R: *rd = 1; return ITRACE_REG_VEC(32 + F_RT(w));
	case O_VA_R: *rd = 1; return ITRACE_REG_VEC(32 + F_RA(w));
	case O_VB_R: *rd = 1; return ITRACE_REG_VEC(32 + F_RB(w));
	case O_VC_R: *rd = 1; return ITRACE_REG_VEC(32 + F_RC(w));
	case O_QT_W: *wr = 1; return ITRACE_REG_VEC(32 + F_RT(w));
	case O_QT_RW: *rd = *wr = 1; return ITRACE_REG_VEC(32 + F_RT(w));
	case O_QA_R: *rd = 1; return ITRACE_REG_VEC(32 + F_RA(w));
	case O_QB_R: *rd = 1; return ITRACE_REG_VEC(32 + F_RB(w));
	case O_XT_W: case O_XT4_W: *wr = 1; return ITRACE_REG_VEC(vsr_bit(w, 21, 0));
	case O_XT_RW: *rd = *wr = 1; return ITRACE_REG_VEC(vsr_bit(w, 21, 0));
	case O_XS_R: *rd = 1; return ITRACE_REG_VEC(vsr_bit(w, 21, 0));
	case O_XA_R: *rd = 1; return ITRACE_REG_VEC(vsr_bit(w, 16, 2));
	case O_XB_R: *rd = 1; return ITRACE_REG_VEC(vsr_bit(w, 11, 1));
	case O_XC_R: *rd = 1; return ITRACE_REG_VEC(vsr_bit(w, 6, 3));
	case O_XTQ_W: *wr = 1; return ITRACE_REG_VEC(vsr_bit(w, 21, 3));
	case O_XSQ_R: *rd = 1; return ITRACE_REG_VEC(vsr_bit(w, 21, 3));
	case O_XT8_W: *wr = 1; return ITRACE_REG_VEC(vsr_bit(w, 21, 16));
	case O_XT8_RW: *rd = *wr = 1; return ITRACE_REG_VEC(vsr_bit(w, 21, 16));
	case O_XTP_W: *wr = *pair = 1;
		return ITRACE_REG_VEC((((w >> 22) & 15) << 1) | ((w >> 21) & 1) << 5);
	case O_XSP_R: *rd = *pair = 1;
		return ITRACE_REG_VEC((((w >> 22) & 15) << 1) | ((w >> 21) & 1) << 5);
	case O_FT_W: *wr = 1; return ITRACE_REG_VEC(F_RT(w));
	case O_FTP_W: *wr = *pair = 1; return ITRACE_REG_VEC(F_RT(w));
	case O_FS_R: *rd = 1; return ITRACE_REG_VEC(F_RT(w));
	case O_FSP_R: *rd = *pair = 1; return ITRACE_REG_VEC(F_RT(w));
	case O_FB_R: *rd = 1; return ITRACE_REG_VEC(F_RB(w));
	case O_BF_W: *wr = 1; return ITRACE_REG_CR(F_RT(w) >> 2);
	case O_BFA_R: *rd = 1; return ITRACE_REG_CR(F_RA(w) >> 2);
	case O_BI_R: *rd = 1; return ITRACE_REG_CR(F_RA(w) >> 2);
	default: return ITRACE_REG_NONE;
	}
}

static int64_t sext(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static long imm_value(uint32_t w, unsigned imm)
{
	switch (imm) {
	case I_U8_13: return (w >> 11) & 0xff;
	case I_SH6: return (long)(((w >> 11) & 31) | ((w >> 1) & 1) << 5);
	case I_UIM4_12: return (w >> 16) & 15;
	case I_U2_14: return (w >> 16) & 3;
	case I_U3_13: return (w >> 16) & 7;
	case I_U3_18: return (w >> 11) & 7;
	case I_U2_19: return (w >> 11) & 3;
	case I_U5_16: return (w >> 11) & 31;
	case I_U5_11: return (w >> 16) & 31;
	case I_U1_10: return (w >> 21) & 1;
	case I_U2_21: return (w >> 9) & 3;
	case I_U3_23: return (w >> 6) & 7;
	case I_U1_16: return (w >> 15) & 1;
	case I_U1_15: return (w >> 16) & 1;
	case I_U7_9: return (w >> 16) & 127;
	case I_LEV: return (w >> 5) & 127;
	case I_U1_31: return w & 1;
	case I_U4_17: return (w >> 11) & 15;
	case I_D16: /* addpcis: d0 bits 16-25, d1 bits 11-15, d2 bit 31 */
		return (long)sext(((w >> 6) & 0x3ff) << 6 | ((w >> 16) & 31) << 1 | (w & 1), 16);
	default: return 0;
	}
}

/* reg_text - capstone's spelling: r3, f1, v2, vs34, cr6. */
static int reg_text(char *buf, size_t cap, unsigned reg, unsigned o)
{
	if (reg >= ITRACE_REG_GPR(0) && reg <= ITRACE_REG_GPR(31))
		return snprintf(buf, cap, "r%u", reg - ITRACE_REG_GPR0);
	if (reg >= ITRACE_REG_CR(0) && reg <= ITRACE_REG_CR(7))
		return snprintf(buf, cap, "cr%u", reg - ITRACE_REG_CR0);
	if (reg >= ITRACE_REG_VEC(0) && reg <= ITRACE_REG_VEC(63)) {
		unsigned n = reg - ITRACE_REG_VEC0;

		switch (o) {
		case O_FT_W: case O_FTP_W: case O_FS_R: case O_FSP_R: case O_FB_R:
			return snprintf(buf, cap, "f%u", n);
		case O_VT_W: case O_VT_RW: case O_VS_R: case O_VA_R: case O_VB_R: case O_VC_R:
		case O_QT_W: case O_QT_RW: case O_QA_R: case O_QB_R:
			return snprintf(buf, cap, "v%u", n - 32);
		default:
			return snprintf(buf, cap, "vs%u", n);
		}
	}
	return snprintf(buf, cap, "0");
}

struct text_buf {
	char *p;
	size_t cap, used;
};

/* put - append printf-style text; nothing when there is no buffer. */
__attribute__((format(printf, 2, 3))) static void put(struct text_buf *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!t->p || t->used >= t->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->p + t->used, t->cap - t->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->used += (size_t)n < t->cap - t->used ? (size_t)n : t->cap - t->used - 1;
}

static void put_reg(struct text_buf *t, unsigned reg, unsigned o)
{
	char r[8];

	reg_text(r, sizeof(r), reg, o);
	put(t, "%s", r);
}

/* Displacement of the D, DS and DQ forms. */
static int64_t form_disp(uint32_t w, unsigned mform)
{
	switch (mform) {
	case MF_D: return (int16_t)(w & 0xffff);
	case MF_DS: return (int16_t)(w & 0xfffc);
	case MF_DQ: return (int16_t)(w & 0xfff0);
	default: return 0;
	}
}

static void mem_text(struct text_buf *t, uint32_t w, const struct ppc_op *e)
{
	unsigned ra = F_RA(w);

	if (e->mform == MF_D || e->mform == MF_DS || e->mform == MF_DQ) {
		if (ra)
			put(t, "%lld(r%u)", (long long)form_disp(w, e->mform), ra);
		else
			put(t, "%lld(0)", (long long)form_disp(w, e->mform));
		return;
	}
	if (ra)
		put(t, "r%u, ", ra);
	else
		put(t, "0, ");
	if (e->mform == MF_XNB || e->mform == MF_XRA)
		put(t, "%u", F_RB(w));
	else
		put(t, "r%u", F_RB(w));
}

/* apply - registers, memory operand and attributes of entry e for word w. */
static void apply(const struct ppc_op *e, uint32_t w, struct itrace_insn_info *in, struct text_buf *t)
{
	int rc = (e->flags & P_RC0) && (w & 1), rc6 = (e->flags & P_RC6) && (w & 0x400);

	in->cls = e->cls;
	if (e->flags & P_V128)
		in->vec_bits = 128;
	put(t, "%s%s%s%s", e->name, rc || rc6 ? "." : "", (e->flags & P_RO) && (w & 1) ? "o" : "",
	    (e->flags & P_EX) && (w & 1) ? "x" : "");
	for (unsigned i = 0; i < 5 && e->opnd[i]; i++) {
		unsigned o = e->opnd[i];
		int rd, wr, pair;
		unsigned reg;

		put(t, i ? ", " : " ");
		if (o == O_MEM) {
			mem_text(t, w, e);
			continue;
		}
		if (o == O_IMM || o == O_IMM2) {
			put(t, "%ld", imm_value(w, o == O_IMM ? e->imm : imm2_of(e->imm)));
			continue;
		}
		if (o == O_BI_R) /* the CR bit, as the ISA writes it */
			put(t, "%u", F_RA(w));
		reg = opnd_reg(w, o, &rd, &wr, &pair);
		if (o != O_BI_R)
			put_reg(t, reg, o);
		for (int k = 0; k <= pair; k++) {
			if (rd)
				info_add_read(in, reg + (unsigned)k);
			if (wr)
				info_add_write(in, reg + (unsigned)k);
		}
	}
	if (rc || (e->flags & P_DOT))
		info_add_write(in, ITRACE_REG_CR(0));
	if (rc6)
		info_add_write(in, ITRACE_REG_CR(6));
	if (e->flags & P_XER_R)
		info_add_read(in, ITRACE_REG_FLAGS);
	if (e->flags & P_XER_W)
		info_add_write(in, ITRACE_REG_FLAGS);
	if (e->flags & P_FPSCR_R)
		info_add_read(in, ITRACE_REG_FPCTL);
	if (e->flags & P_FPSCR_W)
		info_add_write(in, ITRACE_REG_FPCTL);
	if (e->flags & P_RESERVE)
		in->attrs |= ITRACE_ATTR_LOAD_RESERVE;
	if (e->flags & P_COND)
		in->attrs |= ITRACE_ATTR_STORE_COND;
	if (e->flags & P_SERIAL)
		in->attrs |= ITRACE_ATTR_SERIALIZING;
}

/* The memory operand of a load/store entry. */
static void apply_mem(const struct ppc_op *e, uint32_t w, struct itrace_insn_info *in)
{
	unsigned ra = F_RA(w);
	struct itrace_insn_mem *m;

	if (ra)
		info_add_read(in, ITRACE_REG_GPR(ra));
	if (e->mform == MF_X || e->mform == MF_ADDR || e->mform == MF_XLEN)
		info_add_read(in, ITRACE_REG_GPR(F_RB(w)));
	if (e->flags & P_UPDATE)
		info_add_write(in, ITRACE_REG_GPR(ra));
	if (e->mform == MF_ADDR) {
		in->attrs |= ITRACE_ATTR_ADDRESS_ONLY;
		return;
	}
	m = info_add_mem(in);
	if (!m)
		return;
	m->flags = (e->flags & P_RMW) ? ITRACE_MEMOP_READ | ITRACE_MEMOP_WRITE
		   : (e->flags & P_STORE) ? ITRACE_MEMOP_WRITE : ITRACE_MEMOP_READ;
	m->base = ra ? (uint8_t)ITRACE_REG_GPR(ra) : ITRACE_REG_NONE;
	m->disp = form_disp(w, e->mform);
	m->size = e->size;
	m->align = e->align;
	if (e->mform == MF_X)
		m->index = (uint8_t)ITRACE_REG_GPR(F_RB(w));
	if (e->mform == MF_XLEN) {
		m->index = (uint8_t)ITRACE_REG_GPR(F_RB(w));
		m->flags |= ITRACE_MEMOP_LEN_REG;
	}
	if (e->mform == MF_XNB)
		m->size = F_RB(w) ? F_RB(w) : 32;
	if (e->flags & P_LMW)
		m->size = 4u * (32u - F_RT(w));
}

/*
 * The entries of a table by primary opcode (bits 0-5), in table order, so
 * that a word is compared with the few entries of its primary opcode, not
 * with the whole table: the first match is the same, as every entry whose
 * mask covers the primary opcode can only match words of its own.  A table
 * with an entry whose mask does not is searched whole (`linear`).  Built
 * once per process.
 */
#define N_MEM_OPS (sizeof(mem_ops) / sizeof(mem_ops[0]))
#define N_OWN_OPS (sizeof(own_ops) / sizeof(own_ops[0]))

struct op_index {
	const struct ppc_op *tab;
	size_t n;
	int linear;
	uint16_t start[65]; /* order[start[po] .. start[po + 1]) */
	uint16_t *order;
};

static uint16_t mem_order[N_MEM_OPS], own_order[N_OWN_OPS];
static struct op_index mem_index = { mem_ops, N_MEM_OPS, 0, { 0 }, mem_order };
static struct op_index own_index = { own_ops, N_OWN_OPS, 0, { 0 }, own_order };
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void build_index(struct op_index *x)
{
	uint16_t fill[64] = { 0 };

	for (size_t i = 0; i < x->n; i++) {
		if ((x->tab[i].mask & M_PO) != M_PO)
			x->linear = 1;
		x->start[(x->tab[i].match >> 26) + 1]++;
	}
	for (int po = 0; po < 64; po++)
		x->start[po + 1] += x->start[po];
	for (size_t i = 0; i < x->n; i++) {
		unsigned po = x->tab[i].match >> 26;

		x->order[x->start[po] + fill[po]++] = (uint16_t)i;
	}
}

static void build_indexes(void)
{
	_Static_assert(N_MEM_OPS <= UINT16_MAX && N_OWN_OPS <= UINT16_MAX, "uint16_t index");
	build_index(&mem_index);
	build_index(&own_index);
}

/* find - the first entry of the table that matches `w`. */
static const struct ppc_op *find(const struct op_index *x, uint32_t w)
{
	unsigned po = w >> 26;

	if (x->linear) {
		for (size_t i = 0; i < x->n; i++)
			if ((w & x->tab[i].mask) == x->tab[i].match)
				return &x->tab[i];
		return NULL;
	}
	for (unsigned i = x->start[po]; i < x->start[po + 1]; i++) {
		const struct ppc_op *e = &x->tab[x->order[i]];

		if ((w & e->mask) == e->match)
			return e;
	}
	return NULL;
}

int ppc_isa_memory(uint32_t word, struct itrace_insn_info *info, char *text, size_t cap)
{
	const struct ppc_op *e;
	struct text_buf t = {text, cap, 0};

	pthread_once(&index_once, build_indexes);
	e = find(&mem_index, word);
	if (!e)
		return 0;
	if (info) {
		apply(e, word, info, &t);
		apply_mem(e, word, info);
	} else if (text) {
		struct itrace_insn_info scratch;

		memset(&scratch, 0, sizeof(scratch));
		apply(e, word, &scratch, &t);
	}
	return 1;
}

int ppc_isa_lookup(uint32_t word, struct itrace_insn_info *info, char *text, size_t cap)
{
	const struct ppc_op *e;
	struct itrace_insn_info scratch;
	struct text_buf t = {text, cap, 0};

	pthread_once(&index_once, build_indexes);
	e = find(&own_index, word);
	if (!e)
		return ppc_isa_memory(word, info, text, cap);
	if (!info) {
		if (!text)
			return 1;
		memset(&scratch, 0, sizeof(scratch));
		info = &scratch;
	}
	apply(e, word, info, &t);
	return 1;
}

/* ---- Prefixed instructions (Power ISA 3.1, Book I, 1.6.3) ---------------- */

struct ppc_prefixed {
	uint8_t type;	  /* prefix bits 6-7: 0 8LS, 1 8RR, 2 MLS, 3 MMIRR */
	uint8_t po;	  /* suffix primary opcode */
	const char *name;
	uint8_t cls;
	uint8_t reg;	  /* register operand: an O_* code applied to the suffix */
	uint8_t size;	  /* bytes accessed, 0: no memory operand */
	uint8_t store;
	uint16_t flags;	  /* P_V128 */
};

/* 8LS:D-form (type 0) and MLS:D-form (type 2) loads, stores and paddi,
 * ISA 3.1 Book I, 3.3.2-3.3.5 (fixed point), 4.6 (floating point) and
 * 7.6.1 (VSX) "Prefixed ..." instructions. */
static const struct ppc_prefixed prefixed[] = {
	{0, 41, "plwa", L, O_RT_W, 4, 0, 0},	  {0, 57, "pld", L, O_RT_W, 8, 0, 0},
	{0, 56, "plq", L, O_RTP_W, 16, 0, 0},	  {0, 61, "pstd", S, O_RS_R, 8, 1, 0},
	{0, 60, "pstq", S, O_RSP_R, 16, 1, 0},	  {0, 42, "plxsd", L, O_VT_W, 8, 0, 0},
	{0, 43, "plxssp", L, O_VT_W, 4, 0, 0},	  {0, 46, "pstxsd", S, O_VS_R, 8, 1, 0},
	{0, 47, "pstxssp", S, O_VS_R, 4, 1, 0},	  {0, 50, "plxv", L, O_XTQ_W, 16, 0, P_V128},
	{0, 51, "plxv", L, O_XTQ_W, 16, 0, P_V128}, {0, 54, "pstxv", S, O_XSQ_R, 16, 1, P_V128},
	{0, 55, "pstxv", S, O_XSQ_R, 16, 1, P_V128}, {0, 58, "plxvp", L, O_XTP_W, 32, 0, P_V128},
	{0, 62, "pstxvp", S, O_XSP_R, 32, 1, P_V128},
	{2, 14, "paddi", ALU, O_RT_W, 0, 0, 0},	  {2, 34, "plbz", L, O_RT_W, 1, 0, 0},
	{2, 40, "plhz", L, O_RT_W, 2, 0, 0},	  {2, 42, "plha", L, O_RT_W, 2, 0, 0},
	{2, 32, "plwz", L, O_RT_W, 4, 0, 0},	  {2, 38, "pstb", S, O_RS_R, 1, 1, 0},
	{2, 44, "psth", S, O_RS_R, 2, 1, 0},	  {2, 36, "pstw", S, O_RS_R, 4, 1, 0},
	{2, 48, "plfs", L, O_FT_W, 4, 0, 0},	  {2, 50, "plfd", L, O_FT_W, 8, 0, 0},
	{2, 52, "pstfs", S, O_FS_R, 4, 1, 0},	  {2, 54, "pstfd", S, O_FS_R, 8, 1, 0},
};

/*
 * The 8-byte view used for operand fields: the suffix word carries the
 * register fields; the plxv/pstxv TX bit is the suffix opcode's low bit
 * (bit 5), which O_XTQ_W reads at bit 28: move it there.
 */
static uint32_t suffix_fields(uint32_t s, unsigned reg)
{
	if (reg == O_XTQ_W || reg == O_XSQ_R)
		return (s & ~8u) | ((s >> 26) & 1) << 3;
	return s;
}

static int prefixed_dform(uint32_t p, uint32_t s, uint64_t addr, struct itrace_insn_info *in,
			  struct text_buf *t)
{
	unsigned type = (p >> 24) & 3, r = (p >> 20) & 1, po = s >> 26, ra = F_RA(s);
	int64_t d = sext((uint64_t)(p & 0x3ffff) << 16 | (s & 0xffff), 34);
	const struct ppc_prefixed *e = NULL;
	struct itrace_insn_mem *m;
	unsigned reg;
	int rd, wr, pair;
	uint32_t fs;
	const char *name;

	/* ST (bit 8) and the reserved bits 9-10 and 12-13 are 0 */
	if ((p >> 21) & 7 || (p >> 18) & 3)
		return 0;
	for (size_t i = 0; i < sizeof(prefixed) / sizeof(prefixed[0]); i++)
		if (prefixed[i].type == type && prefixed[i].po == po)
			e = &prefixed[i];
	if (!e || (r && ra))
		return 0; /* R = 1 with RA != 0 is an invalid form */
	fs = suffix_fields(s, e->reg);
	reg = opnd_reg(fs, e->reg, &rd, &wr, &pair);
	in->cls = e->cls;
	if (e->flags & P_V128)
		in->vec_bits = 128;
	for (int k = 0; k <= pair; k++) {
		if (rd)
			info_add_read(in, reg + (unsigned)k);
		if (wr)
			info_add_write(in, reg + (unsigned)k);
	}
	if (ra && !r)
		info_add_read(in, ITRACE_REG_GPR(ra));
	name = e->name;
	if (po == 14 && type == 2) { /* paddi: pla with R, pli with RA = 0 */
		in->cls = r || !ra ? ITRACE_CLASS_MOVE : ITRACE_CLASS_INT_ALU;
		name = r ? "pla" : !ra ? "pli" : "paddi";
	}
	put(t, "%s ", name);
	put_reg(t, reg, e->reg);
	if (po == 14 && type == 2) {
		if (r)
			put(t, ", 0x%llx", (unsigned long long)(addr + (uint64_t)d));
		else if (!ra)
			put(t, ", %lld", (long long)d);
		else
			put(t, ", r%u, %lld", ra, (long long)d);
		return 1;
	}
	if (r)
		put(t, ", %lld(0), 1", (long long)d);
	else if (ra)
		put(t, ", %lld(r%u)", (long long)d, ra);
	else
		put(t, ", %lld(0)", (long long)d);
	m = info_add_mem(in);
	if (m) {
		m->flags = e->store ? ITRACE_MEMOP_WRITE : ITRACE_MEMOP_READ;
		m->size = e->size;
		m->disp = d;
		if (r)
			m->flags |= ITRACE_MEMOP_PCREL;
		else if (ra)
			m->base = (uint8_t)ITRACE_REG_GPR(ra);
	}
	return 1;
}

/* 8RR:D-form (xxsplti32dx, xxspltidp, xxspltiw) and 8RR:XX4-form
 * (xxblendv*, xxpermx, xxeval), ISA 3.1 Book I, 7.6.1. */
static int prefixed_8rr(uint32_t p, uint32_t s, struct itrace_insn_info *in, struct text_buf *t)
{
	unsigned po = s >> 26, xo4 = (s >> 17) & 15;
	static const char *const blend[4] = {"xxblendvb", "xxblendvh", "xxblendvw", "xxblendvd"};
	const char *name = NULL;
	uint32_t imm = (p & 0xffff) << 16 | (s & 0xffff);
	int split = 0;

	if ((p >> 23) & 1)
		return 0; /* ST */
	in->vec_bits = 128;
	if (po == 32) {
		if ((xo4 >> 1) == 0) {
			name = "xxsplti32dx";
			split = 1;
		} else if (xo4 == 2) {
			name = "xxspltidp";
		} else if (xo4 == 3) {
			name = "xxspltiw";
		} else {
			return 0;
		}
		in->cls = split ? ITRACE_CLASS_VEC_SHUFFLE : ITRACE_CLASS_MOVE;
		if (split)
			info_add_read(in, ITRACE_REG_VEC(vsr_bit(s, 21, 16)));
		info_add_write(in, ITRACE_REG_VEC(vsr_bit(s, 21, 16)));
		if (split)
			put(t, "%s vs%u, %u, 0x%x", name, vsr_bit(s, 21, 16), (s >> 17) & 1, imm);
		else
			put(t, "%s vs%u, 0x%x", name, vsr_bit(s, 21, 16), imm);
		return 1;
	}
	if ((po == 33 && (p & 0xffffff) == 0) || (po == 34 && ((s >> 4) & 3) <= 1)) {
		unsigned xo = (s >> 4) & 3;

		name = po == 33 ? blend[xo] : xo == 0 ? "xxpermx" : "xxeval";
		in->cls = po == 33 || xo == 1 ? ITRACE_CLASS_VEC_ALU : ITRACE_CLASS_VEC_SHUFFLE;
		info_add_read(in, ITRACE_REG_VEC(vsr_bit(s, 16, 2)));
		info_add_read(in, ITRACE_REG_VEC(vsr_bit(s, 11, 1)));
		info_add_read(in, ITRACE_REG_VEC(vsr_bit(s, 6, 3)));
		info_add_write(in, ITRACE_REG_VEC(vsr_bit(s, 21, 0)));
		put(t, "%s vs%u, vs%u, vs%u, vs%u", name, vsr_bit(s, 21, 0), vsr_bit(s, 16, 2),
		    vsr_bit(s, 11, 1), vsr_bit(s, 6, 3));
		if (po == 34) /* xxpermx UIM: prefix bits 29-31; xxeval IMM: 24-31 */
			put(t, ", %u", xo == 0 ? p & 7 : p & 0xff);
		return 1;
	}
	return 0;
}

int ppc_isa_prefixed(uint32_t prefix, uint32_t suffix, uint64_t addr,
		     struct itrace_insn_info *info, char *text, size_t cap)
{
	struct itrace_insn_info scratch;
	struct text_buf t = {text, cap, 0};
	unsigned type = (prefix >> 24) & 3;

	if ((prefix >> 26) != 1)
		return 0;
	if (!info) {
		memset(&scratch, 0, sizeof(scratch));
		info = &scratch;
	}
	if (text && cap)
		text[0] = '\0';
	switch (type) {
	case 0:
	case 2:
		return prefixed_dform(prefix, suffix, addr, info, &t);
	case 1:
		return prefixed_8rr(prefix, suffix, info, &t);
	default:
		/* MMIRR: only pnop (prefix 0x07000000, any suffix is ignored;
		 * ISA 3.1 Book I, 3.3.20 "Prefixed Nop") outside MMA */
		if ((prefix & 0x00ffffff) != 0 || (prefix >> 23 & 1))
			return 0;
		info->cls = ITRACE_CLASS_NOP;
		put(&t, "pnop");
		return 1;
	}
}
