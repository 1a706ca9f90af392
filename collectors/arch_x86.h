/*
 * arch_x86.h - x86-64 memory accesses of one instruction, independent of
 * how the registers were obtained (ptrace, gdb remote protocol, ...).
 *
 * Given a capstone instruction decoded with CS_OPT_DETAIL and the
 * register values BEFORE it executes, arch_x86_mem_accesses() lists the
 * loads and stores it performs: explicit memory operands (with fs/gs
 * base, rip-relative and 32-bit address-size forms), string instructions
 * (one iteration, i.e. what one single step of a rep-prefixed instruction
 * does; none when the count register is zero) and the implicit stack
 * accesses of push/pop/call/ret/leave/pushf/popf.  lea and nop-with-memory
 * operands access nothing.
 */
#ifndef ITRACE_ARCH_X86_H
#define ITRACE_ARCH_X86_H

#include <stdint.h>

#include <capstone/capstone.h>

/* General registers as the CPU sees them before the instruction. */
struct arch_x86_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rip, rflags;
	uint64_t fs_base, gs_base;
};

struct arch_x86_mem_access {
	uint64_t addr;
	uint32_t size;	/* bytes */
	uint8_t store;	/* 1 = store, 0 = load */
};

/* Most accesses one instruction can make (e.g. push [mem]: load + store). */
#define ARCH_X86_MAX_ACCESSES 8

/*
 * arch_x86_mem_accesses - fill out[0..max) with the accesses of `insn`.
 * Returns the number written (0..max); accesses beyond `max` are dropped.
 * `insn` must carry detail (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON)).
 */
int arch_x86_mem_accesses(const cs_insn *insn, const struct arch_x86_regs *regs,
			  struct arch_x86_mem_access *out, int max);

/*
 * arch_x86_reg_value - value of a capstone register (any width, e.g.
 * X86_REG_EAX, X86_REG_AH, X86_REG_R10D) read from `regs`, zero-extended.
 * Returns 0 and sets *val, or -1 for registers it does not model
 * (vector, segment, control registers).
 */
int arch_x86_reg_value(const struct arch_x86_regs *regs, unsigned reg, uint64_t *val);

/* arch_x86_is_rep_string - rep/repne-prefixed string instruction? */
int arch_x86_is_rep_string(const cs_insn *insn);

/* Branch classification of an instruction, from capstone groups/ids. */
enum arch_x86_branch {
	ARCH_X86_NOT_BRANCH = -1,
	/* otherwise an enum itrace_branch_kind value */
};

/*
 * arch_x86_branch_kind - ITRACE_BRANCH_* kind of `insn` (cond, uncond,
 * call, return, indirect, indirect call, syscall, interrupt), or
 * ARCH_X86_NOT_BRANCH.  Needs detail.
 */
int arch_x86_branch_kind(const cs_insn *insn);

#endif
