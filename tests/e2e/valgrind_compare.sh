#!/bin/sh
# itrace-collect --backend valgrind against the ptrace backend on the same
# deterministic programs: for code in the main executable the instruction
# addresses, the loads and stores (kind, size, address; the stack is placed
# elsewhere by Valgrind, so stack addresses compare relative to the first
# one) and the branches are identical; start/stop windows cover the same
# instructions; program output and exit status are those of a plain run.
. "$ITRACE_ROOT/tests/lib.sh"
# Without valgrind (or its development files at build time) there is no
# backend to test: say so instead of failing.
if ! command -v valgrind >/dev/null 2>&1 ||
	[ ! -x "$BIN/../lib/itrace/valgrind/itrace-amd64-linux" ]; then
	echo "ok 1 # SKIP valgrind or the itrace valgrind tool is not installed"
	echo "1..1"
	exit 0
fi
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
NORM="$ITRACE_ROOT/tests/helper/normalize.awk"
MEMP="$DATA/vg_mem"
PROG="$DATA/vg_prog"

# normalized MODE PROGRAM TRACE [awk options]: the main executable's records.
normalized() {
	_mode=$1 _exe=$2 _trace=$3
	shift 3
	"$DUMP" "$_trace" | awk -v EXE="$_exe" -v MODE="$_mode" "$@" -f "$NORM"
}
branches() {
	"$DUMP" "$1" | awk '$2 == "BRANCH" { $1 = ""; print }'
}

# --- vg_mem: static assembly, every kind of access -------------------------
"$MEMP" >"$TMP/native.out"
native_rc=$?
"$COLLECT" -q --backend valgrind -o "$TMP/vi.itr" -- "$MEMP" >"$TMP/vi.out"
check_eq "vg_mem: exit status unchanged under valgrind" "$native_rc" $?
check_files_eq "vg_mem: output unchanged under valgrind" "$TMP/native.out" "$TMP/vi.out"
"$COLLECT" -q --backend ptrace -o "$TMP/pi.itr" -- "$MEMP" >/dev/null
normalized static "$MEMP" "$TMP/vi.itr" >"$TMP/vi.txt"
normalized static "$MEMP" "$TMP/pi.itr" >"$TMP/pi.txt"
check "vg_mem: the trace has instructions and memory accesses" \
	sh -c "grep -q '^INSN' '$TMP/vi.txt' && grep -q '^MEM store data' '$TMP/vi.txt'"
check_files_eq "vg_mem: insn level equals ptrace (addresses, MEM)" "$TMP/pi.txt" "$TMP/vi.txt"

"$COLLECT" -q --backend valgrind --level branch -o "$TMP/vb.itr" -- "$MEMP" >/dev/null
"$COLLECT" -q --backend ptrace --level branch -o "$TMP/pb.itr" -- "$MEMP" >/dev/null
branches "$TMP/vb.itr" >"$TMP/vb.txt"
branches "$TMP/pb.itr" >"$TMP/pb.txt"
check "vg_mem: branch trace has cond, call, indirect-call, indirect, return" sh -c \
	"for k in cond call indirect-call indirect return uncond; do grep -q \" \$k taken\" '$TMP/vb.txt' || exit 1; done"
check_files_eq "vg_mem: branch level equals ptrace" "$TMP/pb.txt" "$TMP/vb.txt"
check "vg_mem: insn and branch traces agree" \
	"$BIN/../tests/collect-tracecheck" agree "$TMP/vi.itr" "$TMP/vb.itr"
# itrace-fill rebuilds the instructions from the branches and the binary
# named by the MMAP records: the same as the insn-level trace.
"$BIN/itrace-fill" -q -o "$TMP/vf.itr" "$TMP/vb.itr"
"$DUMP" "$TMP/vf.itr" | awk '$2 == "INSN" { print $3, $4 }' >"$TMP/vf.txt"
"$DUMP" "$TMP/vi.itr" | awk '$2 == "INSN" { print $3, $4 }' >"$TMP/vi2.txt"
check_files_eq "vg_mem: itrace-fill of the branch trace gives the insn trace" "$TMP/vi2.txt" "$TMP/vf.txt"

