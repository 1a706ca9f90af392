#!/bin/sh
# Every fuzz target runs under libFuzzer for FUZZ_SECONDS (10) from its
# checked-in corpus (tests/fuzz/corpus/<target>, copied: new inputs are
# not kept) and must find nothing: no crash, no sanitizer report, no leak,
# no input slower than 10 s, no more than 2 GB (tests/fuzz/run_target.sh).
# A finding is kept in $ITRACE_BUILD/fuzz-findings/ to reproduce
# (build/fuzz/<target> FILE).  The speed of each target is printed, as
# libFuzzer's runs per second and runs per CPU second; bench/fuzz_speed.sh
# compares it with the 10,000/s target.
. tests/lib.sh
SECONDS_EACH=${FUZZ_SECONDS:-10}
FINDINGS="$ITRACE_ROOT/$ITRACE_BUILD/fuzz-findings"

# The libFuzzer build (clang, libclang-rt; scripts/deps.sh installs both).
if ! make --no-print-directory -s BUILD="$ITRACE_BUILD" fuzz >"$TMP/make.log" 2>&1; then
	fail "make fuzz (clang with libFuzzer)" "$(tail -20 "$TMP/make.log")"
	done_testing
	exit
fi
for dir in "$ITRACE_ROOT"/tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	if [ ! -x "$ITRACE_BUILD/fuzz/$t" ]; then
		fail "$t: no fuzz target built for corpus $dir"
		continue
	fi
	set -- $(sh tests/fuzz/run_target.sh "$ITRACE_BUILD" "$t" "$SECONDS_EACH" "$TMP/$t")
	rc=$1 runs=$2 rate=$3 cpu=$4
	if [ "$rc" -eq 0 ] && [ "$runs" -gt 0 ]; then
		ok "$t: $SECONDS_EACH s, $runs runs, $rate runs/s, $(awk -v r="$runs" -v c="$cpu" \
			'BEGIN { printf "%d", (c > 0 ? r / c : 0) }') runs per CPU second, nothing found"
	else
		mkdir -p "$FINDINGS"
		cp "$TMP/$t/found"/* "$FINDINGS/" 2>/dev/null
		fail "$t: libFuzzer found a problem or did not run (exit $rc; input kept in $FINDINGS)" \
			"$(grep -E 'ERROR|SUMMARY|==[0-9]+==|No such file' "$TMP/$t/log" | head -10)"
	fi
done
done_testing
