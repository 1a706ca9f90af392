/*
 * itrace_code.h - the public API of libitrace-code, the code layer.
 *
 * libitrace-code knows what the traced code is: it maps the addresses of a
 * trace to ELF files, decodes instructions, names functions and source
 * lines, fills branch-level traces to instruction level and reconstructs
 * calls.  It builds on libitrace (itrace.h, included here), depends on
 * libelf, libdw, Zydis and capstone, and follows the same rules: it never
 * prints and never exits, functions that can fail return >= 0 or a
 * negative -ITRACE_E_* code, objects are opaque, free(NULL) is a no-op.
 * Link with `pkg-config --libs itrace-code`.
 *
 * Contents
 *   5. Decoder (Zydis, capstone + ISA 3.1)   - itrace_decoder_*
 *   6. Image (mappings -> ELF files)         - itrace_image_*
 *   7. Symbolizer (symbols, source lines)    - itrace_symbolizer_*
 *   8. Filler (branch trace -> insn trace)   - itrace_filler_*
 *   9. Analysis (calls, per-function counts) - itrace_analysis_*
 * (Sections 1 to 4 are in itrace.h.)
 */
#ifndef ITRACE_CODE_H
#define ITRACE_CODE_H

#include "itrace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===== 5. Decoder ======================================================= */

/*
 * The one instruction decoder of the project: every tool and collector
 * that needs to know what an instruction is asks it.  x86-64 is decoded by
 * Zydis (all of current Intel and AMD: AVX-512, AMX, CET, VAES, GFNI,
 * SHA, ...).  64-bit POWER (both byte orders) is decoded by capstone plus
 * libitrace's own table for what capstone 4 does not know: the Power ISA
 * 3.0 and 3.1 instructions GCC and glibc emit for POWER9 and POWER10, and
 * the ISA 3.1 prefixed instructions, which are decoded as one 8-byte
 * instruction (prefix word first).
 *
 * Two depths:
 *   itrace_decoder_decode  length, branch kind and direct target: what the
 *                          filler and the collectors' control-flow logic need;
 *                          the fast path.
 *   itrace_decoder_info    also the execution class, the registers read and
 *                          written, every memory operand (size, direction,
 *                          addressing), vector width and the idioms a
 *                          micro-op model cares about.
 * Bytes that are not a valid instruction give -ITRACE_E_DECODE, never a
 * guess: callers report them (fill writes a GAP, pipeline-sim counts them).
 *
 * Threads: a decoder keeps per-call scratch state, so one decoder is used
 * by one thread at a time; use one decoder per thread.  The struct
 * itrace_insn_info results are plain data owned by the caller.
 */

/* `kind` of an instruction that does not change control flow. */
#define ITRACE_INSN_NOT_BRANCH 0xff

enum itrace_decoded_flags {
	ITRACE_DECODED_HAS_TARGET = 1u << 0, /* `target` is valid (direct) */
	ITRACE_DECODED_REP = 1u << 1,	     /* x86 rep/repe/repne string
					      * instruction: each execution
					      * is one iteration */
	ITRACE_DECODED_PREFIXED = 1u << 2,   /* POWER ISA 3.1 prefixed (8
					      * bytes: prefix, then suffix) */
	ITRACE_DECODED_TRAP = 1u << 3,	     /* kind SYSCALL from a trap
					      * instruction (int3, int n,
					      * int1, into), not a system
					      * call: a signal follows */
};

/* One decoded instruction: what itrace_decoder_decode() answers. */
struct itrace_decoded {
	uint64_t addr;	 /* address it was decoded at */
	uint64_t target; /* direct branch target (ITRACE_DECODED_HAS_TARGET) */
	uint8_t len;	 /* length in bytes: x86 1..15, POWER 4 or 8 */
	uint8_t kind;	 /* enum itrace_branch_kind, or ITRACE_INSN_NOT_BRANCH */
	uint8_t flags;	 /* enum itrace_decoded_flags */
};

/*
 * Registers as the decoder names them: one id per architectural register,
 * sub-registers folded onto the full register (eax, ax, al and ah are
 * ITRACE_REG_GPR(0); xmm3, ymm3 and zmm3 are ITRACE_REG_VEC(3)), so that a
 * dependency model can compare ids directly.  Ids are below 256.
 */
enum itrace_reg {
	ITRACE_REG_NONE = 0,
	ITRACE_REG_GPR0 = 1,	/* general register n: x86-64 in encoding order
				 * rax rcx rdx rbx rsp rbp rsi rdi r8..r15;
				 * POWER r0..r31 */
	ITRACE_REG_VEC0 = 33,	/* vector register n: x86 xmm/ymm/zmm 0..31;
				 * POWER VSR 0..63 (VSR 0..31 are FPR 0..31,
				 * VSR 32..63 are VR 0..31) */
	ITRACE_REG_MASK0 = 97,	/* x86 AVX-512 k0..k7 */
	ITRACE_REG_X87_0 = 105, /* x86 st0..st7 (also mm0..mm7) */
	ITRACE_REG_TILE0 = 113, /* x86 AMX tmm0..tmm7 */
	ITRACE_REG_CR0 = 121,	/* POWER condition register fields cr0..cr7 */
	ITRACE_REG_ACC0 = 129,	/* POWER MMA accumulators acc0..acc7 */
	ITRACE_REG_SEG0 = 137,	/* x86 es cs ss ds fs gs (encoding order) */
	ITRACE_REG_FLAGS = 143, /* x86 rflags; POWER XER (CA, OV, SO) */
	ITRACE_REG_FPCTL = 144, /* x86 MXCSR and x87 control/status;
				 * POWER FPSCR and VSCR */
	ITRACE_REG_LR = 145,	/* POWER link register */
	ITRACE_REG_CTR = 146,	/* POWER count register */
	ITRACE_REG_TAR = 147,	/* POWER target address register */
	ITRACE_REG_SSP = 148,	/* x86 CET shadow-stack pointer */
	ITRACE_REG_SYS = 149,	/* any other special register: control,
				 * debug, model-specific, xcr0, pkru, AMX
				 * tile configuration, POWER SPRs and MSR */
	ITRACE_REG_MAX_ = 150
};

#define ITRACE_REG_GPR(n) (ITRACE_REG_GPR0 + (n))
#define ITRACE_REG_VEC(n) (ITRACE_REG_VEC0 + (n))
#define ITRACE_REG_CR(n) (ITRACE_REG_CR0 + (n))
#define ITRACE_REG_SEG(n) (ITRACE_REG_SEG0 + (n))
#define ITRACE_REG_X86_RSP ITRACE_REG_GPR(4)
#define ITRACE_REG_X86_FS ITRACE_REG_SEG(4)
#define ITRACE_REG_X86_GS ITRACE_REG_SEG(5)

/*
 * Execution classes: what an instruction computes, independent of where
 * its operands live.  A load-op instruction (add rax, [rsi]) is INT_ALU
 * with one read memory operand; a micro-op model splits it into a load
 * and the operation, and an op-store (add [rdi], rax) into load,
 * operation and store, from the memory operands' directions.  LOAD and
 * STORE are pure data movement to or from memory.
 */
