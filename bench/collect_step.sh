#!/bin/sh
# itrace-collect benchmarks, each against a baseline measured in this run:
#  - collect_insn_rate: steps/s of itrace-collect --level insn (INSN + MEM
#    records written) vs a bare PTRACE_SINGLESTEP+waitpid loop over the
#    same program (target: at least 80%), unpinned and with tracer and
#    tracee pinned to one CPU;
#  - collect_pin: the bare loop pinned to one CPU vs unpinned;
#  - collect_only_main: time of --start main vs --only main on a program
#    that spends most of its time in libc (speed-up of --only).
# Each time is the best of three runs.
: "${ITRACE_BUILD:=build}"
BIN="$ITRACE_BUILD/bin"
DATA="$ITRACE_BUILD/tests/data"
BARE="$ITRACE_BUILD/bench/collect-bare-step"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/collect-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }
# elapsed CMD...: wall seconds of CMD (output discarded), the best of
# three runs: the machine is shared, and noise only ever adds time.
elapsed() {
	best=""
	for _run in 1 2 3; do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}
rate() { echo "$1 / $2" | bc -l; }
ratio() { echo "$1 / $2" | bc -l; }
line() { # NAME OURS UNIT BASE UNIT TARGET
	printf '%-24s %10.0f %-8s %10.0f %-8s ratio %.2f  (target %s)\n' "$1" "$2" "$3" "$4" "$5" \
		"$(ratio "$2" "$4")" "$6"
}

spin="$DATA/collect_spin"
steps=$("$BARE" "$spin" | awk '{ print $2 }')

bare_t=$(elapsed "$BARE" "$spin")
ours_t=$(elapsed "$BIN/itrace-collect" -q -o "$TMP/s.itr" -- "$spin")
line collect_insn_rate "$(rate "$steps" "$ours_t")" steps/s "$(rate "$steps" "$bare_t")" steps/s ">= 0.80"

pbare_t=$(elapsed taskset -c 0 "$BARE" "$spin")
pours_t=$(elapsed taskset -c 0 "$BIN/itrace-collect" -q -o "$TMP/s.itr" -- "$spin")
line collect_insn_rate_pinned "$(rate "$steps" "$pours_t")" steps/s "$(rate "$steps" "$pbare_t")" steps/s ">= 0.80"
line collect_pin "$(rate "$steps" "$pbare_t")" steps/s "$(rate "$steps" "$bare_t")" steps/s "> 1 to pin"

prog="$DATA/collect_prog"
full_t=$(elapsed "$BIN/itrace-collect" -q --start main -o "$TMP/f.itr" -- "$prog" libc)
only_t=$(elapsed "$BIN/itrace-collect" -q --only main -o "$TMP/o.itr" -- "$prog" libc)
printf '%-24s %10.2f %-8s %10.2f %-8s ratio %.2f  (target > 1, speed-up)\n' collect_only_main \
	"$only_t" s "$full_t" s "$(ratio "$full_t" "$only_t")"
