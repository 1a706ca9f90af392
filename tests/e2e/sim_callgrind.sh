#!/bin/sh
# pipeline-sim --callgrind: a callgrind profile that valgrind's own
# callgrind_annotate reads, whose Ir per function equals what valgrind's
# callgrind measures on the same program (callgrind numbers recursion
# levels fib'2...: summed back per function; --skip-plt=no keeps PLT
# stubs apart, as the trace does).  The profile also carries Cycles and
# the stall cycles of each cause; --call-timeline writes the calls over
# simulated cycles.
. tests/lib.sh
SIM="$BIN/pipeline-sim"
PROG="$DATA/export_prog"

for tool in valgrind callgrind_annotate; do
	if ! command -v "$tool" >/dev/null; then
		echo "not ok 1 - $tool is not installed (make deps installs valgrind)"
		echo "1..1"
		exit 1
	fi
done

# Ir per function of export_prog.c from callgrind_annotate's table:
# "IR (share) file:function[ 'N] [object]" -> "function IR", summed.
ir_by_function() {
	callgrind_annotate --threshold=100 "$1" 2>/dev/null |
		awk '$NF ~ /^\[/ && $(NF-1) ~ /export_prog\.c:/ {
			f = $(NF-1); sub(/^.*:/, "", f); sub(/'"'"'[0-9]+$/, "", f)
			n = $1; gsub(/,/, "", n); ir[f] += n
		} END { for (f in ir) print f, ir[f] }' | sort
}

"$BIN/itrace-collect" -q --start main -o "$TMP/p.itr" -- "$PROG" >/dev/null 2>&1
check "collect export_prog from main" test -s "$TMP/p.itr"
check "pipeline-sim --callgrind --call-timeline" "$SIM" -q --json --callgrind "$TMP/cg.out" \
	--call-timeline "$TMP/tl.json" -o "$TMP/report.json" "$TMP/p.itr"
check_eq "callgrind format header" "# callgrind format" "$(head -1 "$TMP/cg.out")"
check "events: Ir, Cycles and stall causes" grep -q '^events: Ir Cycles .*BranchMispredict' "$TMP/cg.out"
check "callgrind_annotate reads it" callgrind_annotate "$TMP/cg.out"
total=$(callgrind_annotate "$TMP/cg.out" | awk '/PROGRAM TOTALS/ { gsub(/,/, "", $1); print $1 }')
check_eq "total Ir = instructions simulated" \
	"$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["instructions"])' "$TMP/report.json")" "$total"

valgrind --tool=callgrind --skip-plt=no --callgrind-out-file="$TMP/vg.out" "$PROG" >/dev/null 2>&1
ir_by_function "$TMP/vg.out" >"$TMP/theirs"
ir_by_function "$TMP/cg.out" >"$TMP/ours"
check_eq "the program's functions" "collatz_steps deep fib main" "$(cut -d' ' -f1 "$TMP/ours" | tr '\n' ' ' | sed 's/ $//')"
check_files_eq "Ir per function = valgrind callgrind's" "$TMP/theirs" "$TMP/ours"

# Stall cycles land on source lines: callgrind_annotate's per-line view
# of export_prog.c has the mispredicted loop branch of collatz_steps.
callgrind_annotate --auto=yes --show=Ir,BranchMispredict "$TMP/cg.out" >"$TMP/ann.txt" 2>&1
check "per-line annotation of the program's source" grep -q 'Auto-annotated source: .*export_prog.c' "$TMP/ann.txt"
check "a source line carries mispredict stall cycles" \
	sh -c "awk '/Auto-annotated source: .*export_prog.c/,0' '$TMP/ann.txt' | grep -E '^ *[0-9,]+ \\([ 0-9.]+%\\) +[1-9][0-9,]* \\('"
# calls: fib is called 1 + 66 times (one call from main, the rest recursive)
check_eq "call arcs: fib's calls" 67 \
	"$(awk '/^cfn=fib$/ { getline; split($1, a, "="); n += a[2] } END { print n }' "$TMP/cg.out")"

# --call-timeline: the same calls as the trace's own export, in cycles
check "timeline: JSON" /usr/bin/python3 -m json.tool "$TMP/tl.json" /dev/null
"$BIN/itrace-sqlite" -q --level calls "$TMP/p.itr" -o "$TMP/p.db"
check_eq "timeline: one event per call" "$(sqlite3 "$TMP/p.db" 'SELECT count(*) FROM calls WHERE id > 0')" \
	"$(grep -c '"ph":"X"' "$TMP/tl.json")"
check "timeline: in simulated cycles" grep -q '"time_unit":"simulated cycles' "$TMP/tl.json"

# damaged trace: said in the profile's header and on stderr, exit 1
size=$(wc -c <"$TMP/p.itr")
head -c $((size * 2 / 3)) "$TMP/p.itr" >"$TMP/cut.itr"
"$SIM" -q --callgrind "$TMP/cut.out" "$TMP/cut.itr" >/dev/null 2>"$TMP/cut.err"
check_eq "damaged: exit 1" 1 $?
check "damaged: said on stderr" grep -q "^pipeline-sim: '.*cut.itr'" "$TMP/cut.err"
check "damaged: said in the profile" grep -q '^desc: Incomplete: ' "$TMP/cut.out"
check "damaged: still a profile callgrind_annotate reads" callgrind_annotate "$TMP/cut.out"
# a trace that records lost data: said in the profile
EXPORT_SYNTH_LOST=1 "$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/lost.itr" 100
"$SIM" -q --callgrind "$TMP/lost.out" "$TMP/lost.itr" >/dev/null 2>&1
check "lost data: said in the profile" grep -q '^desc: Incomplete: the trace records lost data' "$TMP/lost.out"
done_testing
