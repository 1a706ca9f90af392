# reader/: libitrace, the core: format, records, chunks, reader, writer
# (itrace.h; zstd only).  The code layer, libitrace-code, is code/ and its
# own fragment (code/module.mk), on top of this one and nothing else.  Each
# library is an archive, which the programs built here link, and a shared
# library, which make install installs with its header and pkg-config file.
LIBITRACE_SRCS := $(wildcard reader/*.c)
LIBITRACE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIBITRACE_SRCS))

$(LIBITRACE): $(LIBITRACE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Shared libraries: libitrace.so.MAJOR.MINOR.PATCH, soname libitrace.so.MAJOR,
# the version from itrace.h's ITRACE_VERSION_* macros.  Each library has
# its version script, which names every symbol it exports under a version
# node per release (reader/libitrace.map here, code/libitrace-code.map for
# the code layer) and keeps the rest local; --no-undefined makes the link
# fail if a library needs anything beyond its named dependencies.
ITRACE_VERSION := $(shell sed -n 's/^[#]define ITRACE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' reader/itrace.h | paste -sd.)
ITRACE_SOMAJOR := $(firstword $(subst ., ,$(ITRACE_VERSION)))
LIBITRACE_SO := $(BUILD)/lib/libitrace.so.$(ITRACE_VERSION)
SO_LDFLAGS = -shared -Wl,--no-undefined
LIBITRACE_MAP := reader/libitrace.map

# so_links NAME: the soname and development links beside the library.
so_links = ln -sf $(notdir $@) $(dir $@)$(1).so.$(ITRACE_SOMAJOR) && \
	ln -sf $(1).so.$(ITRACE_SOMAJOR) $(dir $@)$(1).so
$(LIBITRACE_SO): $(LIBITRACE_OBJS) $(LIBITRACE_MAP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(SO_LDFLAGS) -Wl,--version-script=$(LIBITRACE_MAP) -Wl,-soname,libitrace.so.$(ITRACE_SOMAJOR) \
		-o $@ $(LIBITRACE_OBJS) $(LIBITRACE_LIBS)
	$(Q)$(call so_links,libitrace)

# The installed archives: all of a library's objects as one relocatable
# object whose only global definitions are the exported ones (the archives
# above keep the internal globals that the unit tests and fuzz targets
# call), so that a program linking libitrace.a statically meets no
# internal name of ours, just as with the shared library.
OBJCOPY ?= objcopy
LIBITRACE_DIST := $(BUILD)/lib/dist/libitrace.a
# The names kept global are those the library's version script exports.
define dist_archive
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ $(@:.a=.o)
	$(Q)sed -n 's/^[[:space:]]*\(itrace_[a-z0-9_]*\);$$/\1/p' $(2) >$(@:.a=.keep)
	$(Q)$(LD) -r -o $(@:.a=.o) --whole-archive $(1)
	$(Q)$(OBJCOPY) --keep-global-symbols=$(@:.a=.keep) $(@:.a=.o)
	$(Q)ar rcs $@ $(@:.a=.o) && rm -f $(@:.a=.o) $(@:.a=.keep)
endef
$(LIBITRACE_DIST): $(LIBITRACE) $(LIBITRACE_MAP)
	$(call dist_archive,$(LIBITRACE),$(LIBITRACE_MAP))

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
