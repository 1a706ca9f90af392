#!/bin/sh
# bench/qemu_speed.sh - itrace-collect --backend qemu on a gzip-like
# workload (bench/qemu_work.c: LZ77 with hash chains over 1 MiB of text,
# about 166 million ppc64le instructions), measured in the same run
# against:
#   - qemu-user alone on the same program (target: at most 10x slower at
#     instruction level with every memory address),
#   - the gdb backend's instructions per second on the same program, from
#     a bounded run (stopped by SIGINT after QEMU_BENCH_GDB_S seconds),
#     extrapolated (target: at least 10,000x faster),
#   - on x86-64, the same workload's x86-64 build under the valgrind
#     backend (and natively), side by side.
# Where the time goes at instruction level (ppc64le), each step adding to
# the one before: qemu alone; the plugin's callbacks alone, their words
# never handed over (ITRACE_QEMU_BENCH=callbacks); the hand-over of full
# slots to itrace-collect, which gives them back unread
# (ITRACE_QEMU_BENCH=handoff); conversion and encoding, uncompressed
# (--no-compress); the whole (zstd).  Wall and CPU seconds (all processes
# and threads) of each.
# Times are the best of several runs (wall time, bench-runtime): the
# machine is shared.  Instruction counts come from the traces.
: "${ITRACE_BUILD:=build}"
: "${ITRACE_ROOT:=$(pwd)}"
BIN="$ITRACE_ROOT/$ITRACE_BUILD/bin"
RUNTIME="$ITRACE_ROOT/$ITRACE_BUILD/bench/bench-runtime"
PPC="$ITRACE_ROOT/$ITRACE_BUILD/bench/qemu_work.ppc64le"
X86="$ITRACE_ROOT/$ITRACE_BUILD/bench/qemu_work.x86_64"
KIB=${QEMU_BENCH_KIB:-1024}
GDB_S=${QEMU_BENCH_GDB_S:-8}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/itrace-qemubench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if ! command -v qemu-ppc64le >/dev/null || ! command -v qemu-x86_64 >/dev/null; then
	echo "qemu_speed: needs qemu-user (make deps)" >&2
	exit 1
fi

# best_of N CMD...: the shortest wall time of N runs, "WALL CPU" seconds.
best_of() {
	n=$1
	shift
	best=""
	i=0
	while [ "$i" -lt "$n" ]; do
		"$RUNTIME" -o "$TMP/time" "$@" >/dev/null 2>&1 ||
			{ echo "qemu_speed: '$*' failed" >&2; exit 1; }
		best=$(awk -v best="$best" '{ split(best, b, " "); if (best != "" && b[1] + 0 <= $1 + 0)
			print best; else print $1, $2 }' "$TMP/time")
		i=$((i + 1))
	done
	echo "$best"
}
wall() { echo "$1" | cut -d' ' -f1; }
cpu() { echo "$1" | cut -d' ' -f2; }
insns() { "$BIN/itrace-dump" --summary "$1" | awk '$1 == "INSN" { print $2 }'; }

# --- ppc64le -------------------------------------------------------------------------
plain=$(best_of 5 qemu-ppc64le -L /usr/powerpc64le-linux-gnu "$PPC" "$KIB")
traced=$(best_of 3 "$BIN/itrace-collect" -q --backend qemu -o "$TMP/q.itr" -- "$PPC" "$KIB")
n=$(insns "$TMP/q.itr")
bytes=$(wc -c <"$TMP/q.itr" | tr -d ' ')
branch=$(best_of 2 "$BIN/itrace-collect" -q --backend qemu --level branch -o "$TMP/qb.itr" -- "$PPC" "$KIB")
callbacks=$(ITRACE_QEMU_BENCH=callbacks best_of 3 "$BIN/itrace-collect" -q --backend qemu -o "$TMP/c.itr" -- "$PPC" "$KIB")
handoff=$(ITRACE_QEMU_BENCH=handoff best_of 3 "$BIN/itrace-collect" -q --backend qemu -o "$TMP/h.itr" -- "$PPC" "$KIB")
raw=$(best_of 3 "$BIN/itrace-collect" -q --no-compress --backend qemu -o "$TMP/r.itr" -- "$PPC" "$KIB")
rm -f "$TMP/c.itr" "$TMP/h.itr" "$TMP/r.itr"
# The gdb backend for GDB_S seconds (it would take days): its rate.
"$RUNTIME" -o "$TMP/gtime" timeout -s INT "$GDB_S" \
	"$BIN/itrace-collect" -q --backend gdb -o "$TMP/g.itr" -- "$PPC" "$KIB" >/dev/null 2>&1
