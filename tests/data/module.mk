# tests/data: deterministic test programs, built into $(BUILD)/tests/data.
#  - tests/data/*.S         x86-64 assembly, -nostdlib -static: fixed addresses
#  - tests/data/*.c         C programs (-O1 -g, dynamic, -pthread)
#  - tests/data/ppc64le/*.S ppc64le assembly, -nostdlib -static (cross)
#  - tests/data/ppc64le/*.c ppc64le C programs, -static (cross)
# Test programs are built without sanitizers: they are traced, not tested.
TD_OUT := $(BUILD)/tests/data
TD_ASM := $(patsubst tests/data/%.S,$(TD_OUT)/%,$(wildcard tests/data/*.S))
TD_C := $(patsubst tests/data/%.c,$(TD_OUT)/%,$(wildcard tests/data/*.c))
TD_PPC_ASM := $(patsubst tests/data/ppc64le/%.S,$(TD_OUT)/ppc64le/%,$(wildcard tests/data/ppc64le/*.S))
TD_PPC_C := $(patsubst tests/data/ppc64le/%.c,$(TD_OUT)/ppc64le/%,$(wildcard tests/data/ppc64le/*.c))
TEST_DATA += $(TD_ASM) $(TD_C) $(TD_PPC_ASM) $(TD_PPC_C) $(TD_OUT)/fill_unwind_stripped
PPC_CC ?= powerpc64le-linux-gnu-gcc

# -Wl,--build-id so every test binary carries a build-id, as distributions do.
$(TD_OUT)/%: tests/data/%.S
	@mkdir -p $(dir $@)
	$(Q)$(CC) -nostdlib -static -no-pie -Wl,--build-id -o $@ $<
# with unwind entries and their table, without symbols: what a stripped file keeps
$(TD_OUT)/fill_unwind $(TD_OUT)/fill_unwind_stripped: tests/data/fill_unwind.S
	@mkdir -p $(dir $@)
	$(Q)$(CC) -nostdlib -static -no-pie -Wl,--build-id -Wl,--eh-frame-hdr \
		$(if $(findstring stripped,$@),-s) -o $@ $<

$(TD_OUT)/%: tests/data/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O1 -g -fno-inline-small-functions -Wl,--build-id -pthread -o $@ $< $(TD_LIBS_$*)

$(TD_OUT)/ppc64le/%: tests/data/ppc64le/%.S
	@mkdir -p $(dir $@)
	$(Q)$(PPC_CC) -nostdlib -static -no-pie -Wl,--build-id -o $@ $<

$(TD_OUT)/ppc64le/%: tests/data/ppc64le/%.c
	@mkdir -p $(dir $@)
	$(Q)$(PPC_CC) -O1 -g -static -Wl,--build-id -o $@ $<
