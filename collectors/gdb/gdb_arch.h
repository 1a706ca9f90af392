/*
 * gdb_arch.h - what the gdb backend knows per target architecture: the
 * registers it reads each step, how to find the qemu-user binary, the
 * breakpoint kind, and where its general registers sit for libitrace's
 * decoder, which computes the loads and stores.
 */
#ifndef ITRACE_GDB_ARCH_H
#define ITRACE_GDB_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include "itrace.h"
#include "itrace_code.h"

struct gdb_mem {
	uint64_t addr;
	uint32_t size;
	uint8_t store;
};

#define GDB_MAX_MEM 8
#define GDB_NO_REG ((unsigned)-1)

struct gdb_arch {
	const char *name;	     /* "ppc64", "x86-64" */
	const char *tdesc_prefix;    /* <architecture> starts with this */
	uint16_t machine;	     /* ELF e_machine */
	const char *const *regs;     /* registers read every step */
	size_t n_regs;
	size_t n_required;	     /* the first n_required must exist */
	unsigned pc, sp, link;	     /* indices into regs; link may be GDB_NO_REG */
	unsigned bp_kind;	     /* Z0 kind: breakpoint length */
	unsigned sys_nr, sys_ret;    /* system call number and result registers */
	unsigned sys_args[6];	     /* system call argument registers */
	uint64_t sys_sigreturn[2];   /* calls that do not return to the next insn */
	uint64_t sys_map[4];	     /* mmap, munmap, mprotect, mremap */
	unsigned fixed_len;	     /* instruction length, 0 = variable */
	/*
	 * gpr - the register values `vals` (indexed like regs) as libitrace's
	 * decoder indexes general registers (itrace_insn_mem_accesses).
	 */
	void (*gpr)(const uint64_t *vals, struct itrace_regs *out);
};

/* gdb_arch_for_machine - the arch for an ELF machine, or NULL. */
const struct gdb_arch *gdb_arch_for_machine(uint16_t machine);

/* gdb_arch_for_tdesc - the arch whose <architecture> name matches, or NULL. */
const struct gdb_arch *gdb_arch_for_tdesc(const char *architecture);

/*
 * gdb_arch_qemu - the qemu-user binary name for `a` in byte order `endian`
 * (1 little, 2 big): "qemu-ppc64le", "qemu-ppc64", "qemu-x86_64".
 */
const char *gdb_arch_qemu(const struct gdb_arch *a, uint8_t endian);

#endif