enum itrace_insn_class {
	ITRACE_CLASS_NOP = 0,	   /* nop, endbr64, pause, prefetch and cache
				    * hints (dcbt): no result */
	ITRACE_CLASS_MOVE = 1,	   /* register or immediate copy, no
				    * computation: mov r, r/imm; movaps x, x;
				    * movq x, r; POWER mr, li, mtvsrd, mtctr */
	ITRACE_CLASS_LOAD = 2,	   /* memory -> register, nothing computed:
				    * mov r, [m]; pop; vmovdqu; lwz; lxv */
	ITRACE_CLASS_STORE = 3,	   /* register/immediate -> memory: mov [m],
				    * r; push; stw; stxv */
	ITRACE_CLASS_INT_ALU = 4,  /* integer add, logic, shift, compare, lea,
				    * cmov, setcc, bit counts, extensions */
	ITRACE_CLASS_INT_MUL = 5,
	ITRACE_CLASS_INT_DIV = 6,  /* divide and modulo */
	ITRACE_CLASS_BRANCH = 7,   /* control transfer (the kind says which) */
	ITRACE_CLASS_FP_ADD = 8,   /* floating add, subtract, compare, min,
				    * max, convert, round */
	ITRACE_CLASS_FP_MUL = 9,
	ITRACE_CLASS_FP_FMA = 10,  /* fused multiply-add */
	ITRACE_CLASS_FP_DIV = 11,
	ITRACE_CLASS_FP_SQRT = 12,
	ITRACE_CLASS_VEC_ALU = 13, /* vector integer add, logic, compare,
				    * shift, min/max, blend; FP logic */
	ITRACE_CLASS_VEC_MUL = 14, /* vector integer multiply, dot products */
	ITRACE_CLASS_VEC_SHUFFLE = 15, /* permute, shuffle, unpack, pack,
					* insert, extract, broadcast */
	ITRACE_CLASS_CRYPTO = 16,  /* AES, SHA, GFNI, carry-less multiply */
	ITRACE_CLASS_STRING = 17,  /* x86 movs, stos, lods, cmps, scas, ins,
				    * outs: one iteration */
	ITRACE_CLASS_ATOMIC = 18,  /* locked read-modify-write, xchg with
				    * memory, cmpxchg; POWER larx, stcx. */
	ITRACE_CLASS_FENCE = 19,   /* lfence, sfence, mfence, serialize;
				    * POWER sync, lwsync, isync, eieio */
	ITRACE_CLASS_SYSTEM = 20,  /* serialising or privileged-state work:
				    * syscall, cpuid, rdtsc, xgetbv, CET
				    * shadow-stack ops, xsave, cache flushes;
				    * POWER sc, scv, mtspr/mfspr of slow
				    * registers, mtmsr, transactional memory */
	ITRACE_CLASS_MATRIX = 21,  /* AMX tile and POWER MMA operations */
	ITRACE_CLASS_COUNT = 22
};

/* Attributes of a decoded instruction (itrace_insn_info.attrs). */
enum itrace_insn_attr {
	ITRACE_ATTR_ZERO_IDIOM = 1u << 0,  /* result is zero whatever the
					    * sources (xor r, r; sub r, r;
					    * pxor/xorps/vpxor x, x; POWER
					    * xxlxor/vxor x, y, y): no true
					    * dependency on them */
	ITRACE_ATTR_ONES_IDIOM = 1u << 1,  /* result is all ones whatever the
					    * sources (pcmpeq x, x; POWER
					    * xxleqv/vcmpequb x, y, y) */
	ITRACE_ATTR_REG_MOVE = 1u << 2,	   /* full-width copy of one register
					    * into another (mov r64, r64;
					    * mov r32, r32; movaps/movdqa and
					    * their VEX/EVEX forms, unmasked;
					    * POWER mr, fmr, xxlor/vor x, y,
					    * y): a move-elimination candidate */
	ITRACE_ATTR_FUSIBLE = 1u << 3,	   /* x86 cmp, test, add, sub, and,
					    * inc, dec without an immediate
					    * and a memory operand together
					    * and without rip-relative
					    * addressing: may macro-fuse with
					    * a following conditional jump */
	ITRACE_ATTR_STACK = 1u << 4,	   /* adjusts the stack pointer
					    * implicitly (push, pop, call,
					    * ret, leave, enter) */
	ITRACE_ATTR_LOCK = 1u << 5,	   /* atomic read-modify-write */
	ITRACE_ATTR_SERIALIZING = 1u << 6, /* waits for every older
					    * instruction (cpuid, lfence,
					    * serialize, syscall; POWER
					    * isync, sync, sc) */
	ITRACE_ATTR_TRAP = 1u << 7,	   /* raises an exception by design
					    * (int3, int n, ud2; POWER trap) */
	ITRACE_ATTR_LOAD_RESERVE = 1u << 8, /* POWER l[bhwdq]arx */
	ITRACE_ATTR_STORE_COND = 1u << 9,  /* POWER st[bhwdq]cx. */
	ITRACE_ATTR_REGS_CUT = 1u << 10,   /* more registers than the lists
					    * hold (xsave, xrstor): read[] and
					    * write[] are incomplete */
	ITRACE_ATTR_OWN_TABLE = 1u << 11,  /* POWER instruction capstone 4
					    * does not know, decoded by
					    * libitrace's ISA 3.0/3.1 table */
	ITRACE_ATTR_ADDRESS_ONLY = 1u << 12, /* has a memory operand that is
					      * only an address, never
					      * accessed (lea, prefetch,
					      * nop, clflush; POWER dcbt);
					      * it is not in mem[] */
	ITRACE_ATTR_ADD_IMM = 1u << 13,	   /* x86 add, sub, inc or dec of a
					    * 32/64-bit register with an
					    * immediate (no memory operand):
					    * a rename-time add candidate
					    * (immediate folding) */
	ITRACE_ATTR_REPE = 1u << 14,	   /* x86 cmps or scas with a repe
					    * (repz) prefix: the loop also
					    * ends when an iteration clears
					    * ZF */
	ITRACE_ATTR_REPNE = 1u << 15,	   /* ... with repne (repnz): when
					    * an iteration sets ZF */
};

/* Flags of one memory operand. */
enum itrace_mem_op_flags {
	ITRACE_MEMOP_READ = 1u << 0,
	ITRACE_MEMOP_WRITE = 1u << 1,
	ITRACE_MEMOP_PCREL = 1u << 2,	  /* EA = x86: the next instruction's
					   * address + disp; POWER: this
					   * instruction's address + disp */
	ITRACE_MEMOP_VSIB = 1u << 3,	  /* index is a vector register
					   * (gather, scatter): one operand,
					   * one address per element */
	ITRACE_MEMOP_PUSH = 1u << 4,	  /* implicit push: EA = stack
					   * pointer before the instruction
					   * - size */
	ITRACE_MEMOP_AFTER_POP = 1u << 5, /* pop to a memory operand based
					   * on rsp: the CPU forms the EA
					   * with rsp after the pop */
	ITRACE_MEMOP_ADDR32 = 1u << 6,	  /* 32-bit address size: the EA
					   * wraps at 4 GiB */
	ITRACE_MEMOP_IMPLICIT = 1u << 7,  /* not written in the instruction
					   * text (stack, string operands) */
	ITRACE_MEMOP_INDEX8 = 1u << 8,	  /* only the index register's low
					   * byte counts (xlat: al) */
	ITRACE_MEMOP_LEN_REG = 1u << 9,	  /* `index` is no address part but
					   * a length: bytes = min(size, its
					   * bits 0-7) (POWER lxvl, stxvl) */
};

/*
 * One memory operand.  Its effective address is
 *   base + index * scale + disp    (+ the fs/gs base for those segments)
 * with the exceptions the flags name, rounded down to `align`.
 */
