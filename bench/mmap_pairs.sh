#!/bin/sh
# MMAP handling is O(log n) per record: a trace of 100,000 mmap/munmap
# pairs (tests/helper/hostile_gen mmap-pairs: a file mapped at a new
# address, one turn of a loop run in it, an anonymous mapping over it)
# against one of 25,000 pairs, in the same run.  Each consumer that maps
# and symbolizes (pipeline-sim, itrace-xml, itrace-sqlite: issue 20 found
# it taking 68 s on a 74 KB trace of this kind) must take about 4 times as
# long for 4 times the pairs: the ratio printed is the time per pair at
# 100k over the time per pair at 25k (target <= 1.5; a quadratic
# implementation gives 4).  Best of 3 runs, CPU seconds.
: "${ITRACE_BUILD:=build}"
B="$ITRACE_BUILD"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mmap-pairs.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ELF="$B/tests/data/fill_loop"

"$B/tests/hostile_gen" mmap-pairs "$TMP/p25.itr" 25000 "$ELF" || exit 1
"$B/tests/hostile_gen" mmap-pairs "$TMP/p100.itr" 100000 "$ELF" || exit 1
best() {
	b=""
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$TMP/t" "$@" >/dev/null 2>&1 || exit 1
		d=$(awk '{ print $1 + $2 }' "$TMP/t")
		b=$(awk -v d="$d" -v b="$b" 'BEGIN { print (b == "" || d < b) ? d : b }')
	done
	echo "$b"
}
for tool in sim xml sqlite; do
	case $tool in
	sim) cmd="$B/bin/pipeline-sim -q --no-lines" ;;
	xml) cmd="$B/bin/itrace-xml -o $TMP/out.xml" ;;
	sqlite) cmd="$B/bin/itrace-sqlite -o $TMP/out.db" ;;
	esac
	t25=$(best $cmd "$TMP/p25.itr")
	t100=$(best $cmd "$TMP/p100.itr")
	awk -v a="$t25" -v b="$t100" -v tool="$tool" 'BEGIN {
		p25 = a / 25000 * 1e6; p100 = b / 100000 * 1e6
		if (p25 <= 0) p25 = 0.001
		printf "mmap_pairs_%s_per_pair_100k  %.1f us  %.1f us (25k)  ratio %.2f  (target <= 1.5: linear in the pairs)\n", tool, p100, p25, p100 / p25
	}'
done
