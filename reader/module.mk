# libitrace: every reader/*.c and fill/fill*.c goes into the static library.
LIBITRACE_SRCS := $(wildcard reader/*.c) $(wildcard fill/fill*.c)
LIBITRACE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIBITRACE_SRCS))

$(LIBITRACE): $(LIBITRACE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Unit tests of the library: tests/unit/test_<module>.c, cmocka.
UNIT_TESTS += $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(UNIT_LIBS_$*) $(LIBITRACE_LIBS) -lcmocka

# Fuzz targets of the format: the reader on any bytes, and write->read.
FUZZ_TARGETS += fuzz_reader fuzz_roundtrip

# The decoder's objdump oracle (tests/real/decode_objdump.sh): compares
# decoder boundaries and branch targets with `objdump -d` output.
DECODE_ORACLE := $(BUILD)/tests/decode-oracle
TEST_DATA += $(DECODE_ORACLE)
$(DECODE_ORACLE): $(BUILD)/obj/tests/real/decode_oracle.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)

# Fuzz target of the decoder: any bytes as x86-64, ppc64le or ppc64 code.
FUZZ_TARGETS += fuzz_decoder
