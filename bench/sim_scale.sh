#!/bin/sh
# pipeline-sim at 1x, 4x and 16x trace length, in the same run: time must
# grow linearly and peak memory stay flat (the simulator keeps a fixed
# window of the pipeline, not the trace).  Workload: bench/sim_gen's
# "mix" loop, SIM_SCALE_INSNS instructions at 1x (default 2 million, enough
# for the simulated caches (4 MiB of tags, zero pages until touched) to be
# warm: a shorter 1x shows their first touches as growth).
# Prints the 4x and 16x CPU time per instruction and peak RSS, each as a
# ratio to 1x (target: at most 1.25 for time, 1.10 for memory).
: "${ITRACE_BUILD:=build}"
B="$ITRACE_BUILD"
N=${SIM_SCALE_INSNS:-2000000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sim-scale.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# measure FILE: "CPU_SECONDS PEAK_KB" of the best of 3 runs (least CPU)
measure() {
	best=""
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S %M' -o "$TMP/t" "$B/bin/pipeline-sim" -q --no-lines "$1" \
			>/dev/null || exit 1
		line=$(awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$TMP/t")
		best=$(printf '%s\n%s\n' "$best" "$line" | awk 'NF == 2' | sort -n | head -1)
	done
	echo "$best"
}
for k in 1 4 16; do
	"$B/bench/sim_gen" mix $((N * k)) "$TMP/x$k.itr" || exit 1
done
m1=$(measure "$TMP/x1.itr")
m4=$(measure "$TMP/x4.itr")
m16=$(measure "$TMP/x16.itr")
echo "$m1 $m4 $m16" | awk -v n="$N" '{
	t1 = $1 / n; t4 = $3 / (4 * n); t16 = $5 / (16 * n)
	printf "sim_time_per_insn_4x   %.1f ns  %.1f ns (1x)  ratio %.2f  (target <= 1.25: time linear in trace length)\n", t4 * 1e9, t1 * 1e9, t4 / t1
	printf "sim_time_per_insn_16x  %.1f ns  %.1f ns (1x)  ratio %.2f  (target <= 1.25)\n", t16 * 1e9, t1 * 1e9, t16 / t1
	printf "sim_peak_rss_4x        %d KB  %d KB (1x)  ratio %.2f  (target <= 1.10: memory flat)\n", $4, $2, $4 / $2
	printf "sim_peak_rss_16x       %d KB  %d KB (1x)  ratio %.2f  (target <= 1.10)\n", $6, $2, $6 / $2
}'
