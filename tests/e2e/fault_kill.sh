#!/bin/sh
# SIGKILL at any point of each writing tool.
#  - itrace-collect (ptrace, valgrind): the trace reaches its file at least
#    once a second, so a kill after a few seconds leaves a readable trace
#    with everything but the last second (it left 0 records), the program
#    dies with the collector, and the valgrind backend's log directory is
#    removed by the next run.
#  - itrace-fill, itrace-import, qtrace-conv, pipeline-sim --kanata,
#    itrace-xml, itrace-sqlite, killed at a random point of their input:
#    the previous output stays intact, and the temporary the kill left is
#    removed by the next run in that directory, which completes.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/fault_lib.sh"
B="$ITRACE_ROOT/$ITRACE_BUILD"
SPIN="$DATA/fault_spin"

# ---- the collector ------------------------------------------------------
# collect_kill BACKEND SECONDS: trace the spinning program, SIGKILL the
# collector after SECONDS.
collect_kill() {
	rm -f "$TMP/c.itr"
	"$BIN/itrace-collect" -q --backend "$1" --level branch -o "$TMP/c.itr" -- "$SPIN" \
		>/dev/null 2>"$TMP/err" &
	pid=$!
	sleep "$2"
	prog=$(started_by "$pid")
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	check "$1: the traced program dies with the collector" gone "$prog"
	n=$("$BIN/itrace-dump" --summary "$TMP/c.itr" 2>/dev/null | sed -n 's/^records: //p')
	check "$1: SIGKILL after $2 s leaves a readable trace ($n records)" test "${n:-0}" -gt 1000
	check "$1: the trace says it was cut" \
		sh -c "'$BIN/itrace-dump' --summary '$TMP/c.itr' 2>&1 | grep -q 'ended: unknown (no footer)'"
}
collect_kill ptrace 1.5
mkdir -p "$TMP/vgtmp"
TMPDIR="$TMP/vgtmp" collect_kill valgrind 4
check "valgrind: the killed collector's log directory is left" \
	sh -c "ls '$TMP/vgtmp' | grep -q '^itrace-vg\.[0-9]*\.'"
TMPDIR="$TMP/vgtmp" "$BIN/itrace-collect" -q --backend valgrind -o "$TMP/v.itr" -- \
	"$DATA/vg_prog" >/dev/null 2>&1
check_eq "valgrind: the next run removes it" "" "$(ls -A "$TMP/vgtmp")"

# ---- the other writing tools --------------------------------------------
"$B/bench/sim_gen" mix 2000 "$TMP/x86-small.itr"
"$B/bench/sim_gen" mix 400000 "$TMP/x86.itr"
"$B/bench/qtrace_gen" 200 "$TMP/ppc-small.itr" >/dev/null
"$B/bench/qtrace_gen" 200000 "$TMP/ppc.itr" >/dev/null
"$B/tests/fill-gen" -o "$TMP/branch-small.itr" "$DATA/fill_loop" >/dev/null 2>&1
"$B/tests/fill-gen" --extrapolate 200 --chunk-bytes 4096 -o "$TMP/branch.itr" \
	"$DATA/fill_bench" >/dev/null 2>&1
PERF_SMALL="$ITRACE_ROOT/tests/fuzz/corpus/fuzz_perfdata/legacy.data"
PERF="$ITRACE_ROOT/tests/fuzz/corpus/fuzz_perfdata/bts_full.data"

# write TOOL IN OUT: the tool converting IN ('-': stdin) into OUT.  With
# EXEC=exec the tool replaces the (background) shell, so that $! is its pid.
write() {
	case "$1" in
	fill) $EXEC "$BIN/itrace-fill" -q "$2" -o "$3" ;;
	import) $EXEC "$BIN/itrace-import" -q "$2" -o "$3" ;;
	qtrace-conv) $EXEC "$BIN/qtrace-conv" -q "$2" -o "$3" ;;
	kanata) $EXEC "$BIN/pipeline-sim" -q --no-lines --kanata "$3" "$2" >/dev/null ;;
	xml) $EXEC "$BIN/itrace-xml" -q "$2" -o "$3" ;;
	sqlite) $EXEC "$BIN/itrace-sqlite" -q --level summary "$2" -o "$3" ;;
	esac
}
input() { # input TOOL SIZE: the tool's input, small or large
	case "$1" in
	fill) echo "$TMP/branch$2.itr" ;;
	import) [ "$2" = -small ] && echo "$PERF_SMALL" || echo "$PERF" ;;
	qtrace-conv) echo "$TMP/ppc$2.itr" ;;
	*) echo "$TMP/x86$2.itr" ;;
	esac
}

for t in fill import qtrace-conv kanata xml sqlite; do
	d="$TMP/$t"
	mkdir -p "$d"
	write "$t" "$(input "$t" -small)" "$d/out" 2>"$d/err"
	cp "$d/out" "$d/previous"
	big=$(input "$t" "")
	size=$(wc -c <"$big")
	at=$(random_below "$size")
	# The input through a FIFO kept open: the tool cannot finish before
	# the kill, however fast the machine.
	mkfifo "$d/fifo"
	EXEC=exec write "$t" - "$d/out" <"$d/fifo" 2>/dev/null &
	pid=$!
	exec 3>"$d/fifo"
	head -c "$at" "$big" >&3
	sleep 0.3
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	exec 3>&-
	check_files_eq "$t: SIGKILL after $at of $size input bytes: previous output intact" \
		"$d/previous" "$d/out"
	rm -f "$d/fifo"
	write "$t" "$big" "$d/out" 2>"$d/err"
	check_eq "$t: the next run completes" 0 $?
	check_eq "$t: and removes the killed run's temporary" "" "$(temporaries "$d")"
done
done_testing
