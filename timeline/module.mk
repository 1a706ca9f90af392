# timeline/: itrace-timeline (calls over time as Chrome Trace Event JSON)
# and its writer, libtimeline.a, which pipeline-sim --call-timeline uses
# too.  libexportcli.a and libcli.a are named directly: tools/module.mk,
# which defines them, is read after this fragment.
TIMELINE_LIB := $(BUILD)/lib/libtimeline.a
$(TIMELINE_LIB): $(BUILD)/obj/timeline/timeline_json.o
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

BINS += $(BUILD)/bin/itrace-timeline
$(BUILD)/bin/itrace-timeline: $(BUILD)/obj/timeline/itrace_timeline.o $(TIMELINE_LIB) \
		$(BUILD)/lib/libexportcli.a $(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

$(BUILD)/obj/timeline/%.o: ALL_CPPFLAGS += -Itools

E2E_TESTS += $(sort $(wildcard tests/e2e/timeline_*.sh))

# The timeline test loads files in speedscope (npm) in headless Chromium:
# installed into the build folder by a deps step of its own, skipped when
# that version is already there.
SPEEDSCOPE_VERSION := 1.25.0
.PHONY: deps-npm
deps-npm: deps
	@sh scripts/deps-npm.sh $(BUILD)/npm speedscope@$(SPEEDSCOPE_VERSION)
check: deps-npm

# bench: every exporter against reading the trace, and memory against length.
BENCHES += bench/exports.sh
bench/exports.sh: $(BUILD)/bench/sim_read $(BUILD)/tests/export-synth $(BUILD)/bin/itrace-sqlite \
	$(BUILD)/bin/itrace-xml $(BUILD)/bin/itrace-timeline $(BUILD)/bin/pipeline-sim