struct itrace_insn_mem {
	int64_t disp;
	uint32_t size;	 /* bytes accessed; 0 when it depends on run-time
			  * state (xsave: XCR0) */
	uint16_t flags;	 /* enum itrace_mem_op_flags */
	uint8_t base;	 /* enum itrace_reg; NONE when absent (POWER RA = 0
			  * reads as the value 0) */
	uint8_t index;	 /* enum itrace_reg (a vector register for VSIB) */
	uint8_t scale;	 /* 1, 2, 4 or 8 */
	uint8_t segment; /* ITRACE_REG_X86_FS or _GS when that base is added,
			  * else NONE */
	uint8_t align;	 /* EA rounded down to a multiple (POWER lvx: 16);
			  * 1: none */
};

#define ITRACE_INSN_MAX_READS 16
#define ITRACE_INSN_MAX_WRITES 8
#define ITRACE_INSN_MAX_MEM 4

/* Everything the decoder knows about one instruction. */
struct itrace_insn_info {
	struct itrace_decoded d; /* as itrace_decoder_decode() */
	uint8_t cls;		 /* enum itrace_insn_class */
	uint8_t nread, nwrite, nmem;
	uint16_t attrs;		 /* enum itrace_insn_attr */
	uint16_t vec_bits;	 /* vector length of the operation: 0 for
				  * scalar work (integer, x87, scalar SSE or
				  * VSX), else 64 (MMX), 128, 256 or 512 */
	/* Registers read (address registers included) and written
	 * (conditionally written included), each once, in operand order;
	 * flags are ITRACE_REG_FLAGS, POWER CR fields ITRACE_REG_CR(n). */
	uint8_t read[ITRACE_INSN_MAX_READS];
	uint8_t write[ITRACE_INSN_MAX_WRITES];
	/* Memory operands, explicit ones first, then implicit (stack,
	 * string); address-only operands (lea) are left out. */
	struct itrace_insn_mem mem[ITRACE_INSN_MAX_MEM];
	uint8_t op_bits;	 /* x86: the operation's operand size in bits
				  * (8, 16, 32, 64; divide latency depends on
				  * it); 0 when not known (POWER) */
};

struct itrace_decoder;

/*
 * itrace_decoder_alloc - open a decoder for ELF machine `machine` (EM_X86_64
 * = 62, EM_PPC64 = 21) and byte order `endian` (1 little, 2 big), the values
 * of the trace header.  OUT *dp receives a decoder the caller frees with
 * itrace_decoder_free().  One thread at a time may use it.
 * Returns 0; -ITRACE_E_NOTSUP for another machine or byte order,
 * -ITRACE_E_INTERNAL if Zydis or capstone cannot be opened, -ITRACE_E_NOMEM.
 */
int itrace_decoder_alloc(uint16_t machine, uint8_t endian, struct itrace_decoder **dp);

/* itrace_decoder_free - release the decoder; NULL is a no-op. */
void itrace_decoder_free(struct itrace_decoder *d);

/*
 * itrace_decoder_decode - decode the instruction at `code` (`avail` bytes
 * readable), located at address `addr`, into *out.  Kinds: jcc, loop,
 * loope, loopne, jcxz/jecxz/jrcxz, xbegin and POWER bc* with a condition
 * are COND; jmp and b are UNCOND (direct) or INDIRECT (register, memory,
 * far); call and bl are CALL or INDIRECT_CALL (far calls included);
 * ret, far ret, iret, blr are RETURN (conditional blr/bctr forms are COND);
 * syscall, sysenter, int n, int3, int1, into, POWER sc and scv are
 * SYSCALL (the trap instructions with ITRACE_DECODED_TRAP).
 * Returns 0; -ITRACE_E_DECODE if the bytes are not a valid instruction or
 * it does not fit in `avail`; -ITRACE_E_INVAL for NULL arguments.
 */
int itrace_decoder_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			  uint64_t addr, struct itrace_decoded *out);

/*
 * itrace_decoder_info - decode the instruction at `code` completely into
 * *out (see struct itrace_insn_info).  Same returns as
 * itrace_decoder_decode(); out->d equals what it gives.
 */
int itrace_decoder_info(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			uint64_t addr, struct itrace_insn_info *out);

/*
 * itrace_decoder_text - write "mnemonic operands" of the instruction at
 * `code` into buf (NUL-terminated, cut to `cap`): Zydis' Intel syntax for
 * x86-64, capstone's syntax for POWER (the same style for instructions of
 * libitrace's own table; a prefixed instruction is one line).  Returns
 * the instruction length (> 0); -ITRACE_E_DECODE for bytes that do not
 * decode; -ITRACE_E_INVAL for NULL arguments or cap == 0.
 */
int itrace_decoder_text(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			uint64_t addr, char *buf, size_t cap);

/*
 * itrace_decoder_reg_name - the name of register id `reg` for the
 * decoder's architecture ("rax", "zmm7", "k1", "r31", "vs40", "cr6",
 * "flags", ...), or NULL for an id it does not use.  The string is static.
 */
const char *itrace_decoder_reg_name(const struct itrace_decoder *d, unsigned reg);

/*
 * Register values before an instruction executes, for
 * itrace_insn_mem_accesses(): general registers by ITRACE_REG_GPR index
 * (x86-64: rax rcx rdx rbx rsp rbp rsi rdi r8..r15), and the x86 fs/gs
 * segment bases; for itrace_insn_rep_final_check(), x86 rflags.
 */
struct itrace_regs {
	uint64_t gpr[32];
	uint64_t fs_base, gs_base;
	uint64_t flags; /* x86 rflags (ZF is bit 6); 0 where not known */
};

/* One data access of an executed instruction. */
struct itrace_mem_access {
	uint64_t addr;
	uint32_t size;	/* bytes */
	uint8_t store;	/* 1 store, 0 load */
};

/*
 * itrace_insn_mem_accesses - the loads and stores the instruction `in`
 * makes when it executes with register values `r`: its memory operands'
 * effective addresses, loads first, then stores (an operand that is read
 * and written gives both).  A rep string instruction makes one iteration's
 * accesses, none when its count register is zero.  Operands whose address
 * the general registers do not give (VSIB gather/scatter) and operands of
 * size 0 are left out.  Returns the number written to out[0..max).
 */
int itrace_insn_mem_accesses(const struct itrace_insn_info *in, const struct itrace_regs *r,
			     struct itrace_mem_access *out, int max);

/*
 * itrace_insn_rep_final_check - a step of the x86 rep string instruction
 * `in` (ITRACE_DECODED_REP) began with registers `before` and ended at the
 * next instruction with `after`: does its trace get one more instruction
 * record, with no MEM record, for the check that finds the count register
 * zero (ITRACE.md 6.5.2)?  Yes when the step made an iteration (the count
 * was not zero before), the count is zero after it, and for cmps and scas
 * (ITRACE_ATTR_REPE, ITRACE_ATTR_REPNE) the last comparison did not end
 * the loop by itself.  For backends that step the processor (which leaves
 * the instruction right after its last iteration); 0 for anything else.
 */
int itrace_insn_rep_final_check(const struct itrace_insn_info *in, const struct itrace_regs *before,
				const struct itrace_regs *after);

/* itrace_insn_class_name - "int_alu", "load", ...; NULL for another value. */
const char *itrace_insn_class_name(unsigned cls);

/* ===== 6. Image ========================================================= */

/*
 * The image answers "which code was at this address in this process":
 * mappings come from MMAP records (file, offset, build-id) and CODE records
 * (vDSO, JIT).  Files are located as path, or sysroot + path, or by
 * build-id under the debug directory (DIR/.build-id/xx/yyyy); a file whose
 * build-id differs from the one in the MMAP record is refused for that
 * mapping.  Files are opened lazily, on the first lookup that needs them,
 * and stay open until the image is freed, so code pointers stay valid.
 */

