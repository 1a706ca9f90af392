#!/bin/sh
# A system call restarted after a signal handler (ITRACE.md 6.5.10): read()
# on a pipe, blocked, interrupted by SIGCHLD whose handler has SA_RESTART,
# re-run by the kernel after the handler.  The SIGNAL's pc is the syscall
# instruction (where the handler returns), under every backend; a branch
# trace filled by itrace-fill is the instruction trace, with no GAP; and
# the backends agree on the instructions from the syscall through the
# handler to the syscall run again (tests/helper/real_restart_window.awk, addresses as
# FILE+OFFSET).  Programs: tests/real/prog/real_restart.c (every run the
# same) and bash reading a command substitution while a background job
# ends (the windows only: where else bash's SIGCHLDs land depends on time).
. tests/lib.sh
. tests/helper/real_oracles.sh

WINDOW="$HELPER/real_restart_window.awk"
BACKENDS="valgrind ptrace qemu"

# windows NAME VARIANT - the restart windows of a trace, in $TMP/NAME.VARIANT.win
windows() {
	"$BIN/itrace-dump" "$TMP/$1.$2.itr" 2>/dev/null | awk -f "$WINDOW" >"$TMP/$1.$2.win"
}

# levels NAME BACKEND - both levels under BACKEND; the filled branch trace
# against the instruction trace (all of it with SAME=all, else the windows).
levels() {
	_pn=$1 _b=$2
	run_collect "$_pn" "$_b.i" --backend "$_b" --level insn
	run_collect "$_pn" "$_b.b" --backend "$_b" --level branch
	check_output "$_pn" "$_b.i"
	check_output "$_pn" "$_b.b"
	if "$BIN/itrace-fill" -q -o "$TMP/$_pn.$_b.f.itr" "$TMP/$_pn.$_b.b.itr" 2>"$TMP/$_pn.$_b.fill.err"; then
		ok "$_pn under $_b: itrace-fill of the branch trace, no GAP"
	else
		fail "$_pn under $_b: itrace-fill of the branch trace, no GAP" "$(cat "$TMP/$_pn.$_b.fill.err")"
	fi
	for v in i b f; do windows "$_pn" "$_b.$v"; done
	# the branch trace itself: SIGNAL pc = the sigreturn's target
	check_eq "$_pn under $_b: the restarted call's SIGNAL has pc = where sigreturn returns" "" \
		"$("$BIN/itrace-dump" "$TMP/$_pn.$_b.b.itr" | awk '$2 == "SIGNAL" { pc = $6; sub(/^pc=/, "", pc); open = 1 }
			open && $2 == "BRANCH" && $6 == "sigreturn" { open = 0; if ($5 != pc) print "pc " pc ", sigreturn to " $5 }')"
	check "$_pn under $_b: a signal restarted a system call" test -s "$TMP/$_pn.$_b.i.win"
	check_files_eq "$_pn under $_b: filled branch trace = instruction trace around the restart" \
		"$TMP/$_pn.$_b.i.win" "$TMP/$_pn.$_b.f.win"
	if [ "${SAME:-}" = all ]; then
		check "$_pn under $_b: filled branch trace = instruction trace, all of it" \
			"$ORACLE" same-insns "$TMP/$_pn.$_b.i.itr" "$TMP/$_pn.$_b.f.itr"
	fi
}

# across NAME - the backends' windows are the same
across() {
	for b in ptrace qemu; do
		check_files_eq "$1: $b = valgrind around the restart" "$TMP/$1.valgrind.i.win" "$TMP/$1.$b.i.win"
	done
}

real_program restart "$REAL/real_restart"
run_plain restart
check_eq "restart: the plain run" 0 "$(cat "$TMP/restart.plain.rc")"
for b in $BACKENDS; do SAME=all levels restart "$b"; done
across restart

# no handler (SIGCHLD ignored by default): the kernel restarts the read
# unseen; only ptrace records the signal, pc after the syscall
real_program restart-dfl "$REAL/real_restart" default
run_plain restart-dfl
run_collect restart-dfl i --backend ptrace --level insn
run_collect restart-dfl b --backend ptrace --level branch
"$BIN/itrace-fill" -q -o "$TMP/restart-dfl.f.itr" "$TMP/restart-dfl.b.itr"
check_eq "restart-dfl under ptrace: a SIGNAL with no handler" 1 \
	"$("$BIN/itrace-dump" "$TMP/restart-dfl.b.itr" | grep -c ' SIGNAL signo=17 .*handler=0x0$')"
check "restart-dfl under ptrace: filled branch trace = instruction trace, no GAP" \
	"$ORACLE" same-insns "$TMP/restart-dfl.i.itr" "$TMP/restart-dfl.f.itr"

# bash: a background job that ends (SIGCHLD) while bash reads $(...), long
# enough for the slowest start (ptrace, one step per instruction).
real_program bash /bin/bash -c 'sleep 4 & x=$(sleep 7; echo hi); echo $x'
run_plain bash
for b in $BACKENDS; do levels bash "$b"; done
across bash
done_testing
