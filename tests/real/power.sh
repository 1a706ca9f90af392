#!/bin/sh
# One POWER run, two formats, one answer: a ppc64le program traced through
# qemu's gdb stub as .itr and converted with qtrace-conv to .qt gives the
# same pipeline-sim report from either (with --elf for the .qt file's
# symbols).  qtrace has one data address per instruction and no access
# size or direction: the decoder supplies them.
. tests/lib.sh
. tests/helper/real_oracles.sh

PROG="$REAL/ppc64le/real_ppc_mem"
"$BIN/itrace-collect" -q --backend gdb -o "$TMP/p.itr" -- "$PROG" >"$TMP/collect.out" 2>&1
check_eq "the POWER program ran to its end under the gdb backend" 0 $?
check "qtrace-conv" "$BIN/qtrace-conv" -q "$TMP/p.itr" -o "$TMP/p.qt"
"$BIN/pipeline-sim" --core power10 "$TMP/p.itr" 2>&1 | grep -v '^Core .* trace ' >"$TMP/itr.report"
"$BIN/pipeline-sim" --core power10 --elf "$PROG" "$TMP/p.qt" 2>&1 | grep -v '^Core .* trace ' >"$TMP/qt.report"
check "the report names the program's functions" grep -q '_start (real_ppc_mem)' "$TMP/qt.report"
check_files_eq "the same pipeline-sim report from .itr and .qt" "$TMP/itr.report" "$TMP/qt.report"
done_testing
