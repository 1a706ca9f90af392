#!/bin/sh
# Fuzz target speed: runs per CPU second of each libFuzzer target (make
# fuzz) over FUZZ_BENCH_SECONDS (10) from its checked-in corpus, against
# the target of 10,000 runs per second per target.  CPU time, not wall
# time, so that other work on a shared machine does not count.
: "${ITRACE_BUILD:=build}"
SECONDS_EACH=${FUZZ_BENCH_SECONDS:-10}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
make --no-print-directory -s BUILD="$ITRACE_BUILD" fuzz >"$TMP/make.log" 2>&1 || {
	tail -5 "$TMP/make.log"
	exit 1
}
for dir in tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	mkdir -p "$TMP/$t"
	cp "$dir"* "$TMP/$t/" 2>/dev/null
	/usr/bin/time -f '%U %S' -o "$TMP/cpu" "$ITRACE_BUILD/fuzz/$t" \
		-max_total_time="$SECONDS_EACH" -print_final_stats=1 -close_fd_mask=3 \
		-artifact_prefix="$TMP/" "$TMP/$t" >"$TMP/log" 2>&1
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/log")
	awk -v t="$t" -v r="${runs:-0}" -v c="$(awk '{ print $1 + $2 }' "$TMP/cpu")" 'BEGIN {
		rate = c > 0 ? r / c : 0
		printf "fuzz_speed_%-16s %8d runs/s  10000 runs/s  ratio %.2f  (target >= 1)\n", t, rate, rate / 10000
	}'
done
