#!/bin/sh
# fork + exec (tests/real/prog/real_forkexec.c): the child execs the
# program again.  ptrace --follow-fork traces both processes, each from
# its first instruction in main; valgrind refuses --follow-fork with a
# reason, and an exec in the traced process is followed or flagged.
. tests/lib.sh
. tests/helper/real_oracles.sh

real_program forkexec "$REAL/real_forkexec"
run_plain forkexec
run_collect forkexec pt --backend ptrace --follow-fork --start main
check_output forkexec pt
check_complete forkexec pt
"$BIN/itrace-dump" "$TMP/forkexec.pt.itr" >"$TMP/forkexec.pt.txt"
check_eq "forkexec under ptrace: fork, exec and both exits recorded" \
	"fork exec exit:7 exit:0" \
	"$(awk '$2 == "PROCESS" && $3 != "start" { s = $3; if ($3 == "exit") { sub("status=", "", $5); s = s ":" $5 } printf "%s%s", sep, s; sep = " " }' "$TMP/forkexec.pt.txt")"
check_eq "forkexec under ptrace: instructions of both processes" 2 \
	"$("$BIN/itrace-dump" --summary "$TMP/forkexec.pt.itr" | awk '/^  tid [1-9]/ && $5 > 0' | wc -l)"
# branch level, filled: the same instructions in both processes, from the
# child's first one on (no GAP where it starts)
run_collect forkexec ptb --backend ptrace --level branch --follow-fork --start main
if "$BIN/itrace-fill" -q -o "$TMP/forkexec.filled.itr" "$TMP/forkexec.ptb.itr" 2>"$TMP/fill.err" &&
	"$ORACLE" same-insns "$TMP/forkexec.pt.itr" "$TMP/forkexec.filled.itr" >"$TMP/same" 2>&1; then
	ok "forkexec: ptrace branch level + itrace-fill = insn level, 0 GAPs ($(cat "$TMP/same"))"
else
	fail "forkexec: ptrace branch level + itrace-fill = insn level, 0 GAPs" "$(cat "$TMP/fill.err" "$TMP/same")"
fi

run_collect forkexec vg --backend valgrind
check_output forkexec vg
check_complete forkexec vg
run_collect forkexec vgf --backend valgrind --follow-fork
check_eq "valgrind --follow-fork: refused, the program not run" "1:" \
	"$(cat "$TMP/forkexec.vgf.rc"):$(cat "$TMP/forkexec.vgf.out")"
check "valgrind --follow-fork: the reason names the option" grep -q -- '--follow-fork' "$TMP/forkexec.vgf.err"

# exec without fork: the trace follows the new image, or does not say
# complete (it would lie: the new image ran untraced)
real_program exec "$REAL/real_forkexec" exec
run_plain exec
for b in ptrace valgrind; do
	run_collect exec $b --backend $b
	check_output exec $b
	"$BIN/itrace-dump" "$TMP/exec.$b.itr" >"$TMP/exec.$b.txt"
	"$BIN/itrace-dump" --summary "$TMP/exec.$b.itr" >"$TMP/exec.$b.sum"
	followed=$(awk '$2 == "PROCESS" && $3 == "exec" { e = 1 } e && $2 == "INSN" { n++ } END { print n + 0 }' "$TMP/exec.$b.txt")
	if [ "$followed" -gt 0 ] && grep -q '^ended: complete' "$TMP/exec.$b.sum"; then
		ok "exec under $b: followed into the new image ($followed instructions), complete"
	elif [ "$followed" -eq 0 ] && ! grep -q '^ended: complete' "$TMP/exec.$b.sum"; then
		ok "exec under $b: not followed, and the footer says so ($(grep '^ended' "$TMP/exec.$b.sum"))"
	else
		fail "exec under $b: followed, or flagged as not complete" \
			"$followed instructions after the exec; $(grep '^ended' "$TMP/exec.$b.sum")"
	fi
done
done_testing
