#!/bin/sh
# The fill oracle: for deterministic programs, itrace-collect --level branch
# followed by itrace-fill must give exactly the instruction addresses, per
# thread, of itrace-collect --level insn.  Covers loops, recursion, indirect
# calls and jumps, jump tables, signals, int3, setjmp/longjmp, syscalls,
# fork, exec, the vDSO, rep movs, a crash and libc-heavy code.
. tests/lib.sh
COLLECT="$BIN/itrace-collect"
FILL="$BIN/itrace-fill"
DUMP="$BIN/itrace-dump"

# (glibc runs its AVX-512 string functions here when the CPU has them:
# the fills of libc code also check the VEX/EVEX length fallback.)

if [ ! -x "$COLLECT" ] || ! "$COLLECT" -q --level branch -o "$TMP/probe.itr" -- "$DATA/fill_loop" >/dev/null 2>&1; then
	echo "ok 1 # SKIP itrace-collect missing or ptrace not permitted"
	echo "1..1"
	exit 0
fi

# thread_sums FILE: one checksum per thread of its INSN addresses, sorted,
# so thread ids (which differ between runs) do not matter.
thread_sums() {
	rm -rf "$TMP/threads" && mkdir "$TMP/threads"
	"$DUMP" "$1" | awk -v d="$TMP/threads" '$2 == "INSN" { print $3 > (d "/" $1) }'
	for f in "$TMP"/threads/*; do [ -f "$f" ] && echo "$(wc -l <"$f") $(md5sum <"$f" | cut -c1-32)"; done | sort
}

# oracle NAME COLLECT-OPTIONS -- PROGRAM ARGS...: with the backend in
# $BACKEND (each general backend in turn, below).
# The two levels come from two runs of the program.  A few paths are not
# deterministic (the vDSO's clock_gettime retries its read when the kernel
# updates the time meanwhile, here in about a third of the slower insn-level
# runs), so a mismatch is retried with fresh runs up to 6 times: a fill
# error fails every time, a race only once in a while.
oracle() {
	name="$BACKEND: $1"
	shift
	for attempt in 1 2 3 4 5 6; do
		"$COLLECT" -q --backend "$BACKEND" --level branch -o "$TMP/b.itr" "$@" >/dev/null 2>&1
		"$COLLECT" -q --backend "$BACKEND" --level insn -o "$TMP/i.itr" "$@" >/dev/null 2>&1
		if ! "$FILL" "$TMP/b.itr" -o "$TMP/f.itr" 2>"$TMP/fill.err"; then
			fail "$name: itrace-fill failed" "$(cat "$TMP/fill.err")"
			return
		fi
		# (a trace with a stretch the collector could not trace, the
		# SIGTRAP handler of "trap", is not complete: fill says so, rightly)
		grep -v "is not complete: the program exited with status [0-9]*; [0-9]* gaps\$" \
			"$TMP/fill.err" >"$TMP/fill.err2" || true
		mv "$TMP/fill.err2" "$TMP/fill.err"
		want=$(thread_sums "$TMP/i.itr")
		got=$(thread_sums "$TMP/f.itr")
		[ "$want" = "$got" ] && break
	done
	if [ -z "$want" ]; then
		fail "$name: the instruction-level trace is empty"
	elif [ "$want" = "$got" ] && [ ! -s "$TMP/fill.err" ]; then
		ok "$name: filled = collected ($(echo "$want" | awk '{ n += $1 } END { print n }') instructions, $(echo "$want" | wc -l) threads)"
	else
		fail "$name: filled = collected" "insn level (count sum):
$want
filled:
$got
$(cat "$TMP/fill.err")"
	fi
}

# bts_loops and fill_xloops run loop, loope, loopne, jrcxz and jecxz taken
# and not taken: the collector and the fill must both take them for
# conditional branches (libitrace's decoder tells both), also where the
# outcome is known when the code is translated (valgrind folds it).
P="$DATA/collect_prog"
for BACKEND in ptrace valgrind; do
	for prog in fill_loop fill_bench collect_basic sim_branchy export_calls bts_loops fill_xloops; do
		if [ -x "$DATA/$prog" ]; then oracle "$prog" -- "$DATA/$prog"; else fail "$prog: test program not built"; fi
	done
	for mode in work calls longjmp signal trap repmovs vdso exec segv libc; do
		oracle "collect_prog $mode" --start main -- "$P" "$mode"
	done
done
BACKEND=ptrace # only ptrace follows forks
oracle "collect_prog fork" --start main --follow-fork -- "$P" fork

# The listing names functions and source lines (libdw) of a -g program.
"$COLLECT" -q --level branch --start main -o "$TMP/lines.itr" -- "$DATA/fill_lines" >/dev/null 2>&1
"$FILL" --text --symbols "$TMP/lines.itr" >"$TMP/list.txt" 2>&1
check "listing: fill_square+0x0 at fill_lines.c" grep -q "fill_square+0x0 .*fill_lines.c:[0-9]" "$TMP/list.txt"
check "listing: libc symbols (printf)" grep -q "printf+0x" "$TMP/list.txt"
done_testing
