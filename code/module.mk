# code/: libitrace-code, the code layer (itrace_code.h; libelf, libdw,
# Zydis, capstone), on top of libitrace (reader/) and nothing else.  One
# subfolder per module, each with its README.md; every code/*/*.c is
# library code, so a new file there joins it:
#   decoder/   the one instruction decoder
#   image/     process images, the one ELF reader, the symbolizer, ranges
#   fill/      gap filling (branch trace -> instruction trace)
#   analysis/  the shared analyses (calls per thread, counts)
# Built with reader/module.mk's rules and flags (ITRACE_VERSION, SO_LDFLAGS,
# so_links, the dist archive rule), so the top Makefile reads it second.
LIBITRACE_CODE_SRCS := $(wildcard code/*/*.c)
LIBITRACE_CODE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIBITRACE_CODE_SRCS))

$(LIBITRACE_CODE): $(LIBITRACE_CODE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Its own version script (code/libitrace-code.map) names what it exports.
LIBITRACE_CODE_MAP := code/libitrace-code.map
LIBITRACE_CODE_SO := $(BUILD)/lib/libitrace-code.so.$(ITRACE_VERSION)
$(LIBITRACE_CODE_SO): $(LIBITRACE_CODE_OBJS) $(LIBITRACE_SO) $(LIBITRACE_CODE_MAP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(SO_LDFLAGS) -Wl,--version-script=$(LIBITRACE_CODE_MAP) -Wl,-soname,libitrace-code.so.$(ITRACE_SOMAJOR) \
		-o $@ $(LIBITRACE_CODE_OBJS) $(LIBITRACE_SO) $(LIBITRACE_CODE_LIBS)
	$(Q)$(call so_links,libitrace-code)
LIBITRACE_CODE_DIST := $(BUILD)/lib/dist/libitrace-code.a
$(LIBITRACE_CODE_DIST): $(LIBITRACE_CODE) $(LIBITRACE_CODE_MAP)
	$(call dist_archive,$(LIBITRACE_CODE),$(LIBITRACE_CODE_MAP))

# Fuzz target of the decoder: any bytes as x86-64, ppc64le or ppc64 code.
FUZZ_TARGETS += fuzz_decoder

# Unit tests trace the fill_* test programs: build them first.
FILL_TEST_PROGS := $(patsubst tests/data/%.S,$(BUILD)/tests/data/%,$(wildcard tests/data/fill_*.S)) \
	$(patsubst tests/data/%.c,$(BUILD)/tests/data/%,$(wildcard tests/data/fill_*.c)) \
	$(BUILD)/tests/data/fill_unwind_stripped
$(BUILD)/tests/test_decoder $(BUILD)/tests/test_image $(BUILD)/tests/test_symbolizer \
	$(BUILD)/tests/test_fill $(BUILD)/tests/test_handler: | $(FILL_TEST_PROGS)

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
