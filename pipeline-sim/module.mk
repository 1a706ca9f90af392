# pipeline-sim/: the trace-driven pipeline model (pipeline-sim) and its
# library libsim.a (config, semantics, predictors, caches, core, input,
# reports), shared with its unit tests and benchmark generator.
# qtrace/ and tools/ are read after this file: their libraries are named
# by path here.
SIM_LIB := $(BUILD)/lib/libsim.a
SIM_QTRACE_LIB := $(BUILD)/lib/libqtrace.a
SIM_CLI_LIB := $(BUILD)/lib/libcli.a
SIM_SRCS := $(addprefix pipeline-sim/,config.c sem.c bpred.c cache.c core.c input.c report.c host.c calibrate.c)
SIM_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(SIM_SRCS)) $(BUILD)/obj/pipeline-sim/presets.o
SIM_PRESETS := $(sort $(wildcard pipeline-sim/cores/*.core))
SIM_TEST_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/unit/test_sim*.c))
SIM_BENCH_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard bench/sim_*.c))

$(SIM_OBJS) $(BUILD)/obj/pipeline-sim/main.o $(SIM_TEST_OBJS) $(SIM_BENCH_OBJS): \
	ALL_CPPFLAGS += -Ipipeline-sim -Iqtrace -Itools

$(BUILD)/gen/pipeline-sim/presets.c: $(SIM_PRESETS) pipeline-sim/gen-presets.sh
	@mkdir -p $(dir $@)
	$(Q)sh pipeline-sim/gen-presets.sh $(SIM_PRESETS) >$@.tmp && mv $@.tmp $@

$(BUILD)/obj/pipeline-sim/presets.o: $(BUILD)/gen/pipeline-sim/presets.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(SIM_LIB): $(SIM_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

BINS += $(BUILD)/bin/pipeline-sim
# --callgrind and --call-timeline (callgrind_out.c) write through timeline/'s writer
$(BUILD)/obj/pipeline-sim/callgrind_out.o: ALL_CPPFLAGS += -Ipipeline-sim -Iqtrace -Itools
$(BUILD)/obj/pipeline-sim/callgrind_out.o $(BUILD)/obj/pipeline-sim/main.o: ALL_CPPFLAGS += -Itimeline
$(BUILD)/bin/pipeline-sim: $(BUILD)/obj/pipeline-sim/main.o $(BUILD)/obj/pipeline-sim/callgrind_out.o \
		$(BUILD)/lib/libtimeline.a $(SIM_LIB) $(SIM_QTRACE_LIB) $(SIM_CLI_LIB) $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)

# Unit tests tests/unit/test_sim*.c link libsim (rule in reader/module.mk).
SIM_UNIT_LIBS := $(SIM_LIB) $(SIM_QTRACE_LIB) $(SIM_CLI_LIB) $(LIBITRACE)
$(foreach t,$(patsubst tests/unit/test_%.c,%,$(wildcard tests/unit/test_sim*.c)),\
	$(eval UNIT_LIBS_$(t) := $(SIM_UNIT_LIBS))\
	$(eval $(BUILD)/tests/test_$(t): $(SIM_UNIT_LIBS)))

# bench/sim_gen: writes the synthetic trace the benchmark replays.
$(BUILD)/bench/sim_gen: $(BUILD)/obj/bench/sim_gen.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)

E2E_TESTS += $(sort $(wildcard tests/e2e/sim_*.sh))
BENCHES += $(sort $(wildcard bench/sim_*.sh))
TEST_DATA += $(BUILD)/bench/sim_gen

# bench/sim_read: the plain-read baseline of the benchmark.
$(BUILD)/bench/sim_read: $(BUILD)/obj/bench/sim_read.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)
TEST_DATA += $(BUILD)/bench/sim_read

# Fuzz targets: the core description parser, and any bytes as a trace
# through the whole simulator and its reports.
SIM_FUZZ := fuzz_sim_config fuzz_sim_trace
FUZZ_TARGETS += $(SIM_FUZZ)
$(foreach f,$(SIM_FUZZ),\
	$(eval FUZZ_LIBS_$(f) := $(SIM_UNIT_LIBS))\
	$(eval FUZZ_EXTRA_SRCS_$(f) := $(SIM_SRCS) tools/cli.c $(BUILD)/gen/pipeline-sim/presets.c \
		qtrace/qtrace_writer.c qtrace/qtrace_reader.c qtrace/qtrace_power.c)\
	$(eval $(BUILD)/fuzz-replay/$(f): $(SIM_UNIT_LIBS))\
	$(eval $(BUILD)/fuzz/$(f): $(BUILD)/gen/pipeline-sim/presets.c)\
	$(eval $(BUILD)/fuzz/$(f) $(BUILD)/obj/tests/fuzz/$(f).o: ALL_CPPFLAGS += -Ipipeline-sim -Iqtrace))

# bench/accuracy: loop kernels measured on the host and simulated with
# --core host (bench/accuracy/run.sh).  The driver is built without
# sanitizers: it times the kernels and runs under valgrind.
ACC_DRIVER := $(BUILD)/bench/accuracy_driver
$(BUILD)/obj/bench/accuracy/driver.o: ALL_CPPFLAGS += -Ipipeline-sim
$(BUILD)/obj/bench/accuracy/kernels.o: bench/accuracy/kernels.S
	@mkdir -p $(dir $@)
	$(Q)$(CC) -c $< -o $@
$(ACC_DRIVER): $(BUILD)/obj/bench/accuracy/driver.o $(BUILD)/obj/bench/accuracy/kernels.o \
		$(BUILD)/obj/pipeline-sim/host.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^
BENCHES += bench/accuracy/run.sh
bench: $(ACC_DRIVER)
