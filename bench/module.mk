# bench/: format size figures (other components add their own benches).
BENCH_OUT := $(BUILD)/bench
$(BENCH_OUT)/format_size: $(BUILD)/obj/bench/format_size.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)
$(BENCH_OUT)/format_workload: bench/format_workload.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O1 -g -o $@ $<
BENCHES += bench/format_size.sh
bench-format: $(BENCH_OUT)/format_size $(BENCH_OUT)/format_workload
bench: bench-format

# bench-runtime: wall and CPU time of one command, finer than time(1).
BENCH_RUNTIME := $(BENCH_OUT)/bench-runtime
$(BENCH_RUNTIME): bench/runtime.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $<
bench: $(BENCH_RUNTIME)

# decode_speed: libitrace's decoder vs capstone 4 on this machine's libc.
$(BENCH_OUT)/decode_speed: $(BUILD)/obj/bench/decode_speed.o $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS)
BENCHES += $(BENCH_OUT)/decode_speed

# handler_speed: itrace-run with a handler that keeps nothing against a
# bare read of the same trace (handler_read).
$(BENCH_OUT)/handler-read: $(BUILD)/obj/bench/handler_read.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)
BENCHES += bench/handler_speed.sh
bench: $(BENCH_OUT)/handler-read $(TEST_HANDLERS)
