# The two libraries (ARCHITECTURE.md), each an archive, which the programs
# built here link, and a shared library, which make install installs with
# its header and pkg-config file:
#  - libitrace, the core: format, records, chunks, reader, writer (itrace.h;
#    zstd only);
#  - libitrace-code, the code layer: decoder, ELF images, symbols, fill,
#    analysis (itrace_code.h; libelf, libdw, Zydis, capstone), on top of
#    the core and nothing else.
# The core's files are listed; every other reader/*.c and fill/*.c (but
# fill's main) is the code layer, so a new file there joins it.
LIBITRACE_SRCS := $(wildcard reader/reader*.c reader/writer*.c) \
	reader/crc32c.c reader/names.c reader/outfile.c
LIBITRACE_CODE_SRCS := $(filter-out $(LIBITRACE_SRCS),$(wildcard reader/*.c)) \
	$(filter-out fill/itrace_fill.c,$(wildcard fill/*.c))
LIBITRACE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIBITRACE_SRCS))
LIBITRACE_CODE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIBITRACE_CODE_SRCS))

$(LIBITRACE): $(LIBITRACE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBITRACE_CODE): $(LIBITRACE_CODE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Shared libraries: libitrace.so.MAJOR.MINOR.PATCH, soname libitrace.so.MAJOR,
# the version from itrace.h's ITRACE_VERSION_* macros.  libitrace.map keeps
# every symbol without the itrace_ prefix local; --no-undefined makes the
# link fail if a library needs anything beyond its named dependencies.
ITRACE_VERSION := $(shell sed -n 's/^[#]define ITRACE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' reader/itrace.h | paste -sd.)
ITRACE_SOMAJOR := $(firstword $(subst ., ,$(ITRACE_VERSION)))
LIBITRACE_SO := $(BUILD)/lib/libitrace.so.$(ITRACE_VERSION)
LIBITRACE_CODE_SO := $(BUILD)/lib/libitrace-code.so.$(ITRACE_VERSION)
SO_LDFLAGS = -shared -Wl,--version-script=reader/libitrace.map -Wl,--no-undefined

# so_links NAME: the soname and development links beside the library.
so_links = ln -sf $(notdir $@) $(dir $@)$(1).so.$(ITRACE_SOMAJOR) && \
	ln -sf $(1).so.$(ITRACE_SOMAJOR) $(dir $@)$(1).so
$(LIBITRACE_SO): $(LIBITRACE_OBJS) reader/libitrace.map
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(SO_LDFLAGS) -Wl,-soname,libitrace.so.$(ITRACE_SOMAJOR) \
		-o $@ $(LIBITRACE_OBJS) $(LIBITRACE_LIBS)
	$(Q)$(call so_links,libitrace)
$(LIBITRACE_CODE_SO): $(LIBITRACE_CODE_OBJS) $(LIBITRACE_SO) reader/libitrace.map
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(SO_LDFLAGS) -Wl,-soname,libitrace-code.so.$(ITRACE_SOMAJOR) \
		-o $@ $(LIBITRACE_CODE_OBJS) $(LIBITRACE_SO) $(LIBITRACE_CODE_LIBS)
	$(Q)$(call so_links,libitrace-code)

# The installed archives: all of a library's objects as one relocatable
# object whose only global definitions are the itrace_ ones (the archives
# above keep the internal globals that the unit tests and fuzz targets
# call), so that a program linking libitrace.a statically meets no
# internal name of ours, just as with the shared library.
OBJCOPY ?= objcopy
LIBITRACE_DIST := $(BUILD)/lib/dist/libitrace.a
LIBITRACE_CODE_DIST := $(BUILD)/lib/dist/libitrace-code.a
$(BUILD)/lib/dist/%.a: $(BUILD)/lib/%.a
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ $(@:.a=.o)
	$(Q)$(LD) -r -o $(@:.a=.o) --whole-archive $<
	$(Q)$(OBJCOPY) --wildcard --keep-global-symbol='itrace_*' $(@:.a=.o)
	$(Q)ar rcs $@ $(@:.a=.o) && rm -f $(@:.a=.o)

# Unit tests of the library: tests/unit/test_<module>.c, cmocka.  A test's
# own archives (UNIT_LIBS_<module>) go before the libraries they use.
UNIT_TESTS += $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(filter-out $(LIBITRACE_CODE) $(LIBITRACE),$^) $(UNIT_LIBS_$*) \
		$(LIBITRACE_CODE) $(LIBITRACE) \
		$(LIBITRACE_CODE_LIBS) -lcmocka

# Fuzz targets of the format: the reader on any bytes, and write->read.
FUZZ_TARGETS += fuzz_reader fuzz_roundtrip

# Fuzz target of the decoder: any bytes as x86-64, ppc64le or ppc64 code.
FUZZ_TARGETS += fuzz_decoder
