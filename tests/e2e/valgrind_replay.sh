#!/bin/sh
# bench/vg_replay (bench/valgrind_replay.sh) must convert a dump of the
# tool's words (ITRACE_VG_BENCH=dump:FILE) into the trace itrace-collect
# made from the same words, record for record, or the figures it gives
# for the converter and the writer are not theirs.  Both levels, on ls.
# The replay writes no PROCESS records (vg_run does), so those are left
# out of the comparison.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
REPLAY="$ITRACE_ROOT/$ITRACE_BUILD/bench/vg_replay"

# records TRACE: every record but PROCESS, without its file offset.
records() {
	"$DUMP" "$1" | grep -v ' PROCESS ' | sed 's/^[0-9]* //'
}

for level in insn branch; do
	ITRACE_VG_BENCH=dump:"$TMP/$level.words" "$COLLECT" -q --backend valgrind --level $level \
		-o "$TMP/$level.itr" -- ls -l / >/dev/null 2>"$TMP/$level.err"
	check_eq "$level: collected with a dump, exit status 0" 0 $?
	check "$level: the dump is not empty" test -s "$TMP/$level.words"
	opt=""
	[ $level = branch ] && opt=--branch
	"$REPLAY" $opt "$TMP/$level.words" "$TMP/$level.replay.itr" 2>"$TMP/$level.rerr"
	check_eq "$level: replayed, exit status 0" 0 $?
	records "$TMP/$level.itr" >"$TMP/$level.txt"
	records "$TMP/$level.replay.itr" >"$TMP/$level.replay.txt"
	check "$level: the trace has records" test "$(wc -l <"$TMP/$level.txt")" -gt 1000
	check_files_eq "$level: the replay writes the same records" "$TMP/$level.txt" \
		"$TMP/$level.replay.txt"
done

# A dump cut in a slot is an error, not a shorter trace.
head -c 1000 "$TMP/insn.words" >"$TMP/cut.words"
check_fails "a dump cut in a slot: exit status 1" "$REPLAY" "$TMP/cut.words" "$TMP/cut.itr"
check "a dump cut in a slot: one line says so" sh -c \
	"'$REPLAY' '$TMP/cut.words' '$TMP/cut.itr' 2>&1 | grep -q \"^vg_replay: '.*cut.words': cut in a slot\$\""
# A dump the collector cannot create: a clear error before Valgrind runs.
ITRACE_VG_BENCH=dump:"$TMP/no/such/dir/w" "$COLLECT" -q --backend valgrind -o "$TMP/n.itr" -- true \
	2>"$TMP/n.err"
check_eq "unwritable dump: exit status 1" 1 $?
check_eq "unwritable dump: the error" \
	"itrace-collect: cannot open '$TMP/no/such/dir/w': No such file or directory" "$(cat "$TMP/n.err")"
# A dump that cannot be written while the program runs: the error names
# the dump, not the trace, and the trace says the collector failed.
ITRACE_VG_BENCH=dump:/dev/full "$COLLECT" -q --backend valgrind -o "$TMP/f.itr" -- true \
	2>"$TMP/f.err"
check_eq "dump to a full device: exit status 1" 1 $?
check_eq "dump to a full device: the error" \
	"itrace-collect: cannot write '/dev/full': No space left on device" "$(cat "$TMP/f.err")"
check "dump to a full device: the trace says the collector failed" sh -c \
	"'$DUMP' --summary '$TMP/f.itr' | grep -q '^how: the collector failed: No space left on device'"
done_testing
