#!/bin/sh
# itrace-collect --backend bts on the machine at hand.  Where Intel BTS is
# not available (AMD, virtual machines, PTI, ...) the collector must refuse
# before starting the program, with one line naming the cause, exit 1 and
# no trace.  Where it is available, the BTS trace filled by itrace-fill
# must equal the single-stepped run.
. tests/lib.sh
COLLECT="$BIN/itrace-collect"
PROG="$DATA/bts_loops"

insn_addrs() { "$BIN/itrace-dump" "$1" | awk '$2 == "INSN" { print $3 }'; }

backends=$("$COLLECT" --list-backends 2>&1)
bts_line=$(printf '%s\n' "$backends" | grep '^bts ')
check "--list-backends lists bts" test -n "$bts_line"

case "$bts_line" in
*unavailable*)
	# The expected cause, from what the machine says about itself.
	vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
	if [ "$vendor" != GenuineIntel ]; then
		cause="$vendor"
	elif grep -qw hypervisor /proc/cpuinfo; then
		cause="virtual machine"
	elif grep -qw pti /proc/cpuinfo; then
		cause="pti=off"
	else
		cause="intel_bts"
	fi
	"$COLLECT" --backend bts --level branch -o "$TMP/bts.itr" -- sh -c "touch '$TMP/ran'" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	check_eq "unavailable: exit status 1" 1 "$rc"
	check_eq "unavailable: one line on stderr" 1 "$(wc -l <"$TMP/err")"
	check "unavailable: names the cause ($cause)" grep -q "$cause" "$TMP/err"
	check "unavailable: says what to use instead" grep -q "use --backend ptrace" "$TMP/err"
	check "unavailable: the program was not started" test ! -e "$TMP/ran"
	check "unavailable: no trace file (never an empty successful trace)" test ! -e "$TMP/bts.itr"
	check "--list-backends gives the same cause" sh -c "printf '%s\n' \"\$1\" | grep -q \"\$2\"" x "$bts_line" "$cause"
	;;
*)
	# Real BTS hardware: compare with the single-stepped run.
	"$COLLECT" -q --level insn -o "$TMP/ref.itr" -- "$PROG"
	check "bts: collects bts_loops" "$COLLECT" -q --backend bts --level branch -o "$TMP/bts.itr" -- "$PROG"
	check "bts: taken-only flag" sh -c "'$BIN/itrace-dump' -s '$TMP/bts.itr' | grep -q '^flags: 0x4'"
	"$BIN/itrace-fill" -q "$TMP/bts.itr" -o "$TMP/filled.itr"
	insn_addrs "$TMP/ref.itr" >"$TMP/ref.txt"
	insn_addrs "$TMP/filled.itr" >"$TMP/bts.txt"
	check_files_eq "bts: filled = single-stepped" "$TMP/ref.txt" "$TMP/bts.txt"
	"$COLLECT" -q --backend bts --level branch --ring 8 -o "$TMP/ring.itr" -- "$PROG"
	n=$("$BIN/itrace-dump" "$TMP/ring.itr" | grep -c ' BRANCH ')
	check "bts --ring 8: at most 8 branches kept ($n)" test "$n" -gt 0 -a "$n" -le 8
	;;
esac

# Options the hardware cannot honour are refused, not ignored.
"$COLLECT" --backend bts --level insn -o "$TMP/insn.itr" -- "$PROG" >/dev/null 2>"$TMP/err"
check "bts at insn level is refused" test $? -ne 0 -a ! -e "$TMP/insn.itr"

done_testing
