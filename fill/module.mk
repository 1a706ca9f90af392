# fill/: gap filling.  fill/fill*.c are library code (libitrace globs them
# beside reader/*.c; the decoder and image stay in reader/); this fragment
# builds the itrace-fill front end (fill/itrace_fill.c) and wires its tests
# and benchmarks.

# The test programs' rules live in tests/data/module.mk, which the top
# Makefile's */module.mk glob does not reach; include it once from here.
ifndef TD_OUT
include tests/data/module.mk
endif

BINS += $(BUILD)/bin/itrace-fill
$(BUILD)/obj/fill/itrace_fill.o: ALL_CPPFLAGS += -Itools
# libcli.a by name: tools/module.mk (which sets CLI_LIB) is read after this file.
$(BUILD)/bin/itrace-fill: $(BUILD)/obj/fill/itrace_fill.o $(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

# Unit tests trace the fill_* test programs: build them first.
FILL_TEST_PROGS := $(patsubst tests/data/%.S,$(BUILD)/tests/data/%,$(wildcard tests/data/fill_*.S)) \
	$(patsubst tests/data/%.c,$(BUILD)/tests/data/%,$(wildcard tests/data/fill_*.c)) \
	$(BUILD)/tests/data/fill_unwind_stripped
$(BUILD)/tests/test_decoder $(BUILD)/tests/test_image $(BUILD)/tests/test_symbolizer \
	$(BUILD)/tests/test_fill: | $(FILL_TEST_PROGS)

E2E_TESTS += $(sort $(wildcard tests/e2e/fill_*.sh))
BENCHES += $(sort $(wildcard bench/fill_*.sh))

# fill-gen: branch traces (and their single-step oracle) of static test
# programs, for the e2e tests and benchmarks.  Test support, not installed.
FILL_GEN := $(BUILD)/tests/fill-gen
TEST_DATA += $(FILL_GEN)
$(BUILD)/obj/bench/fill_gen.o: ALL_CPPFLAGS += -Itests/helper
$(FILL_GEN): $(BUILD)/obj/bench/fill_gen.o $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

# Fuzz target: any bytes through the reader and the filler.
FUZZ_TARGETS += fuzz_fill
