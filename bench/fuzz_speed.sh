#!/bin/sh
# Fuzz target speed: runs per CPU second of each libFuzzer target (make
# fuzz) over FUZZ_BENCH_SECONDS (20), one worker, from its checked-in
# corpus, against the target of 10,000 runs per second per target.  CPU
# time, not wall time, so that other work on a shared machine does not
# count; libFuzzer's own figure (runs per second of wall time) is printed
# beside it.  tests/fuzz/README.md has the figures measured.
: "${ITRACE_BUILD:=build}"
SECONDS_EACH=${FUZZ_BENCH_SECONDS:-20}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
make --no-print-directory -s BUILD="$ITRACE_BUILD" fuzz >"$TMP/make.log" 2>&1 || {
	tail -5 "$TMP/make.log"
	exit 1
}
status=0
for dir in tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	set -- $(sh tests/fuzz/run_target.sh "$ITRACE_BUILD" "$t" "$SECONDS_EACH" "$TMP/$t")
	[ "$1" -eq 0 ] || status=1
	awk -v t="$t" -v rc="$1" -v r="$2" -v e="$3" -v c="$4" 'BEGIN {
		rate = c > 0 ? r / c : 0
		printf "fuzz_speed_%-16s %8d runs/s  10000 runs/s  ratio %.2f  (target >= 1)  [libFuzzer %d exec/s%s]\n",
			t, rate, rate / 10000, e, rc == 0 ? "" : ", FOUND A PROBLEM"
	}'
done
exit $status
