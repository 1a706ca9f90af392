# tests/helper/: programs the tests and benchmarks use, built, never
# installed, and the test code several tests share (*_testutil.h,
# fill_stepper.h: unit tests and bench/fill_gen.c include them by name).
$(BUILD)/obj/tests/unit/%.o: ALL_CPPFLAGS += -Itests/helper

# bts-gen: writes raw BTS buffers and perf.data files from an itrace
# branch trace, byte for byte per the documented layouts.
BTS_GEN := $(BUILD)/tests/bts-gen
TEST_DATA += $(BTS_GEN)
$(BTS_GEN): $(BUILD)/obj/tests/helper/bts_gen.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)

#  - hostile_gen: valid traces built to maximise what a reader allocates or
#    spends (CODE records, mmap/munmap pairs, threads)
# and the fault-injection suite tests/e2e/fault_*.sh.
HOSTILE_GEN := $(BUILD)/tests/hostile_gen
TEST_DATA += $(HOSTILE_GEN)
$(HOSTILE_GEN): $(BUILD)/obj/tests/helper/hostile_gen.o $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

E2E_TESTS += $(sort $(wildcard tests/e2e/fault_*.sh))

# Benchmarks of bounded resources (bench/run-bench.sh prints their lines).
BENCHES += bench/sim_scale.sh bench/mmap_pairs.sh

# The collector's: collect-tracecheck, an oracle that an insn-level and a
# branch-level trace of one run agree (tests/e2e/collect_*.sh), and
# collect-bare-step, the plainest single-step loop, the baseline of
# bench/collect_*.sh.
TEST_DATA += $(BUILD)/tests/collect-tracecheck $(BUILD)/bench/collect-bare-step
$(BUILD)/tests/collect-tracecheck: $(BUILD)/obj/tests/helper/collect_tracecheck.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)
$(BUILD)/bench/collect-bare-step: $(BUILD)/obj/tests/helper/collect_bare_step.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

# qemu-fake-emulator: loads the plugin as qemu does and misbehaves, for
# the qemu backend's error tests (tests/e2e/qemu_features.sh).
QEMU_FAKE := $(BUILD)/tests/qemu-fake-emulator
TEST_DATA += $(QEMU_FAKE)
$(QEMU_FAKE): tests/helper/qemu_fake_emulator.c collectors/qemu/qemu_plugin_api.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Icollectors/qemu -rdynamic -o $@ $< -ldl

# real-oracle: the real-program suite's bridge between traces and
# callgrind's output (tests/helper/real_oracles.sh); decode-oracle: the
# decoder against `objdump -d` (tests/real/decode_objdump.sh).
DECODE_ORACLE := $(BUILD)/tests/decode-oracle
TEST_DATA += $(BUILD)/tests/real-oracle $(DECODE_ORACLE)
$(BUILD)/tests/real-oracle: $(BUILD)/obj/tests/helper/real_oracle.o $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)
$(DECODE_ORACLE): $(BUILD)/obj/tests/helper/decode_oracle.o $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

# hostile_stub: a gdb stub that sends oversize packets, noise, silence.
HOSTILE_STUB := $(BUILD)/tests/hostile_stub
TEST_DATA += $(HOSTILE_STUB)
$(HOSTILE_STUB): $(BUILD)/obj/tests/helper/hostile_stub.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

# Fuzz targets of the gdb backend's protocol code (any bytes as what a stub
# sends) and of the image's ELF handling (any bytes as a mapped file).
FUZZ_TARGETS += fuzz_gdb_stub fuzz_image
GDB_FUZZ_SRCS := $(addprefix collectors/gdb/,rsp.c gdb_target.c tdesc.c gdb_arch.c arch_ppc.c)
FUZZ_EXTRA_SRCS_fuzz_gdb_stub := $(GDB_FUZZ_SRCS)
FUZZ_LIBS_fuzz_gdb_stub := $(shell pkg-config --libs libxml-2.0 2>/dev/null)
$(BUILD)/fuzz-replay/fuzz_gdb_stub: $(patsubst %.c,$(BUILD)/obj/%.o,$(GDB_FUZZ_SRCS))

# make check runs every fuzz target for a while under libFuzzer; make bench
# prints their speed.
E2E_TESTS += tests/e2e/fuzz_run.sh
BENCHES += bench/fuzz_speed.sh
E2E_TESTS += tests/e2e/mmap_paths.sh

# Every unit test and fuzz corpus replay under Valgrind's memcheck too; a
# SANITIZE build's binaries carry ASan, which memcheck cannot run.
ifneq ($(SANITIZE),1)
E2E_TESTS += tests/e2e/memcheck.sh
endif

# make layers: no circle between folders, nor between the files of any
# folder (scripts/layers.sh).
E2E_TESTS += tests/e2e/layers.sh

# A plain make on a clean copy, as a user: installs nothing, names what it
# leaves out (tests/e2e/make_entry.sh).
E2E_TESTS += tests/e2e/make_entry.sh
