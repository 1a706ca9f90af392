#!/bin/sh
# Fill speed, measured in one run on one loop-heavy branch trace (fill_bench,
# extrapolated by fill-gen to tens of millions of instructions):
#   naive fill (capstone on every executed instruction, itrace-fill --naive)
#   vs itrace-fill (block cache), and itrace-fill -j 2 vs -j 1 on a trace
#   of many chunks.  Each figure is the best of 3 runs (the machine is shared).
: "${ITRACE_BUILD:=build}"
BIN="$ITRACE_BUILD/bin"
GEN="$ITRACE_BUILD/tests/fill-gen"
PROG="$ITRACE_BUILD/tests/data/fill_bench"
REPS="${FILL_BENCH_REPS:-50000}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fill-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }

# best_time CMD...: the shortest wall time of 3 runs, in seconds.
best_time() {
	best=""
	for _ in 1 2 3; do
		t0=$(now)
		"$@" >/dev/null 2>&1 || { echo "fill_speed: '$*' failed" >&2; exit 1; }
		t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}

"$GEN" --taken-only --extrapolate "$REPS" --chunk-bytes 65536 -o "$TMP/loop.itr" "$PROG" ||
	{ echo "fill_speed: cannot generate the trace" >&2; exit 1; }
insns=$("$BIN/itrace-fill" -v "$TMP/loop.itr" -o "$TMP/out.itr" 2>&1 | sed -n 's/.*: \([0-9]*\) instructions from.*/\1/p')
chunks=$("$BIN/itrace-dump" -s "$TMP/loop.itr" | sed -n 's/^chunks: //p')

naive=$(best_time "$BIN/itrace-fill" -q --naive "$TMP/loop.itr" -o "$TMP/naive.itr")
ours=$(best_time "$BIN/itrace-fill" -q "$TMP/loop.itr" -o "$TMP/j1.itr")
j2=$(best_time "$BIN/itrace-fill" -q -j 2 "$TMP/loop.itr" -o "$TMP/j2.itr")
cmp -s "$TMP/j1.itr" "$TMP/naive.itr" || { echo "fill_speed: naive and cached outputs differ" >&2; exit 1; }
cmp -s "$TMP/j1.itr" "$TMP/j2.itr" || { echo "fill_speed: -j 2 and -j 1 outputs differ" >&2; exit 1; }

rate() { echo "$insns / $1 / 1000000" | bc -l; }
printf 'fill_vs_naive   %.1f Minsn/s  %.2f Minsn/s  ratio %.1f  (target 20)  [%s insns]\n' \
	"$(rate "$ours")" "$(rate "$naive")" "$(echo "$naive / $ours" | bc -l)" "$insns"
printf 'fill_j2_vs_j1   %.1f Minsn/s  %.1f Minsn/s  ratio %.2f  (target 1.6)  [%s chunks, %s cores]\n' \
	"$(rate "$j2")" "$(rate "$ours")" "$(echo "$ours / $j2" | bc -l)" "$chunks" "$(nproc)"
