# collectors/qemu/: the QEMU TCG-plugin backend of itrace-collect.
#
# Two parts:
#  - the plugin itrace-qemu.so (itrace_qemu_plugin.c, qemu_wire.c), loaded
#    into qemu-user by itrace-collect: built into
#    $(BUILD)/lib/itrace/qemu/ and installed into $(PREFIX)/lib/itrace/qemu/,
#    where itrace-collect finds it (ITRACE_QEMU_LIB overrides).  It links
#    against nothing of ours: QEMU resolves the qemu_plugin_* functions
#    (declared in qemu_plugin_api.h) when it loads it.  No sanitizer build
#    of it: ASan cannot be loaded into an uninstrumented qemu; UBSan can.
#  - the backend linked into itrace-collect (qemu_backend.c, qemu_convert.c,
#    qemu_space.c, qemu_elf.c, qemu_wire.c), which runs qemu and turns the
#    plugin's words into records.
QEMU_PLUGIN_DIR := $(BUILD)/lib/itrace/qemu
QEMU_PLUGIN := $(QEMU_PLUGIN_DIR)/itrace-qemu.so
QEMU_PLUGIN_SRCS := collectors/qemu/itrace_qemu_plugin.c collectors/qemu/qemu_wire.c
QEMU_PLUGIN_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden \
	$(if $(filter 1,$(SANITIZE)),-fsanitize=undefined -fno-sanitize-recover=undefined)

$(QEMU_PLUGIN): $(QEMU_PLUGIN_SRCS) collectors/qemu/qemu_wire.h collectors/qemu/qemu_plugin_api.h
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CC      $@ (QEMU plugin)")
	$(Q)$(CC) $(QEMU_PLUGIN_CFLAGS) -shared -Wl,--build-id -o $@ $(QEMU_PLUGIN_SRCS) -lpthread

QEMU_BACKEND_SRCS := collectors/qemu/qemu_backend.c collectors/qemu/qemu_convert.c \
	collectors/qemu/qemu_space.c collectors/qemu/qemu_elf.c collectors/qemu/qemu_wire.c
QEMU_BACKEND_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(QEMU_BACKEND_SRCS))
$(QEMU_BACKEND_OBJS): ALL_CPPFLAGS += -Icollectors/gdb
COLLECT_BACKEND_OBJS += $(QEMU_BACKEND_OBJS)
# The plugin is built with itrace-collect (order-only: it is not linked in).
$(BUILD)/bin/itrace-collect: | $(QEMU_PLUGIN)

INSTALL_EXTRA += install -d $(DESTDIR)$(PREFIX)/lib/itrace/qemu && \
	install -m 755 $(QEMU_PLUGIN) $(DESTDIR)$(PREFIX)/lib/itrace/qemu/ ;

E2E_TESTS += $(sort $(wildcard tests/e2e/qemu_*.sh))
BENCHES += $(sort $(wildcard bench/qemu_*.sh))

# The ppc64le test programs in other builds: dynamic, -mcpu=power9 and
# -mcpu=power10 (QEMU_CPU=power10 runs them), next to the static ones that
# tests/data/module.mk builds.
QEMU_TD := $(BUILD)/tests/data/ppc64le
QEMU_TD_VARIANTS := $(QEMU_TD)/qemu_prog_dyn $(QEMU_TD)/qemu_prog_p9 \
	$(QEMU_TD)/qemu_prog_p10 $(QEMU_TD)/qemu_prog_p10dyn $(QEMU_TD)/qemu_threads_dyn \
	$(QEMU_TD)/qemu_crash_dyn
