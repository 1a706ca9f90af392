/* arch_x86.c - x86-64 effective addresses and branch kinds (see arch_x86.h). */
#include "arch_x86.h"

#include <stddef.h>
#include <string.h>

#include "itrace.h"

/* Where a capstone register lives in struct arch_x86_regs. */
struct reg_slot {
	unsigned short offset; /* offsetof the 64-bit field */
	unsigned char width;   /* bytes */
	unsigned char shift;   /* 8 for ah/bh/ch/dh */
};

#define R(field) offsetof(struct arch_x86_regs, field)

/* Slot of `reg`; width 0 when the register is not modelled. */
static struct reg_slot reg_slot(unsigned reg)
{
	switch (reg) {
#define GPR(r64, r32, r16, r8, field)                                   \
	case X86_REG_##r64: return (struct reg_slot){R(field), 8, 0};   \
	case X86_REG_##r32: return (struct reg_slot){R(field), 4, 0};   \
	case X86_REG_##r16: return (struct reg_slot){R(field), 2, 0};   \
	case X86_REG_##r8: return (struct reg_slot){R(field), 1, 0};
	GPR(RAX, EAX, AX, AL, rax)
	GPR(RBX, EBX, BX, BL, rbx)
	GPR(RCX, ECX, CX, CL, rcx)
	GPR(RDX, EDX, DX, DL, rdx)
	GPR(RSI, ESI, SI, SIL, rsi)
	GPR(RDI, EDI, DI, DIL, rdi)
	GPR(RBP, EBP, BP, BPL, rbp)
	GPR(RSP, ESP, SP, SPL, rsp)
	GPR(R8, R8D, R8W, R8B, r8)
	GPR(R9, R9D, R9W, R9B, r9)
	GPR(R10, R10D, R10W, R10B, r10)
	GPR(R11, R11D, R11W, R11B, r11)
	GPR(R12, R12D, R12W, R12B, r12)
	GPR(R13, R13D, R13W, R13B, r13)
	GPR(R14, R14D, R14W, R14B, r14)
	GPR(R15, R15D, R15W, R15B, r15)
#undef GPR
	case X86_REG_AH: return (struct reg_slot){R(rax), 1, 8};
	case X86_REG_BH: return (struct reg_slot){R(rbx), 1, 8};
	case X86_REG_CH: return (struct reg_slot){R(rcx), 1, 8};
	case X86_REG_DH: return (struct reg_slot){R(rdx), 1, 8};
	case X86_REG_RIP: return (struct reg_slot){R(rip), 8, 0};
	case X86_REG_EIP: return (struct reg_slot){R(rip), 4, 0};
	case X86_REG_IP: return (struct reg_slot){R(rip), 2, 0};
	default: return (struct reg_slot){0, 0, 0};
	}
}
#undef R

int arch_x86_reg_value(const struct arch_x86_regs *regs, unsigned reg, uint64_t *val)
{
	struct reg_slot s = reg_slot(reg);
	uint64_t v;

	if (s.width == 0)
		return -1;
	memcpy(&v, (const char *)regs + s.offset, sizeof(v));
	v >>= s.shift;
	if (s.width < 8)
		v &= (1ull << (8 * s.width)) - 1;
	*val = v;
	return 0;
}

static int has_addr32_prefix(const cs_x86 *x)
{
	return x->prefix[3] == X86_PREFIX_ADDRSIZE;
}

static int has_opsize_prefix(const cs_x86 *x)
{
	return x->prefix[2] == X86_PREFIX_OPSIZE;
}

/* Instructions whose memory operand is only an address, never accessed. */
static int is_address_only(unsigned id)
{
	switch (id) {
	case X86_INS_LEA:
	case X86_INS_NOP:
	case X86_INS_PREFETCH:
	case X86_INS_PREFETCHNTA:
	case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHW:
	case X86_INS_CLFLUSH:
	case X86_INS_CLFLUSHOPT:
		return 1;
	default:
		return 0;
	}
}

static int is_string_insn(unsigned id)
{
	switch (id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_INSB: case X86_INS_INSW: case X86_INS_INSD:
	case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD:
		return 1;
	default:
		return 0;
	}
}

/*
 * A rep-prefixed string instruction with a zero count does nothing.
 * (movsd/cmpsd also name SSE instructions; those have no rep prefix and
 * register operands, so they never reach this test with a zero count.)
 */
static int rep_count_is_zero(const cs_insn *insn, const struct arch_x86_regs *regs)
{
	const cs_x86 *x = &insn->detail->x86;
	uint64_t count = has_addr32_prefix(x) ? (uint32_t)regs->rcx : regs->rcx;

	return arch_x86_is_rep_string(insn) && count == 0;
}

int arch_x86_is_rep_string(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	return (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE) &&
	       is_string_insn(insn->id);
}

