#!/bin/sh
# pipeline-sim on microbenchmarks with known answers, end to end:
# itrace-collect (ptrace single-step, INSN + MEM records) -> pipeline-sim.
# Without itrace-collect in the build, the same loops come from sim_gen
# (bench/sim_gen.c writes them through the itrace writer).
. tests/lib.sh
SIM="$BIN/pipeline-sim"
COLLECT="$BIN/itrace-collect"
GEN="$ITRACE_ROOT/$ITRACE_BUILD/bench/sim_gen"

# stall_share FILE CAUSE: CAUSE's percentage of all stall cycles
stall_share() {
	sed -n '/^CPI stack/,/^$/p' "$1" | awk -v c="$2" '
		NF == 4 && $1 != "base" && $1 != "CPI" { t += $2; if ($1 == c) v = $2 }
		END { printf "%.1f\n", (t > 0 ? 100 * v / t : 0) }'
}
# top_stall FILE: the stall cause with the most cycles
top_stall() {
	sed -n '/^CPI stack/,/^$/p' "$1" | awk '
		NF == 4 && $1 != "base" && $1 != "CPI" && $2 > m { m = $2; c = $1 }
		END { print c }'
}
field() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# ge A B / le A B: numeric comparisons
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# trace NAME: $TMP/NAME.itr from tests/data/sim_NAME (or sim_gen's loop)
if [ -x "$COLLECT" ]; then
	how=collected
else
	how=generated
fi
trace() {
	if [ "$how" = collected ]; then
		"$COLLECT" -q -o "$TMP/$1.itr" -- "$DATA/sim_$1" >/dev/null
	else
		"$GEN" "$2" "$3" "$TMP/$1.itr" ${4:-}
	fi
}
echo "# traces: $how"

# -- dependent adds: one add per cycle (latency 1), dependency stalls
check "trace sim_depchain" trace depchain depchain 20000
"$SIM" -q --top 5 "$TMP/depchain.itr" >"$TMP/dep.txt" 2>&1
ipc=$(field "$TMP/dep.txt" IPC)
# 10 instructions per 8 add latencies = 1.25, less the I-cache warm-up
if ge "$ipc" 1.15 && le "$ipc" 1.27; then ok "depchain IPC $ipc in [1.15, 1.27]"; else fail "depchain IPC $ipc" "$(cat "$TMP/dep.txt")"; fi
check_eq "depchain: main stall is dependency" dep-int "$(top_stall "$TMP/dep.txt")"
s=$(stall_share "$TMP/dep.txt" dep-int)
if ge "$s" 80; then ok "depchain: dep-int is $s% of stalls"; else fail "dep-int $s%" "$(cat "$TMP/dep.txt")"; fi
if [ "$how" = collected ]; then
	if grep -A3 '^Top functions' "$TMP/dep.txt" | grep -q 'dep-int.* loop (sim_depchain)'; then
		ok "depchain: function 'loop' is charged, by symbol"
	else
		fail "depchain per-function table" "$(cat "$TMP/dep.txt")"
	fi
	if grep -A3 '^Top instructions' "$TMP/dep.txt" | grep -q 'loop+0x[0-9a-f]* *add rax, rbx *sim_depchain.S:[0-9]'; then
		ok "depchain: the adds top the instruction table with symbol, disassembly and line"
	else
		fail "depchain per-instruction table" "$(cat "$TMP/dep.txt")"
	fi
	# the line named for an add holds an add in the source
	line=$(sed -n '/^Top instructions/,$p' "$TMP/dep.txt" |
		sed -n 's/.*add rax, rbx *sim_depchain.S:\([0-9]*\).*/\1/p' | head -1)
	check "depchain: line $line of sim_depchain.S is an add" sh -c "sed -n '${line:-0}p' '$SRCDATA/sim_depchain.S' | grep -q 'add.*%rbx, %rax'"
fi

# -- independent adds reach the configured width (4 here: dispatch and
# retire; the warm-up I-cache misses are the only other cost).  Macro-
# fusion is off: a fused dec/jnz would make the 10 instructions 9 slots.
# steady FILE: IPC outside the I-cache warm-up
steady() {
	sed -n '/^CPI stack/,/^$/p' "$1" | awk -v n="$(field "$1" instructions)" \
		-v c="$(field "$1" cycles)" '$1 ~ /^icache/ { c -= $2 } END { printf "%.2f\n", n / c }'
}
check "trace sim_indep" trace indep indep 20000
"$SIM" -q --set dispatch_width=4 --set retire_width=4 --set macro_fusion=0 "$TMP/indep.itr" >"$TMP/indep.txt" 2>&1
ipc4=$(steady "$TMP/indep.txt")
if ge "$ipc4" 3.9 && le "$ipc4" 4.0; then
	ok "indep: IPC outside I-cache warm-up $ipc4 reaches width 4"