struct itrace_image_options {
	size_t size;	       /* sizeof(struct itrace_image_options) */
	const char *sysroot;   /* prefix for mapped paths; NULL = "/" */
	const char *debug_dir; /* build-id directory root; NULL = /usr/lib/debug */
};

/* itrace_image_options_init - defaults: no sysroot, /usr/lib/debug. */
void itrace_image_options_init(struct itrace_image_options *o);

struct itrace_image;

/*
 * itrace_image_alloc - create an empty image.  The option strings are
 * copied.  OUT *ip receives an image freed with itrace_image_free().
 * Not thread-safe: one image per thread.
 * Returns 0; -ITRACE_E_INVAL for a NULL argument, -ITRACE_E_NOMEM.
 */
int itrace_image_alloc(const struct itrace_image_options *o, struct itrace_image **ip);

/* itrace_image_free - close every file and free the image; NULL is a no-op. */
void itrace_image_free(struct itrace_image *img);

/*
 * itrace_image_add_mmap - add mapping `m` to process m->pid.  It replaces
 * the parts of older mappings it overlaps (like mmap(MAP_FIXED)).  The path
 * and build-id are copied.  Problems with the file (missing, not ELF,
 * build-id mismatch) do not fail here: lookups report them.
 * Returns 0; -ITRACE_E_INVAL for an empty or wrapping range,
 * -ITRACE_E_NOMEM.
 */
int itrace_image_add_mmap(struct itrace_image *img, const struct itrace_mmap *m);

/*
 * itrace_image_add_code - add the bytes of CODE record `c` for process
 * `pid` (copied).  CODE takes precedence over file mappings; a later CODE
 * record over the same addresses replaces the earlier one (JIT rewrites).
 * Returns 0; -ITRACE_E_INVAL for an empty or wrapping range,
 * -ITRACE_E_NOMEM.
 */
int itrace_image_add_code(struct itrace_image *img, uint32_t pid, const struct itrace_code *c);

/*
 * itrace_image_apply - update the image from one trace record: MMAP and
 * CODE add code (a CODE record of pid 0, written before any THREAD record,
 * goes to the process of the last MMAP record), PROCESS FORK copies the
 * parent's mappings to the child,
 * PROCESS EXEC forgets the process's mappings.  Other records are ignored.
 * Returns 1 if the image changed, 0 if not, or a negative code as above.
 */
int itrace_image_apply(struct itrace_image *img, const struct itrace_record *rec);

/* Where an address lies in the image. */
struct itrace_image_loc {
	uint64_t start, end;   /* range around addr served by the same source:
				* the mapping or CODE block, minus CODE
				* blocks that shadow parts of it */
	uint64_t offset;       /* file offset of addr (CODE: offset in block) */
	uint64_t bias;	       /* runtime address - ELF vaddr (0 for CODE) */
	const char *path;      /* path in the trace, "[code]" for CODE bytes */
	const char *file;      /* file actually opened, NULL if none */
	const uint8_t *bytes;  /* code at addr, valid while the image lives */
	size_t avail;	       /* readable bytes at `bytes` */
	uint32_t module;       /* id of the code source (file or CODE block),
				* the same for every mapping of one file */
};

/*
 * itrace_image_lookup - find the code at `addr` in process `pid`.  On
 * success and on the file errors below *loc describes the mapping (bytes
 * NULL, avail 0 on error) so that callers can name it in messages.
 * Returns 0; -ITRACE_E_NOENT if no mapping covers addr; -ITRACE_E_IO if
 * the mapped file is not found (or the mapping has no file, e.g. [vdso]
 * without CODE records); -ITRACE_E_ELF if it is not a readable ELF file or
 * addr lies past its end; -ITRACE_E_BUILDID if its build-id differs from
 * the one recorded in the trace.
 */
int itrace_image_lookup(struct itrace_image *img, uint32_t pid, uint64_t addr,
			struct itrace_image_loc *loc);

/*
 * itrace_elf_build_id - read the GNU build-id note of ELF file `path` into
 * buf (at most cap bytes).  Returns the build-id length (> 0); -ITRACE_E_IO
 * if the file cannot be opened (errno kept), -ITRACE_E_ELF if it is not
 * ELF, -ITRACE_E_NOENT if it has no build-id, -ITRACE_E_INVAL if cap is
 * too small.
 */
int itrace_elf_build_id(const char *path, uint8_t *buf, size_t cap);

/* ===== 7. Symbolizer ==================================================== */

/*
 * Symbols and source lines by address (libdwfl over the image's files, with
 * separate debug info found by build-id under the debug directory), and
 * addresses by symbol name for triggers.
 */

/* Symbol found for an address or a name. */
struct itrace_symbol {
	const char *name;   /* symbol name; NULL if none covers the address */
	uint64_t addr;	    /* runtime start address of the symbol */
	uint64_t size;	    /* symbol size (0 if unknown) */
	uint64_t offset;    /* queried address - addr */
	const char *module; /* path of the mapped file; NULL if unmapped */
	const char *file;   /* source file (ITRACE_SYM_LINE), NULL if unknown */
	int line;	    /* source line, 0 if unknown */
	int plt;	    /* (ITRACE_SYM_NAME) 1: addr lies in a PLT section
			     * (.plt, .plt.sec, .plt.got, .iplt): a stub */
	int unwind;	    /* (ITRACE_SYM_NAME) 1: no symbol covers addr: name
			     * FILE+0xOFFSET and bounds come from the file's
			     * unwind table or code section (README.md) */
};

enum itrace_sym_what {
	ITRACE_SYM_NAME = 1u << 0, /* symbol name and offset */
	ITRACE_SYM_LINE = 1u << 1, /* source file:line (reads DWARF) */
};

struct itrace_symbolizer;

/*
 * itrace_symbolizer_alloc - create a symbolizer over `img`, which it borrows
 * (img must outlive it).  Mappings added to img later are seen by later
 * lookups.  OUT *sp, freed with itrace_symbolizer_free().  Not thread-safe.
 * Returns 0; -ITRACE_E_INVAL for NULL arguments, -ITRACE_E_NOMEM.
 */
int itrace_symbolizer_alloc(struct itrace_image *img, struct itrace_symbolizer **sp);

/* itrace_symbolizer_free - release it; NULL is a no-op. */
void itrace_symbolizer_free(struct itrace_symbolizer *s);

/*
 * itrace_symbolizer_lookup - describe `addr` of process `pid` in *out:
 * `what` selects name and/or source line.  Strings are owned by the
 * symbolizer and stay valid until it is freed.  Returns 0 when the address
 * lies in a mapped file (name/file may still be NULL when the file has no
 * such information); -ITRACE_E_NOENT when no mapping covers it (out
 * cleared); -ITRACE_E_IO, -ITRACE_E_ELF or -ITRACE_E_BUILDID when the file
 * cannot be used (see itrace_image_lookup; out->module is set).
 */
int itrace_symbolizer_lookup(struct itrace_symbolizer *s, uint32_t pid, uint64_t addr,
			     unsigned what, struct itrace_symbol *out);

/*
 * itrace_symbolizer_find - runtime address of function or object `name` in
 * the files mapped into process `pid` (first match in mapping order).
 * Returns 0 with *out filled (offset 0); -ITRACE_E_NOENT if no mapped file
 * defines it; -ITRACE_E_INVAL for NULL arguments.
 */
