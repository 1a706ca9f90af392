#!/bin/sh
# bench/valgrind_replay.sh - the valgrind backend's collector side alone
# (issue 22): the tool's words for gzip -c of 2 MB of this machine's libc
# (bench/valgrind_speed.sh's workload; about 2 GB of words at instruction
# level, 0.9 GB at branch level, in TMPDIR) are dumped once per level (ITRACE_VG_BENCH=dump:FILE), then
# converted and written again by build/bench/vg_replay, which sets the
# writer up as itrace-collect does, without Valgrind running beside it.
# The same words each time and nothing else on the cores: the figures
# vary with the machine's speed but not with how the tool and the
# collector happen to share two cores, so a change to the converter or
# the writer shows here when the whole run's noise (10-20%) hides it.
#
# Each line: the replay's CPU seconds (median of VG_BENCH_ROUNDS, 5;
# bench-runtime counts the writer's compression thread too),
# against the CPU seconds of gzip alone on the same input, and the ratio;
# at instruction level also without compression (encoding alone) and the
# nanoseconds per instruction.  No target of its own: the ratio is the
# part of issue 22's 15x (instruction level) and 6x (branch level) that
# the collector's side costs in CPU.
: "${ITRACE_BUILD:=build}"
: "${ITRACE_ROOT:=$(pwd)}"
BIN="$ITRACE_ROOT/$ITRACE_BUILD/bin"
REPLAY="$ITRACE_ROOT/$ITRACE_BUILD/bench/vg_replay"
RUNTIME="$ITRACE_ROOT/$ITRACE_BUILD/bench/bench-runtime"
ROUNDS=${VG_BENCH_ROUNDS:-5}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vg-replay.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

for tool in gzip valgrind; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "valgrind_replay: $tool is not installed (make deps installs it)" >&2
		exit 1
	fi
done
LIBC=${VG_BENCH_LIBC:-/lib/x86_64-linux-gnu/libc.so.6}
cat "$LIBC" "$LIBC" | head -c 2000000 >"$TMP/in"

. "$ITRACE_ROOT/bench/lib.sh" # median, cpu

native=$(cpu "$(median "$ROUNDS" gzip -c "$TMP/in")")
ITRACE_VG_BENCH=dump:"$TMP/insn.words" "$BIN/itrace-collect" -q --backend valgrind \
	-o "$TMP/x.itr" -- gzip -c "$TMP/in" >/dev/null || exit 1
ITRACE_VG_BENCH=dump:"$TMP/branch.words" "$BIN/itrace-collect" -q --backend valgrind \
	--level branch -o "$TMP/x.itr" -- gzip -c "$TMP/in" >/dev/null || exit 1
"$REPLAY" "$TMP/insn.words" "$TMP/i.itr" 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
insns=$("$BIN/itrace-dump" --summary "$TMP/i.itr" | awk '$1 == "INSN" { print $2 }')
insn=$(cpu "$(median "$ROUNDS" "$REPLAY" "$TMP/insn.words" "$TMP/i.itr")")
# to /dev/null: writing four times the bytes to a file would cost more
# system time than zstd saves
raw=$(cpu "$(median "$ROUNDS" "$REPLAY" --no-compress "$TMP/insn.words" -)")
branch=$(cpu "$(median "$ROUNDS" "$REPLAY" --branch "$TMP/branch.words" "$TMP/b.itr")")
awk -v n="$native" -v i="$insn" -v r="$raw" -v b="$branch" -v insns="$insns" 'BEGIN {
	if (n <= 0) n = 0.001
	printf "vg_replay_insn          %.3f s  %.3f s  ratio %.1f  (converter and writer with zstd, CPU, against gzip alone; %.2f ns per instruction)\n", i, n, i / n, i / insns * 1e9
	printf "vg_replay_insn_encode   %.3f s  %.3f s  ratio %.1f  (the same without compression: conversion and encoding; zstd %.0f%% of the replay)\n", r, n, r / n, (i - r) / i * 100
	printf "vg_replay_branch        %.3f s  %.3f s  ratio %.1f  (branch level, converter and writer with zstd, CPU)\n", b, n, b / n
}'
