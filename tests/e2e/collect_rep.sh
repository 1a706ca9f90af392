#!/bin/sh
# rep-prefixed string instructions (#15 item 7, ITRACE.md 6.5.2): one
# instruction record per iteration, each with its MEM records, one for a
# zero count; the ptrace and valgrind backends agree; at branch level the
# loop's branch to itself makes itrace-fill give the same records; and
# callgrind's Ir is the records plus one per execution of movs/stos/lods
# that made at least one iteration (VEX's last entry that only tests the
# count), as the spec says.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
PROG="$DATA/collect_rep"

# per_insn TRACE: "address records mems runs-with-mems" for each rep
# instruction (by its bytes' address list from objdump).
objdump -d "$PROG" | awk '/\t(rep|repz|repnz) / { sub(/:.*/, "", $1); print "0x" $1 }' >"$TMP/reps"
per_insn() {
	"$DUMP" "$1" | awk -v list="$TMP/reps" '
		BEGIN { while ((getline a < list) > 0) rep[a] = 1 }
		$2 == "INSN" { if (cur != $3 || !(cur in rep)) { if (run_mem) runs[cur]++; run_mem = 0 }
			cur = $3; if (cur in rep) n[cur]++; next }
		$2 == "MEM" && (cur in rep) { m[cur]++; run_mem = 1 }
		END { if (run_mem) runs[cur]++
			for (a in n) printf "%s %d %d %d\n", a, n[a], m[a], runs[a] }' | sort
}

for be in ptrace valgrind; do
	"$COLLECT" -q --backend $be -o "$TMP/$be.itr" -- "$PROG"
	check_eq "$be: exit status 0" 0 $?
	per_insn "$TMP/$be.itr" >"$TMP/$be.txt"
done
# movsb and stosq: counts 0, 1, 4, 37 -> 43 records, 42 iterations with
# accesses in 3 runs; repe cmpsb 6 (stops at the difference) and 4 (count
# out); repne scasb 4 (finds 'd').
cat >"$TMP/want.txt" <<'WANT'
0x401025 43 84 3
0x401033 43 42 3
0x401052 6 12 1
0x401067 4 8 1
0x401077 4 4 1
WANT
check_files_eq "ptrace: one record per iteration, accesses per iteration" "$TMP/want.txt" "$TMP/ptrace.txt"
check_files_eq "valgrind: the same" "$TMP/want.txt" "$TMP/valgrind.txt"

# Branch level: the loop's branches to itself; filled = insn level.
for be in ptrace valgrind; do
	"$COLLECT" -q --backend $be --level branch -o "$TMP/$be.b.itr" -- "$PROG"
	# (an execution of N iterations has N - 1)
	check_eq "$be: branch level: the loops' branches to themselves" \
		"0x401025 39
0x401033 39
0x401052 5
0x401067 3
0x401077 3" \
		"$("$DUMP" "$TMP/$be.b.itr" | awk '$2 == "BRANCH" && $3 == $5 { n[$3]++ } END { for (a in n) print a, n[a] }' | sort)"
	"$BIN/itrace-fill" -q "$TMP/$be.b.itr" -o "$TMP/$be.f.itr"
	"$DUMP" "$TMP/$be.f.itr" | awk '$2 == "INSN" { print $3 }' >"$TMP/$be.f.seq"
	"$DUMP" "$TMP/$be.itr" | awk '$2 == "INSN" { print $3 }' >"$TMP/$be.i.seq"
	check_files_eq "$be: branch level, filled, equals insn level" "$TMP/$be.i.seq" "$TMP/$be.f.seq"
done

# callgrind: Ir per instruction address.
valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$TMP/cg.out" -q "$PROG"
awk '
	function hex(s, n, i) { n = 0; sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n }
	/^fn=/ { infn = 1; next }
	infn && /^(0x|\+|-|\*)[0-9a-f]* / {
		a = $1
		if (a ~ /^0x/) addr = hex(a); else if (a ~ /^\+/) addr += substr(a, 2) + 0
		else if (a ~ /^-/) addr -= substr(a, 2) + 0
		ir[addr] += $3 }
	END { for (a in ir) printf "0x%x %d\n", a, ir[a] }' "$TMP/cg.out" | sort >"$TMP/cg.txt"
# the spec's rule, for movs/stos/lods: records + runs with accesses
awk 'NR == FNR { if ($1 == "0x401025" || $1 == "0x401033") want[$1] = $2 + $4; next }
	($1 in want) { print $1, $2, want[$1] }' "$TMP/ptrace.txt" "$TMP/cg.txt" >"$TMP/rule.txt"
check_eq "callgrind's Ir of rep movsb, stosq (46, 46) = records + executions with iterations" \
	"0x401025 46 46
0x401033 46 46" "$(cat "$TMP/rule.txt")"
check_eq "callgrind's Ir of the cmps/scas: iterations, plus one where the count ran out" \
	"0x401052 6
0x401067 5
0x401077 4" "$(grep -E '^0x4010(52|67|77) ' "$TMP/cg.txt")"
done_testing
