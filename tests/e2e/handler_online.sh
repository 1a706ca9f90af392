#!/bin/sh
# itrace-collect --handler: the example handlers online give the answers
# they give offline (itrace-run over the trace the same run wrote), under
# the valgrind backend (gzip -c of a small file, /usr/bin/python3 -S -c
# pass), the ptrace backend (tests/data/demo_sum) and the qemu backend
# (x86-64: gzip, BLOCK records expanded by the emitter); -o none writes the
# streams and no trace; a dropping handler's -o trace equals itrace-run
# -o of it over the full trace; a chain of two; a crashing handler leaves
# the program and the trace so far, exit 1; bad handlers fail before the
# program starts, with itrace-run's message.
. tests/lib.sh
COL="$BIN/itrace-collect"
RUN="$BIN/itrace-run"
EX="$ITRACE_ROOT/$ITRACE_BUILD/examples/handlers"
TH="$ITRACE_ROOT/$ITRACE_BUILD/tests/handlers"
printf 'hello world %s\n' $(seq 200) >"$TMP/small.txt"

# pids and tids differ between runs (and set_tid_address, nr 218, returns
# the tid); nothing else may.  Under valgrind the stack's contents differ
# from run to run too (two plain collections of demo_sum differ in a
# load's address and in the leftovers of the argument registers a system
# call does not take), so there MEM addresses and SYSCALL arguments are
# masked: the records, their order and every instruction address stay.
norm() {
	"$BIN/itrace-dump" "$1" | grep -v '^#' |
		sed -E 's/(pid|tid|ppid|other)=[0-9]+/\1=N/g; s/^[0-9]+ /T /; s/nr=218 ret=[0-9]+/nr=218/' |
		if [ "$2" = valgrind ]; then sed -E 's/MEM (load|store) 0x[0-9a-f]+/MEM \1 A/; s/ args=.*//'; else cat; fi
}

# online_offline NAME BACKEND PROG...: the four examples online, then offline on its trace
online_offline() {
	on_name=$1 be=$2
	shift 2
	(cd "$TMP" && "$COL" -q --backend "$be" --handler "$EX/pc.so:$on_name.pc" \
		--handler "$EX/func_count.so:$on_name.fc" --handler "$EX/branch_hist.so:$on_name.bh" \
		--handler "$EX/malloc_sizes.so" -o "$on_name.itr" -- "$@" >/dev/null 2>"$on_name.err")
	rc=$?
	cp "$TMP/malloc_sizes" "$TMP/$on_name.ms"
	check_eq "$on_name ($be): the chain of the four examples online exits 0" 0 "$rc"
	(cd "$TMP" && "$RUN" -q "$EX/pc.so:$on_name.pc2" "$EX/func_count.so:$on_name.fc2" \
		"$EX/branch_hist.so:$on_name.bh2" "$EX/malloc_sizes.so" "$on_name.itr" 2>"$on_name.err2")
	check_eq "$on_name: itrace-run of the same chain over the trace exits 0" 0 $?
	for on_h in pc fc bh; do
		if [ -s "$TMP/$on_name.$on_h" ]; then
			check_files_eq "$on_name: $on_h online = offline" "$TMP/$on_name.$on_h" "$TMP/$on_name.${on_h}2"
		else
			fail "$on_name: $on_h wrote its stream online" "$(cat "$TMP/$on_name.err"; ls "$TMP")"
		fi
	done
	check_files_eq "$on_name: malloc_sizes online = offline" "$TMP/$on_name.ms" "$TMP/malloc_sizes"
	"$BIN/itrace-dump" "$TMP/$on_name.itr" | awk '$2 == "INSN" { print $3 }' >"$TMP/$on_name.dpc"
	check_files_eq "$on_name: pc online = the trace's INSN addresses (itrace-dump)" \
		"$TMP/$on_name.dpc" "$TMP/$on_name.pc"
}

online_offline gzip valgrind gzip -c "$TMP/small.txt"
online_offline python3 valgrind /usr/bin/python3 -S -c pass
online_offline demo_sum ptrace "$DATA/demo_sum"
online_offline gzip_qemu qemu gzip -c "$TMP/small.txt"

# -o none: the streams, no trace
(cd "$TMP" && rm -f none trace.itr && "$COL" -q --backend ptrace --handler "$EX/pc.so:none.pc" \
	-o none -- "$DATA/demo_sum" >/dev/null 2>none.err)
