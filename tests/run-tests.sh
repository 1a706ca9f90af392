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
#
# --only PATTERN (make check T=PATTERN) runs only the tests whose name,
# as this script prints it, matches the shell pattern PATTERN anywhere:
# build/tests/test_reader (unit), fuzz-replay/fuzz_reader (corpus
# replay), tests/e2e/xml_validate.sh, tests/real/gzip.sh.  So a plain
# word is a substring (T=reader: test_reader*, fuzz_reader, ...), and
# *, ? and [...] work as in case: T='tests/test_*' is every unit test,
# T='e2e/*_x86' the e2e scripts ending so.  A pattern that matches no
# test is an error (exit 2), not an empty pass.
unit="" e2e="" fuzz="" only=""
while [ $# -gt 0 ]; do
	case "$1" in
	--unit) unit="$2"; shift 2 ;;
	--e2e) e2e="$2"; shift 2 ;;
	--fuzz) fuzz="$2"; shift 2 ;;
	--only) only="$2"; shift 2 ;;
	*) echo "run-tests.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
# keep LIST PATTERN: the names of LIST that PATTERN selects (all if empty)
keep() {
	for _t in $1; do
		# (unquoted: the pattern is a glob)
		case "$2" in "") echo "$_t" ;; *) case "$_t" in *$2*) echo "$_t" ;; esac ;; esac
	done
}
# What the whole run would cover, for tests that run the others again
# (tests/e2e/memcheck.sh), whatever --only keeps.
ITRACE_UNIT_TESTS=$unit ITRACE_FUZZ_TARGETS=$fuzz
export ITRACE_UNIT_TESTS ITRACE_FUZZ_TARGETS
unit=$(keep "$unit" "$only")
e2e=$(keep "$e2e" "$only")
fuzz=$(for t in $fuzz; do keep "fuzz-replay/$t" "$only"; done | sed 's|^fuzz-replay/||')
if [ -n "$only" ] && [ -z "$unit$e2e$fuzz" ]; then
	echo "run-tests.sh: no test matches '$only'" >&2
	exit 2
fi
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
