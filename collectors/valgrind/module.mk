# collectors/valgrind/: the Valgrind backend of itrace-collect.
#
# Two parts:
#  - the Valgrind tool "itrace" (itrace_tool.c), linked statically against
#    the system's libcoregrind/libvex like Valgrind's own tools (no libc),
#    into $(BUILD)/lib/itrace/valgrind/itrace-amd64-linux (installed as
#    $(PREFIX)/lib/itrace/valgrind/...), where itrace-collect finds it;
#  - the backend linked into itrace-collect (vg_backend.c, vg_convert.c),
#    which runs the tool and turns its raw words into records.
# Without valgrind's development files the tool is not built and the
# backend says so at run time.
VG_PKG_CFLAGS := $(if $(call have,valgrind),$(shell pkg-config --cflags valgrind 2>/dev/null))
VG_PKG_LIBS := $(if $(call have,valgrind),$(shell pkg-config --libs valgrind 2>/dev/null))

VG_TOOL_DIR := $(BUILD)/lib/itrace/valgrind
VG_TOOL := $(VG_TOOL_DIR)/itrace-amd64-linux
# The launcher Valgrind runs for a program the traced one execs (vg_launch.c).
VG_LAUNCH := $(VG_TOOL_DIR)/itrace-vg-launch

# Flags of Valgrind's Makefile.tool.am for amd64-linux: no libc, no
# builtins, no stack protector, loaded at the tool address 0x58000000.
VG_TOOL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-fno-strict-aliasing -fno-builtin -fno-stack-protector -fno-pie -fno-pic \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
	$(VG_PKG_CFLAGS)
VG_TOOL_LDFLAGS := -static -nodefaultlibs -nostartfiles -u _start -no-pie \
	-Wl,--build-id -Wl,-Ttext-segment=0x58000000

# The tool keeps Valgrind from reading separate debug information it does
# not need (itrace_tool.c) by wrapping the core's function that opens a
# file as an image, where this Valgrind has one (3.9 on).
VG_LIBDIR := $(patsubst -L%,%,$(filter -L%,$(VG_PKG_LIBS)))
ifneq ($(shell nm $(VG_LIBDIR)/libcoregrind-amd64-linux.a 2>/dev/null | \
	grep -c ' T vgModuleLocal_img_from_local_file$$'),0)
VG_TOOL_CFLAGS += -DVGI_WRAP_IMAGE_OPEN=1
VG_TOOL_LDFLAGS += -Wl,--wrap=vgModuleLocal_img_from_local_file
endif

$(BUILD)/vgtool/%.o: collectors/valgrind/%.c collectors/valgrind/vg_wire.h
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CC      $< (valgrind tool)")
	$(Q)$(CC) $(VG_TOOL_CFLAGS) -c $< -o $@

# (the launcher comes with the tool: order-only, so both are always there)
$(VG_TOOL): $(BUILD)/vgtool/itrace_tool.o | $(VG_LAUNCH)
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  LD      $@")
	$(Q)$(CC) $(VG_TOOL_LDFLAGS) -o $@ $^ $(VG_PKG_LIBS)

$(VG_LAUNCH): $(BUILD)/obj/collectors/valgrind/vg_launch.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

# The policy's state machine (collectors/policy/policy.c) under the
# tool's flags, with no symbol left for libc to give: the promise that
# lets the tool link it.  Not linked into the tool yet (the tool keeps
# its own --start/--stop, and itrace-collect refuses the other forms
# for this backend); make check builds it so the promise cannot rot.
$(BUILD)/vgtool/policy.o: collectors/policy/policy.c collectors/policy/policy.h
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CC      $< (valgrind tool flags)")
	$(Q)$(CC) $(VG_TOOL_CFLAGS) -c $< -o $@.tmp
	$(Q)undef=$$(nm -u $@.tmp); if [ -n "$$undef" ]; then \
		echo "$<: not freestanding, needs: $$undef" >&2; rm -f $@.tmp; exit 1; fi
	$(Q)mv $@.tmp $@

ifneq ($(VG_PKG_LIBS),)
CHECK_EXTRA += $(BUILD)/vgtool/policy.o
VG_TOOL_TARGET := $(VG_TOOL) $(VG_LAUNCH)
else
VG_TOOL_TARGET :=
endif

