#!/bin/sh
# The exporters on a 50-million-instruction trace (tests/export-synth:
# one thread, a loop calling a function with an inner loop, 5 M calls),
# each against reading the same trace with libitrace alone (bench/sim_read)
# in the same run: instructions per CPU second, best of ROUNDS runs, and
# peak RSS.  pipeline-sim --callgrind is also compared with pipeline-sim
# alone.  Then memory against length: itrace-sqlite (default level) at
# 1x, 4x and 16x a 5-million-instruction trace (time linear: ratios 4
# and 16; RSS flat: ratio 1), and itrace-timeline and pipeline-sim
# --callgrind at 1x and 10x (RSS bounded by the call tree and, for the
# timeline, by --max-events).
: "${ITRACE_BUILD:=build}"
B="$ITRACE_BUILD"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/itrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ITER=${EXPORTS_BENCH_ITERATIONS:-5000000} # 10 instructions each
BASE=${EXPORTS_BENCH_BASE:-500000}
ROUNDS=${EXPORTS_BENCH_ROUNDS:-3}

# measure CMD...: "CPU_SECONDS PEAK_KB" of the best (least CPU) of ROUNDS
measure() {
	best=""
	i=0
	while [ "$i" -lt "$ROUNDS" ]; do
		/usr/bin/time -f '%U %S %M' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
			cat "$TMP/err" >&2
			exit 1
		}
		best=$(awk -v b="$best" '{ c = $1 + $2; if (b == "" || c < b + 0) print c, $3; else print b }' "$TMP/t")
		i=$((i + 1))
	done
	echo "$best"
}

"$B/tests/export-synth" "$TMP/t.itr" "$ITER" || exit 1
N=$((ITER * 10 + 1))
read_m=$(measure "$B/bench/sim_read" "$TMP/t.itr")

# line NAME "OURS" "BASE": speed in M instructions/s against reading
speed_line() {
	awk -v name="$1" -v n="$N" -v o="$2" -v b="$3" 'BEGIN {
		split(o, a, " "); split(b, r, " ")
		ours = n / a[1] / 1e6; base = n / r[1] / 1e6
		printf "%-26s %.2f Minsn/s  %.2f Minsn/s  ratio %.3f  (baseline: reading the trace with libitrace; peak RSS %d KB vs %d KB)\n", name, ours, base, ours / base, a[2], r[2]
	}'
}

m=$(measure "$B/bin/itrace-sqlite" -q "$TMP/t.itr" -o "$TMP/t.db")
speed_line export_sqlite_speed "$m" "$read_m"
m=$(measure "$B/bin/itrace-sqlite" -q --level calls "$TMP/t.itr" -o "$TMP/c.db")
speed_line export_sqlite_calls_speed "$m" "$read_m"
m=$(measure "$B/bin/itrace-xml" -q "$TMP/t.itr" -o "$TMP/t.xml")
speed_line export_xml_speed "$m" "$read_m"
m=$(measure "$B/bin/itrace-xml" -q -f cobertura "$TMP/t.itr" -o "$TMP/c.xml")
speed_line export_cobertura_speed "$m" "$read_m"
tl10=$(measure "$B/bin/itrace-timeline" -q "$TMP/t.itr" -o "$TMP/t.json")
speed_line export_timeline_speed "$tl10" "$read_m"
sim=$(measure "$B/bin/pipeline-sim" -q --no-lines "$TMP/t.itr")
cg10=$(measure "$B/bin/pipeline-sim" -q --no-lines --callgrind "$TMP/t.cg" "$TMP/t.itr")
speed_line export_callgrind_speed "$cg10" "$read_m"
awk -v o="$cg10" -v b="$sim" 'BEGIN {
	split(o, a, " "); split(b, r, " ")
	printf "%-26s %.2f s  %.2f s  ratio %.3f  (baseline: pipeline-sim alone on the same trace)\n", "export_callgrind_vs_sim", a[1], r[1], r[1] / a[1]
}'

# memory against length
"$B/tests/export-synth" "$TMP/x1.itr" "$BASE" || exit 1
"$B/tests/export-synth" "$TMP/x4.itr" $((BASE * 4)) || exit 1
"$B/tests/export-synth" "$TMP/x16.itr" $((BASE * 16)) || exit 1
s1=$(measure "$B/bin/itrace-sqlite" -q "$TMP/x1.itr" -o "$TMP/x.db")
s4=$(measure "$B/bin/itrace-sqlite" -q "$TMP/x4.itr" -o "$TMP/x.db")
s16=$(measure "$B/bin/itrace-sqlite" -q "$TMP/x16.itr" -o "$TMP/x.db")
awk -v a="$s1" -v b="$s4" -v c="$s16" -v n=$((BASE * 10)) 'BEGIN {
	split(a, x, " "); split(b, y, " "); split(c, z, " ")
	printf "%-26s %.2f s  %.2f s  ratio %.2f  (target 4: linear; 4x vs 1x = %d instructions)\n", "export_sqlite_time_4x", y[1], x[1], y[1] / x[1], n
	printf "%-26s %.2f s  %.2f s  ratio %.2f  (target 16: linear)\n", "export_sqlite_time_16x", z[1], x[1], z[1] / x[1]
	printf "%-26s %d KB  %d KB  ratio %.2f  (target 1: flat; 4x vs 1x)\n", "export_sqlite_rss_4x", y[2], x[2], y[2] / x[2]
	printf "%-26s %d KB  %d KB  ratio %.2f  (target 1: flat; 16x vs 1x)\n", "export_sqlite_rss_16x", z[2], x[2], z[2] / x[2]
}'
tl1=$(measure "$B/bin/itrace-timeline" -q "$TMP/x1.itr" -o "$TMP/x.json")
cg1=$(measure "$B/bin/pipeline-sim" -q --no-lines --callgrind "$TMP/x.cg" "$TMP/x1.itr")
awk -v a="$tl1" -v b="$tl10" -v c="$cg1" -v d="$cg10" 'BEGIN {
	split(a, x, " "); split(b, y, " "); split(c, u, " "); split(d, v, " ")
	printf "%-26s %d KB  %d KB  ratio %.2f  (10x vs 1x; bounded by --max-events: 1x has 0.5 M calls, 10x 5 M merged to at most 1 M)\n", "export_timeline_rss_10x", y[2], x[2], y[2] / x[2]
	printf "%-26s %d KB  %d KB  ratio %.2f  (target 1: flat, 10x vs 1x)\n", "export_callgrind_rss_10x", v[2], u[2], v[2] / u[2]
}'
