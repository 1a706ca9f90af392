#!/bin/sh
# Run every test and print one summary line "N passed, N failed, N skipped",
# then the name and reason of every skipped test.
#
# Each test program speaks TAP on stdout ("ok N - name", "not ok N - name"):
# cmocka unit tests through CMOCKA_MESSAGE_OUTPUT=TAP, end-to-end scripts
# through tests/lib.sh, fuzz replays one line per corpus directory.  A
# program that exits non-zero without reporting a failure counts as one.
# "ok N - name # SKIP reason" is a skip, never a pass.  The run fails when
# a test skips unless its reason starts with "unavailable here:" (lib.sh's
# `unavailable`: hardware or a kernel feature this machine lacks), since a
# test that can run here must run.
# The full log goes to $ITRACE_BUILD/test-log.txt; failures are echoed.
# A program still running after ITRACE_TEST_TIMEOUT seconds (600) is
# killed and fails: a hang must not stall the suite.
unit="" e2e="" fuzz=""
while [ $# -gt 0 ]; do
	case "$1" in
	--unit) unit="$2"; shift 2 ;;
	--e2e) e2e="$2"; shift 2 ;;
	--fuzz) fuzz="$2"; shift 2 ;;
	*) echo "run-tests.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
: "${ITRACE_BUILD:=build}"
export ITRACE_BUILD
ITRACE_ROOT=$(pwd)
export ITRACE_ROOT
log="$ITRACE_BUILD/test-log.txt"
: >"$log"
passed=0 failed=0 skipped=0
skips=$(mktemp)

# run_one NAME CMD...: run, count TAP lines, show failures.
run_one() {
	name="$1"; shift
	out=$(mktemp)
	start=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout "${ITRACE_TEST_TIMEOUT:-600}" "$@" >"$out" 2>&1
	rc=$?
	end=$(date +%s)
	s=$(grep -ci '^ok [^#]*# *skip' "$out")
	p=$(($(grep -c '^ok ' "$out") - s))
	f=$(grep -c '^not ok ' "$out")
	grep -i '^ok [^#]*# *skip' "$out" | sed "s|^ok [0-9]* *-* *|$name: |" >>"$skips"
	if [ "$rc" -eq 124 ]; then
		f=$((f + 1))
		echo "not ok - $name timed out after ${ITRACE_TEST_TIMEOUT:-600}s" >>"$out"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $rc" >>"$out"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	{ echo "=== $name (rc=$rc, ${p} ok, ${f} failed, ${s} skipped, $((end - start))s)"; cat "$out"; } >>"$log"
	printf '%-50s %4d ok %4d failed %4d skipped %4ds\n' "$name" "$p" "$f" "$s" "$((end - start))"
	if [ "$f" -ne 0 ]; then
		grep -E '^not ok|^#' "$out" | head -40 | sed 's/^/    /'
	fi
	rm -f "$out"
}

for t in $unit; do run_one "$t" "./$t"; done
for t in $fuzz; do
	run_one "fuzz-replay/$t" "./$ITRACE_BUILD/fuzz-replay/$t" "tests/fuzz/corpus/$t"
done
for t in $e2e; do run_one "$t" sh "$t"; done

echo "full log: $log"
echo "$passed passed, $failed failed, $skipped skipped"
if [ "$skipped" -ne 0 ]; then
	echo "skipped:"
	sed 's/^/    /' "$skips"
fi
# skips that this machine could have run: the run fails
can_run=$(grep -vci '# *skip unavailable here:' "$skips")
rm -f "$skips"
if [ "$can_run" -ne 0 ]; then
	echo "run-tests.sh: $can_run skipped test(s) can run on this machine"
	exit 1
fi
[ "$failed" -eq 0 ]
