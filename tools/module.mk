# tools/: the shared CLI helpers (libcli.a) and the general tools.
CLI_LIB := $(BUILD)/lib/libcli.a
$(CLI_LIB): $(BUILD)/obj/tools/cli.o $(BUILD)/obj/tools/cli_trace.o $(BUILD)/obj/tools/cli_handler.o
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# libexportcli.a: the exporters' shared command line (export_cli.h).
$(BUILD)/lib/libexportcli.a: $(BUILD)/obj/tools/export_cli.o
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

BINS += $(BUILD)/bin/itrace-dump
$(BUILD)/bin/itrace-dump: $(BUILD)/obj/tools/itrace_dump.o $(CLI_LIB) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)

E2E_TESTS += $(sort $(wildcard tests/e2e/dump*.sh))

# itrace-fill: the gap filler's front end (the engine is code/fill/).
BINS += $(BUILD)/bin/itrace-fill
$(BUILD)/bin/itrace-fill: $(BUILD)/obj/tools/itrace_fill.o $(CLI_LIB) $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

# itrace-run: handlers over a recorded trace (the chain is code/handler/).
# The handlers it loads call libitrace-code's API (itrace_handler.h): it
# links both archives whole and exports their itrace_ functions, so that a
# handler needs no libitrace-code.so at run time (and one linked with it
# binds to these first, the executable coming first in the lookup order).
BINS += $(BUILD)/bin/itrace-run
$(BUILD)/bin/itrace-run: $(BUILD)/obj/tools/itrace_run.o $(CLI_LIB) $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -Wl,--export-dynamic-symbol='itrace_[a-oq-z]*' \
		-Wl,--export-dynamic-symbol='itrace_p[a-qs-z]*' -o $@ $(filter %.o,$^) $(CLI_LIB) \
		-Wl,--whole-archive $(LIBITRACE_CODE) $(LIBITRACE) -Wl,--no-whole-archive \
		$(LIBITRACE_CODE_LIBS) -ldl -lpthread
E2E_TESTS += tests/e2e/handler_run.sh

# The test handlers (tests/handlers/handler_test.c, one per KIND).
TEST_HANDLER_KINDS := keep_every keep_mem nothing crash garbage badstart size0 huge newer newer_zero \
	older nocb abi2 notable getter
TEST_HANDLERS := $(patsubst %,$(BUILD)/tests/handlers/%.so,$(TEST_HANDLER_KINDS))
TEST_DATA += $(TEST_HANDLERS)
$(BUILD)/tests/handlers/%.so: tests/handlers/handler_test.c code/itrace_handler.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 $(WARN) -O2 -shared -fPIC -Icode -Ireader -Iformat -DKIND_$* -DKIND=$* -o $@ $<
