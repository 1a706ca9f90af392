#!/bin/sh
# qtrace-conv throughput, in instructions per second, against a plain read
# of the same itrace file (bench/qtrace_read) in the same run.  Input: a
# synthetic ppc64le loop trace with instruction bytes and one load or store
# in two of every four instructions (bench/qtrace_gen).  Target: converting
# costs at most 3 times the read.  Best of 5 alternating runs each.
B="$ITRACE_ROOT/$ITRACE_BUILD"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ITER=${QTRACE_BENCH_ITER:-500000}
for f in bench/qtrace_gen bench/qtrace_read bin/qtrace-conv; do
	if [ ! -x "$B/$f" ]; then
		echo "qtrace-conv: skipped: $f is not built" >&2
		exit 1
	fi
done
"$B/bench/qtrace_gen" "$ITER" "$T/in.itr" || exit 1
insns=$("$B/bench/qtrace_read" "$T/in.itr") || exit 1

now() { date +%s.%N; }
# timed CMD...: wall-clock seconds of one run.
timed() {
	_t0=$(now)
	"$@" >/dev/null || return 1
	awk -v a="$(now)" -v b="$_t0" 'BEGIN {printf "%.6f", a - b}'
}
min() { awk -v a="$1" -v b="$2" 'BEGIN {print (b == "" || a < b) ? a : b}'; }
# Read and conversion alternate, 5 times each, and the fastest of each
# counts: the machine is shared, so load changes hit both alike.
t_read="" t_conv=""
for i in 1 2 3 4 5; do
	t=$(timed "$B/bench/qtrace_read" "$T/in.itr") || exit 1
	t_read=$(min "$t" "$t_read")
	t=$(timed "$B/bin/qtrace-conv" -q -o "$T/out.qt" "$T/in.itr") || exit 1
	t_conv=$(min "$t" "$t_conv")
done
n=$("$B/bin/qtrace-conv" --dump "$T/out.qt" | tail -1 | awk '{print $2}')
if [ "$n" != "$insns" ]; then
	echo "qtrace-conv: converted $n instructions of $insns" >&2
	exit 1
fi
awk -v n="$insns" -v tc="$t_conv" -v tr="$t_read" 'BEGIN {
	printf "qtrace-conv  %.2f Minsn/s  %.2f Minsn/s  ratio %.2f  (target <= 3.00: conversion time / read time, %d instructions)\n",
		n / tc / 1e6, n / tr / 1e6, tc / tr, n
	exit !(tc / tr <= 3.0)
}'