int itrace_symbolizer_find(struct itrace_symbolizer *s, uint32_t pid, const char *name,
			   struct itrace_symbol *out);

/* Called once per function by itrace_symbolizer_functions(); a negative
 * return stops the walk and is returned. */
typedef int (*itrace_symbolizer_function_fn)(void *arg, uint64_t start, uint64_t size,
					      const char *name);

/*
 * itrace_symbolizer_functions - call `fn` for every function of the file
 * mapped at `addr` in process `pid` that has debug info: defined function
 * symbols with a size whose first address the DWARF line table covers
 * (separate debug files are found as for lookups).  `start` is the
 * runtime address; `name` stays valid until the symbolizer is freed.  A
 * file without DWARF calls nothing.  Functions may be reported twice when
 * several symbols name the same code.
 * Returns 0; -ITRACE_E_NOENT if no usable file is mapped at addr;
 * -ITRACE_E_INVAL, -ITRACE_E_NOMEM; or fn's negative return.
 */
int itrace_symbolizer_functions(struct itrace_symbolizer *s, uint32_t pid, uint64_t addr,
				itrace_symbolizer_function_fn fn, void *arg);

/* A symbol of one ELF file, at its link-time address. */
struct itrace_elf_symbol {
	uint64_t vaddr;	 /* st_value */
	uint64_t size;	 /* st_size */
	uint64_t offset; /* file offset of vaddr (to place it in a mapping:
			  * runtime = map.start + offset - map.pgoff) */
	int is_func;	 /* STT_FUNC / STT_GNU_IFUNC */
};

/*
 * itrace_elf_find_symbol - look `name` up in the symbol tables (.symtab,
 * then .dynsym) of ELF file `path`, before any process exists (collector
 * triggers).  Defined symbols only.  Returns 0; -ITRACE_E_IO if the file
 * cannot be opened, -ITRACE_E_ELF if it is not ELF, -ITRACE_E_NOENT if the
 * name is not defined there, -ITRACE_E_INVAL for NULL arguments.
 */
int itrace_elf_find_symbol(const char *path, const char *name, struct itrace_elf_symbol *out);

/* ===== 8. Filler ======================================================== */

/*
 * The filler turns a branch-level trace into an instruction-level one: for
 * every BRANCH record of a thread it emits the instructions from where the
 * thread was (the previous branch's target) up to and including the branch
 * source, found by decoding the program's code (block cache keyed by code
 * source and offset: each static block is decoded once).  Context records
 * (THREAD, PROCESS, MMAP, CODE, SYSCALL, SIGNAL, TIMESTAMP, TRACE_CTL, LOST,
 * GAP) pass through in order; BRANCH records are consumed.
 *
 * Walk rules.  INTERRUPT branches stop before `from` (the interrupted
 * instruction has not run); every other kind includes it.  A SIGNAL record
 * walks up to (not including) its pc, so a fatal signal's last
 * instructions are not lost.  Direct unconditional jumps and calls met on
 * the way are followed.  A conditional branch met on the way that is not
 * the record's source is not taken when the input has ITRACE_FF_TAKEN_ONLY,
 * and a gap otherwise.  syscall met on the way falls through.  A SYSCALL
 * record (enter) means the thread is at a syscall instruction: the walk to
 * it is done when the thread's next event needs it, so the instructions up
 * to an exit syscall are not lost; a SYSCALL or SIGRETURN branch followed
 * by its SYSCALL record counts once.
 *
 * When the walk cannot continue it emits a GAP record (reason, the address
 * where it stopped, resume = the branch's target) and resynchronises at the
 * branch target.  A thread's position is unknown at its start unless a
 * TRACE_CTL record gives it or it is created (THREAD create, PROCESS fork)
 * by a thread whose position is known (it then starts after its parent's
 * clone/fork); also after tracing was off, LOST records and damaged
 * chunks.  The next branch of such a thread starts with a GAP (none after
 * a damaged chunk or an input GAP, which explain themselves).
 *
 * The output repeats a THREAD switch at the first record of each input
 * chunk, so that chunks can be filled independently (-j).
 */

enum itrace_fill_flags {
	ITRACE_FILL_NO_CACHE = 1u << 0, /* decode every executed instruction
					 * with capstone (the naive fill) */
	ITRACE_FILL_BYTES = 1u << 1,	/* INSN records carry their bytes
					 * (else sequential ones become runs) */
};

struct itrace_fill_options {
	size_t size;	       /* sizeof(struct itrace_fill_options) */
	const char *sysroot;   /* as in struct itrace_image_options */
	const char *debug_dir;
	unsigned jobs;	       /* threads, the caller's included; 1 = sequential */
	unsigned flags;	       /* enum itrace_fill_flags */
	uint64_t max_walk;     /* instructions one walk may take before it
				* is declared a gap (runaway loop) */
	/* Called from the calling thread about every 64K input records
	 * (with jobs > 1: after each chunk). */
	void (*progress)(void *arg, uint64_t records_done);
	void *progress_arg;
};

/* itrace_fill_options_init - 1 job, no bytes, max_walk 1<<20. */
void itrace_fill_options_init(struct itrace_fill_options *o);

/* What a fill did. */
struct itrace_fill_stats {
	uint64_t records_in;	  /* input records read */
	uint64_t branches;	  /* BRANCH records consumed */
	uint64_t insns;		  /* INSN records emitted */
	uint64_t records_out;	  /* all records emitted */
	uint64_t gaps;		  /* GAP records emitted by the filler */
	uint64_t gap_reason[16];  /* by enum itrace_gap_reason */
	uint64_t blocks_decoded;  /* blocks decoded (cache misses) */
	uint64_t blocks_reused;	  /* cache hits */
	uint64_t unknown_dropped; /* records of unknown type not copied */
	uint64_t first_gap_addr[16]; /* address of the first gap per reason */
};

/*
 * Output of the filler: called once per output record, in order, from the
 * thread that called itrace_filler_run().  A negative return stops the fill
 * and is returned by itrace_filler_run().
 */
typedef int (*itrace_fill_output_fn)(void *arg, const struct itrace_record *rec);

/*
 * itrace_fill_output_writer - an itrace_fill_output_fn that appends to the
 * struct itrace_writer passed as `arg`.  Returns what the writer returns.
 */
int itrace_fill_output_writer(void *arg, const struct itrace_record *rec);

/*
 * itrace_fill_writer_options - writer options for the filled version of the
 * trace read by `r`: same machine, byte order and metadata, insn level,
 * flags without TAKEN_ONLY and with FILLED (and INSN_BYTES when
 * `fill_flags` has ITRACE_FILL_BYTES).  The metadata entries are stored in
 * the caller's array `meta` (meta_cap entries) and point into the reader:
 * keep both until the writer is open.  Returns 0, or -ITRACE_E_INVAL for
 * NULL arguments or more metadata entries than meta_cap.
 */
int itrace_fill_writer_options(const struct itrace_reader *r, unsigned fill_flags,
			       struct itrace_writer_options *wo, struct itrace_meta *meta,
			       size_t meta_cap);

struct itrace_filler;

/*
 * itrace_filler_alloc - create a filler with options `o` (copied; NULL =
 * defaults).  OUT *fp, freed with itrace_filler_free().
 * Returns 0; -ITRACE_E_INVAL for bad options (jobs 0 or > 256),
 * -ITRACE_E_NOMEM.
 */
int itrace_filler_alloc(const struct itrace_fill_options *o, struct itrace_filler **fp);

