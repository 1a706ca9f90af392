/*
 * qemu_plugin_api.h - the part of QEMU's TCG plugin interface that the
 * itrace plugin uses, declared by us because Debian 12 ships the emulators
 * (qemu-user 7.2, which export these functions) but not QEMU's header.
 *
 * Written from QEMU's documentation of the plugin API (docs/devel/
 * tcg-plugins.rst, "Writing plugins", and the API reference generated
 * from include/qemu/qemu-plugin.h) for API version 1, the version of
 * QEMU 5.0 to 8.1, which QEMU 7.2 reports as current (minimum 0).  Only
 * the declarations are here; the functions live in the emulator and are
 * resolved when it loads the plugin.  The layout of qemu_info_t and the
 * values of the enumerations are part of that ABI.
 *
 * Version check: a plugin exports `int qemu_plugin_version`; QEMU refuses
 * to load one whose version it does not support, and passes the range it
 * supports in qemu_info_t.version, which the plugin checks again at
 * install time so that a mismatch is reported by itrace-collect in one
 * line (collectors/qemu/itrace_qemu_plugin.c).
 */
#ifndef ITRACE_QEMU_PLUGIN_API_H
#define ITRACE_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API version this plugin is written against. */
#define QEMU_PLUGIN_VERSION 1

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* Opaque identifier of a loaded plugin. */
typedef uint64_t qemu_plugin_id_t;

/* What the emulator tells a plugin at install time (valid during the call). */
typedef struct qemu_info_t {
	const char *target_name; /* guest architecture, e.g. "ppc64le" */
	struct {
		int min; /* oldest plugin API version the emulator accepts */
		int cur; /* its own API version */
	} version;
	bool system_emulation; /* false for the user-mode emulators */
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

/* Opaque handles, valid only during the translation callback. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* Whether a callback reads or writes guest registers (it does not). */
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

/* Which memory accesses a memory callback sees. */
enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

/* Opaque description of one memory access, queried with qemu_plugin_mem_*. */
typedef uint32_t qemu_plugin_meminfo_t;

typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index,
					      int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
					      uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
					      uint64_t a8);
typedef void (*qemu_plugin_vcpu_syscall_ret_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_idx,
						  int64_t num, int64_t ret);

/*
 * Exported by the plugin: its API version, and the function the emulator
 * calls once after loading it (argv: the "key=value" options given after
 * the plugin's path on the command line; 0 = success).
 */
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv);

/* Unregister every callback of the plugin; `cb` runs once that is done. */
void qemu_plugin_uninstall(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);

/* A vCPU (in user mode: a guest thread) is created / destroyed. */
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);

/* Every translation of a block of guest code. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);

/* In the translation callback: run `cb` before the instruction executes. */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);

/* In the translation callback: run `cb` after each memory access of the instruction. */
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);

/* The instructions of a block being translated. */
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* In user mode: where the guest's code lies in the emulator's memory. */
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);

/* A memory access: log2 of its size in bytes, and whether it stores. */
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);

/* System calls of the guest, before and after the emulator performs them. */
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_vcpu_syscall_ret_cb(qemu_plugin_id_t id,
					      qemu_plugin_vcpu_syscall_ret_cb_t cb);

/* Once, when the guest program ends (exit_group or a fatal signal). */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

/*
 * User mode, valid once the program is loaded (not yet at install time):
 * the program's path, the range of its executable segments, and where
 * execution begins (the dynamic loader's entry for a dynamic program).
 */
const char *qemu_plugin_path_to_binary(void);
uint64_t qemu_plugin_start_code(void);
uint64_t qemu_plugin_end_code(void);
uint64_t qemu_plugin_entry_code(void);

#endif /* ITRACE_QEMU_PLUGIN_API_H */
