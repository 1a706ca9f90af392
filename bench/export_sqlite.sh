#!/bin/sh
# Rows per second of `itrace-sqlite --level branches` against a bare C loop
# inserting the same number of rows of the same shape (prepared statement,
# one transaction, same pragmas, same final fsync), measured in the same
# run.  The exporter's time is the whole command: reading and decoding the
# trace, the analysis, the aggregate tables, indexes, views, fsync and the
# atomic rename.  The machine is shared, so both run ROUNDS times,
# alternating, and the best of each counts; rates are given per second of
# wall time and per second of CPU time (the steadier figure under load).
: "${ITRACE_BUILD:=build}"
B="$ITRACE_BUILD"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/itrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ITER=${EXPORT_BENCH_ITERATIONS:-200000}
ROUNDS=${EXPORT_BENCH_ROUNDS:-3}
T="$B/bench/export-sqlite-baseline"

"$B/tests/export-synth" "$TMP/t.itr" "$ITER" || exit 1
"$B/bin/itrace-sqlite" -q -v --level branches "$TMP/t.itr" -o "$TMP/t.db" 2>"$TMP/v" || exit 1
rows=$(sed -n 's/.*: \([0-9]*\) rows,.*/\1/p' "$TMP/v")
: >"$TMP/times"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	echo "ours $("$T" --run "$B/bin/itrace-sqlite" -q --level branches "$TMP/t.itr" -o "$TMP/t.db")" >>"$TMP/times" || exit 1
	echo "base $("$T" "$TMP/base.db" "$rows")" >>"$TMP/times" || exit 1
	i=$((i + 1))
done
awk -v rows="$rows" '
	function min(a, b) { return a == "" || b < a ? b : a }
	$1 == "ours" { ow = min(ow, $2); oc = min(oc, $3) }
	$1 == "base" { bw = min(bw, $2); bc = min(bc, $3) }
	END {
		printf "export_sqlite_rows_wall  %.0f rows/s  %.0f rows/s  ratio %.2f  (target 0.5)\n", rows / ow, rows / bw, bw / ow
		printf "export_sqlite_rows_cpu  %.0f rows/s  %.0f rows/s  ratio %.2f  (target 0.5)\n", rows / oc, rows / bc, bc / oc
	}' "$TMP/times"