# --- vg_prog: C program with a thread and signals ------------------------
"$PROG" >"$TMP/native.out" 2>"$TMP/native.err"
native_rc=$?
"$COLLECT" -q --backend valgrind -o "$TMP/vp.itr" -- "$PROG" >"$TMP/vp.out" 2>"$TMP/vp.err"
check_eq "vg_prog: exit status unchanged under valgrind" "$native_rc" $?
check_files_eq "vg_prog: stdout unchanged" "$TMP/native.out" "$TMP/vp.out"
check_files_eq "vg_prog: stderr unchanged (nothing of valgrind's)" "$TMP/native.err" "$TMP/vp.err"

# Inside main (a per-thread window, libc calls included) both backends
# record the same instructions of the executable.
"$COLLECT" -q --backend valgrind --start main -o "$TMP/vs.itr" -- "$PROG" >/dev/null 2>&1
"$COLLECT" -q --backend ptrace --start main -o "$TMP/ps.itr" -- "$PROG" >/dev/null 2>&1
# (The ptrace backend steps around thread creation with scope records of
# its own: only instructions and accesses are compared here.)
normalized dynamic "$PROG" "$TMP/vs.itr" | grep -v '^TRACE' >"$TMP/vs.txt"
normalized dynamic "$PROG" "$TMP/ps.itr" | grep -v '^TRACE' >"$TMP/ps.txt"
check "vg_prog --start main: executable code recorded" test "$(wc -l <"$TMP/vs.txt")" -gt 100
check_files_eq "vg_prog --start main: executable's insns and MEMs equal ptrace" \
	"$TMP/ps.txt" "$TMP/vs.txt"

# --only main: libc runs untraced (at full speed under ptrace) and the
# signals delivered there name their handlers in main, as under valgrind.
# The worker thread's code is traced too: records are compared thread by
# thread (in the order the threads first appear), not as interleaved.
by_thread() {
	"$DUMP" "$1" | awk '{ if (!($1 in t)) t[$1] = n++; print t[$1] "\t" $0 }' |
		sort -s -n -k1,1 | cut -f2- |
		awk -v EXE="$PROG" -v MODE=dynamic -v SIGNALS=1 -f "$NORM" | grep -v '^TRACE'
}
"$COLLECT" -q --backend valgrind --only main -o "$TMP/vo.itr" -- "$PROG" >/dev/null 2>&1
"$COLLECT" -q --backend ptrace --only main -o "$TMP/po.itr" -- "$PROG" >/dev/null 2>&1
by_thread "$TMP/vo.itr" >"$TMP/vo.txt"
by_thread "$TMP/po.itr" >"$TMP/po.txt"
check_eq "vg_prog --only main: two signals, each with its handler" 2 \
	"$(grep -c '^SIGNAL .* handler=exe+' "$TMP/vo.txt")"
check_files_eq "vg_prog --only main: insns, MEMs and signals equal ptrace" "$TMP/po.txt" "$TMP/vo.txt"

# --- vg_div: integer division faults -------------------------------------
# A division by zero, caught and then fatal: the instructions before it are
# recorded and it is not, and the signal is at the division, with its
# address as si_addr (as ptrace sees it), at both levels.
DIV="$DATA/vg_div"
{ "$DIV" >"$TMP/native.out"; } 2>/dev/null # (no "Floating point exception" line)
native_rc=$?
"$COLLECT" -q --backend valgrind --start main -o "$TMP/vd.itr" -- "$DIV" >"$TMP/vd.out"
check_eq "vg_div: killed by SIGFPE under valgrind as natively" "$native_rc" $?
check_files_eq "vg_div: output unchanged" "$TMP/native.out" "$TMP/vd.out"
"$COLLECT" -q --backend ptrace --start main -o "$TMP/pd.itr" -- "$DIV" >/dev/null
normalized dynamic "$DIV" "$TMP/vd.itr" -v SIGNALS=1 >"$TMP/vd.txt"
normalized dynamic "$DIV" "$TMP/pd.itr" -v SIGNALS=1 >"$TMP/pd.txt"
div=$(objdump -d --no-show-raw-insn "$DIV" |
	awk '/<vg_divide>:/ { on = 1 } on && $2 == "idiv" { sub(/:/, "", $1); print $1; exit }')
check "vg_div: two SIGFPE at the division, its address as si_addr" sh -c \
	"test \$(grep -c '^SIGNAL signo=8 code=1 addr=exe+$div pc=exe+$div ' '$TMP/vd.txt') = 2"
