#!/bin/sh
# Every fuzz target runs under libFuzzer for FUZZ_SECONDS (10) from its
# checked-in corpus (tests/fuzz/corpus/<target>, copied: new inputs are
# not kept) and must find nothing: no crash, no sanitizer report, no leak,
# no input slower than 10 s, no more than 2 GB, and no report of
# UndefinedBehaviorSanitizer when every input the run kept is replayed
# through $ITRACE_BUILD/fuzz-ub/<target> (tests/fuzz/run_target.sh).
# A finding is kept in $ITRACE_BUILD/fuzz-findings/ to reproduce
# (build/fuzz/<target> FILE).  The speed of each target is printed, as
# libFuzzer's runs per second and runs per CPU second; bench/fuzz_speed.sh
# compares it with the 10,000/s target.
. tests/lib.sh
SECONDS_EACH=${FUZZ_SECONDS:-10}
FINDINGS="$ITRACE_ROOT/$ITRACE_BUILD/fuzz-findings"

# The libFuzzer build (clang, libclang-rt; scripts/deps.sh installs both).
if ! make --no-print-directory -s BUILD="$ITRACE_BUILD" fuzz >"$TMP/make.log" 2>&1; then
	fail "make fuzz (clang with libFuzzer)" "$(tail -20 "$TMP/make.log")"
	done_testing
	exit
fi
# run_target.sh itself: a UBSan report in the replay of the kept inputs
# fails the run and keeps the input it stopped on (stand-in binaries: a
# "fuzzer" that keeps two inputs, a replayer that stops on one of them).
mkdir -p "$TMP/fake/fuzz" "$TMP/fake/fuzz-ub"
cat >"$TMP/fake/fuzz/fuzz_fake" <<'EOS'
#!/bin/sh
for a; do dir=$a; done
echo good >"$dir/input-good"; echo bad >"$dir/input-bad"
echo 'stat::number_of_executed_units: 2'
EOS
cat >"$TMP/fake/fuzz-ub/fuzz_fake" <<'EOS'
#!/bin/sh
[ "$1" = -v ] || exit 3
for f in "$2"/*; do
	echo "replaying $f" >&2
	case $f in *-bad) echo "$f:1:1: runtime error: stand-in report" >&2; exit 1 ;; esac
done
EOS
chmod +x "$TMP/fake/fuzz/fuzz_fake" "$TMP/fake/fuzz-ub/fuzz_fake"
set -- $(sh tests/fuzz/run_target.sh "$TMP/fake" fuzz_fake 1 "$TMP/fake/work")
if [ "$1" -ne 0 ] && [ -f "$TMP/fake/work/found/input-bad" ] &&
   [ ! -f "$TMP/fake/work/found/input-good" ] &&
   grep -q 'runtime error: stand-in report' "$TMP/fake/work/log"; then
	ok "run_target.sh: a UBSan report in the replay fails the run, its input kept"
else
	fail "run_target.sh: a UBSan report in the replay fails the run, its input kept" \
		"rc $1; found: $(ls "$TMP/fake/work/found"); $(tail -5 "$TMP/fake/work/log")"
fi

for dir in "$ITRACE_ROOT"/tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	if [ ! -x "$ITRACE_BUILD/fuzz/$t" ]; then
		fail "$t: no fuzz target built for corpus $dir"
		continue
	fi
	set -- $(sh tests/fuzz/run_target.sh "$ITRACE_BUILD" "$t" "$SECONDS_EACH" "$TMP/$t")
	rc=$1 runs=$2 rate=$3 cpu=$4
	if [ "$rc" -eq 0 ] && [ "$runs" -gt 0 ]; then
		ok "$t: $SECONDS_EACH s, $runs runs, $rate runs/s, $(awk -v r="$runs" -v c="$cpu" \
			'BEGIN { printf "%d", (c > 0 ? r / c : 0) }') runs per CPU second, nothing found"
	else
		mkdir -p "$FINDINGS"
		cp "$TMP/$t/found"/* "$FINDINGS/" 2>/dev/null
		fail "$t: a problem found, or the target did not run (exit $rc; input kept in $FINDINGS)" \
			"$(grep -E 'ERROR|SUMMARY|runtime error|UBSan|==[0-9]+==|No such file|not found' "$TMP/$t/log" | head -10)"
	fi
done
done_testing