/* itrace_filler_free - release it; NULL is a no-op. */
void itrace_filler_free(struct itrace_filler *f);

/*
 * itrace_filler_run - fill the trace read by `r` (positioned at its start)
 * into `out`.  With jobs > 1 and `path` naming the same (seekable) file,
 * chunks are filled by worker threads with their own readers and stitched
 * in order; the output is identical to jobs = 1.  When `out` is
 * itrace_fill_output_writer, every input chunk's output starts a chunk of
 * the output file (with any number of jobs), so that workers can encode
 * and compress their chunks' output themselves.  Streams, traces without
 * a chunk index and damaged traces are filled sequentially (from the
 * damage on, after a parallel start).
 * Returns 0 when the whole input was filled; on damaged input every record
 * before the damage is filled, a GAP is emitted, and the reader's code is
 * returned: -ITRACE_E_TRUNCATED or -ITRACE_E_CORRUPT (after a corrupt
 * chunk the fill continues with the next intact one and returns the code
 * at the end), -ITRACE_E_NOFOOTER (all chunks filled, the writer of the
 * input was killed).  Other returns: -ITRACE_E_NOTSUP (input not branch
 * level, or unsupported machine), -ITRACE_E_IO/-ITRACE_E_NOMEM, or the
 * negative value returned by `out`.  itrace_filler_error() has the text.
 */
int itrace_filler_run(struct itrace_filler *f, struct itrace_reader *r, const char *path,
		      itrace_fill_output_fn out, void *out_arg);

/* itrace_filler_stats - statistics of the last run (zero before). */
const struct itrace_fill_stats *itrace_filler_stats(const struct itrace_filler *f);

/*
 * itrace_filler_gap_module - path (as in the trace) of the mapping where the
 * first gap with `reason` of the last run happened, or NULL if there was no
 * such gap or it lay in no mapping.  Owned by the filler.
 */
const char *itrace_filler_gap_module(const struct itrace_filler *f, int reason);

/* itrace_filler_error - message for the last failure of run, "" if none. */
const char *itrace_filler_error(const struct itrace_filler *f);

/* ===== 9. Analysis ====================================================== */
/*
 * The analysis turns the executed-instruction stream of a trace into what
 * profilers show: call/return pairs per thread (call paths and calls with
 * instruction counts), per-function counts, basic blocks, branch
 * statistics and source-line counts.  Feed it every record of an
 * instruction-level trace (or of the filler's output) in order with
 * itrace_analysis_add(), call itrace_analysis_finish(), then read the
 * tables.  Memory grows with the code executed (distinct instructions,
 * functions, call paths), not with the trace length: per-event rows
 * (branches, calls, instructions) are handed to callbacks as they happen.
 *
 * How the stream is interpreted:
 *  - Each INSN record is one executed instruction.  Its kind (call, return,
 *    jump, ...) comes from the decoder (section 5); the bytes come
 *    from the record, or from an image (section 6) fed the MMAP, CODE
 *    and PROCESS records: CODE records seen earlier, or the file of the
 *    MMAP record that covers the address, found and checked as the image
 *    finds files (read once per address).
 *  - A branch instruction is "taken" when the next instruction of the same
 *    thread is not the one that follows it in memory.
 *  - Calls are counted as valgrind's callgrind counts them (its calls=
 *    lines, with --skip-plt=no), and instructions count as "self" for
 *    the function of the activation that executes them, as callgrind
 *    charges them.  No stack pointer is needed for code that calls,
 *    returns and jumps as compilers make it.
 *  - call pushes a frame returning to the instruction after the call (a
 *    call to the next instruction, reading the pc, too); return pops down
 *    to the frame whose return address it reaches (frames it called that
 *    never returned end with flag NO_RETURN).
 *  - A jump to the start of a function (a symbol with a size), into
 *    another module, or from a PLT section to other code or back, enters
 *    that function: flag JUMP, a call in the counts.  So do a branch that
 *    falls through to a function's start (callgrind's blocks end at every
 *    branch) and tail calls.  Such an activation runs in the stack frame
 *    of the one it jumped from and returns with it.  A trampoline (code
 *    in a PLT section, the dynamic linker's _dl_runtime_resolve*) that
 *    jumps on ends there, and the function it reaches takes its place:
 *    called as the trampoline was, returning where it would have.
 *  - A jump (or a return that matches no frame) into the body of a
 *    function further down the stack (longjmp, siglongjmp, an exception
 *    handler) unwinds to that activation: the activations it called end
 *    with flags NO_RETURN | UNWOUND; those it entered by a jump (a cold
 *    part, a tail call) share its stack frame and stay.  Any other jump
 *    into another function's body stays in the current activation.
 *  - A return that matches no frame and lands in no function on the
 *    stack underflows it (the trace began inside a deeper call, e.g. main
 *    returning into libc): a new root frame, flag NO_CALL, counted as a
 *    call as callgrind counts it.
 *  - A signal (SIGNAL record with a handler, an INTERRUPT branch, or a
 *    discontinuity after a non-branch instruction) pushes a SIGNAL frame
 *    that remembers where the thread was interrupted; reaching that place
 *    again (rt_sigreturn) pops it, whatever the handler did in between.
 *    The handler's return into the signal trampoline underflows as above.
 *  - A rep-prefixed instruction repeated at the same address counts once
 *    per instruction record: per iteration, and once more for the final
 *    check of a count that ran out (ITRACE.md 6.5.2), as callgrind's Ir.
 *
 * Ids in the tables are 1-based; 0 means "none/unknown" (as in perf's
 * SQLite export).  Strings belong to the analysis and stay valid until
 * itrace_analysis_free().
 */

/* What a symbolizer callback reports for one address. */
struct itrace_analysis_sym {
	uint64_t start;	  /* first address of the function containing addr */
	uint64_t size;	  /* its size in bytes (0: unknown) */
	const char *name; /* function name (NULL: no symbol); copied */
	const char *file; /* source file of addr (NULL: no line info); copied */
	uint32_t line;	  /* source line of addr (0: unknown) */
	uint8_t plt;	  /* addr lies in a PLT section (.plt, .plt.sec, .plt.got) */
	uint8_t unwind;	  /* named from unwind data, no symbol (itrace_symbol) */
};

/*
 * Symbolizer callback: describe `addr` of process `pid`, which lies in the
 * mapping of file `path` (NULL: no mapping) at file offset `file_offset`.
 * Fill *out and return 0, or return -ITRACE_E_NOENT when nothing is known
 * (the instruction is then counted under "[unknown]" of its module); any
 * other negative code aborts the analysis with that code.
 */
typedef int (*itrace_analysis_symbolize_fn)(void *ctx, uint32_t pid, uint64_t addr,
					    const char *path, uint64_t file_offset,
					    struct itrace_analysis_sym *out);

/*
 * itrace_analysis_symbolize - the symbolizer callback over an itrace
 * symbolizer (section 7): `ctx` is the struct itrace_symbolizer *.  It
 * describes addr as itrace_analysis_run() does for every itrace tool:
 * name, bounds, the PLT flag, the unwind flag of code named from unwind
 * data (FILE+0xOFFSET, which the call rules above treat as callgrind
 * does: no function start for a jump) and the source line.  A symbolizer
 * callback of one's own must report the same to get the same calls.
 * Returns 0, or -ITRACE_E_NOENT when the address has no name, no line
 * and is no PLT code (and when its file cannot be used); -ITRACE_E_INVAL
 * for NULL ctx or out.
 */
