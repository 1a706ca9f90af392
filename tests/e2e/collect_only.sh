#!/bin/sh
# --only main on stripped executables (#15 item 3): Debian's programs have
# no .symtab, and the ptrace backend used to trace only their first 11
# instructions (calls into them from libc went unseen) while saying
# complete.  Module scoping works from the memory map, with or without
# symbols: the executable's instructions under --only main are exactly
# those of a full trace of the same run, for ls, gzip and sort, in both
# backends (the ptrace backend finds the ways back into a stripped
# executable from its unwind table and dynamic section).
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
NORM="$ITRACE_ROOT/tests/helper/normalize.awk"

# in_exe EXE TRACE: the instructions of EXE, relative to its first mapping.
in_exe() {
	"$DUMP" "$2" | awk -v EXE="$1" -v MODE=dynamic -f "$NORM" | grep '^INSN'
}

printf 'pear\napple\nfig\n' >"$TMP/in.txt"
for prog in "ls /" "gzip -c -n $TMP/in.txt" "sort $TMP/in.txt"; do
	set -- $prog
	exe=$(readlink -f "$(command -v "$1")")
	name=$1
	if readelf -S "$exe" | grep -q '\.symtab'; then
		fail "$name: $exe is not stripped; the test needs a stripped program"
		continue
	fi
	"$@" >"$TMP/native.out"
	for be in ptrace valgrind; do
		"$COLLECT" -q --backend $be --only main -o "$TMP/o.itr" -- "$@" >"$TMP/o.out"
		check_files_eq "$name, $be --only main: output unchanged" "$TMP/native.out" "$TMP/o.out"
		"$COLLECT" -q --backend $be -o "$TMP/a.itr" -- "$@" >/dev/null
		in_exe "$exe" "$TMP/o.itr" >"$TMP/o.txt"
		in_exe "$exe" "$TMP/a.itr" >"$TMP/a.txt"
		check_files_eq "$name, $be --only main: the executable's $(wc -l <"$TMP/a.txt") instructions, as in a full trace" \
			"$TMP/a.txt" "$TMP/o.txt"
		check_eq "$name, $be --only main: nothing outside it" "$(wc -l <"$TMP/o.txt")" \
			"$("$DUMP" "$TMP/o.itr" | grep -c ' INSN ')"
		check "$name, $be --only main: complete" sh -c \
			"'$DUMP' --summary '$TMP/o.itr' | grep -q '^complete: yes$'"
	done
done
done_testing
