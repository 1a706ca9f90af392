#!/bin/sh
# bench/valgrind_speed.sh - itrace-collect --backend valgrind on a workload
# of more than 100 million instructions (tests/data/vg_work), measured in
# the same run against:
#   - the program alone (slow-down; target <= 30x at insn level with MEM),
#   - the ptrace backend's instructions per second, from a bounded run of
#     the same program (its start-up only: ~200k single steps), extrapolated
#     (target: valgrind >= 1000x faster),
#   - bytes written per instruction, against the ptrace backend's trace.
# Times are the best of several runs: the machine is shared.
: "${ITRACE_BUILD:=build}"
: "${ITRACE_ROOT:=$(pwd)}"
BIN="$ITRACE_ROOT/$ITRACE_BUILD/bin"
WORK="$ITRACE_ROOT/$ITRACE_BUILD/tests/data/vg_work"
ROUNDS=${VG_BENCH_ROUNDS:-400}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/itrace-vgbench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# best_of N CMD...: "WALL CPU" (seconds) of the run with the shortest wall
# time.  CPU is user + system of the command and its children (valgrind):
# on a loaded machine it moves much less than the wall time.  The wall time
# comes from date(1) in nanoseconds: time(1)'s 10 ms steps are a quarter of
# the native run (about 40 ms) and swung the slow-down ratio by 25%.
best_of() {
	n=$1
	shift
	best=""
	i=0
	while [ "$i" -lt "$n" ]; do
		t0=$(date +%s%N)
		/usr/bin/time -f "%U %S" -o "$TMP/time" "$@" >/dev/null 2>&1 ||
			{ echo "valgrind_speed: '$*' failed" >&2; exit 1; }
		t1=$(date +%s%N)
		best=$(awk -v best="$best" -v ns=$((t1 - t0)) '{ w = ns / 1e9; c = $1 + $2 }
			END { split(best, b, " "); if (best != "" && b[1] + 0 <= w) print best;
			      else printf "%.4f %.3f\n", w, c }' "$TMP/time")
		i=$((i + 1))
	done
	echo "$best"
}
wall() { echo "$1" | cut -d' ' -f1; }
cpu() { echo "$1" | cut -d' ' -f2; }

# count TRACE TYPE: records of TYPE (INSN, BRANCH) in a trace.
count() {
	"$BIN/itrace-dump" --summary "$1" | awk -v t="$2" '$1 == t { print $2 }'
}
file_bytes() { wc -c <"$1" | tr -d ' '; }

if [ ! -x /usr/bin/time ]; then
	echo "valgrind_speed: needs GNU time (/usr/bin/time; apt-get install time)" >&2
	exit 1
fi
native=$(best_of 5 "$WORK" "$ROUNDS")
vg_insn=$(best_of 3 "$BIN/itrace-collect" -q --backend valgrind -o "$TMP/vi.itr" -- "$WORK" "$ROUNDS")
vg_branch=$(best_of 2 "$BIN/itrace-collect" -q --backend valgrind --level branch -o "$TMP/vb.itr" -- "$WORK" "$ROUNDS")
insns=$(count "$TMP/vi.itr" INSN)
branches=$(count "$TMP/vb.itr" BRANCH)
vg_bytes=$(file_bytes "$TMP/vi.itr")

# The ptrace backend on the program's start-up (0 rounds).
pt=$(best_of 1 "$BIN/itrace-collect" -q --backend ptrace -o "$TMP/pi.itr" -- "$WORK" 0)
pt_insns=$(count "$TMP/pi.itr" INSN)
pt_bytes=$(file_bytes "$TMP/pi.itr")

awk -v n="$(wall "$native")" -v vi="$(wall "$vg_insn")" \
	-v vic="$(cpu "$vg_insn")" -v vb="$(wall "$vg_branch")" -v insns="$insns" -v br="$branches" \
	-v vbytes="$vg_bytes" -v pt="$(wall "$pt")" -v pti="$pt_insns" -v ptb="$pt_bytes" \
	-v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
	vrate = insns / vi; prate = pti / pt
	printf "valgrind_workload_insns  %d insns  %d branches  (workload >= 100M insns; load average %s)\n", insns, br, load
	printf "valgrind_insn_rate  %.0f insn/s  %.0f insn/s  ratio %.0f  (target >= 1000; baseline: ptrace, %d insns in %.2f s)\n", vrate, prate, vrate / prate, pti, pt
	printf "valgrind_insn_slowdown  %.3f s  %.3f s  ratio %.1f  (target <= 30; wall time; baseline: native)\n", vi, n, vi / n
	printf "valgrind_insn_cpu  %.3f s  %.3f s  ratio %.1f  (CPU time of collector and valgrind, less sensitive to load; baseline: native wall)\n", vic, n, vic / n
	printf "valgrind_branch_slowdown  %.3f s  %.3f s  ratio %.1f  (wall time; baseline: native)\n", vb, n, vb / n
	printf "valgrind_bytes_per_insn  %.3f bytes/insn  %.3f bytes/insn  ratio %.2f  (insn level with MEM; baseline: the ptrace run above, start-up code, with instruction bytes)\n", vbytes / insns, ptb / pti, (vbytes / insns) / (ptb / pti)
}'
