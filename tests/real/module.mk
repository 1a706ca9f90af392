# tests/real/: installed programs nobody here wrote (coreutils, gzip, python3,
# sqlite3, xmllint, ...) traced and checked against independent oracles
# (callgrind, cachegrind, the program's own output, the other backend).
# Each script is TAP through tests/lib.sh, like tests/e2e/; what they
# share is in tests/helper/ (real_oracles.sh; real-oracle, which reads
# traces and callgrind's output); tests/real/prog/ has the programs for what no
# installed program does on demand (threads, fork+exec, a C++ throw,
# SIGSEGV, a library recursing through its PLT), built like a
# distribution's: -O2 -g, PIE, shared libraries -fPIC with lazy binding.
E2E_TESTS += $(sort $(wildcard tests/real/*.sh))

RP_OUT := $(BUILD)/tests/real
REAL_PROGS := $(RP_OUT)/libreal_plt.so $(RP_OUT)/libreal_fixedtime.so \
	$(patsubst tests/real/prog/%.c,$(RP_OUT)/%,$(filter-out %_lib.c,$(wildcard tests/real/prog/*.c))) \
	$(patsubst tests/real/prog/%.cc,$(RP_OUT)/%,$(wildcard tests/real/prog/*.cc))
REAL_PPC := $(patsubst tests/real/prog/ppc64le/%.S,$(RP_OUT)/ppc64le/%,$(wildcard tests/real/prog/ppc64le/*.S)) \
	$(RP_OUT)/ppc64le/prog_c $(RP_OUT)/ppc64le/prog_c_p10
TEST_DATA += $(REAL_PROGS) $(REAL_PPC)

# Traced, not tested: no sanitizers, no -Werror.
$(RP_OUT)/libreal_plt.so: tests/real/prog/real_plt_lib.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -fPIC -shared -Wl,-z,lazy -Wl,--build-id -o $@ $<
$(RP_OUT)/libreal_fixedtime.so: tests/real/prog/real_fixedtime_lib.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -fPIC -shared -Wl,--build-id -o $@ $<
$(RP_OUT)/real_plt: tests/real/prog/real_plt.c $(RP_OUT)/libreal_plt.so
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -Wl,-z,lazy -Wl,--build-id -o $@ $< -L$(RP_OUT) -lreal_plt -Wl,-rpath,'$$ORIGIN'
# README.md's "prog": no C library, so that examples single-step it quickly
$(RP_OUT)/prog: tests/real/prog/prog.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -nostdlib -static -no-pie -ffreestanding -fno-stack-protector \
		-fno-builtin -Wl,--build-id -o $@ $<
$(RP_OUT)/%: tests/real/prog/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wl,--build-id -pthread -o $@ $<
$(RP_OUT)/%: tests/real/prog/%.cc
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -O2 -g -Wl,--build-id -o $@ $<
$(RP_OUT)/ppc64le/%: tests/real/prog/ppc64le/%.S
	@mkdir -p $(dir $@)
	$(Q)$(PPC_CC) -mcpu=power9 -nostdlib -static -no-pie -Wl,--build-id -o $@ $<
# README.md's qemu examples: dynamic, from the sysroot; and for POWER10
$(RP_OUT)/ppc64le/prog_c: tests/real/prog/ppc64le/prog_c.c
	@mkdir -p $(dir $@)
	$(Q)$(PPC_CC) -O2 -g -mcpu=power9 -Wl,--build-id -o $@ $<
$(RP_OUT)/ppc64le/prog_c_p10: tests/real/prog/ppc64le/prog_c.c
	@mkdir -p $(dir $@)
	$(Q)$(PPC_CC) -O2 -g -mcpu=power10 -Wl,--build-id -o $@ $<
