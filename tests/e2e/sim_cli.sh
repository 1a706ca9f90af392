#!/bin/sh
# pipeline-sim's command line: outputs (--json, --kanata, --timeline,
# --print-core), inputs (ppc64le itrace, qtrace), and errors on bad input
# and bad usage.
. tests/lib.sh
SIM="$BIN/pipeline-sim"
GEN="$ITRACE_ROOT/$ITRACE_BUILD/bench/sim_gen"
QGEN="$ITRACE_ROOT/$ITRACE_BUILD/bench/qtrace_gen"

check "generate a trace" "$GEN" mix 20000 "$TMP/mix.itr"
check "text report" "$SIM" -q -o "$TMP/mix.txt" "$TMP/mix.itr"
check "report has a CPI stack" grep -q '^CPI stack' "$TMP/mix.txt"
check_eq "instructions counted" 20000 "$(awk '$1 == "instructions" { print $2; exit }' "$TMP/mix.txt")"

# stdin and --max-insns
check_eq "a trace on stdin gives the same report" "$(sed 1d "$TMP/mix.txt")" \
	"$("$SIM" -q - <"$TMP/mix.itr" | sed 1d)"
check_eq "--max-insns 5000 stops there" 5000 \
	"$("$SIM" -q --max-insns 5000 "$TMP/mix.itr" | awk '$1 == "instructions" { print $2; exit }')"

# --json: valid JSON with the same numbers
check "--json" "$SIM" -q --json -o "$TMP/mix.json" "$TMP/mix.itr"
if command -v python3 >/dev/null 2>&1; then
	check "--json parses" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["instructions"] == 20000
stack = d["cpi_stack"]
total = stack["base"] + sum(stack["stalls"].values())
assert abs(total - d["cycles"]) <= 0.01 * d["cycles"] + 1, (total, d["cycles"])
assert d["top_instructions"] and d["functions"]
f = d["functions"][0]
assert abs(f["cycles"] - f["instructions"] / d["width"] - f["lost_cycles"]) < 0.01
assert all("disassembly" in i and "causes" in i for i in d["top_instructions"])
' "$TMP/mix.json"
else
	ok "# SKIP python3 not installed (JSON parse check)"
fi
check_eq "JSON and text agree on cycles" "$(awk '$1 == "cycles" { print $2; exit }' "$TMP/mix.txt")" \
	"$(sed 's/^[^[]*"instructions":[0-9]*,"cycles":\([0-9]*\),.*/\1/' "$TMP/mix.json")"

# --kanata: a Kanata v4 log Konata can open
check "--kanata" "$SIM" -q --kanata "$TMP/k.log" --kanata-max 500 -o /dev/null "$TMP/mix.itr"
check_eq "Kanata header" "$(printf 'Kanata\t0004')" "$(head -1 "$TMP/k.log")"
check_eq "500 instructions started" 500 "$(grep -c '^I	' "$TMP/k.log")"
check_eq "500 instructions retired" 500 "$(grep -c '^R	' "$TMP/k.log")"
check "every stage start has its end" sh -c "[ \$(grep -c '^S	' '$TMP/k.log') -eq \$(grep -c '^E	' '$TMP/k.log') ]"
check "cycle deltas are positive" sh -c "! grep -q '^C	-' '$TMP/k.log' && ! grep -q '^C	0$' '$TMP/k.log'"
check "stall lane names a cause" grep -q '^S	[0-9]*	1	\(dcache-mem\|dep-int\|dep-mem\|branch-mispredict\)' "$TMP/k.log"

# --timeline
"$SIM" -q --timeline 25 "$TMP/mix.itr" >"$TMP/tl.txt" 2>&1
check_eq "--timeline 25 prints 25 rows" 25 "$(grep -c '^\[[0-9]*\] ' "$TMP/tl.txt")"
check "timeline rows show fetch and retire" sh -c "grep '^\[3\] ' '$TMP/tl.txt' | grep -q 'FffffD.*[R>]'"

