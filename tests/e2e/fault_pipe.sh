#!/bin/sh
# A closed output pipe stops the collector within a second, with "Broken
# pipe", and kills the program it traces (as a pipeline's SIGPIPE would):
# when the reader goes away while the program sleeps and nothing is
# written, and at random points of a busy program's trace.  The filters
# (itrace-fill, qtrace-conv) stop too.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/fault_lib.sh"
B="$ITRACE_ROOT/$ITRACE_BUILD"

# reader_leaves BACKEND: a reader that reads nothing and leaves after 1 s.
reader_leaves() {
	rm -f "$TMP/p"
	mkfifo "$TMP/p"
	sleep 1 <"$TMP/p" &
	reader=$!
	t0=$(date +%s.%N)
	"$BIN/itrace-collect" -q --backend "$1" -o "$TMP/p" -- "$DATA/fault_spin" sleep \
		>/dev/null 2>"$TMP/err" &
	pid=$!
	sleep 0.5
	prog=$(started_by "$pid")
	wait "$reader"
	wait "$pid"
	rc=$?
	t1=$(date +%s.%N)
	check_eq "$1, idle program: exit status 1" 1 "$rc"
	check "$1, idle program: says it cannot write, Broken pipe" \
		grep -qx "itrace-collect: cannot write '$TMP/p': Broken pipe" "$TMP/err"
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a - 1 }')
	check "$1, idle program: stopped ${took} s after the reader left" \
		awk -v t="$took" 'BEGIN { exit !(t < 1.5) }'
	check "$1, idle program: the program is killed" gone "$prog"
}
reader_leaves ptrace
reader_leaves valgrind

# A reader that leaves after a random number of bytes of a busy trace:
# fault_spin's noisy loop, whose trace keeps growing after start-up (the
# plain busy loop's compresses to almost nothing, and a ptrace trace of it
# stayed under 92 KB for 20 s).  Single-stepping runs some 50 000
# instructions a second, so a ptrace trace reaches 60 KB in about 2 s
# here, and Valgrind's reaches 100 KB within its start-up.
for be in ptrace valgrind; do
	case $be in
	ptrace) n=$(random_below 60000) ;;
	*) n=$(random_below 100000) ;;
	esac
	rm -f "$TMP/p"
	mkfifo "$TMP/p"
	head -c "$n" <"$TMP/p" >/dev/null &
	reader=$!
	# the program's last argument marks every process of this run (the
	# collector's, Valgrind's, the program's even before main: the reader
	# may leave before the program gets that far)
	timeout 20 "$BIN/itrace-collect" -q --backend "$be" -o "$TMP/p" -- "$DATA/fault_spin" noisy \
		"$TMP/run-$be" >/dev/null 2>"$TMP/err" &
	pid=$!
	wait "$reader"
	wait "$pid"
	rc=$?
	check_eq "$be, reader leaving after $n bytes: exit status 1" 1 "$rc"
	check "$be, reader leaving after $n bytes: says it cannot write, Broken pipe" \
		grep -qx "itrace-collect: cannot write '$TMP/p': Broken pipe" "$TMP/err"
	check "$be, reader leaving after $n bytes: the program is killed" none_left "$TMP/run-$be"
done

# Filters end when their reader leaves (by SIGPIPE, as filters do).
"$B/tests/fill-gen" --extrapolate 200 -o "$TMP/branch.itr" "$DATA/fill_bench" >/dev/null 2>&1
"$B/bench/qtrace_gen" 200000 "$TMP/ppc.itr" >/dev/null
n=$(random_below 10000)
check "itrace-fill | head -c $n ends" timeout 20 sh -c \
	"'$BIN/itrace-fill' -q --text '$TMP/branch.itr' | head -c $n >/dev/null"
check "qtrace-conv | head -c $n ends" timeout 20 sh -c \
	"'$BIN/qtrace-conv' -q '$TMP/ppc.itr' -o - | head -c $n >/dev/null"
done_testing
