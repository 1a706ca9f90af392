#!/bin/sh
# pipeline-sim speed: simulated instructions per second with the default
# out-of-order preset on a 10-million-instruction trace (bench/sim_gen's
# "mix" loop: loads, stores, ALU, a multiply, a biased branch, a data
# stream larger than L1), against a plain read of the same trace with
# libitrace (bench/sim_read) measured in the same run, and against the
# 5 M instructions/s target.  Best of 3 runs each, in CPU seconds.
: "${ITRACE_BUILD:=build}"
B="$ITRACE_BUILD"
N=${SIM_BENCH_INSNS:-10000000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sim-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

"$B/bench/sim_gen" mix "$N" "$TMP/mix.itr" || exit 1

# Time is CPU time (user + system) of the command when /usr/bin/time is
# there, so that other work on a shared machine does not count; else wall.
now() { date +%s.%N; }
run_time() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$TMP/t" "$@" >/dev/null || exit 1
		awk '{ print $1 + $2 }' "$TMP/t"
	else
		t0=$(now)
		"$@" >/dev/null || exit 1
		t1=$(now)
		awk -v a="$t0" -v z="$t1" 'BEGIN { print z - a }'
	fi
}
best() { # best CMD...: the shortest of 3 runs, in seconds
	b=""
	for i in 1 2 3; do
		d=$(run_time "$@")
		b=$(awk -v d="$d" -v b="$b" 'BEGIN { print (b == "" || d < b) ? d : b }')
	done
	echo "$b"
}
read_s=$(best "$B/bench/sim_read" "$TMP/mix.itr")
sim_s=$(best "$B/bin/pipeline-sim" -q --no-lines "$TMP/mix.itr")
awk -v n="$N" -v r="$read_s" -v s="$sim_s" 'BEGIN {
	sim = n / s / 1e6; rd = n / r / 1e6
	printf "sim_speed_vs_read    %.2f Minsn/s  %.2f Minsn/s  ratio %.3f  (baseline: plain read of the same trace; no target, reading is the floor)\n", sim, rd, sim / rd
	printf "sim_speed_vs_target  %.2f Minsn/s  5.00 Minsn/s  ratio %.2f  (target >= 1: at least 5 M simulated instructions/s)\n", sim, sim / 5
}'
