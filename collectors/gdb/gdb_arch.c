/*
 * gdb_arch.c - the per-architecture tables of the gdb backend (gdb_arch.h).
 */
#include "gdb_arch.h"

#include <elf.h>
#include <string.h>


/* ---- POWER ------------------------------------------------------------- */

/* r0..r31 first (the decoder's gpr[0..31]), then pc and lr. */
static const char *const ppc64_regs[] = {
	"r0",  "r1",  "r2",  "r3",  "r4",  "r5",  "r6",  "r7",	"r8",  "r9",  "r10",
	"r11", "r12", "r13", "r14", "r15", "r16", "r17", "r18", "r19", "r20", "r21",
	"r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29", "r30", "r31", "pc",
	"lr",
};

static void ppc64_gpr(const uint64_t *vals, struct itrace_regs *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->gpr, vals, 32 * sizeof(vals[0]));
}

static const struct gdb_arch arch_ppc64 = {
	.name = "ppc64",
	.tdesc_prefix = "powerpc",
	.machine = EM_PPC64,
	.regs = ppc64_regs,
	.n_regs = sizeof(ppc64_regs) / sizeof(ppc64_regs[0]),
	.n_required = sizeof(ppc64_regs) / sizeof(ppc64_regs[0]),
	.pc = 32,
	.sp = 1,
	.link = 33,
	.bp_kind = 4,
	.sys_nr = 0,
	.sys_ret = 3,
	.sys_args = {3, 4, 5, 6, 7, 8},
	.sys_sigreturn = {119, 172}, /* sigreturn, rt_sigreturn */
	.sys_map = {90, 91, 125, 163},
	.fixed_len = 4,
	.gpr = ppc64_gpr,
};

/* ---- x86-64 ------------------------------------------------------------ */

enum {
	X_RAX, X_RBX, X_RCX, X_RDX, X_RSI, X_RDI, X_RBP, X_RSP, X_R8, X_R9, X_R10, X_R11,
	X_R12, X_R13, X_R14, X_R15, X_RIP, X_EFLAGS, X_FS_BASE, X_GS_BASE, X_NREGS
};

static const char *const x86_64_regs[X_NREGS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10",
	"r11", "r12", "r13", "r14", "r15", "rip", "eflags", "fs_base", "gs_base",
};

/* x86-64 general registers in the decoder's (encoding) order */
static void x86_64_gpr(const uint64_t *v, struct itrace_regs *out)
{
	static const unsigned order[16] = {X_RAX, X_RCX, X_RDX, X_RBX, X_RSP, X_RBP, X_RSI, X_RDI,
					   X_R8,  X_R9,	 X_R10, X_R11, X_R12, X_R13, X_R14, X_R15};

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < 16; i++)
		out->gpr[i] = v[order[i]];
	out->fs_base = v[X_FS_BASE];
	out->gs_base = v[X_GS_BASE];
	out->flags = v[X_EFLAGS];
}

static const struct gdb_arch arch_x86_64 = {
	.name = "x86-64",
	.tdesc_prefix = "i386:x86-64",
	.machine = EM_X86_64,
	.regs = x86_64_regs,
	.n_regs = X_NREGS,
	.n_required = X_FS_BASE, /* fs_base/gs_base: only newer stubs send them */
	.pc = X_RIP,
	.sp = X_RSP,
	.link = GDB_NO_REG,
	.bp_kind = 1,
	.sys_nr = X_RAX,
	.sys_ret = X_RAX,
	.sys_args = {X_RDI, X_RSI, X_RDX, X_R10, X_R8, X_R9},
	.sys_sigreturn = {15, 15}, /* rt_sigreturn */
	.sys_map = {9, 11, 10, 25},
	.fixed_len = 0,
	.gpr = x86_64_gpr,
};

static const struct gdb_arch *const arches[] = {&arch_ppc64, &arch_x86_64};

const struct gdb_arch *gdb_arch_for_machine(uint16_t machine)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i]->machine == machine)
			return arches[i];
	return NULL;
}

const struct gdb_arch *gdb_arch_for_tdesc(const char *architecture)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (strncmp(architecture, arches[i]->tdesc_prefix,
			    strlen(arches[i]->tdesc_prefix)) == 0)
			return arches[i];
	return NULL;
}

const char *gdb_arch_qemu(const struct gdb_arch *a, uint8_t endian)
{
	if (a->machine == EM_PPC64)
		return endian == 2 ? "qemu-ppc64" : "qemu-ppc64le";
	return "qemu-x86_64";
}