TEST_DATA += $(QEMU_TD_VARIANTS)
QEMU_TD_CFLAGS_qemu_prog_dyn :=
QEMU_TD_CFLAGS_qemu_prog_p9 := -static -mcpu=power9
QEMU_TD_CFLAGS_qemu_prog_p10 := -static -mcpu=power10
QEMU_TD_CFLAGS_qemu_prog_p10dyn := -mcpu=power10
QEMU_TD_CFLAGS_qemu_threads_dyn := -pthread
QEMU_TD_CFLAGS_qemu_crash_dyn :=
$(QEMU_TD)/qemu_prog_dyn $(QEMU_TD)/qemu_prog_p9 $(QEMU_TD)/qemu_prog_p10 \
$(QEMU_TD)/qemu_prog_p10dyn: tests/data/ppc64le/qemu_prog.c
$(QEMU_TD)/qemu_threads_dyn: tests/data/ppc64le/qemu_threads.c
$(QEMU_TD)/qemu_crash_dyn: tests/data/ppc64le/qemu_crash.c
$(QEMU_TD_VARIANTS):
	@mkdir -p $(dir $@)
	$(Q)$(PPC_CC) -O1 -g -Wl,--build-id $(QEMU_TD_CFLAGS_$(notdir $@)) -o $@ $<

# (The emulator of the error tests, qemu-fake-emulator: tests/helper/.)

# Unit test of the converter (tests/unit/test_qemu_convert.c): linked with
# the converter, the address-space model and what they use of collectors/.
$(BUILD)/obj/tests/unit/test_qemu_convert.o: ALL_CPPFLAGS += -Icollectors -Icollectors/qemu
$(BUILD)/tests/test_qemu_convert: $(BUILD)/obj/collectors/qemu/qemu_convert.o \
	$(BUILD)/obj/collectors/qemu/qemu_space.o $(BUILD)/obj/collectors/qemu/qemu_elf.o \
	$(BUILD)/obj/collectors/qemu/qemu_wire.o $(BUILD)/obj/collectors/collect_ring.o \
	$(BUILD)/obj/collectors/maps.o $(BUILD)/obj/collectors/symbols.o \
	$(BUILD)/obj/collectors/gdb/gdb_elf.o $(BUILD)/lib/libcli.a
UNIT_LIBS_qemu_convert := $(LIBITRACE)

# make bench: the workload (bench/qemu_work.c) for ppc64le and x86-64.
QEMU_WORK := $(BUILD)/bench/qemu_work.ppc64le $(BUILD)/bench/qemu_work.x86_64
$(BUILD)/bench/qemu_work.ppc64le: bench/qemu_work.c
	@mkdir -p $(dir $@)
	$(Q)$(PPC_CC) -O2 -g -Wl,--build-id -o $@ $<
$(BUILD)/bench/qemu_work.x86_64: bench/qemu_work.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -Wl,--build-id -o $@ $<
bench: $(QEMU_WORK)

# Fuzz target of the converter (tests/fuzz/fuzz_qemu_convert.c): linked
# with what test_qemu_convert links, in both builds.
QC_FUZZ_SRCS := collectors/qemu/qemu_convert.c collectors/qemu/qemu_space.c \
	collectors/qemu/qemu_elf.c collectors/qemu/qemu_wire.c collectors/collect_ring.c \
	collectors/maps.c collectors/symbols.c collectors/gdb/gdb_elf.c collectors/emit.c
FUZZ_TARGETS += fuzz_qemu_convert
FUZZ_EXTRA_SRCS_fuzz_qemu_convert := $(QC_FUZZ_SRCS) tools/cli.c tools/cli_trace.c
$(BUILD)/obj/tests/fuzz/fuzz_qemu_convert.o: ALL_CPPFLAGS += -Icollectors -Icollectors/qemu
$(foreach d,fuzz fuzz-ub,$(patsubst %.c,$(BUILD)/$(d)/obj/%.o,tests/fuzz/fuzz_qemu_convert.c $(QC_FUZZ_SRCS))): \
	FUZZ_CPPFLAGS += -Icollectors -Icollectors/qemu -Icollectors/gdb
$(BUILD)/fuzz-replay/fuzz_qemu_convert: $(patsubst %.c,$(BUILD)/obj/%.o,$(QC_FUZZ_SRCS)) \
	$(BUILD)/lib/libcli.a
