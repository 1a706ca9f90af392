#!/bin/sh
# pipeline-sim's cache counts against valgrind's cachegrind on the same
# program with the same geometry: tests/data/sim_cache is traced with
# itrace-collect and run under cachegrind; D1 misses and LL data misses
# must agree within 2% (the models are the same, so they agree exactly
# unless the traces differ).
. tests/lib.sh
SIM="$BIN/pipeline-sim"
COLLECT="$BIN/itrace-collect"
PROG="$DATA/sim_cache"

if [ ! -x "$COLLECT" ] || ! command -v valgrind >/dev/null 2>&1; then
	ok "# SKIP needs itrace-collect and valgrind"
	done_testing
	exit $?
fi

I1=32768,8,64 D1=32768,8,64 LL=262144,16,64
check "collect sim_cache" "$COLLECT" -q -o "$TMP/cache.itr" -- "$PROG"
check "cachegrind sim_cache" valgrind --tool=cachegrind --cache-sim=yes \
	--cachegrind-out-file="$TMP/cg.out" --I1=$I1 --D1=$D1 --LL=$LL "$PROG"
# cachegrind.out "summary:" follows the "events:" order
cg=$(awk '/^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i }
	/^summary:/ { for (i = 2; i <= NF; i++) v[ev[i - 1]] = $i
		print v["D1mr"] + v["D1mw"], v["DLmr"] + v["DLmw"] }' "$TMP/cg.out")
cg_d1=${cg% *} cg_ll=${cg#* }

"$SIM" -q --set l2=none --set prefetch=none \
	--set "l1i=size=32K assoc=8 line=64 latency=1" \
	--set "l1d=size=32K assoc=8 line=64 latency=4" \
	--set "llc=size=256K assoc=16 line=64 latency=40" \
	"$TMP/cache.itr" >"$TMP/sim.txt" 2>&1
sim_d1=$(awk '$1 == "L1D" { print $3 }' "$TMP/sim.txt")
sim_ll=$(awk '$1 == "LLC" { gsub(/[(]/, ""); print $6 }' "$TMP/sim.txt")

within() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.02 * b) }'; }
if within "$sim_d1" "$cg_d1"; then
	ok "D1 misses: pipeline-sim $sim_d1, cachegrind $cg_d1"
else
	fail "D1 misses: pipeline-sim '$sim_d1', cachegrind '$cg_d1'" "$(cat "$TMP/sim.txt")"
fi
if within "$sim_ll" "$cg_ll"; then
	ok "LL data misses: pipeline-sim $sim_ll, cachegrind $cg_ll"
else
	fail "LL data misses: pipeline-sim '$sim_ll', cachegrind '$cg_ll'" "$(cat "$TMP/sim.txt")"
fi
# the program is built to miss: both levels see thousands
if [ "${cg_d1:-0}" -gt 10000 ] && [ "${cg_ll:-0}" -gt 10000 ]; then
	ok "the workload misses in both levels"
else
	fail "too few misses to compare: $cg_d1 $cg_ll"
fi
done_testing