int itrace_analysis_symbolize(void *ctx, uint32_t pid, uint64_t addr, const char *path,
			      uint64_t file_offset, struct itrace_analysis_sym *out);

/* Flags of a reconstructed call (struct itrace_analysis_call.flags). */
enum itrace_call_flags {
	ITRACE_CALL_NO_CALL = 1u << 0,	 /* its call was not seen (root frame) */
	ITRACE_CALL_NO_RETURN = 1u << 1, /* left without a return (longjmp, end) */
	ITRACE_CALL_SIGNAL = 1u << 2,	 /* a signal handler activation */
	ITRACE_CALL_UNWOUND = 1u << 3,	 /* unwound by a jump to an outer frame */
	ITRACE_CALL_JUMP = 1u << 4,	 /* entered by a jump: tail call, PLT/GOT */
};

/* One executed branch instruction (per-event callback). */
struct itrace_analysis_branch_event {
	uint64_t seq;	       /* 1-based number of the branch in the trace */
	uint64_t thread_id;    /* row of the threads table */
	uint64_t from, to;     /* to = next instruction executed */
	uint64_t from_function_id, to_function_id;
	uint64_t from_dso_id, to_dso_id;
	uint64_t from_offset, to_offset; /* from their function's start (0: unknown) */
	uint64_t call_path_id; /* call path current at the branch */
	uint64_t insn_seq;     /* instructions of the thread before `from` */
	uint64_t time_ns;
	uint8_t kind;	       /* enum itrace_branch_kind */
	uint8_t taken;
	uint64_t insn_index;   /* instructions of all threads before `from` */
};

/* One executed instruction (per-event callback, for --level insns). */
struct itrace_analysis_insn_event {
	uint64_t thread_id;
	uint64_t addr;
	uint64_t function_id;
	uint64_t offset;       /* from the function's start (0: unknown) */
	uint64_t call_path_id;
	uint64_t time_ns;
	uint8_t len;
	uint64_t insn_index;   /* instructions of all threads before it */
	uint64_t dso_id;       /* module of the instruction */
};

/*
 * One completed activation.  Calls are delivered when they end (children
 * before parents), ids are given at entry so parent_id is always known.
 * insn_count is inclusive (the activation and everything it called);
 * branch_count likewise.
 */
struct itrace_analysis_call {
	uint64_t id;
	uint64_t parent_id;	/* enclosing activation (0: root) */
	uint64_t thread_id;
	uint64_t call_path_id;
	uint64_t parent_call_path_id;
	uint64_t function_id;
	uint64_t call_ip;	/* address of the call instruction (0: unknown) */
	uint64_t call_insn, return_insn; /* thread instruction numbers */
	uint64_t call_time, return_time; /* ns, 0 when the trace has no time */
	uint64_t insn_count, branch_count;
	uint32_t depth;
	uint32_t flags;		/* enum itrace_call_flags */
	/* call_insn/return_insn counted over all threads: the trace-wide
	 * number of its first instruction, and one past its last */
	uint64_t call_index, return_index;
};

struct itrace_analysis_options {
	size_t size; /* sizeof(struct itrace_analysis_options) */
	uint16_t machine; /* ELF e_machine of the trace: what the decoder
			   * (section 5) supports, EM_X86_64 or EM_PPC64 */
	itrace_analysis_symbolize_fn symbolize; /* NULL: no symbols */
	void *symbolize_ctx;
	/* Per-event callbacks (NULL: not wanted).  A negative return aborts
	 * itrace_analysis_add() with that code. */
	int (*on_branch)(void *ctx, const struct itrace_analysis_branch_event *ev);
	int (*on_insn)(void *ctx, const struct itrace_analysis_insn_event *ev);
	int (*on_call)(void *ctx, const struct itrace_analysis_call *call);
	void *cb_ctx;
	uint8_t endian;	  /* 1 little, 2 big (ELF EI_DATA), as in the trace */
	/* An activation begins: the fields known at entry are set (id,
	 * parent_id, thread_id, call paths, function_id, call_ip, call_insn,
	 * call_index, call_time, depth, flags); NULL: not wanted.  The same
	 * id ends later through on_call, possibly with another function and
	 * call path (a PLT stub's activation becomes the called function's). */
	int (*on_enter)(void *ctx, const struct itrace_analysis_call *call);
};

/* itrace_analysis_options_init - x86-64 little-endian, no symbolizer,
 * no callbacks. */
void itrace_analysis_options_init(struct itrace_analysis_options *opts);

struct itrace_analysis;

/*
 * itrace_analysis_alloc - start an analysis.  Returns 0 and *ap, or
 * -ITRACE_E_INVAL (bad options), -ITRACE_E_NOTSUP (machine or byte order
 * the decoder does not support), -ITRACE_E_NOMEM, -ITRACE_E_DECODE
 * (capstone cannot be opened).
 */
int itrace_analysis_alloc(const struct itrace_analysis_options *opts,
			  struct itrace_analysis **ap);

/* itrace_analysis_free - release everything; NULL is a no-op. */
void itrace_analysis_free(struct itrace_analysis *a);

/*
 * itrace_analysis_add - account one record, in trace order.  INSN, MMAP,
 * CODE, THREAD, PROCESS, SIGNAL, BRANCH (interrupt/sigreturn kinds only;
 * other branches are implied by the instructions), GAP and LOST matter;
 * the rest is ignored.  An instruction whose bytes are not available or
 * do not decode is counted as a non-branch instruction and added to
 * totals.decode_failures (once per address), not reported as an error.
 * Returns 0; -ITRACE_E_STATE after finish; a callback's or symbolizer's
 * negative code; -ITRACE_E_NOMEM.
 */
int itrace_analysis_add(struct itrace_analysis *a, const struct itrace_record *rec);

/*
 * itrace_analysis_finish - end every open activation (flag NO_RETURN,
 * delivered through on_call), then compute the aggregate tables.  Returns
 * 0 or a negative code; calling it twice returns -ITRACE_E_STATE.
 */
int itrace_analysis_finish(struct itrace_analysis *a);

/* Totals of the whole analysis. */
struct itrace_analysis_totals {
	uint64_t insns, branches, calls, threads, decode_failures;
	uint64_t gaps, lost;
	uint64_t first_decode_failure; /* address of the first one (0: none) */
	uint64_t gaps_lost; /* GAP records where instructions are missing (all
			     * reasons but ITRACE_GAP_TRACE_OFF) */
};
void itrace_analysis_totals(const struct itrace_analysis *a, struct itrace_analysis_totals *t);

/* Tables, valid after itrace_analysis_finish().  Each has a count and an
 * accessor taking a 0-based index (row id = index + 1), returning NULL
 * when out of range. */
