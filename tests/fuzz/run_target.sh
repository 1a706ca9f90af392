#!/bin/sh
# run_target.sh BUILD TARGET SECONDS WORKDIR - run one libFuzzer target
# (make fuzz builds BUILD/fuzz/TARGET) for SECONDS, one worker, from a copy
# of its checked-in corpus tests/fuzz/corpus/TARGET (what it adds stays in
# WORKDIR/corpus), and print one line:
#   RC RUNS EXEC_PER_S CPU_S
# RC is libFuzzer's exit status (0: nothing found; a crash, sanitizer
# report, leak, input slower than 10 s or use of more than 2 GB is not 0,
# with the input in WORKDIR/found/), RUNS the inputs run, EXEC_PER_S
# libFuzzer's own figure (runs per second of wall time) and CPU_S the CPU
# seconds the process used, so that RUNS / CPU_S is the speed whatever
# else the machine runs.  libFuzzer's log is WORKDIR/log.
#
# The libFuzzer build has no UndefinedBehaviorSanitizer (the Makefile says
# why), so every input the run kept in WORKDIR/corpus is then replayed by
# BUILD/fuzz-ub/TARGET (AddressSanitizer and UndefinedBehaviorSanitizer,
# any report fatal): a report makes RC non-zero, the input it stopped on
# is kept in WORKDIR/found/ and the report is added to the log.  The
# replay's time is not in CPU_S.
# Used by tests/e2e/fuzz_run.sh (make check) and bench/fuzz_speed.sh.
#
# Options of one target (tests/fuzz/TARGET.options, the [libfuzzer]
# section of OSS-Fuzz's format: "name = value" lines) are passed as
# -name=value.  Only scheduling options belong there, chosen by
# measurement (tests/fuzz/README.md), never one that turns coverage
# feedback or a check off.
build=$1 target=$2 seconds=$3 work=$4
mkdir -p "$work/corpus" "$work/found"
cp tests/fuzz/corpus/"$target"/* "$work/corpus/" 2>/dev/null
opts=$(sed -n 's/^ *\([a-z_]*\) *= *\([0-9A-Za-z_.-]*\) *$/-\1=\2/p' tests/fuzz/"$target".options 2>/dev/null)
/usr/bin/time -f '%U %S' -o "$work/cpu" "$build/fuzz/$target" -max_total_time="$seconds" \
	-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=3 \
	$opts \
	-artifact_prefix="$work/found/" "$work/corpus" >"$work/log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	"$build/fuzz-ub/$target" -v "$work/corpus" >"$work/ub.log" 2>&1
	ub=$?
	if [ "$ub" -ne 0 ]; then
		last=$(sed -n 's/^replaying //p' "$work/ub.log" | tail -n 1)
		[ -n "$last" ] && cp "$last" "$work/found/"
		{ echo "UBSan replay of the kept inputs ($build/fuzz-ub/$target), exit $ub:"
		  grep -v '^replaying \|^ok ' "$work/ub.log" | tail -n 30; } >>"$work/log"
		rc=$ub
	fi
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
cpu=$(awk '{ print $1 + $2 }' "$work/cpu" 2>/dev/null)
echo "$rc ${runs:-0} ${rate:-0} ${cpu:-0}"
