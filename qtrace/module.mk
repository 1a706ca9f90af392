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
UNIT_LIBS_qtrace := $(QTRACE_LIB)
$(BUILD)/tests/test_qtrace: $(QTRACE_LIB)
$(BUILD)/obj/tests/unit/test_qtrace.o: ALL_CPPFLAGS += $(QTRACE_CPPFLAGS)
