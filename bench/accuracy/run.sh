#!/bin/sh
# bench/accuracy/run.sh - how close pipeline-sim's cycles are to the
# machine it runs on.  Each loop kernel of bench/accuracy/kernels.S is
#   measured   cycles per iteration on this host: wall time calibrated by a
#              dependent imul chain (3 cycles per imul), best of 41 runs,
#              pinned to one CPU (no PMU counters in these VMs);
#   simulated  with --core host on an instruction-level trace of the same
#              kernel (itrace-collect --backend valgrind --start k_*):
#              two traces, W and W+T iterations, and (cycles(W+T) -
#              cycles(W)) / T, so the warm-up is left out;
#   analysed   by llvm-mca (llvm-19, -mcpu for the host's core) on the
#              loop body, the region between the LLVM-MCA markers.
# --core host is run twice: with the description `pipeline-sim
# --calibrate` measured at the start of the run (ITRACE_HOST_CORE), and
# with the host's bundled preset alone.  The kernels are timed right after
# the calibration, before the (slower) tracing.  Prints the table, the median
# absolute error of each, and the verdict against the targets of issue
# #21: calibrated median <= 10% and below llvm-mca's on the same kernels,
# no kernel over 30%, the CPI stack adding up to the cycles.
: "${ITRACE_BUILD:=build}"
B="$ITRACE_BUILD"
SIM="$B/bin/pipeline-sim"
COLLECT="$B/bin/itrace-collect"
DRV="$B/bench/accuracy_driver"
MCA=$(command -v llvm-mca-19 || command -v llvm-mca)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/accuracy.XXXXXX")
[ -n "$ACCURACY_KEEP" ] || trap 'rm -rf "$TMP"' EXIT
CPU=$(($(nproc) - 1))
PIN="taskset -c $CPU"
command -v taskset >/dev/null || PIN=""

# The kernels are of two sets (driver.c's list says which): "calibrated",
# loops of the same instructions as one --calibrate times, and "hidden",
# loops it does not run (folded loads, mixes of classes, two taken
# branches an iteration, a 6 MiB chase, library code, ...).  The targets
# of issue #37 are on the hidden set: calibrated median |error| <= 10%,
# none over 30%, below llvm-mca's median on the same kernels.

# the host, the load it is under, and the description measured now
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "accuracy: host '$model', $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); timed on CPU $CPU"
unset ITRACE_HOST_CORE
preset=$("$SIM" --core host --print-core 2>/dev/null | sed -n 's/^name = //p')
case "$preset" in
zen4) mcpu=znver4 ;;
zen5) mcpu=znver5 ;;
goldencove) mcpu=sapphirerapids ;;
*) mcpu=native ;;
esac
$PIN "$SIM" --calibrate -q -o "$TMP/host.core" || exit 1
echo "accuracy: preset $preset, calibrated description in $TMP/host.core, llvm-mca -mcpu=$mcpu"

# llvm-mca: cycles per iteration of every region
gcc -E -P bench/accuracy/kernels.S >"$TMP/k.s" || exit 1
if [ -n "$MCA" ]; then
	"$MCA" -mcpu="$mcpu" -iterations=1000 "$TMP/k.s" 2>/dev/null | awk '
		/Code Region - / { r = $NF }
		/^Iterations:/ { it = $2 }
		/^Total Cycles:/ { printf "%s %.3f\n", r, $3 / it }' >"$TMP/mca"
else
	: >"$TMP/mca"
fi

# sim_cycles TRACE: simulated cycles; checks that the CPI stack adds up:
# base is the slots used / width and base + stalls = cycles (to a cycle)
sim_cycles() {
	"$SIM" -q --json --top 1 --core host "$1" >"$1.json" 2>"$1.err" || { cat "$1.err" >&2; echo 0; return; }
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
st = j["cpi_stack"]
total = st["base"] + sum(st["stalls"].values())
base = j["slots"] / j["width"]
if abs(total - j["cycles"]) > 1 or abs(st["base"] - base) > 1 or min(st["stalls"].values(), default=0) < 0:
    print("%s: CPI stack %.1f (base %.1f, slots/width %.1f) != %d cycles" % (sys.argv[1], total, st["base"], base, j["cycles"]), file=sys.stderr)
print(j["cycles"], j["instructions"])' "$1.json"
}

"$DRV" list >"$TMP/list" || exit 1
# time every kernel first, right after the calibration, the ones that go
# to L3 and memory first of all: what a VM's caches and memory take
# drifts within seconds with the neighbours' load
{ grep '^chase_l3 \|^chase_6m \|^chase_mem ' "$TMP/list"; grep -v '^chase_l3 \|^chase_6m \|^chase_mem ' "$TMP/list"; } |
while read -r name region warm traced set; do
	echo "$name $($PIN "$DRV" time "$name")"
