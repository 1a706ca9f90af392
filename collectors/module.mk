# collectors/: itrace-collect and its backends (see collectors/backend.h).
#
# Backends in subfolders (collectors/bts/, collectors/gdb/, ...) have their
# own module.mk that APPENDS (+=) their objects to COLLECT_BACKEND_OBJS and
# their libraries to COLLECT_BACKEND_LIBS.  They are included here, before
# the link rule reads those variables.
COLLECT_BACKEND_OBJS :=
COLLECT_BACKEND_LIBS :=
-include $(sort $(wildcard collectors/*/module.mk))

# collectors/ and backend subfolders include collectors/*.h and tools/cli.h
# by name.
$(BUILD)/obj/collectors/%.o: ALL_CPPFLAGS += -Icollectors -Itools

# itrace-collect: the shared layer (collectors/*.c), the ptrace backend
# beside it, and main (collectors/main/), which alone names the backends.
COLLECT_SRCS := $(wildcard collectors/*.c collectors/main/*.c)
COLLECT_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(COLLECT_SRCS))

BINS += $(BUILD)/bin/itrace-collect
# libcli.a is named by path: tools/module.mk (which defines CLI_LIB) is
# read after this fragment.
# --handler loads handlers that call libitrace-code's API and link no
# library: as itrace-run (tools/module.mk), both archives are linked whole
# and their itrace_ functions exported.
$(BUILD)/bin/itrace-collect: $(COLLECT_OBJS) $(COLLECT_BACKEND_OBJS) $(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -Wl,--export-dynamic-symbol='itrace_[a-oq-z]*' \
		-Wl,--export-dynamic-symbol='itrace_p[a-qs-z]*' -o $@ $(filter %.o,$^) \
		$(BUILD)/lib/libcli.a -Wl,--whole-archive $(LIBITRACE_CODE) $(LIBITRACE) \
		-Wl,--no-whole-archive $(COLLECT_BACKEND_LIBS) $(LIBITRACE_CODE_LIBS) -ldl -lpthread

# (Its test helpers, collect-tracecheck and collect-bare-step: tests/helper/.)
E2E_TESTS += $(sort $(wildcard tests/e2e/collect_*.sh))
# No collector builds a record outside the emitter (scripts/emit_only.sh).
E2E_TESTS += tests/e2e/emit_only.sh
BENCHES += $(sort $(wildcard bench/collect_*.sh))

# collect_ring.o writes its records through emit.o: the qemu converter's
# unit test links the one with the other.
$(BUILD)/tests/test_qemu_convert: $(BUILD)/obj/collectors/emit.o

# Unit tests of the shared parts (tests/unit/test_<file>.c), each linked
# with its object and what that uses of collectors/.
COLLECT_UNIT := emit maps collect_ring guard
$(patsubst %,$(BUILD)/obj/tests/unit/test_%.o,$(COLLECT_UNIT)): ALL_CPPFLAGS += -Icollectors
$(BUILD)/tests/test_emit: $(BUILD)/obj/collectors/emit.o
$(BUILD)/tests/test_maps: $(BUILD)/obj/collectors/maps.o $(BUILD)/obj/collectors/emit.o
$(BUILD)/tests/test_collect_ring: $(BUILD)/obj/collectors/collect_ring.o $(BUILD)/obj/collectors/emit.o
$(BUILD)/tests/test_guard: $(BUILD)/obj/collectors/guard.o $(BUILD)/obj/collectors/backend.o