check_files_eq "vg_div: instructions, accesses and signals equal ptrace" "$TMP/pd.txt" "$TMP/vd.txt"
"$COLLECT" -q --backend valgrind --level branch --start main -o "$TMP/vdb.itr" -- "$DIV" >/dev/null
"$COLLECT" -q --backend ptrace --level branch --start main -o "$TMP/pdb.itr" -- "$DIV" >/dev/null
normalized dynamic "$DIV" "$TMP/vdb.itr" -v SIGNALS=1 >"$TMP/vdb.txt"
normalized dynamic "$DIV" "$TMP/pdb.itr" -v SIGNALS=1 >"$TMP/pdb.txt"
check_files_eq "vg_div --level branch: branches and signals equal ptrace" "$TMP/pdb.txt" "$TMP/vdb.txt"

# --- int3: SIGTRAP as the kernel reports it (SI_KERNEL, just past it) ----
# caught (collect_prog trap: an int3, then raise) and fatal (vg_int3).
# Only the SIGNAL records are compared: the ptrace backend cannot step a
# SIGTRAP handler (its GAP records say so).
CPROG="$DATA/collect_prog"
"$COLLECT" -q --backend valgrind --start main -o "$TMP/vt.itr" -- "$CPROG" trap >/dev/null 2>&1
"$COLLECT" -q --backend ptrace --start main -o "$TMP/pt.itr" -- "$CPROG" trap >/dev/null 2>&1
normalized dynamic "$CPROG" "$TMP/vt.itr" -v SIGNALS=1 | grep '^SIGNAL' >"$TMP/vt.txt"
normalized dynamic "$CPROG" "$TMP/pt.itr" -v SIGNALS=1 2>/dev/null | grep '^SIGNAL' >"$TMP/pt.txt"
check_eq "collect_prog trap: the int3's SIGTRAP is SI_KERNEL" 1 \
	"$(grep -c '^SIGNAL signo=5 code=128 ' "$TMP/vt.txt")"
check_files_eq "collect_prog trap: SIGNAL records equal ptrace" "$TMP/pt.txt" "$TMP/vt.txt"
I3="$DATA/vg_int3"
{ "$I3"; } 2>/dev/null
native_rc=$?
"$COLLECT" -q --backend valgrind -o "$TMP/vi3.itr" -- "$I3" 2>/dev/null
check_eq "vg_int3: killed by SIGTRAP under valgrind as natively" "$native_rc" $?
"$COLLECT" -q --backend ptrace -o "$TMP/pi3.itr" -- "$I3" 2>/dev/null
normalized dynamic "$I3" "$TMP/vi3.itr" -v SIGNALS=1 | grep '^SIGNAL' >"$TMP/vi3.txt"
normalized dynamic "$I3" "$TMP/pi3.itr" -v SIGNALS=1 | grep '^SIGNAL' >"$TMP/pi3.txt"
check "vg_int3: one SIGNAL, SI_KERNEL" grep -q '^SIGNAL signo=5 code=128 ' "$TMP/vi3.txt"
check_files_eq "vg_int3: the fatal SIGNAL equals ptrace's" "$TMP/pi3.txt" "$TMP/vi3.txt"