# --from moves the window
"$SIM" -q --from 1000 --timeline 5 --kanata "$TMP/k2.log" --kanata-max 20 "$TMP/mix.itr" >"$TMP/tl2.txt" 2>&1
check "--from 1000: timeline starts at instruction 1000" grep -q '^\[1000\] ' "$TMP/tl2.txt"
check_eq "--from 1000: Kanata shows 20 instructions" 20 "$(grep -c '^I	' "$TMP/k2.log")"
check "Kanata dependency arrows" grep -q '^W	[0-9]*	[0-9]*	0$' "$TMP/k2.log"

# presets and overrides
check "--list-cores" sh -c "'$SIM' --list-cores | grep -q '^zen4' && '$SIM' --list-cores | grep -q '^power10' && '$SIM' --list-cores | grep -q '^inorder'"
"$SIM" --print-core --core zen4 >"$TMP/zen4.core"
"$SIM" -q -o "$TMP/a.txt" "$TMP/mix.itr"
"$SIM" -q -o "$TMP/b.txt" --core "$TMP/zen4.core" "$TMP/mix.itr"
check "--print-core output is a core file giving the same result" \
	sh -c "sed 1d '$TMP/a.txt' >'$TMP/a2'; sed 1d '$TMP/b.txt' >'$TMP/b2'; cmp -s '$TMP/a2' '$TMP/b2'"
"$SIM" -q --set bpred=bimodal "$TMP/mix.itr" >"$TMP/bim.txt"
check "--set changes the predictor" grep -q 'Branches (bimodal)' "$TMP/bim.txt"

# POWER: ppc64le itrace and the same run as qtrace
if [ -x "$QGEN" ] && [ -x "$BIN/qtrace-conv" ]; then
	"$QGEN" 5000 "$TMP/ppc.itr" && "$BIN/qtrace-conv" -q -o "$TMP/ppc.qt" "$TMP/ppc.itr"
	"$SIM" -q --core power10 "$TMP/ppc.itr" >"$TMP/ppc1.txt" 2>&1
	"$SIM" -q --core power10 "$TMP/ppc.qt" >"$TMP/ppc2.txt" 2>&1
	check_eq "ppc64le itrace simulated" 20001 "$(awk '$1 == "instructions" { print $2; exit }' "$TMP/ppc1.txt")"
	check "ppc64le decoded (capstone syntax)" grep -q 'ld r4, 8(r1)' "$TMP/ppc1.txt"
	check_eq "qtrace gives the same cycles" "$(awk '$1 == "cycles" { print $2; exit }' "$TMP/ppc1.txt")" \
		"$(awk '$1 == "cycles" { print $2; exit }' "$TMP/ppc2.txt")"
else
	ok "# SKIP qtrace_gen or qtrace-conv not built"
fi

# --elf: symbols for a trace without MMAP records (sim_gen's code starts
# at 0x401000, where the static test programs have _start)
"$SIM" -q --top 3 "$TMP/mix.itr" >"$TMP/noelf.txt" 2>&1
check "without --elf, functions are unknown" grep -q ' \[unknown\]$' "$TMP/noelf.txt"
"$SIM" -q --top 3 --elf "$DATA/sim_depchain" "$TMP/mix.itr" >"$TMP/elf.txt" 2>&1
check "--elf names the function" grep -q ' _start (sim_depchain)$' "$TMP/elf.txt"
"$SIM" -q --elf "$SRCDATA/sim_depchain.S" "$TMP/mix.itr" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "--elf on a non-ELF file exits 1" 1 "$rc"
check_eq "--elf error message" "pipeline-sim: cannot read '$SRCDATA/sim_depchain.S': not an ELF file" "$(cat "$TMP/err")"

