# tests/helper/: programs the tests and benchmarks use, built, never installed.
#  - hostile_gen: valid traces built to maximise what a reader allocates or
#    spends (CODE records, mmap/munmap pairs, threads)
# and the fault-injection suite tests/e2e/fault_*.sh.
HOSTILE_GEN := $(BUILD)/tests/hostile_gen
TEST_DATA += $(HOSTILE_GEN)
$(HOSTILE_GEN): $(BUILD)/obj/tests/helper/hostile_gen.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)

E2E_TESTS += $(sort $(wildcard tests/e2e/fault_*.sh))

# Benchmarks of bounded resources (bench/run-bench.sh prints their lines).
BENCHES += bench/sim_scale.sh bench/mmap_pairs.sh

# hostile_stub: a gdb stub that sends oversize packets, noise, silence.
HOSTILE_STUB := $(BUILD)/tests/hostile_stub
TEST_DATA += $(HOSTILE_STUB)
$(HOSTILE_STUB): $(BUILD)/obj/tests/helper/hostile_stub.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^
