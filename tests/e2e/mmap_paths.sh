#!/bin/sh
# MMAP records name files as the kernel has them: a name with a space, a
# newline, a byte that is not UTF-8 and a literal "\012" is stored with
# exactly those bytes, not with /proc/PID/maps' "\012" escapes (which
# cannot tell a newline from a backslash): the collector reads the name
# from /proc/PID/map_files.
. tests/lib.sh
"$BIN/itrace-collect" -q -o "$TMP/t.itr" -- "$DATA/mmap_names" "$TMP" >"$TMP/name" 2>"$TMP/err"
check_eq "the program ran" 0 $?
# itrace-dump shows a newline in a path as \x0a and a backslash as \x5c:
# the newline must be one, and the literal "\012" must keep its backslash.
"$BIN/itrace-dump" "$TMP/t.itr" | grep -a " MMAP .*lib a b" >"$TMP/dump"
check "the newline is stored as a newline" grep -aq 'lib a b\\x0ac' "$TMP/dump"
check "the literal backslash stays one" grep -aq '\\x5c012d\.so' "$TMP/dump"
check "one MMAP record for the file" test "$(wc -l <"$TMP/dump")" -eq 1
done_testing
