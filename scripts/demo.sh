#!/bin/sh
# make demo: trace the bundled example end to end and show each stage.
set -e
B="${1:-build}"
OUT="$B/demo"
mkdir -p "$OUT"
PROG="$B/tests/data/demo_sum"
step() { printf '\n== %s\n' "$*"; }

step "itrace-collect --level branch: trace $PROG (branch level, ptrace backend)"
"$B/bin/itrace-collect" --level branch -o "$OUT/demo.branch.itr" -- "$PROG"

step "itrace-dump --summary: what was recorded"
"$B/bin/itrace-dump" --summary "$OUT/demo.branch.itr"

step "itrace-fill: rebuild every instruction from the branches and the binary"
"$B/bin/itrace-fill" "$OUT/demo.branch.itr" -o "$OUT/demo.insn.itr"
"$B/bin/itrace-fill" --text --symbols "$OUT/demo.branch.itr" | grep -v -E ' (PROCESS|MMAP|CODE|THREAD) ' | sed -n '1,12p'

step "itrace-collect --level insn --start main: instructions with memory addresses, main only"
"$B/bin/itrace-collect" -q --level insn --start main -o "$OUT/demo.main.itr" -- "$PROG"
"$B/bin/itrace-dump" "$OUT/demo.main.itr" | grep -m 8 -E 'INSN|MEM'

step "pipeline-sim: why does it stall?"
"$B/bin/pipeline-sim" "$OUT/demo.main.itr" | sed -n '1,40p'

step "pipeline-sim --callgrind: stall cycles per source line (open in kcachegrind)"
"$B/bin/pipeline-sim" -q --callgrind "$OUT/demo.callgrind" "$OUT/demo.main.itr" >/dev/null
callgrind_annotate "$OUT/demo.callgrind" 2>/dev/null | sed -n '/file:function/,$p' | head -8

step "itrace-timeline: calls over time (open in ui.perfetto.dev or speedscope)"
"$B/bin/itrace-timeline" "$OUT/demo.main.itr" -o "$OUT/demo.timeline.json"
head -c 300 "$OUT/demo.timeline.json"; echo

step "itrace-sqlite: hottest branches"
"$B/bin/itrace-sqlite" "$OUT/demo.branch.itr" -o "$OUT/demo.db"
sqlite3 -header -column "$OUT/demo.db" \
	"SELECT symbol, sym_offset, branch_type_name, exec_count, taken_count FROM hot_branches_view ORDER BY exec_count DESC LIMIT 5;" 2>/dev/null ||
	sqlite3 "$OUT/demo.db" ".tables"

printf '\nAll demo outputs are in %s\n' "$OUT"
