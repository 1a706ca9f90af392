# qtrace/: libqtrace.a (qtrace writer and reader, public header qtrace/qtrace.h)
# and qtrace-conv.  Other components link $(QTRACE_LIB) and add -Iqtrace
# (QTRACE_CPPFLAGS) to the objects that include qtrace.h.
QTRACE_LIB := $(BUILD)/lib/libqtrace.a
QTRACE_CPPFLAGS := -Iqtrace
QTRACE_LIB_SRCS := qtrace/qtrace_writer.c qtrace/qtrace_reader.c qtrace/qtrace_power.c
QTRACE_LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(QTRACE_LIB_SRCS))

$(QTRACE_LIB): $(QTRACE_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Unit test tests/unit/test_qtrace.c (rule in reader/module.mk).
UNIT_LIBS_qtrace := $(QTRACE_LIB) $(LIBITRACE)
$(BUILD)/tests/test_qtrace: $(QTRACE_LIB)
$(BUILD)/obj/tests/unit/test_qtrace.o: ALL_CPPFLAGS += $(QTRACE_CPPFLAGS)

# qtrace-conv: itrace -> qtrace conversion (conv*.c) and --dump.  libcli.a is
# named literally: tools/module.mk (CLI_LIB) is read after this file.
QTRACE_CONV_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,\
	qtrace/qtrace_conv.c qtrace/qtrace_dump.c qtrace/conv.c qtrace/conv_isa.c)
$(QTRACE_CONV_OBJS): ALL_CPPFLAGS += $(QTRACE_CPPFLAGS) -Itools
BINS += $(BUILD)/bin/qtrace-conv
$(BUILD)/bin/qtrace-conv: $(QTRACE_CONV_OBJS) $(QTRACE_LIB) $(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

E2E_TESTS += $(sort $(wildcard tests/e2e/qtrace_*.sh))

# bench/qtrace_gen: synthetic ppc64le itrace for the benchmark and e2e tests.
QTRACE_GEN := $(BUILD)/bench/qtrace_gen
TEST_DATA += $(QTRACE_GEN)
$(QTRACE_GEN): $(BUILD)/obj/bench/qtrace_gen.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)

# bench/qtrace_read: the plain-read baseline of bench/qtrace_conv.sh.
QTRACE_READ := $(BUILD)/bench/qtrace_read
TEST_DATA += $(QTRACE_READ)
$(QTRACE_READ): $(BUILD)/obj/bench/qtrace_read.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)
BENCHES += bench/qtrace_conv.sh

# Fuzz target tests/fuzz/fuzz_qtrace.c (reader on any bytes, writer round trip).
FUZZ_TARGETS += fuzz_qtrace
FUZZ_LIBS_fuzz_qtrace := $(QTRACE_LIB) $(LIBITRACE)
FUZZ_EXTRA_SRCS_fuzz_qtrace := $(QTRACE_LIB_SRCS)
$(BUILD)/obj/tests/fuzz/fuzz_qtrace.o: ALL_CPPFLAGS += $(QTRACE_CPPFLAGS)
$(BUILD)/fuzz-replay/fuzz_qtrace: $(QTRACE_LIB)

# make install: libqtrace and its header, for tools outside this tree.
INSTALL_EXTRA += install -m 644 $(QTRACE_LIB) $(DESTDIR)$(PREFIX)/lib/ && \
	install -m 644 qtrace/qtrace.h $(DESTDIR)$(PREFIX)/include/ ;