struct itrace_analysis_thread {
	uint64_t id;
	uint32_t tid, pid;
	const char *comm;	/* last THREAD_NAME, else process path basename, or "" */
	uint64_t insns, branches;
};
struct itrace_analysis_dso {
	uint64_t id;
	const char *path;	/* as in the MMAP record; "[unknown]" for id 1 */
	const char *short_name;	/* basename */
	uint8_t buildid[64];
	uint8_t buildid_len;
};
struct itrace_analysis_function {
	uint64_t id, dso_id;
	uint64_t start, size;	/* 0,0 for "[unknown]" */
	const char *name;
	const char *file;	/* source file of the entry (NULL: none) */
	uint32_t line;
	uint64_t insns;		/* self: instructions its activations executed */
	uint64_t total_insns;	/* inclusive of callees, recursion counted once */
	uint64_t calls;		/* calls, as callgrind counts them (above) */
	uint8_t unwind;		/* no symbol: FILE+0xOFFSET (itrace_symbol.unwind);
				 * a jump to its start stays in the activation,
				 * as callgrind keeps code it has no symbol for */
};
struct itrace_analysis_call_path {
	uint64_t id, parent_id, function_id;
	uint64_t ip;		/* entry address of the activation */
	uint64_t calls, insns;	/* activations on this path, their inclusive insns */
};
struct itrace_analysis_block {
	uint64_t id, function_id;
	uint64_t start, end;	/* [start, end): end = address after last insn */
	uint32_t insn_count;	/* instructions in the block */
	uint64_t executions;
};
struct itrace_analysis_branch_stat {
	uint64_t id, function_id;
	uint64_t from;
	uint64_t to;		/* the most recently taken target (0: never taken) */
	uint64_t fallthrough;	/* the instruction after the branch */
	uint8_t kind;		/* enum itrace_branch_kind */
	uint64_t executions, taken;
	const char *file;	/* source line of the branch (NULL: unknown) */
	uint32_t line;
	uint64_t dso_offset;	/* where `from` is in its dso's file (0: no file) */
};
struct itrace_analysis_edge {	/* call graph: caller -> callee */
	uint64_t id, caller_id, callee_id; /* function ids; caller 0 = root */
	uint64_t calls, insns;	/* activations and the sum of their inclusive
				 * insns (a recursive edge counts nested
				 * activations again: use functions for totals) */
};
struct itrace_analysis_line {
	uint64_t id;
	const char *file;
	uint32_t line;
	uint64_t function_id;	/* function of its first instruction */
	uint64_t executions;	/* most executions of any of its instructions */
	uint64_t insns;		/* instructions executed from this line */
};

size_t itrace_analysis_thread_count(const struct itrace_analysis *a);
const struct itrace_analysis_thread *itrace_analysis_thread_at(const struct itrace_analysis *a, size_t i);
size_t itrace_analysis_dso_count(const struct itrace_analysis *a);
const struct itrace_analysis_dso *itrace_analysis_dso_at(const struct itrace_analysis *a, size_t i);
size_t itrace_analysis_function_count(const struct itrace_analysis *a);
const struct itrace_analysis_function *itrace_analysis_function_at(const struct itrace_analysis *a, size_t i);
size_t itrace_analysis_call_path_count(const struct itrace_analysis *a);
const struct itrace_analysis_call_path *itrace_analysis_call_path_at(const struct itrace_analysis *a, size_t i);
/* Blocks and branch statistics are sorted by (address space, address). */
size_t itrace_analysis_block_count(const struct itrace_analysis *a);
const struct itrace_analysis_block *itrace_analysis_block_at(const struct itrace_analysis *a, size_t i);
size_t itrace_analysis_branch_stat_count(const struct itrace_analysis *a);
const struct itrace_analysis_branch_stat *itrace_analysis_branch_stat_at(const struct itrace_analysis *a, size_t i);
size_t itrace_analysis_edge_count(const struct itrace_analysis *a);
const struct itrace_analysis_edge *itrace_analysis_edge_at(const struct itrace_analysis *a, size_t i);
/* Lines are sorted by file, then line. */
size_t itrace_analysis_line_count(const struct itrace_analysis *a);
const struct itrace_analysis_line *itrace_analysis_line_at(const struct itrace_analysis *a, size_t i);

/*
 * perf's branch types, as perf's SQLite export (tools/perf/util/
 * db-export.c) names them in its branch_types table: an id is a set of
 * PERF_IP_FLAG_* bits (perf's util/event.h: BRANCH 1, CALL 2, RETURN 4,
 * CONDITIONAL 8, SYSCALLRET 16, ASYNC 32, INTERRUPT 64, TX_ABORT 128,
 * TRACE_BEGIN 256, TRACE_END 512), 0 "no branch".
 *
 * itrace_analysis_perf_branch_type - the perf branch type id of an itrace
 * branch kind (enum itrace_branch_kind): cond -> "conditional jump",
 * uncond and indirect -> "unconditional jump" (perf does not tell indirect
 * jumps and calls apart), call and indirect-call -> "call", syscall ->
 * "system call", interrupt (a signal's delivery) -> "asynchronous
 * branch", sigreturn -> "return from system call"; 0 for anything else.
 */
int itrace_analysis_perf_branch_type(int kind);
/* itrace_analysis_perf_branch_type_name - perf's name of branch type id
 * `id` ("conditional jump", "call", ...); NULL if perf has no such id. */
const char *itrace_analysis_perf_branch_type_name(int id);
/* itrace_analysis_perf_branch_type_at - perf's branch type number i
 * (0-based, in perf's own order): its name, its id in *id (id may be
 * NULL); NULL past the last one.  For writing perf's whole table. */
const char *itrace_analysis_perf_branch_type_at(size_t i, int *id);

/*
 * Running an analysis over a whole trace, as the exporters do: the records
 * of `r` (through the filler when the trace is branch level) go into an
 * image and symbolizer built from the trace's MMAP/CODE records, and into
 * the analysis, which gets its symbols and instruction bytes from them.
 */
struct itrace_analysis_run_options {
	size_t size;	       /* sizeof(struct itrace_analysis_run_options) */
	const char *sysroot;   /* as in struct itrace_image_options */
	const char *debug_dir;
	/* Called about every 64K records with the records read so far. */
	void (*progress)(void *arg, uint64_t records);
	void *progress_arg;
	unsigned flags;	       /* enum itrace_analysis_run_flags */
};

enum itrace_analysis_run_flags {
	/* List every function with debug info of each module that executed
	 * code (itrace_symbolizer_functions), not only those that ran:
	 * never-called ones get functions, blocks, branches and source lines
	 * with count 0 (coverage reports). */
	ITRACE_RUN_ALL_FUNCTIONS = 1u << 0,
};

/* itrace_analysis_run_options_init - no sysroot, default debug dir. */
void itrace_analysis_run_options_init(struct itrace_analysis_run_options *o);

/*
 * itrace_analysis_run - analyse every record of `r` (positioned at the
 * start; `path` names the file, for the filler's parallel mode, or NULL)
 * with analysis options `aopts` (the symbolizer fields are replaced), then
 * finish.  Before finishing, the instructions of every executed function
 * that never ran are added with count 0 (decoded from the function's
 * start to its end), so blocks, branch statistics and source lines also
 * list what was not covered (executions 0); with ITRACE_RUN_ALL_FUNCTIONS
 * the functions of executed modules that never ran are added too.
 * OUT *ap receives the finished analysis whenever any record was analysed, even on damaged input (the tables then describe every record
 * before the damage): check *ap, not only the return value.
 * Returns 0; the reader's or filler's negative code for damaged input
 * (-ITRACE_E_TRUNCATED, -ITRACE_E_CORRUPT, -ITRACE_E_NOFOOTER), with
 * itrace_analysis_run_error() describing it; or another negative code
 * (-ITRACE_E_NOTSUP for an unsupported machine, -ITRACE_E_NOMEM,
 * a callback's code), with *ap NULL.
 */
int itrace_analysis_run(struct itrace_reader *r, const char *path,
			const struct itrace_analysis_options *aopts,
			const struct itrace_analysis_run_options *ropts,
			struct itrace_analysis **ap);

/* itrace_analysis_run_error - text of the damage met by the last run
 * (e.g. the reader's message with its offset), "" when none. */
const char *itrace_analysis_run_error(const struct itrace_analysis *a);

#ifdef __cplusplus
}
#endif
#endif /* ITRACE_CODE_H */