# bad input: exit 1, one line naming the file
"$SIM" "$TMP/none.itr" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "missing trace exits 1" 1 "$rc"
check_eq "missing trace message" "pipeline-sim: cannot open '$TMP/none.itr': No such file or directory" "$(cat "$TMP/err")"
# random addresses do not compress: a chase trace of several chunks,
# cut inside its last one
"$GEN" chase 600000 "$TMP/chase.itr"
size=$(wc -c <"$TMP/chase.itr")
head -c $((size * 9 / 10)) "$TMP/chase.itr" >"$TMP/cut.itr"
"$SIM" -q "$TMP/cut.itr" >"$TMP/cut.txt" 2>"$TMP/err"; rc=$?
check_eq "truncated trace exits 1" 1 "$rc"
check "truncated trace: error names the file" grep -q "^pipeline-sim: '$TMP/cut.itr': .*instructions before it" "$TMP/err"
check "truncated trace: report of what came before" grep -q '^CPI stack' "$TMP/cut.txt"
n=$(awk '$1 == "instructions" { print $2; exit }' "$TMP/cut.txt")
check "truncated trace: the complete chunks were simulated ($n)" test "${n:-0}" -gt 100000 -a "${n:-0}" -lt 600000
if [ -x "$BIN/itrace-collect" ]; then
	"$BIN/itrace-collect" -q --level branch -o "$TMP/br.itr" -- "$DATA/sim_depchain" >/dev/null 2>&1
	"$SIM" -q "$TMP/br.itr" >/dev/null 2>"$TMP/err"; rc=$?
	check_eq "branch-level trace exits 1" 1 "$rc"
	check_eq "branch-level trace: says to fill it" \
		"pipeline-sim: cannot simulate '$TMP/br.itr': branch-level trace; run itrace-fill on it first" "$(cat "$TMP/err")"
fi
printf 'not a trace at all' >"$TMP/junk"
check_fails "junk input fails" "$SIM" -q "$TMP/junk"
# the format guess: an empty file is said to be empty, not a cut qtrace
# file; bytes that are neither format say both were tried
: >"$TMP/empty.itr"
"$SIM" -q "$TMP/empty.itr" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "empty file exits 1" 1 "$rc"
check_eq "empty file: says it is empty" \
	"pipeline-sim: cannot open '$TMP/empty.itr': the file is empty (neither an itrace nor a qtrace trace)" "$(cat "$TMP/err")"
"$SIM" -q "$TMP/junk" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "junk input exits 1" 1 "$rc"
check "junk input: neither format" grep -q "^pipeline-sim: cannot open '$TMP/junk': neither an itrace file (no itrace magic) nor a qtrace file (" "$TMP/err"
# bad usage: exit 2
"$SIM" >/dev/null 2>&1; rc=$?
check_eq "no trace: usage error" 2 "$rc"
"$SIM" --core nosuch "$TMP/mix.itr" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "unknown core exits 2" 2 "$rc"
check "unknown core lists presets" grep -q "presets: .*zen4" "$TMP/err"
"$SIM" --set "l2=size=3K assoc=8 line=64 latency=1" "$TMP/mix.itr" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "bad geometry exits 2" 2 "$rc"
check "bad geometry explained" grep -q "l2: number of sets (6) must be a power of two" "$TMP/err"
check "--help" sh -c "'$SIM' --help | grep -q '^usage: pipeline-sim'"
check "--version" sh -c "'$SIM' --version | grep -q '^pipeline-sim'"
# Bytes that do not decode: counted and named, never simulated as some class
"$GEN" undecodable 4000 "$TMP/bad.itr"
"$SIM" -o "$TMP/bad.txt" "$TMP/bad.itr" 2>"$TMP/bad.err"
check "undecodable: warning with the count of executions left out" \
	grep -q "warning: 1000 executions of 1 instructions whose bytes do not decode were left out" "$TMP/bad.err"
check "undecodable: the encoding and its count" grep -q "0x40100[0-9a-f]: 06  (1000 times)" "$TMP/bad.err"
check "undecodable: no 'no bytes' warning" sh -c "! grep -q 'no bytes' '$TMP/bad.err'"
check "undecodable: the other 3000 instructions are simulated" grep -q "^  instructions  *3000$" "$TMP/bad.txt"
done_testing
