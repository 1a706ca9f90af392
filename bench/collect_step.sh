#!/bin/sh
# itrace-collect benchmarks, each against a baseline measured in this run:
#  - collect_insn_rate: steps/s of itrace-collect --level insn --no-pin
#    (INSN + MEM records written) vs a bare PTRACE_SINGLESTEP+waitpid loop
#    over the same program (target: at least 80%), and the same with
#    tracer and tracee on one CPU (itrace-collect's default; the bare loop
#    under taskset);
#  - collect_pin: itrace-collect's default (one CPU) vs --no-pin, and the
#    bare loop pinned vs unpinned, with the microseconds per step;
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
ours_t=$(elapsed "$BIN/itrace-collect" -q --backend ptrace --no-pin -o "$TMP/s.itr" -- "$spin")
line collect_insn_rate "$(rate "$steps" "$ours_t")" steps/s "$(rate "$steps" "$bare_t")" steps/s ">= 0.80"

pbare_t=$(elapsed taskset -c 0 "$BARE" "$spin")
pours_t=$(elapsed "$BIN/itrace-collect" -q --backend ptrace -o "$TMP/s.itr" -- "$spin")
line collect_insn_rate_pinned "$(rate "$steps" "$pours_t")" steps/s "$(rate "$steps" "$pbare_t")" steps/s ">= 0.80"
line collect_pin "$(rate "$steps" "$pours_t")" steps/s "$(rate "$steps" "$ours_t")" steps/s "> 1 to pin"
printf '%-24s %10.1f %-8s %10.1f %-8s (itrace-collect: one CPU, --no-pin)\n' collect_us_per_step \
	"$(echo "$pours_t * 1000000 / $steps" | bc -l)" us "$(echo "$ours_t * 1000000 / $steps" | bc -l)" us
line collect_pin_bare "$(rate "$steps" "$pbare_t")" steps/s "$(rate "$steps" "$bare_t")" steps/s "> 1 to pin"

prog="$DATA/collect_prog"
full_t=$(elapsed "$BIN/itrace-collect" -q --backend ptrace --start main -o "$TMP/f.itr" -- "$prog" libc)
only_t=$(elapsed "$BIN/itrace-collect" -q --backend ptrace --only main -o "$TMP/o.itr" -- "$prog" libc)
printf '%-24s %10.2f %-8s %10.2f %-8s ratio %.2f  (target > 1, speed-up)\n' collect_only_main \
	"$only_t" s "$full_t" s "$(ratio "$full_t" "$only_t")"
