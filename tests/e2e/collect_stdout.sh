#!/bin/sh
# -o -: the trace owns standard output, with every backend.  The program's
# own output goes to stderr (never into the trace stream), and the README's
# pipeline `itrace-collect -o - -- prog | itrace-fill | qtrace-conv` works
# as printed.  Real programs: /bin/echo and ls under ptrace and valgrind;
# the gdb backend runs our small static programs under qemu.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
FILL="$BIN/itrace-fill"

# pipe_ok NAME STDERR_FILE WORD: the trace read from $TMP/sum has no
# damage, and the program's output WORD went to stderr.
pipe_ok() {
	check "$1: the trace stream is intact" sh -c \
		"grep -q '^ended: complete' '$TMP/sum' && ! grep -q '^damage' '$TMP/sum'"
	check "$1: the program's stdout went to stderr" grep -q "$3" "$2"
}

for be in ptrace valgrind; do
	if [ "$be" = valgrind ] && ! "$COLLECT" --list-backends | grep -q '^valgrind *available'; then
		fail "valgrind backend unavailable on a machine that has it installed"
		continue
	fi
	"$COLLECT" -q --backend $be --level branch -o - -- /bin/echo printed-by-echo 2>"$TMP/err" |
		"$FILL" -q | "$DUMP" --summary - >"$TMP/sum" 2>>"$TMP/err"
	pipe_ok "$be: echo | itrace-fill" "$TMP/err" printed-by-echo
	check "$be: itrace-fill rebuilt instructions" sh -c "grep -q '^  INSN' '$TMP/sum'"
	"$COLLECT" -q --backend $be -o - -- /bin/ls -d / /proc 2>"$TMP/err" | "$DUMP" --summary - >"$TMP/sum" 2>>"$TMP/err"
	pipe_ok "$be: ls at insn level" "$TMP/err" '^/proc$'
done

if command -v qemu-x86_64 >/dev/null; then
	ITRACE_GDB_STUB=qemu "$COLLECT" -q --backend gdb -o - -- "$DATA/collect_basic" 2>"$TMP/err" |
		"$DUMP" --summary - >"$TMP/sum" 2>>"$TMP/err"
	check "gdb (qemu-x86_64): the trace stream is intact" sh -c \
		"grep -q '^ended: complete, status 7' '$TMP/sum' && ! grep -q '^damage' '$TMP/sum'"
	check "gdb (qemu-x86_64): the program's write went to stderr" grep -q 'ok!' "$TMP/err"
else
	fail "qemu-x86_64 is not installed (make deps installs qemu-user)"
fi

# The README's pipeline, as printed, on a POWER program.
if command -v qemu-ppc64le >/dev/null; then
	( cd "$TMP" && "$COLLECT" --backend gdb --level branch -o - -- "$DATA/ppc64le/pipe_hello" 2>err |
		"$FILL" | "$BIN/qtrace-conv" -o prog.qt ) 2>"$TMP/err2"
	check_eq "collect | itrace-fill | qtrace-conv: exit status 0" 0 $?
	check "the program's output went to stderr" grep -q 'hello from ppc64le' "$TMP/err"
	check "qtrace-conv got every instruction (9)" sh -c \
		"test \$('$BIN/qtrace-conv' --dump '$TMP/prog.qt' | grep -c '^iar=') = 9"
else
	fail "qemu-ppc64le is not installed (make deps installs qemu-user)"
fi
done_testing