done >"$TMP/measured"
printf '%-14s %-6s %10s %10s %6s %10s %6s %10s %6s\n' kernel set measured sim-calib err sim-preset err llvm-mca err
stack_ok=1
total_insns=0
total_secs=0
while read -r name region warm traced set; do
	if [ "$region" = - ]; then fn=k_$name; else fn=k_$region; fi
	meas=$(awk -v k="$name" '$1 == k { print $2 }' "$TMP/measured")
	for n in "$warm" "$((warm + traced))"; do
		"$COLLECT" --backend valgrind -q --start "$fn" -o "$TMP/$name.$n.itr" -- "$DRV" run "$name" "$n" \
			>/dev/null 2>"$TMP/collect.err" || { cat "$TMP/collect.err" >&2; exit 1; }
	done
	c=""
	for mode in calib preset; do
		if [ $mode = calib ]; then export ITRACE_HOST_CORE="$TMP/host.core"; else unset ITRACE_HOST_CORE; fi
		t0=$(date +%s.%N)
		r1=$(sim_cycles "$TMP/$name.$warm.itr" 2>>"$TMP/stack.err")
		r2=$(sim_cycles "$TMP/$name.$((warm + traced)).itr" 2>>"$TMP/stack.err")
		t1=$(date +%s.%N)
		c1=${r1% *} c2=${r2% *}
		c="$c $(awk -v a="$c1" -v b="$c2" -v t="$traced" 'BEGIN { printf "%.3f", (b - a) / t }')"
		if [ $mode = calib ]; then
			total_insns=$((total_insns + ${r1#* } + ${r2#* }))
			total_secs=$(awk -v s="$total_secs" -v a="$t0" -v b="$t1" 'BEGIN { print s + b - a }')
		fi
	done
	unset ITRACE_HOST_CORE
	mca=$(awk -v r="$region" '$1 == r { print $2 }' "$TMP/mca")
	echo "$name $meas $c ${mca:--} $set"
done <"$TMP/list" >"$TMP/rows"
[ -s "$TMP/stack.err" ] && { stack_ok=0; cat "$TMP/stack.err"; }

awk -v stack_ok="$stack_ok" -v insns="$total_insns" '
function err(v, m) { return (v - m) / m * 100 }
function abs(x) { return x < 0 ? -x : x }
function median(a, n,    i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# one set of kernels: s "all" or "hidden"; median and worst of each tool
function add(s, name, e1, e2, e3) {
	n[s]++; c[s, n[s]] = abs(e1); p[s, n[s]] = abs(e2)
	if (abs(e1) > worst[s]) { worst[s] = abs(e1); wname[s] = name }
	if (abs(e2) > pworst[s]) { pworst[s] = abs(e2); pname[s] = name }
	if (e3 != "-") {
		k[s]++; cc[s, k[s]] = abs(e1); mm[s, k[s]] = abs(e3)
		if (abs(e3) > mworst[s]) { mworst[s] = abs(e3); mname[s] = name }
	}
}
function med(arr, s, cnt,    i, t) { for (i = 1; i <= cnt; i++) t[i] = arr[s, i]; return median(t, cnt) }
{
	e1 = err($3, $2); e2 = err($4, $2)
	if ($5 == "-") { e3 = "-"; e3s = "-"; m = "-" } else { e3 = err($5, $2); e3s = sprintf("%+.0f%%", e3); m = sprintf("%.2f", $5) }
	printf "%-14s %-6s %10.2f %10.2f %5.0f%% %10.2f %5.0f%% %10s %6s\n", $1, $6 == "hidden" ? "hidden" : "calib", $2, $3, e1, $4, e2, m, e3s
	add("all", $1, e1, e2, e3)
	if ($6 == "hidden") add("hidden", $1, e1, e2, e3)
}
END {
	for (si = 1; si <= 2; si++) {
		s = si == 1 ? "all" : "hidden"
		printf "%s kernels (%d): pipeline-sim calibrated median |error| %.1f%%, worst %.1f%% (%s); preset median %.1f%%, worst %.1f%% (%s)\n", s, n[s], med(c, s, n[s]), worst[s], wname[s], med(p, s, n[s]), pworst[s], pname[s]
		printf "  on the %d llvm-mca analyses: pipeline-sim calibrated median %.1f%%; llvm-mca median %.1f%%, worst %.1f%% (%s)\n", k[s], med(cc, s, k[s]), med(mm, s, k[s]), mworst[s], mname[s]
	}
	printf "simulated %d instructions (bench/sim_speed.sh measures the simulation speed)\n", insns
	mk = med(cc, "hidden", k["hidden"]); mmca = med(mm, "hidden", k["hidden"]); mc = med(c, "hidden", n["hidden"])
	ok = mc <= 10 && mk < mmca && worst["hidden"] <= 30 && stack_ok
	printf "accuracy median |error| %.1f %% llvm-mca %.1f %% ratio %.2f (hidden kernels; target <= 10%%, below llvm-mca, none over 30%%: worst %.1f%%; CPI stack adds up: %s) %s\n", mc, mmca, (mmca > 0 ? mk / mmca : 0), worst["hidden"], stack_ok ? "yes" : "no", ok ? "PASS" : "FAIL"
}' "$TMP/rows"
