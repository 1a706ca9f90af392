#!/bin/sh
# Every fuzz target runs under libFuzzer for FUZZ_SECONDS (10) from its
# checked-in corpus (tests/fuzz/corpus/<target>, copied: new inputs are
# not kept) and must find nothing: no crash, no sanitizer report, no leak,
# no input slower than 10 s, no more than 2 GB.  A finding is kept in
# $ITRACE_BUILD/fuzz-findings/ to reproduce (build/fuzz/<target> FILE).
# The speed of each target (runs per CPU second) is printed; bench/
# fuzz_speed.sh compares it with the 10,000/s target.
. tests/lib.sh
SECONDS_EACH=${FUZZ_SECONDS:-10}
FUZZ="$ITRACE_ROOT/$ITRACE_BUILD/fuzz"
FINDINGS="$ITRACE_ROOT/$ITRACE_BUILD/fuzz-findings"

# The libFuzzer build (clang, libclang-rt; scripts/deps.sh installs both).
if ! make --no-print-directory -s BUILD="$ITRACE_BUILD" fuzz >"$TMP/make.log" 2>&1; then
	fail "make fuzz (clang with libFuzzer)" "$(tail -20 "$TMP/make.log")"
	done_testing
	exit
fi
for dir in "$ITRACE_ROOT"/tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	if [ ! -x "$FUZZ/$t" ]; then
		fail "$t: no fuzz target built for corpus $dir"
		continue
	fi
	mkdir -p "$TMP/$t" "$TMP/art-$t"
	cp "$dir"* "$TMP/$t/" 2>/dev/null
	/usr/bin/time -f '%U %S' -o "$TMP/cpu" "$FUZZ/$t" -max_total_time="$SECONDS_EACH" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=3 \
		-artifact_prefix="$TMP/art-$t/" "$TMP/$t" >"$TMP/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/log")
	cpu=$(awk '{ print $1 + $2 }' "$TMP/cpu")
	rate=$(awk -v r="${runs:-0}" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? r / c : 0) }')
	if [ "$rc" -eq 0 ]; then
		ok "$t: $SECONDS_EACH s, ${runs:-0} runs, $rate runs per CPU second, nothing found"
	else
		mkdir -p "$FINDINGS"
		cp "$TMP/art-$t"/* "$FINDINGS/" 2>/dev/null
		fail "$t: libFuzzer found a problem (input kept in $FINDINGS)" \
			"$(grep -E 'ERROR|SUMMARY|==[0-9]+==' "$TMP/log" | head -10)"
	fi
done
done_testing