/* Effective address of a memory operand; -1 if a register is unknown. */
static int operand_address(const cs_insn *insn, const cs_x86_op *op,
			   const struct arch_x86_regs *regs, uint64_t *addr)
{
	const cs_x86 *x = &insn->detail->x86;
	uint64_t a = (uint64_t)op->mem.disp, v;

	if (op->mem.base == X86_REG_RIP) {
		a += regs->rip + insn->size; /* relative to the next instruction */
	} else if (op->mem.base != X86_REG_INVALID) {
		if (arch_x86_reg_value(regs, op->mem.base, &v))
			return -1;
		a += v;
		/* pop [rsp+d]: the address uses rsp after the pop. */
		if (insn->id == X86_INS_POP && op->mem.base == X86_REG_RSP)
			a += has_opsize_prefix(x) ? 2 : 8;
	}
	if (op->mem.index != X86_REG_INVALID) {
		if (arch_x86_reg_value(regs, op->mem.index, &v))
			return -1;
		a += v * (uint64_t)op->mem.scale;
	}
	if (has_addr32_prefix(x))
		a = (uint32_t)a;
	if (op->mem.segment == X86_REG_FS)
		a += regs->fs_base;
	else if (op->mem.segment == X86_REG_GS)
		a += regs->gs_base;
	*addr = a;
	return 0;
}

struct access_list {
	struct arch_x86_mem_access *out;
	int n, max;
};

static void add_access(struct access_list *l, uint64_t addr, uint32_t size, int store)
{
	if (l->n >= l->max || size == 0)
		return;
	l->out[l->n].addr = addr;
	l->out[l->n].size = size;
	l->out[l->n].store = (uint8_t)store;
	l->n++;
}

/* Explicit memory operands: all loads first, then all stores. */
static void add_operand_accesses(const cs_insn *insn, const struct arch_x86_regs *regs,
				 struct access_list *l, int want_store)
{
	const cs_x86 *x = &insn->detail->x86;
	uint64_t addr;

	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		/* capstone leaves access 0 for a few memory operands: a load */
		unsigned access = op->access ? op->access : CS_AC_READ;

		if (op->type != X86_OP_MEM || operand_address(insn, op, regs, &addr))
			continue;
		if (want_store ? (access & CS_AC_WRITE) : (access & CS_AC_READ))
			add_access(l, addr, op->size, want_store);
	}
}

/* Implicit stack load (pop, ret, leave, popf) before the operand stores. */
static void add_stack_load(const cs_insn *insn, const struct arch_x86_regs *regs,
			   struct access_list *l)
{
	unsigned size = has_opsize_prefix(&insn->detail->x86) ? 2 : 8;

	switch (insn->id) {
	case X86_INS_POP:
	case X86_INS_POPFQ:
	case X86_INS_POPF:
		add_access(l, regs->rsp, size, 0);
		break;
	case X86_INS_RET:
		add_access(l, regs->rsp, 8, 0);
		break;
	case X86_INS_LEAVE:
		add_access(l, regs->rbp, size, 0);
		break;
	default:
		break;
	}
}

/* Implicit stack store (push, call, pushf, enter). */
static void add_stack_store(const cs_insn *insn, const struct arch_x86_regs *regs,
			    struct access_list *l)
{
	unsigned size = has_opsize_prefix(&insn->detail->x86) ? 2 : 8;

	switch (insn->id) {
	case X86_INS_PUSH:
	case X86_INS_PUSHFQ:
	case X86_INS_PUSHF:
	case X86_INS_ENTER:
		add_access(l, regs->rsp - size, size, 1);
		break;
	case X86_INS_CALL:
		add_access(l, regs->rsp - 8, 8, 1);
		break;
	default:
		break;
	}
}

int arch_x86_mem_accesses(const cs_insn *insn, const struct arch_x86_regs *regs,
			  struct arch_x86_mem_access *out, int max)
{
	struct access_list l = {out, 0, max};

	if (!insn->detail || is_address_only(insn->id) || rep_count_is_zero(insn, regs))
		return 0;
	add_operand_accesses(insn, regs, &l, 0);
	add_stack_load(insn, regs, &l);
	add_operand_accesses(insn, regs, &l, 1);
	add_stack_store(insn, regs, &l);
	return l.n;
}

static int in_group(const cs_insn *insn, unsigned group)
{
	const cs_detail *d = insn->detail;

	for (int i = 0; i < d->groups_count; i++)
		if (d->groups[i] == group)
			return 1;
	return 0;
}

static int first_operand_is_imm(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	return x->op_count > 0 && x->operands[0].type == X86_OP_IMM;
}

int arch_x86_branch_kind(const cs_insn *insn)
{
	switch (insn->id) {
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
		return ITRACE_BRANCH_SYSCALL;
	case X86_INS_CALL:
		return first_operand_is_imm(insn) ? ITRACE_BRANCH_CALL : ITRACE_BRANCH_INDIRECT_CALL;
	case X86_INS_LCALL:
		return ITRACE_BRANCH_INDIRECT_CALL;
	case X86_INS_JMP:
		return first_operand_is_imm(insn) ? ITRACE_BRANCH_UNCOND : ITRACE_BRANCH_INDIRECT;
	case X86_INS_LJMP:
		return ITRACE_BRANCH_INDIRECT;
	default:
		break;
	}
	if (!insn->detail)
		return ARCH_X86_NOT_BRANCH;
	if (in_group(insn, CS_GRP_RET) || in_group(insn, CS_GRP_IRET))
		return ITRACE_BRANCH_RETURN;
	if (in_group(insn, CS_GRP_JUMP))
		return ITRACE_BRANCH_COND; /* jcc, jrcxz, loop*: JMP handled above */
	if (in_group(insn, CS_GRP_INT))
		return ITRACE_BRANCH_INTERRUPT;
	if (in_group(insn, CS_GRP_CALL))
		return ITRACE_BRANCH_INDIRECT_CALL;
	return ARCH_X86_NOT_BRANCH;
}
