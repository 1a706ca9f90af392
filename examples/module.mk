# examples/: programs that use itrace the way a program outside this tree
# does, through the installed headers and pkg-config only.  make check
# installs everything into a staging root under the build directory and
# builds them against it (pkg-config with PKG_CONFIG_SYSROOT_DIR, as for
# any DESTDIR install); tests/e2e/lib_*.sh run them and check the
# installed headers, pkg-config files and exported symbols.
STAGE := $(BUILD)/stage
STAGE_PREFIX := /usr/local
STAGE_PKG_CONFIG = PKG_CONFIG_PATH=$(abspath $(STAGE))$(STAGE_PREFIX)/lib/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$(abspath $(STAGE)) pkg-config

# Installed afresh each time: build-all is phony, and install is cheap.
$(STAGE)/.installed: build-all
	$(Q)rm -rf $(STAGE)
	$(Q)$(MAKE) --no-print-directory -s install DESTDIR=$(abspath $(STAGE)) PREFIX=$(STAGE_PREFIX) >/dev/null
	$(Q)touch $@

# Compiled as a user would: plain C11, no _GNU_SOURCE, no -I into the tree.
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
$(BUILD)/examples/%: examples/%.c $(STAGE)/.installed
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CC      $< (staged install)")
	$(Q)$(CC) -std=c11 $(WARN) $(CFLAGS) $(SAN_FLAGS) -o $@ $< \
		$$($(STAGE_PKG_CONFIG) --cflags --libs itrace)

CHECK_EXTRA += $(STAGE)/.installed $(EXAMPLES)
E2E_TESTS += $(sort $(wildcard tests/e2e/lib_*.sh))

# Handlers (itrace_handler.h): shared objects built as a user builds them,
# with the installed header and no library: the driver that loads them
# (itrace-run) provides libitrace-code's functions.
HANDLER_EXAMPLES := $(patsubst examples/handlers/%.c,$(BUILD)/examples/handlers/%.so,$(wildcard examples/handlers/*.c))
$(BUILD)/examples/handlers/%.so: examples/handlers/%.c $(STAGE)/.installed
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CC      $< (staged install, handler)")
	$(Q)$(CC) -std=c11 $(WARN) $(CFLAGS) -shared -fPIC -o $@ $< \
		$$($(STAGE_PKG_CONFIG) --cflags itrace-code)
CHECK_EXTRA += $(HANDLER_EXAMPLES)
