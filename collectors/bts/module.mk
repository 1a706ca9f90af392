# collectors/bts: the Intel BTS backend of itrace-collect, itrace-import
# (perf.data -> itrace).  Included by collectors/module.mk before its link rule.

BTS_DIR := collectors/bts
# The pure parts (no hardware): raw BTS conversion, perf records, perf.data
# parser, itrace output.  Shared by the backend, itrace-import and tests.
BTS_CORE_SRCS := $(BTS_DIR)/bts_convert.c $(BTS_DIR)/perf_record.c $(BTS_DIR)/perfdata.c \
	$(BTS_DIR)/bts_sink.c $(BTS_DIR)/bts_entry.c $(BTS_DIR)/bts_probe.c \
	$(BTS_DIR)/bts_ring.c
BTS_CORE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(BTS_CORE_SRCS))
BTS_LIB := $(BUILD)/lib/libbts.a

$(BUILD)/obj/$(BTS_DIR)/%.o: ALL_CPPFLAGS += -Icollectors -Itools

# The sink writes through the emitter (collectors/emit.c): in the archive
# for itrace-import and the tests; itrace-collect has it among its own.
$(BTS_LIB): $(BTS_CORE_OBJS) $(BUILD)/obj/collectors/emit.o
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The backend: objects, not an archive (itrace-collect references it weakly).

# The backend: objects, not an archive (itrace-collect references it weakly).
COLLECT_BACKEND_OBJS += $(BUILD)/obj/$(BTS_DIR)/bts_live.o $(BTS_CORE_OBJS)

# libcli.a by path: tools/module.mk (CLI_LIB) is read after this file.
BINS += $(BUILD)/bin/itrace-import
$(BUILD)/bin/itrace-import: $(BUILD)/obj/$(BTS_DIR)/itrace_import.o $(BTS_LIB) $(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

# The synthetic BTS/perf.data generator (bts-gen) is a test helper:
# tests/helper/bts_gen.c, built by tests/helper/module.mk.

# Unit tests (tests/unit/test_bts*.c, test_perfdata*.c) link the core.
UNIT_LIBS_bts := $(BTS_LIB) $(LIBITRACE)
UNIT_LIBS_perfdata := $(BTS_LIB) $(LIBITRACE)
UNIT_LIBS_bts_ring := $(BTS_LIB) $(LIBITRACE)
$(BUILD)/tests/test_bts $(BUILD)/tests/test_perfdata $(BUILD)/tests/test_bts_ring: $(BTS_LIB)


E2E_TESTS += $(sort $(wildcard tests/e2e/bts_*.sh tests/e2e/import_*.sh))

# Fuzz targets: the perf.data parser and the raw BTS converter.
FUZZ_TARGETS += fuzz_perfdata fuzz_bts_raw
FUZZ_LIBS_fuzz_perfdata := $(BTS_LIB)
FUZZ_LIBS_fuzz_bts_raw := $(BTS_LIB)
FUZZ_EXTRA_SRCS_fuzz_perfdata := $(BTS_DIR)/perfdata.c $(BTS_DIR)/perf_record.c $(BTS_DIR)/bts_convert.c
FUZZ_EXTRA_SRCS_fuzz_bts_raw := $(BTS_DIR)/bts_convert.c
$(BUILD)/fuzz-replay/fuzz_perfdata $(BUILD)/fuzz-replay/fuzz_bts_raw: $(BTS_LIB)

BENCHES += bench/bts_import.sh