else
	fail "indep IPC $ipc4" "$(cat "$TMP/indep.txt")"
fi
"$SIM" -q --set dispatch_width=2 --set retire_width=2 --set macro_fusion=0 "$TMP/indep.itr" >"$TMP/indep2.txt" 2>&1
ipc2=$(steady "$TMP/indep2.txt")
if ge "$ipc2" 1.95 && le "$ipc2" 2.0; then ok "indep: width 2 gives IPC $ipc2"; else fail "indep width 2: $ipc2"; fi
# with fusion the pair takes one slot: 10 instructions in 9 slots of 4
"$SIM" -q --set dispatch_width=4 --set retire_width=4 "$TMP/indep.itr" >"$TMP/indep4f.txt" 2>&1
ipc4f=$(steady "$TMP/indep4f.txt")
if ge "$ipc4f" 4.3 && le "$ipc4f" 4.45; then ok "indep: fused dec/jnz gives IPC $ipc4f"; else fail "indep fused: $ipc4f"; fi

# -- eight multiplies on one port: the port is the bottleneck
check "trace sim_port" trace port port 20000
"$SIM" -q "$TMP/port.itr" >"$TMP/port.txt" 2>&1
check_eq "port: main stall is the multiply port" port-alu1 "$(top_stall "$TMP/port.txt")"
s=$(stall_share "$TMP/port.txt" port-alu1)
if ge "$s" 75; then ok "port: port-alu1 is $s% of stalls"; else fail "port-alu1 $s%" "$(cat "$TMP/port.txt")"; fi

# -- pointer chase over more lines than the last-level cache holds
# (4000 lines = 256 KiB; the LLC is set to 128 KiB so every node misses)
check "trace sim_chase" trace chase chase 12000
"$SIM" -q --set "l2=size=64K assoc=8 line=64 latency=14" --set "llc=size=128K assoc=16 line=64 latency=40" \
	"$TMP/chase.itr" >"$TMP/chase.txt" 2>&1
check_eq "chase: main stall is memory" dcache-mem "$(top_stall "$TMP/chase.txt")"
s=$(stall_share "$TMP/chase.txt" dcache-mem)
if ge "$s" 85; then ok "chase: dcache-mem is $s% of stalls"; else fail "dcache-mem $s%" "$(cat "$TMP/chase.txt")"; fi
if grep -A2 '^Top instructions' "$TMP/chase.txt" | grep -q 'dcache-mem.*mov rax, qword ptr \[rax\].*L1D miss 100.0%'; then
	ok "chase: the chasing load tops the table, always missing"
else
	fail "chase instruction table" "$(cat "$TMP/chase.txt")"
fi

# -- an unpredictable branch mispredicts about half the time, the loop
# branch almost never
check "trace sim_branchy" trace branchy branchy 30000 4096
"$SIM" -q --top 30 "$TMP/branchy.itr" >"$TMP/br.txt" 2>&1
# the conditional branches, with their misprediction rates
rates=$(sed -n '/^Top instructions/,$p' "$TMP/br.txt" | grep 'mispredicted' |
	sed 's/.*  \(j[a-z]*\) .*mispredicted \([0-9.]*\)%.*/\1 \2/')
random=$(echo "$rates" | awk '$1 != "jnz" { print $2; exit }')
loopb=$(echo "$rates" | awk '$1 == "jnz" { print $2; exit }')
if [ -n "$random" ] && ge "$random" 40 && le "$random" 60; then
	ok "branchy: data-dependent branch mispredicts $random%"
else
	fail "random branch rate '$random'" "$(cat "$TMP/br.txt")"
fi
if [ -n "$loopb" ] && le "$loopb" 2; then ok "branchy: loop branch mispredicts $loopb%"; else fail "loop branch '$loopb'"; fi
s=$(stall_share "$TMP/br.txt" branch-mispredict)
if ge "$s" 30; then ok "branchy: branch-mispredict is $s% of stalls"; else fail "mispredict $s%" "$(cat "$TMP/br.txt")"; fi

# -- the in-order preset on the dependent chain
"$SIM" -q --core inorder "$TMP/depchain.itr" >"$TMP/dep-io.txt" 2>&1
check_eq "inorder: depchain stalls on dependency" dep-int "$(top_stall "$TMP/dep-io.txt")"
done_testing
