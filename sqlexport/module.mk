# sqlexport/: itrace-sqlite, the SQLite exporter (schema in schema.sql.h).
# libcli.a is named directly: tools/module.mk (which defines CLI_LIB) is
# included after this fragment, and prerequisites expand immediately.
BINS += $(BUILD)/bin/itrace-sqlite
$(BUILD)/bin/itrace-sqlite: $(BUILD)/obj/sqlexport/itrace_sqlite.o $(BUILD)/lib/libexportcli.a $(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS) -lsqlite3

$(BUILD)/obj/sqlexport/%.o: ALL_CPPFLAGS += -Itools

E2E_TESTS += $(sort $(wildcard tests/e2e/sqlite_*.sh))

# export-synth: synthetic instruction traces for the exporters' tests and
# benchmark (built with the tests, not installed).
TEST_DATA += $(BUILD)/tests/export-synth
$(BUILD)/tests/export-synth: $(BUILD)/obj/sqlexport/export_synth.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)

# bench: itrace-sqlite rows/s against a bare prepared-insert loop.
BENCHES += bench/export_sqlite.sh
bench/export_sqlite.sh: $(BUILD)/bench/export-sqlite-baseline $(BUILD)/tests/export-synth $(BUILD)/bin/itrace-sqlite
$(BUILD)/bench/export-sqlite-baseline: $(BUILD)/obj/bench/export_sqlite_baseline.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lsqlite3
