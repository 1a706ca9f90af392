# tools/: the shared CLI helpers (libcli.a) and the general tools.
CLI_LIB := $(BUILD)/lib/libcli.a
$(CLI_LIB): $(BUILD)/obj/tools/cli.o $(BUILD)/obj/tools/cli_trace.o
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