VG_VERSION := $(shell pkg-config --modversion valgrind 2>/dev/null)

# The backend inside itrace-collect (collectors/module.mk links these).
VG_BACKEND_OBJS := $(BUILD)/obj/collectors/valgrind/vg_backend.o \
	$(BUILD)/obj/collectors/valgrind/vg_convert.o
COLLECT_BACKEND_OBJS += $(VG_BACKEND_OBJS)
$(BUILD)/obj/collectors/valgrind/vg_backend.o: CPPFLAGS += -DITRACE_VG_VERSION='"$(VG_VERSION)"'
# The tool is built with itrace-collect (order-only: it is not linked in).
$(BUILD)/bin/itrace-collect: | $(VG_TOOL_TARGET)

# make install: the tool goes where itrace-collect looks for it,
# <bindir>/../lib/itrace/valgrind/.
ifneq ($(VG_TOOL_TARGET),)
INSTALL_EXTRA += install -d $(DESTDIR)$(PREFIX)/lib/itrace/valgrind && \
	install -m 755 $(VG_TOOL) $(VG_LAUNCH) $(DESTDIR)$(PREFIX)/lib/itrace/valgrind/ ;
endif

E2E_TESTS += $(sort $(wildcard tests/e2e/valgrind_*.sh))
BENCHES += $(sort $(wildcard bench/valgrind_*.sh))

# Unit test of the stream converter (tests/unit/test_vg_convert.c): linked
# with the converter and maps.o (build-ids) besides libitrace.
$(BUILD)/obj/tests/unit/test_vg_convert.o: CPPFLAGS += -Icollectors -Icollectors/valgrind
# (The objects follow libitrace.a on the link line, so it is named again.)
$(BUILD)/tests/test_vg_convert: $(BUILD)/obj/collectors/valgrind/vg_convert.o \
	$(BUILD)/obj/collectors/maps.o $(BUILD)/obj/collectors/emit.o
UNIT_LIBS_vg_convert := $(LIBITRACE)

# Fuzz target of the stream converter (tests/fuzz/fuzz_vg_convert.c): the
# converter and maps.c (build-ids) besides libitrace, in both builds.
FUZZ_TARGETS += fuzz_vg_convert
FUZZ_EXTRA_SRCS_fuzz_vg_convert := collectors/valgrind/vg_convert.c collectors/maps.c collectors/emit.c
$(BUILD)/obj/tests/fuzz/fuzz_vg_convert.o: CPPFLAGS += -Icollectors -Icollectors/valgrind
$(foreach d,fuzz fuzz-ub,$(BUILD)/$(d)/obj/tests/fuzz/fuzz_vg_convert.o \
	$(BUILD)/$(d)/obj/collectors/valgrind/vg_convert.o $(BUILD)/$(d)/obj/collectors/maps.o \
	$(BUILD)/$(d)/obj/collectors/emit.o): FUZZ_CPPFLAGS += -Icollectors -Icollectors/valgrind
$(BUILD)/fuzz-replay/fuzz_vg_convert: $(BUILD)/obj/collectors/valgrind/vg_convert.o \
	$(BUILD)/obj/collectors/maps.o $(BUILD)/obj/collectors/emit.o

# bench/vg_replay: the collector's side of this backend (converter and
# writer, set up by collect_writer_open) over a dump of the tool's words
# (ITRACE_VG_BENCH=dump:FILE), without Valgrind; bench/vg_replay.sh.
$(BUILD)/obj/bench/vg_replay.o: ALL_CPPFLAGS += -Icollectors -Icollectors/valgrind -Itools
$(BUILD)/bench/vg_replay: $(BUILD)/obj/bench/vg_replay.o $(BUILD)/obj/collectors/collect_writer.o \
	$(BUILD)/obj/collectors/valgrind/vg_convert.o $(BUILD)/obj/collectors/maps.o \
	$(BUILD)/obj/collectors/emit.o $(BUILD)/obj/collectors/collect_handlers.o \
	$(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)
TEST_DATA += $(BUILD)/bench/vg_replay