gn=$(insns "$TMP/g.itr")
gw=$(cut -d' ' -f1 "$TMP/gtime")

awk -v n="$n" -v q="$(wall "$traced")" -v p="$(wall "$plain")" -v b="$(wall "$branch")" \
	-v gn="$gn" -v gw="$gw" -v bytes="$bytes" -v kib="$KIB" \
	-v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
	qrate = n / q; prate = n / p; grate = gn / gw
	printf "qemu_ppc64le_workload  %d insns  (qemu_work %d KiB, gzip-like; >= 100M insns; load average %s)\n", n, kib, load
	printf "qemu_ppc64le_insn_rate  %.0f insn/s  %.0f insn/s  ratio %.0f  (target >= 10000; baseline: gdb backend, %d insns in %.1f s, extrapolated)\n", qrate, grate, qrate / grate, gn, gw
	printf "qemu_ppc64le_insn_slowdown  %.3f s  %.3f s  ratio %.1f  (target <= 10; instruction level with MEM; baseline: qemu-ppc64le alone, %.0f insn/s)\n", q, p, q / p, prate
	printf "qemu_ppc64le_branch_slowdown  %.3f s  %.3f s  ratio %.1f  (branch level; baseline: qemu-ppc64le alone)\n", b, p, b / p
	printf "qemu_ppc64le_bytes_per_insn  %.3f bytes/insn  (instruction level with MEM, zstd)\n", bytes / n
}'
# Where the time goes: each line is a step more than the one before.
for step in "plain:$plain" "callbacks:$callbacks" "handoff:$handoff" "convert_encode:$raw" "zstd:$traced"; do
	name=${step%%:*}
	t=${step#*:}
	awk -v name="$name" -v w="$(wall "$t")" -v c="$(cpu "$t")" -v p="$(wall "$plain")" 'BEGIN {
		printf "qemu_ppc64le_time_%s  %.3f s  %.3f s  ratio %.1f  (wall, and CPU of all processes; ratio: wall against qemu-ppc64le alone)\n", name, w, c, w / p
	}'
done

# --- x86-64: beside the valgrind backend ---------------------------------------------
native=$(best_of 5 "$X86" "$KIB")
xplain=$(best_of 3 qemu-x86_64 "$X86" "$KIB")
xq=$(best_of 3 "$BIN/itrace-collect" -q --backend qemu -o "$TMP/x.itr" -- "$X86" "$KIB")
xn=$(insns "$TMP/x.itr")
if [ -x "$BIN/../lib/itrace/valgrind/itrace-amd64-linux" ] && command -v valgrind >/dev/null; then
	xv=$(best_of 3 "$BIN/itrace-collect" -q --backend valgrind -o "$TMP/v.itr" -- "$X86" "$KIB")
	vn=$(insns "$TMP/v.itr")
else
	xv="0 0" vn=0
fi
awk -v n="$xn" -v q="$(wall "$xq")" -v p="$(wall "$xplain")" -v v="$(wall "$xv")" -v vn="$vn" \
	-v nat="$(wall "$native")" 'BEGIN {
	printf "qemu_x86_64_insn_slowdown  %.3f s  %.3f s  ratio %.1f  (target <= 10; baseline: qemu-x86_64 alone; %d insns)\n", q, p, q / p, n
	if (v > 0)
		printf "qemu_x86_64_vs_valgrind  %.3f s  %.3f s  ratio %.2f  (same workload, instruction level with MEM; baseline: valgrind backend, %d insns; native %.3f s)\n", q, v, q / v, vn, nat
}'