check_eq "-o none exits 0" 0 $?
check_files_eq "-o none: pc's stream as with -o FILE" "$TMP/demo_sum.pc" "$TMP/none.pc"
check "-o none: no trace written" sh -c "! ls '$TMP'/none '$TMP'/trace.itr 2>/dev/null"
check_fails "-o none without --handler is a usage error" "$COL" -q -o none -- /bin/true

# a dropping handler: the online -o trace = itrace-run -o over the full trace
for be in ptrace valgrind; do
	"$COL" -q --backend $be -o "$TMP/full.$be.itr" -- "$DATA/demo_sum" >/dev/null 2>&1
	"$COL" -q --backend $be --handler "$TH/keep_every.so:3" -o "$TMP/kept.$be.itr" -- \
		"$DATA/demo_sum" >/dev/null 2>"$TMP/kept.err"
	check_eq "keep_every:3 online ($be) exits 0" 0 $?
	"$RUN" -q "$TH/keep_every.so:3" "$TMP/full.$be.itr" -o "$TMP/kept2.$be.itr" 2>>"$TMP/kept.err"
	norm "$TMP/kept.$be.itr" $be >"$TMP/kept.$be.d"
	norm "$TMP/kept2.$be.itr" $be >"$TMP/kept2.$be.d"
	if [ "$(grep -c INSN "$TMP/kept.$be.d")" -gt 100 ]; then
		check_files_eq "keep_every:3 ($be): online -o = itrace-run -o on the full trace" \
			"$TMP/kept2.$be.d" "$TMP/kept.$be.d"
	else
		fail "keep_every:3 ($be) kept instructions" "$(cat "$TMP/kept.err")"
	fi
done

# a chain of two: pc after keep_every sees what keep_every keeps
(cd "$TMP" && "$COL" -q --backend ptrace --handler "$TH/keep_every.so:3" \
	--handler "$EX/pc.so:chain.pc" -o none -- "$DATA/demo_sum" >/dev/null 2>chain.err &&
	"$RUN" -q "$TH/keep_every.so:3" "$EX/pc.so:chain2.pc" demo_sum.itr 2>>chain.err)
check_eq "a chain of two online and offline exit 0" 0 $?
check_files_eq "a chain of two: the same pc online and offline" "$TMP/chain2.pc" "$TMP/chain.pc"

# a handler that crashes: the program runs on, the trace so far is kept
"$COL" -q --backend valgrind --handler "$TH/crash.so" -o "$TMP/crash.itr" -- \
	gzip -c "$TMP/small.txt" >"$TMP/crash.gz" 2>"$TMP/crash.err"
check_eq "a crashing handler: exit 1" 1 $?
check "a crashing handler: the program's output is whole" sh -c "gzip -dc '$TMP/crash.gz' | cmp - '$TMP/small.txt'"
check "a crashing handler: one line naming it and the record" \
	grep -q "^itrace-collect: handler 'crash' crashed (SIGSEGV) at record [0-9]*; the trace so far is kept" "$TMP/crash.err"
check_eq "a crashing handler: the trace so far (999 instructions), then LOST" \
	"999 LOST" "$("$BIN/itrace-dump" "$TMP/crash.itr" | awk '$2 == "INSN" { n++ } END { printf "%d %s", n, $2 }')"
"$COL" -q --backend ptrace --handler "$TH/crash.so" -o none -- "$DATA/demo_sum" >"$TMP/crash.out" 2>&1
check_eq "a crashing handler under ptrace: exit 1, the program's output whole" "1 sum = " \
	"$? $(grep -o '^sum = ' "$TMP/crash.out")"

# bad handlers: itrace-run's messages, before the program starts
for h in "$TMP/missing.so" "$TH/newer.so" "$TH/size0.so"; do
	"$RUN" -q "$h" "$TMP/gzip.itr" 2>"$TMP/bad.run"
	rrc=$?
	"$COL" -q --handler "$h" -o "$TMP/bad.itr" -- sh -c "touch '$TMP/ran'" 2>"$TMP/bad.col"
	crc=$?
	check_eq "bad handler $(basename "$h"): exit 1, as itrace-run's" "1 1" "$crc $rrc"
	check_eq "bad handler $(basename "$h"): itrace-run's message" \
		"$(sed 's/^itrace-run/itrace-collect/' "$TMP/bad.run")" "$(cat "$TMP/bad.col")"
	check "bad handler $(basename "$h"): the program never started" sh -c "! test -e '$TMP/ran'"
done
done_testing
