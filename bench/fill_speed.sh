#!/bin/sh
# Fill speed, measured in one run on one loop-heavy branch trace (fill_bench,
# extrapolated by fill-gen to tens of millions of instructions):
#   naive fill (capstone on every executed instruction, itrace-fill --naive)
#   vs itrace-fill (block cache), and itrace-fill -j 2 vs -j 1 on a trace
#   of many chunks.  Each figure is the best of 3 (naive) or 7-9 runs: the
#   machine is shared.
#   FILL_BENCH_REPS sets the trace length (outer loop iterations).
: "${ITRACE_BUILD:=build}"
BIN="$ITRACE_BUILD/bin"
GEN="$ITRACE_BUILD/tests/fill-gen"
PROG="$ITRACE_BUILD/tests/data/fill_bench"
REPS="${FILL_BENCH_REPS:-100000}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fill-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# best_time KIND RUNS CMD...: the best of RUNS runs, in seconds: KIND wall is the
# elapsed time, cpu the user+system time.  The single-threaded comparison
# uses CPU time, which the other users of a shared machine disturb far less
# than wall time; -j 2 vs -j 1 can only be judged by wall time.
best_time() {
	kind=$1
	runs=$2
	shift 2
	best=""
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S" -o "$TMP/time" "$@" >/dev/null 2>&1 ||
			{ echo "fill_speed: '$*' failed" >&2; exit 1; }
		if [ "$kind" = wall ]; then
			t=$(awk '{ print $1 }' "$TMP/time")
		else
			t=$(awk '{ print $2 + $3 }' "$TMP/time")
		fi
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	# time(1) has 10 ms resolution
	[ "$(echo "$best < 0.01" | bc -l)" = 1 ] && best=0.01
	echo "$best"
}

"$GEN" --taken-only --extrapolate "$REPS" --chunk-bytes 65536 -o "$TMP/loop.itr" "$PROG" ||
	{ echo "fill_speed: cannot generate the trace" >&2; exit 1; }
insns=$("$BIN/itrace-fill" -v "$TMP/loop.itr" -o "$TMP/out.itr" 2>&1 | sed -n 's/.*: \([0-9]*\) instructions from.*/\1/p')
chunks=$("$BIN/itrace-dump" -s "$TMP/loop.itr" | sed -n 's/^chunks: //p')

naive=$(best_time cpu 3 "$BIN/itrace-fill" -q --naive "$TMP/loop.itr" -o "$TMP/naive.itr")
ours=$(best_time cpu 9 "$BIN/itrace-fill" -q "$TMP/loop.itr" -o "$TMP/j1.itr")
j1=$(best_time wall 7 "$BIN/itrace-fill" -q -j 1 "$TMP/loop.itr" -o "$TMP/j1.itr")
j2=$(best_time wall 7 "$BIN/itrace-fill" -q -j 2 "$TMP/loop.itr" -o "$TMP/j2.itr")
cmp -s "$TMP/j1.itr" "$TMP/naive.itr" || { echo "fill_speed: naive and cached outputs differ" >&2; exit 1; }
cmp -s "$TMP/j1.itr" "$TMP/j2.itr" || { echo "fill_speed: -j 2 and -j 1 outputs differ" >&2; exit 1; }

rate() { echo "$insns / $1 / 1000000" | bc -l; }
load=$(cut -d' ' -f1 /proc/loadavg)
printf 'fill_vs_naive   %.1f Minsn/s  %.2f Minsn/s  ratio %.1f  (target 20)  [%s insns, CPU time]\n' \
	"$(rate "$ours")" "$(rate "$naive")" "$(echo "$naive / $ours" | bc -l)" "$insns"
printf 'fill_j2_vs_j1   %.1f Minsn/s  %.1f Minsn/s  ratio %.2f  (target 1.6)  [%s chunks, wall time, %s cores, load %s]\n' \
	"$(rate "$j2")" "$(rate "$j1")" "$(echo "$j1 / $j2" | bc -l)" "$chunks" "$(nproc)" "$load"
