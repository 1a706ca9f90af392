#!/bin/sh
# rep-prefixed string instructions (#15 item 7, ITRACE.md 6.5.2): one
# instruction record per iteration, with that iteration's MEM records, and
# one more without MEM records for the check that finds a run-out count
# zero (none when cmps/scas stop on their comparison; a zero count is that
# check alone).  Every backend that records x86 code records the same; at
# branch level a taken COND branch from the instruction to itself comes
# before each record after an execution's first, so itrace-fill gives the
# instruction-level records; and callgrind's Ir of each rep instruction
# equals its records, with no correction.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
PROG="$DATA/collect_rep"
BACKENDS="ptrace valgrind"
if command -v qemu-x86_64 >/dev/null; then
	BACKENDS="$BACKENDS qemu gdb"
else
	skip "qemu and gdb backends on rep instructions" "qemu-x86_64 not installed (make deps)"
fi

# per_insn TRACE: "address records mems records-without-mem" for each rep
# instruction (by its address, from objdump).
objdump -d "$PROG" | awk '/\t(rep|repz|repnz) / { sub(/:.*/, "", $1); print "0x" $1 }' >"$TMP/reps"
per_insn() {
	"$DUMP" "$1" | awk -v list="$TMP/reps" '
		function close_insn() { if (cur in rep && !mem) bare[cur]++ }
		BEGIN { while ((getline a < list) > 0) rep[a] = 1 }
		$2 == "INSN" { close_insn(); cur = $3; mem = 0; if (cur in rep) n[cur]++; next }
		$2 == "MEM" && (cur in rep) { m[cur]++; mem = 1 }
		END { close_insn()
			for (a in n) printf "%s %d %d %d\n", a, n[a], m[a], bare[a] }' | sort
}

# movsb and stosq, counts 0, 1, 4, 37: 42 iterations, 1 zero count and 3
# final checks; repe cmpsb: 6 (stops at the difference), 4 + final check
# (count out), 6 (the difference at the count's last byte: the comparison
# ends it); repne scasb: 4 (finds 'd'), 8 + final check (no 'z').
cat >"$TMP/want.txt" <<'WANT'
0x401025 46 84 4
0x401033 46 42 4
0x401052 6 12 0
0x401067 5 8 1
0x401077 4 4 0
0x40108c 6 12 0
0x40109c 9 8 1
WANT
# the branches to themselves: every record but an execution's first
cat >"$TMP/want-b.txt" <<'WANT'
0x401025 42
0x401033 42
0x401052 5
0x401067 4
0x401077 3
0x40108c 5
0x40109c 8
WANT
for be in $BACKENDS; do
	"$COLLECT" -q --backend $be -o "$TMP/$be.itr" -- "$PROG"
	check_eq "$be: exit status 0" 0 $?
	per_insn "$TMP/$be.itr" >"$TMP/$be.txt"
	check_files_eq "$be: a record per iteration with its accesses, one per final check" \
		"$TMP/want.txt" "$TMP/$be.txt"
	"$COLLECT" -q --backend $be --level branch -o "$TMP/$be.b.itr" -- "$PROG"
	"$DUMP" "$TMP/$be.b.itr" | awk '$2 == "BRANCH" && $3 == $5 && $6 == "cond" && $7 == "taken" { n[$3]++ }
		END { for (a in n) print a, n[a] }' | sort >"$TMP/$be.b.txt"
	check_files_eq "$be: branch level: the loops' taken branches to themselves" "$TMP/want-b.txt" "$TMP/$be.b.txt"
	"$BIN/itrace-fill" -q "$TMP/$be.b.itr" -o "$TMP/$be.f.itr"
	"$DUMP" "$TMP/$be.f.itr" | awk '$2 == "INSN" { print $3 }' >"$TMP/$be.f.seq"
	"$DUMP" "$TMP/$be.itr" | awk '$2 == "INSN" { print $3 }' >"$TMP/$be.i.seq"
	check_files_eq "$be: branch level, filled, equals insn level" "$TMP/$be.i.seq" "$TMP/$be.f.seq"
done

# callgrind: Ir per instruction address = the records, exactly.
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
awk 'NR == FNR { rep[$1] = 1; next } ($1 in rep)' "$TMP/reps" "$TMP/cg.txt" >"$TMP/cg-rep.txt"
awk '{ print $1, $2 }' "$TMP/want.txt" >"$TMP/want-ir.txt"
check_files_eq "callgrind's Ir of every rep instruction = its records" "$TMP/want-ir.txt" "$TMP/cg-rep.txt"
done_testing
