#!/bin/sh
# itrace-import speed: branches per second converting an intel_bts
# perf.data (BTS records in AUXTRACE buffers) into an itrace file, against
# perf's own reader of the same file (perf script --itrace=b), in the same
# run.  The file is bts_loops' branch stream repeated to ~1M branches.
: "${ITRACE_BUILD:=build}"
B="$ITRACE_BUILD"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bts-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }

"$B/bin/itrace-collect" -q --insn-bytes --level insn -o "$TMP/ref.itr" -- "$B/tests/data/bts_loops" || exit 1
"$B/tests/bts-gen" perf "$TMP/ref.itr" "$TMP/big.data" --chunk 4096 --pad 1 --repeat 10000 || exit 1
n=$("$B/tests/bts-gen" branches "$TMP/ref.itr" --kept | wc -l)
n=$((n * 10000))

t0=$(now)
"$B/bin/itrace-import" -q "$TMP/big.data" -o "$TMP/big.itr" || exit 1
t1=$(now)
ours=$(echo "$n $t0 $t1" | awk '{ printf "%.0f", $1 / ($3 - $2) }')

if command -v perf >/dev/null 2>&1; then
	t0=$(now)
	perf script -i "$TMP/big.data" --itrace=b >/dev/null 2>&1
	t1=$(now)
	base=$(echo "$n $t0 $t1" | awk '{ printf "%.0f", $1 / ($3 - $2) }')
	ratio=$(echo "$ours $base" | awk '{ printf "%.1f", $1 / $2 }')
	printf 'bts_import_branches_per_s  %s branches/s  %s branches/s(perf script)  ratio %s  (target >= 1)\n' \
		"$ours" "$base" "$ratio"
else
	printf 'bts_import_branches_per_s  %s branches/s  - (perf not installed)  ratio -  (target >= 1)\n' "$ours"
fi