# Windows: each call of vg_window, from its entry to its return.
# vg_window is called three times; vg_after once, after the last call.
for trig in "--start vg_window:3" "--start vg_window --stop vg_after:1"; do
	windows=${trig#*:}
	trig=${trig%:*}
	# shellcheck disable=SC2086
	"$COLLECT" -q --backend valgrind $trig -o "$TMP/vw.itr" -- "$PROG" >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$COLLECT" -q --backend ptrace $trig -o "$TMP/pw.itr" -- "$PROG" >/dev/null 2>&1
	"$DUMP" "$TMP/vw.itr" | awk '$2 ~ /^(INSN|MEM|TRACE_ON|TRACE_OFF)$/ { $1 = ""; print }' |
		sed 's/ bytes=.*//' >"$TMP/vw.txt"
	"$DUMP" "$TMP/pw.itr" | awk '$2 ~ /^(INSN|MEM|TRACE_ON|TRACE_OFF)$/ { $1 = ""; print }' |
		sed 's/ bytes=.*//' >"$TMP/pw.txt"
	normalized dynamic "$PROG" "$TMP/vw.itr" -v SIGNALS=1 >"$TMP/vwn.txt"
	normalized dynamic "$PROG" "$TMP/pw.itr" -v SIGNALS=1 >"$TMP/pwn.txt"
	check_eq "$trig: $windows window(s)" "$windows" "$(grep -c TRACE_ON "$TMP/vw.txt")"
	check_eq "$trig: as many windows as ptrace" \
		"$(grep -c TRACE_ON "$TMP/pw.txt")" "$(grep -c TRACE_ON "$TMP/vw.txt")"
	check_files_eq "$trig: the same instructions as ptrace" "$TMP/pwn.txt" "$TMP/vwn.txt"
	check_eq "$trig: as many instructions in total as ptrace" \
		"$(grep -c ' INSN ' "$TMP/pw.txt")" "$(grep -c ' INSN ' "$TMP/vw.txt")"
done
# Branch level in a window: the same branches from the executable's code.
"$COLLECT" -q --backend valgrind --level branch --start vg_window -o "$TMP/vbw.itr" -- "$PROG" >/dev/null 2>&1
"$COLLECT" -q --backend ptrace --level branch --start vg_window -o "$TMP/pbw.itr" -- "$PROG" >/dev/null 2>&1
normalized dynamic "$PROG" "$TMP/vbw.itr" >"$TMP/vbw.txt"
normalized dynamic "$PROG" "$TMP/pbw.itr" >"$TMP/pbw.txt"
check "--level branch --start vg_window: three windows with branches" sh -c \
	"test \$(grep -c '^TRACE_ON trigger exe+' '$TMP/vbw.txt') = 3 && grep -q '^BRANCH .* cond taken' '$TMP/vbw.txt'"
check_files_eq "--level branch --start vg_window: the same branches and windows as ptrace" \
	"$TMP/pbw.txt" "$TMP/vbw.txt"

# The first instruction after each TRACE_ON is vg_window's entry: the
# executable's load address (its first mapping) plus the symbol's value.
entry=$(nm "$PROG" | awk '$3 == "vg_window" { print $1 }')
"$COLLECT" -q --backend valgrind --start vg_window -o "$TMP/vw.itr" -- "$PROG" >/dev/null 2>&1
"$DUMP" "$TMP/vw.itr" | awk -v exe="'$PROG'" '
	function hex(s, n, i) { n = 0; sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n }
	$2 == "MMAP" && $NF == exe { split($4, r, "-"); if (!base || hex(r[1]) < base) base = hex(r[1]) }
	$2 == "TRACE_ON" { on = 1; next }
	on && $2 == "INSN" { printf "%x\n", hex($3) - base; on = 0 }' | sort -u >"$TMP/first.txt"
printf '%x\n' "0x$entry" >"$TMP/entry.txt"
check_files_eq "--start vg_window: every window starts at the function's entry" \
	"$TMP/entry.txt" "$TMP/first.txt"
# A static program without a C library or a writable segment (README's
# prog), for which Valgrind reads no symbols and starts at the entry
# point itself: triggers by name and --only main still equal ptrace's.
STATIC="$ITRACE_ROOT/$ITRACE_BUILD/tests/real/prog"
for trig in "--start parse --stop emit" "--start parse" "--only main"; do
	"$COLLECT" -q --backend valgrind $trig -o "$TMP/sv.itr" -- "$STATIC" 12 34 >/dev/null 2>&1
	"$COLLECT" -q --backend ptrace $trig -o "$TMP/sp.itr" -- "$STATIC" 12 34 >/dev/null 2>&1
	"$DUMP" "$TMP/sv.itr" | awk '$2 == "INSN" || $2 == "MEM" { print $2, $3 }' >"$TMP/sv.txt"
	"$DUMP" "$TMP/sp.itr" | awk '$2 == "INSN" || $2 == "MEM" { print $2, $3 }' >"$TMP/sp.txt"
	check "static prog $trig: instructions recorded" test "$(grep -c '^INSN' "$TMP/sv.txt")" -gt 20
	check_files_eq "static prog $trig: valgrind's instructions and accesses = ptrace's" \
		"$TMP/sp.txt" "$TMP/sv.txt"
done
done_testing
