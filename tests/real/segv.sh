#!/bin/sh
# SIGSEGV (tests/real/prog/real_segv.c): "handled" recovers three times
# from a handler through siglongjmp; "crash" then dies of it.
. tests/lib.sh
. tests/helper/real_oracles.sh

real_program segv "$REAL/real_segv"
real_oracles segv
check_backends segv "$REAL/real_segv"

# The crash: the exit status of a killed program, the SIGNAL record, the
# faulting instruction as the last one, under each backend.
real_program crash "$REAL/real_segv" crash
run_plain crash
for b in ptrace valgrind; do
	case $b in
	ptrace) run_collect crash $b --backend ptrace --start main ;;
	valgrind) run_collect crash $b --backend valgrind ;;
	esac
	check_output crash $b
	"$BIN/itrace-dump" "$TMP/crash.$b.itr" >"$TMP/crash.$b.txt" 2>&1
	# the fatal signal follows the last instruction, at the next one (the
	# store that faulted, in fault()), delivered to no handler
	sig=$(awk '$2 == "INSN" { next_pc = $3 "+" substr($4, 5); sig = "" }
		$2 == "SIGNAL" { sig = $3 " " $6 " " $7 } END { print next_pc " " sig }' "$TMP/crash.$b.txt")
	next_pc=$(printf '%#x' $((${sig%% *})))
	check_eq "crash under $b: the last record is the fatal SIGSEGV at the next instruction" \
		"signo=11 pc=$next_pc handler=0x0" "${sig#* }"
	base=$(awk -v exe="'$REAL/real_segv'" '$2 == "MMAP" && $NF == exe { split($4, r, "-"); print r[1]; exit }' "$TMP/crash.$b.txt")
	check_eq "crash under $b: that instruction is in fault()" "fault" \
		"$(addr2line -f -e "$REAL/real_segv" "$(printf '%#x' $((next_pc - base)))" | head -1)"
	check "crash under $b: the footer says the program was killed by SIGSEGV" \
		sh -c "'$BIN/itrace-dump' --summary '$TMP/crash.$b.itr' | grep '^ended:' | grep -Eqi '(crash|kill|signal).*(11|SIGSEGV)'"
done
done_testing
