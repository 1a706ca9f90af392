#!/bin/sh
# bench/valgrind_speed.sh - itrace-collect's valgrind backend (issue 22) on
# two workloads, measured in the same run against the program alone, and
# with Valgrind's own tools beside it:
#   gzip    gzip -c of 2 MB of this machine's libc (about 450 million
#           instructions): the workload the targets are set on;
#   python  python3 -c with a small loop (interpreter start-up and a loop:
#           much code, indirect jumps).
# For each: native, valgrind --tool=none, cachegrind, the backend at branch
# level and at instruction level with MEM records (slow-down against
# native, bytes per instruction of the trace), and where the time goes at
# instruction level: the tool alone (ITRACE_VG_BENCH=tool: slots handed
# back unread), conversion and encoding without compression (to
# /dev/null), and the whole (zstd fast level -1, 4 MiB chunks, to a file), with the CPU time
# zstd(1) takes to compress that trace at that level (--fast=1).  Then `itrace-collect --
# ls /` with no option at all, in seconds.
#
# Every figure is the median of VG_BENCH_ROUNDS runs (default 5): the
# machine is shared, so the load average is printed with the figures.
# Targets (issue 22, gzip): <= 15x native at insn level with MEM, <= 6x at
# branch level, <= 0.3 bytes per instruction.
: "${ITRACE_BUILD:=build}"
: "${ITRACE_ROOT:=$(pwd)}"
BIN="$ITRACE_ROOT/$ITRACE_BUILD/bin"
RUNTIME="$ITRACE_ROOT/$ITRACE_BUILD/bench/bench-runtime"
ROUNDS=${VG_BENCH_ROUNDS:-5}
PY_LOOP=${VG_BENCH_PY_LOOP:-300000}
LIBC=${VG_BENCH_LIBC:-/lib/x86_64-linux-gnu/libc.so.6}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/itrace-vgbench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

for tool in gzip valgrind zstd /usr/bin/python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "valgrind_speed: needs $tool" >&2
		exit 1
	fi
done
if [ ! -x "$RUNTIME" ]; then
	echo "valgrind_speed: needs $RUNTIME (make bench builds it)" >&2
	exit 1
fi

# 2,000,000 bytes of libc (repeated if it is shorter).
cat "$LIBC" "$LIBC" | head -c 2000000 >"$TMP/libc2m"
PY="s = 0
for i in range($PY_LOOP):
    s += i * i % 7
print(s)"

. "$ITRACE_ROOT/bench/lib.sh" # median, wall, cpu
count() { "$BIN/itrace-dump" --summary "$1" | awk -v t="$2" '$1 == t { print $2 }'; }
size() { wc -c <"$1" | tr -d ' '; }

