#!/bin/sh
# Fill speed, measured in one run on one loop-heavy branch trace (fill_bench,
# extrapolated by fill-gen to tens of millions of instructions):
#   naive fill (the decoder on every executed instruction, itrace-fill --naive)
#   vs itrace-fill (block cache), and itrace-fill -j 2 vs -j 1 on a trace
#   of many chunks.  Both figures are the medians of rounds that time
#   the two sides back to back (below): the machine is shared, and how
#   fast it is changes from minute to minute.
#   FILL_BENCH_REPS sets the trace length (outer loop iterations).
: "${ITRACE_BUILD:=build}"
BIN="$ITRACE_BUILD/bin"
GEN="$ITRACE_BUILD/tests/fill-gen"
PROG="$ITRACE_BUILD/tests/data/fill_bench"
REPS="${FILL_BENCH_REPS:-100000}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fill-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

RUNTIME="$ITRACE_BUILD/bench/bench-runtime"
[ -x "$RUNTIME" ] || { echo "fill_speed: $RUNTIME missing: run it through 'make bench'" >&2; exit 1; }

# timed KIND CMD...: one run's time in seconds: KIND wall is the elapsed
# time, cpu the user+system time (bench-runtime: ns and us resolution; the
# fast runs take a tenth of a second, where time(1)'s 10 ms steps are 10%).
# The single-threaded comparison uses CPU time, which the other users of a
# shared machine disturb far less than wall time; -j 2 vs -j 1 can only be
# judged by wall time.
timed() {
	kind=$1
	shift
	"$RUNTIME" -o "$TMP/time" "$@" >/dev/null 2>&1 ||
		{ echo "fill_speed: '$*' failed" >&2; exit 1; }
	if [ "$kind" = wall ]; then cut -d' ' -f1 "$TMP/time"; else cut -d' ' -f2 "$TMP/time"; fi
}

# min A B: the smaller of two times ("" counts as none).
min() {
	if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc -l)" = 1 ]; then echo "$2"; else echo "$1"; fi
}

# best_time KIND RUNS CMD...: the best of RUNS runs.
best_time() {
	kind=$1
	runs=$2
	shift 2
	best=""
	for _ in $(seq "$runs"); do
		best=$(min "$best" "$(timed "$kind" "$@")")
	done
	echo "$best"
}

"$GEN" --taken-only --extrapolate "$REPS" --chunk-bytes 65536 -o "$TMP/loop.itr" "$PROG" ||
	{ echo "fill_speed: cannot generate the trace" >&2; exit 1; }
insns=$("$BIN/itrace-fill" -v "$TMP/loop.itr" -o "$TMP/out.itr" 2>&1 | sed -n 's/.*: \([0-9]*\) instructions from.*/\1/p')
chunks=$("$BIN/itrace-dump" -s "$TMP/loop.itr" | sed -n 's/^chunks: //p')

# The naive fill against ours in rounds too: one naive run (seconds), then
# the best of 3 of ours straight after it, the ratio taken in the round.
NAIVE_ROUNDS=${FILL_BENCH_NAIVE_ROUNDS:-3}
: >"$TMP/naive_rounds"
for _ in $(seq "$NAIVE_ROUNDS"); do
	naive=$(timed cpu "$BIN/itrace-fill" -q --naive "$TMP/loop.itr" -o "$TMP/naive.itr")
	ours=$(best_time cpu 3 "$BIN/itrace-fill" -q "$TMP/loop.itr" -o "$TMP/j1.itr")
	echo "$naive $ours" | awk '{ printf "%.4f %s %s\n", $1 / $2, $1, $2 }' >>"$TMP/naive_rounds"
done
# -j 2 against -j 1 in rounds: each round runs -j 1, -j 2 and two -j 1
# fills side by side, back to back, and takes its ratios within itself;
# the figures are those of the median round.  A VM's two cores do not
# always give two threads twice the work of one (a lone busy core clocked
# higher, vCPUs sharing a physical core, a busy host), and that changes
# from minute to minute: the pair shows, in the same round, what two
# threads could get out of the machine at all, and pairing the runs keeps
# one phase of the machine from being compared with another.
cat >"$TMP/pair.sh" <<EOF
"$BIN/itrace-fill" -q -j 1 "$TMP/loop.itr" -o "$TMP/pair1.itr" &
"$BIN/itrace-fill" -q -j 1 "$TMP/loop.itr" -o "$TMP/pair2.itr" || exit 1
wait \$!
EOF
ROUNDS=${FILL_BENCH_ROUNDS:-15}
: >"$TMP/rounds"
for _ in $(seq "$ROUNDS"); do
	j1=$(timed wall "$BIN/itrace-fill" -q -j 1 "$TMP/loop.itr" -o "$TMP/j1.itr")
	j2=$(timed wall "$BIN/itrace-fill" -q -j 2 "$TMP/loop.itr" -o "$TMP/j2.itr")
	pair=$(timed wall sh "$TMP/pair.sh")
	echo "$j1 $j2 $pair" | awk '{ printf "%.4f %.4f %s %s %s\n", $1 / $2, 2 * $1 / $3, $1, $2, $3 }' >>"$TMP/rounds"
done
# median ROUNDS-FILE COLUMN: the line of the median value of COLUMN
median() { sort -n -k "$2" "$1" | sed -n "$(( ($(wc -l <"$1") + 1) / 2 ))p"; }
span() { sort -n -k "$2" "$1" | awk -v c="$2" 'NR == 1 { lo = $c } { hi = $c } END { printf "%.2f-%.2f", lo, hi }'; }
cmp -s "$TMP/j1.itr" "$TMP/naive.itr" || { echo "fill_speed: naive and cached outputs differ" >&2; exit 1; }
cmp -s "$TMP/j1.itr" "$TMP/j2.itr" || { echo "fill_speed: -j 2 and -j 1 outputs differ" >&2; exit 1; }

rate() { echo "$insns / $1 / 1000000" | bc -l; }
load=$(cut -d' ' -f1 /proc/loadavg)
set -- $(median "$TMP/naive_rounds" 1)
printf 'fill_vs_naive   %.1f Minsn/s  %.2f Minsn/s  ratio %.1f  (no target since the one decoder: 20x was against capstone per instruction)  [median of %s rounds (%s), %s insns, CPU time]\n' \
	"$(rate "$3")" "$(rate "$2")" "$1" "$NAIVE_ROUNDS" "$(span "$TMP/naive_rounds" 1)" "$insns"
set -- $(median "$TMP/rounds" 1)
printf 'fill_j2_vs_j1   %.1f Minsn/s  %.1f Minsn/s  ratio %.2f  (target 1.6)  [median of %s rounds (%s), %s chunks, wall time, %s cores, load %s]\n' \
	"$(rate "$4")" "$(rate "$3")" "$1" "$ROUNDS" "$(span "$TMP/rounds" 1)" "$chunks" "$(nproc)" "$load"
set -- $(median "$TMP/rounds" 2)
printf 'fill_2x_j1      %.1f Minsn/s  %.1f Minsn/s  ratio %.2f  (the machine: two -j 1 side by side vs one, what -j 2 could reach)  [median of %s rounds (%s)]\n' \
	"$(echo "2 * $(rate "$5")" | bc -l)" "$(rate "$3")" "$2" "$ROUNDS" "$(span "$TMP/rounds" 2)"
