#!/bin/sh
# README's pipeline with every backend itrace-collect lists:
#   itrace-collect --backend B --level branch -o - -- PROG | itrace-fill | qtrace-conv -o prog.qt
# The trace travels through the pipe intact (nothing of the program's
# output in it: tests/real/prog/prog.c writes "prog: total ..." on its
# stdout), the
# filled stream is the trace of a run to a file, and qtrace-conv turns a
# POWER one into qtrace (the same as from a file) and refuses an x86-64 one
# by name.  A backend the machine cannot run (Intel BTS on AMD or in a VM)
# says why: reported as unavailable here, the only skip make check allows.
. tests/lib.sh
. tests/helper/real_oracles.sh

X86="$REAL/prog"
PPC="$REAL/ppc64le/real_ppc_mem"

# pipe_case NAME BACKEND PROG - the pipeline with BACKEND on PROG: once
# into a file instead of qtrace-conv (the stream), once as printed.
pipe_case() {
	_nm=$1 _b=$2 _p=$3
	(cd "$WORK" && "$BIN/itrace-collect" -q --backend "$_b" --level branch -o - -- "$_p" 2>"$TMP/$_nm.collect.err" |
		tee "$TMP/$_nm.stream" | "$BIN/itrace-fill" -q >"$TMP/$_nm.piped.itr" 2>"$TMP/$_nm.fill.err")
	(cd "$WORK" && "$BIN/itrace-collect" -q --backend "$_b" --level branch -o - -- "$_p" 2>/dev/null |
		"$BIN/itrace-fill" -q 2>/dev/null | "$BIN/qtrace-conv" -q -o "$TMP/$_nm.qt" 2>"$TMP/$_nm.conv.err")
	echo $? >"$TMP/$_nm.conv.rc"
	# the same run to a file, filled from the file (the program's output
	# to a regular file, as it goes to the collector's stderr above: a
	# program's stdio behaves after what its output is)
	(cd "$WORK" && "$BIN/itrace-collect" -q --backend "$_b" --level branch -o "$TMP/$_nm.file.itr" -- "$_p" \
		>"$TMP/$_nm.file.out" 2>&1)
	"$BIN/itrace-fill" -q -o "$TMP/$_nm.filled.itr" "$TMP/$_nm.file.itr" 2>/dev/null
	check "$_nm: the stream is a whole trace, nothing else in it" \
		sh -c "'$BIN/itrace-dump' -q '$TMP/$_nm.stream' && ! grep -aq 'prog: total' '$TMP/$_nm.stream'"
	if "$ORACLE" same-insns "$TMP/$_nm.filled.itr" "$TMP/$_nm.piped.itr" >"$TMP/$_nm.same" 2>&1; then
		ok "$_nm: the pipeline's instructions are those of a trace to a file"
	else
		fail "$_nm: the pipeline's instructions are those of a trace to a file" \
			"$(cat "$TMP/$_nm.same" "$TMP/$_nm.collect.err" "$TMP/$_nm.fill.err")"
	fi
}

"$BIN/itrace-collect" --list-backends >"$TMP/backends"
check "itrace-collect lists its backends" test -s "$TMP/backends"
while read -r backend state rest; do
	case $state in
	unavailable:)
		# unavailable without a program: the gdb backend needs one
		if "$BIN/itrace-collect" -q --backend "$backend" --level branch -o /dev/null -- "$X86" \
			>/dev/null 2>"$TMP/why"; then
			:
		else
			unavailable "pipeline with --backend $backend" "$(head -1 "$TMP/why")"
			continue
		fi
		;;
	esac
	pipe_case "$backend-x86" "$backend" "$X86"
	check_eq "$backend-x86: qtrace-conv refuses x86-64, by name" "1 yes" \
		"$(cat "$TMP/$backend-x86.conv.rc") $(grep -q 'x86-64' "$TMP/$backend-x86.conv.err" && echo yes)"
	if [ "$backend" = gdb ]; then
		pipe_case gdb-ppc64le gdb "$PPC"
		"$BIN/qtrace-conv" -q "$TMP/gdb-ppc64le.filled.itr" -o "$TMP/file.qt"
		check_eq "gdb-ppc64le: qtrace-conv wrote qtrace" 0 "$(cat "$TMP/gdb-ppc64le.conv.rc")"
		"$BIN/qtrace-conv" --dump "$TMP/gdb-ppc64le.qt" | sed 1d >"$TMP/piped.dump"
		"$BIN/qtrace-conv" --dump "$TMP/file.qt" | sed 1d >"$TMP/file.dump"
		check "gdb-ppc64le: instructions in the qtrace file" test -s "$TMP/piped.dump"
		check_files_eq "gdb-ppc64le: the same qtrace as from files" "$TMP/file.dump" "$TMP/piped.dump"
	fi
done <"$TMP/backends"
done_testing