# workload NAME CMD...: every line for one workload.
workload() {
	name=$1
	shift
	load0=$(cut -d' ' -f1 /proc/loadavg)
	native=$(median "$ROUNDS" "$@")
	none=$(median "$ROUNDS" valgrind -q --tool=none "$@")
	cg=$(median "$ROUNDS" valgrind -q --tool=cachegrind --cachegrind-out-file=/dev/null "$@")
	ci="$BIN/itrace-collect -q --backend valgrind"
	branch=$(median "$ROUNDS" $ci --level branch -o "$TMP/b.itr" -- "$@")
	insn=$(median "$ROUNDS" $ci -o "$TMP/i.itr" -- "$@")
	tool=$(ITRACE_VG_BENCH=tool median "$ROUNDS" $ci -o "$TMP/x.itr" -- "$@")
	tool_b=$(ITRACE_VG_BENCH=tool median "$ROUNDS" $ci --level branch -o "$TMP/x.itr" -- "$@")
	raw=$(median "$ROUNDS" $ci --no-compress -o - -- "$@")
	$ci --no-compress -o "$TMP/raw.itr" -- "$@" >/dev/null 2>&1
	# zstd's share: the records the writer compresses, at its level (-1),
	# compressed by zstd(1) on one thread, against the CPU of the whole run.
	zs=$(median 1 zstd -q --fast=1 -T1 -f -o "$TMP/raw.zst" "$TMP/raw.itr")
	rm -f "$TMP/raw.zst"
	awk -v name="$name" -v n="$(wall "$native")" -v none="$(wall "$none")" -v cg="$(wall "$cg")" \
		-v b="$(wall "$branch")" -v bc="$(cpu "$branch")" -v i="$(wall "$insn")" \
		-v ic="$(cpu "$insn")" -v t="$(wall "$tool")" -v tc="$(cpu "$tool")" \
		-v tb="$(wall "$tool_b")" -v r="$(wall "$raw")" -v rc="$(cpu "$raw")" \
		-v insns="$(count "$TMP/i.itr" INSN)" -v mems="$(count "$TMP/i.itr" MEM)" \
		-v branches="$(count "$TMP/b.itr" BRANCH)" -v ibytes="$(size "$TMP/i.itr")" \
		-v bbytes="$(size "$TMP/b.itr")" -v rawbytes="$(size "$TMP/raw.itr")" \
		-v zs="$(cpu "$zs")" -v load0="$load0" -v load1="$(cut -d' ' -f1 /proc/loadavg)" \
		-v gz="$([ "$name" = gzip ] && echo 1 || echo 0)" 'BEGIN {
	tgt_i = gz ? "target <= 15" : "no target"
	tgt_b = gz ? "target <= 6" : "no target"
	tgt_s = gz ? "target <= 0.3 bytes/insn, the first figure; the ratio is the compression" : "no target"
	printf "vg_%s_workload  %d insns  %d MEM  %d branches  (median of runs; load average %s at the start, %s at the end)\n", name, insns, mems, branches, load0, load1
	printf "vg_%s_none  %.3f s  %.3f s  ratio %.1f  (valgrind --tool=none; baseline: native)\n", name, none, n, none / n
	printf "vg_%s_cachegrind  %.3f s  %.3f s  ratio %.1f  (baseline: native)\n", name, cg, n, cg / n
	printf "vg_%s_branch  %.3f s  %.3f s  ratio %.1f  (%s; branch level, CPU %.3f s; baseline: native)\n", name, b, n, b / n, tgt_b, bc
	printf "vg_%s_insn  %.3f s  %.3f s  ratio %.1f  (%s; insn level with MEM, CPU %.3f s; baseline: native)\n", name, i, n, i / n, tgt_i, ic
	printf "vg_%s_insn_bytes  %.3f bytes/insn  %.3f bytes/insn  ratio %.2f  (%s; %d bytes, zstd; baseline: the same trace uncompressed)\n", name, ibytes / insns, rawbytes / insns, ibytes / rawbytes, tgt_s, ibytes
	printf "vg_%s_branch_bytes  %.3f bytes/branch  (%d bytes)\n", name, bbytes / branches, bbytes
	printf "vg_%s_time_tool  %.3f s  %.3f s  ratio %.1f  (insn level, the tool alone, CPU %.3f s; branch level %.3f s; baseline: native)\n", name, t, n, t / n, tc, tb
	printf "vg_%s_time_encode  %.3f s  %.3f s  ratio %.2f  (insn level, converted and encoded, no compression, CPU %.3f s; baseline: the whole)\n", name, r, i, r / i, rc
	printf "vg_%s_time_zstd  %.3f s  %.3f s  ratio %.2f  (CPU of zstd --fast=1, the level the writer uses, on the uncompressed trace, one thread; baseline: CPU of the whole)\n", name, zs, ic, zs / ic
}'
}

workload gzip gzip -c "$TMP/libc2m"
workload python /usr/bin/python3 -c "$PY"

# A new user's first command: no option at all (the backend is chosen).
cd "$TMP" || exit 1
ls_run=$(median "$ROUNDS" "$BIN/itrace-collect" -q -- ls /)
ls_native=$(median "$ROUNDS" ls /)
awk -v l="$(wall "$ls_run")" -v n="$(wall "$ls_native")" 'BEGIN {
	printf "vg_ls_default  %.3f s  %.3f s  ratio %.0f  (itrace-collect -- ls / with no option; baseline: ls / alone)\n", l, n, l / n
}'
