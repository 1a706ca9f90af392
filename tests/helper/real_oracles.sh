# tests/helper/real_oracles.sh - what the real-program tests share (sourced
# after tests/lib.sh).
#
# A test names a program run ("ls", "sqlite3", ...) and its command line
# once with `real_program NAME CMD...`; the functions below run it plain,
# under itrace-collect and under the oracles, and compare:
#
#   check_output NAME VARIANT    stdout, stderr and exit status of a traced
#                                run equal those of the plain run
#   check_callgrind NAME         the trace's instructions, and the export's
#                                per-function instructions and calls,
#                                against valgrind's callgrind
#   check_cachegrind NAME        pipeline-sim's cache misses against
#                                cachegrind's with the same geometry
#   check_fill NAME              a branch-level trace filled by itrace-fill
#                                against an instruction-level trace
#   check_backends NAME          the ptrace and valgrind backends against
#                                each other on the main executable
#
# Every run gets the same small environment (env -i): TZ=UTC and
# PYTHONHASHSEED=0 keep time-zone and hash-order code paths equal between
# runs, LC_ALL=C the messages.  The program runs in $WORK, where the test
# puts its input files.
ORACLE="$ITRACE_ROOT/$ITRACE_BUILD/tests/real-oracle"
REAL="$ITRACE_ROOT/$ITRACE_BUILD/tests/real"
HELPER="$ITRACE_ROOT/tests/helper"
NORMALIZE="$HELPER/normalize.awk"
WORK="$TMP/work"
mkdir -p "$WORK"

# Debian's /usr/bin/valgrind is a shell script that adds
# LD_LIBRARY_PATH=/usr/lib/debug and GLIBCXX_FORCE_NEW to the program's
# environment before it runs valgrind.bin.  itrace-collect starts its tool
# the way valgrind.bin does, so the oracles run valgrind.bin as well: the
# program then sees the same environment under every tool.
VALGRIND=$(command -v valgrind)
[ -n "$VALGRIND" ] && [ -x "$VALGRIND.bin" ] && VALGRIND="$VALGRIND.bin"

# The cache geometry of every cachegrind comparison.
CG_I1=32768,8,64 CG_D1=32768,8,64 CG_LL=262144,16,64

# real_env CMD... - CMD in that environment, in place of the shell (so
# that no shell reports a signal the program dies of on its stderr).
real_env() {
	exec env -i PATH=/usr/bin:/bin HOME="$WORK" LC_ALL=C TZ=UTC PYTHONHASHSEED=0 ${REAL_ENV:-} "$@"
}

# real_program NAME CMD... - what NAME runs (one argument per line of
# $TMP/NAME.cmd, so that arguments keep their spaces).
real_program() {
	_name=$1
	shift
	printf '%s\n' "$@" >"$TMP/$_name.cmd"
}

# run_cmd NAME OUT ERR PREFIX... - PREFIX followed by NAME's command, in
# $WORK, stdout to OUT, stderr to ERR, stdin /dev/null.
run_cmd() {
	_name=$1 _out=$2 _err=$3
	shift 3
	_ifs=$IFS
	set -f
	IFS='
'
	# shellcheck disable=SC2046
	set -- "$@" $(cat "$TMP/$_name.cmd")
	IFS=$_ifs
	set +f
	(cd "$WORK" && { [ -z "${_LOG_FD9:-}" ] || exec 9>"$_LOG_FD9"; } &&
		real_env "$@" >"$_out" 2>"$_err" </dev/null)
}

# run_plain NAME - the program as it is; out, err, rc under $TMP/NAME.plain.*
run_plain() {
	run_cmd "$1" "$TMP/$1.plain.out" "$TMP/$1.plain.err"
	echo $? >"$TMP/$1.plain.rc"
}

# run_collect NAME VARIANT ITRACE-COLLECT-OPTIONS... - a traced run:
# trace $TMP/NAME.VARIANT.itr, its out, err, rc next to it.
run_collect() {
	_pn=$1 _v=$2
	shift 2
	run_cmd "$_pn" "$TMP/$_pn.$_v.out" "$TMP/$_pn.$_v.err" \
		"$BIN/itrace-collect" -q "$@" -o "$TMP/$_pn.$_v.itr" --
	echo $? >"$TMP/$_pn.$_v.rc"
}

# run_valgrind NAME TOOL OPTIONS... - TOOL's own run of NAME.  Valgrind's
# messages go to descriptor 9 ($TMP/NAME.TOOL.log): on the program's stderr
# they change how some programs run (python3's stderr is not at offset 0
# any more; cachegrind warns about the host's caches even with -q), and
# --log-file would take the program's descriptor 3.
run_valgrind() {
	_pn=$1 _t=$2
	shift 2
	_LOG_FD9="$TMP/$_pn.$_t.log"
	run_cmd "$_pn" "$TMP/$_pn.$_t.out" "$TMP/$_pn.$_t.err" "$VALGRIND" -q --log-fd=9 --tool="$_t" "$@"
	_LOG_FD9=
}

# check_output NAME VARIANT - what the program printed and its status are
# those of the plain run.
check_output() {
	check_eq "$1 under $2: exit status unchanged" "$(cat "$TMP/$1.plain.rc")" "$(cat "$TMP/$1.$2.rc")"
	check_files_eq "$1 under $2: stdout unchanged" "$TMP/$1.plain.out" "$TMP/$1.$2.out"
	check_files_eq "$1 under $2: stderr unchanged" "$TMP/$1.plain.err" "$TMP/$1.$2.err"
}

# check_complete NAME VARIANT - the trace's footer says complete.
check_complete() {
	if "$BIN/itrace-dump" --summary "$TMP/$1.$2.itr" >"$TMP/$1.$2.sum" 2>&1 &&
		grep -q '^ended: complete' "$TMP/$1.$2.sum"; then
		ok "$1 under $2: the trace is complete"
	else
		fail "$1 under $2: the trace is complete" "$(grep -E '^ended|error' "$TMP/$1.$2.sum")"
	fi
}

# diff_head A B - the first differences of two listings, for a failure.
diff_head() {
	diff "$1" "$2" | head -20
}

# check_callgrind NAME [MODULE] - NAME's insn-level valgrind trace (variant
# "vg") against callgrind run on the same command: every instruction
# executed as often (a rep-prefixed string instruction too: callgrind
# counts its entries, as the trace records them, ITRACE.md 6.5.2), and, in
# itrace-sqlite's export, every function's self instructions and calls
# equal callgrind's (--skip-plt=no: PLT stubs are functions of their own,
# as in the trace; code without a symbol, FILE+0xOFFSET, as callgrind
# names it by the address called).  With MODULE, only the code of that file counts (the
# part of a threaded run that does not depend on Valgrind's scheduler).
check_callgrind() {
	_pn=$1
	_mod=${2:+--module $2}
	_scope=${2:+ (code of $2)}
	run_valgrind "$_pn" callgrind --skip-plt=no --dump-instr=yes \
		--callgrind-out-file="$TMP/$_pn.cg"
	# shellcheck disable=SC2086
	"$ORACLE" $_mod insns --callgrind "$TMP/$_pn.vg.itr" >"$TMP/$_pn.ours.insns" 2>"$TMP/$_pn.cg.err"
	# shellcheck disable=SC2086
	if "$ORACLE" $_mod cg-insns "$TMP/$_pn.cg" "$TMP/$_pn.vg.itr" >"$TMP/$_pn.cg.insns" 2>>"$TMP/$_pn.cg.err" &&
		[ -s "$TMP/$_pn.ours.insns" ] &&
		[ -s "$TMP/$_pn.cg.insns" ] && cmp -s "$TMP/$_pn.ours.insns" "$TMP/$_pn.cg.insns"; then
		ok "$_pn: every instruction executed as often as callgrind counts$_scope ($(wc -l <"$TMP/$_pn.cg.insns") addresses)"
	else
		fail "$_pn: every instruction executed as often as callgrind counts$_scope" \
			"$(cat "$TMP/$_pn.cg.err"; echo "< trace, > callgrind (address, count):"; diff_head "$TMP/$_pn.ours.insns" "$TMP/$_pn.cg.insns")"
	fi
	"$BIN/itrace-sqlite" -q --level summary "$TMP/$_pn.vg.itr" -o "$TMP/$_pn.db"
	sqlite3 -separator ' ' "$TMP/$_pn.db" \
		"SELECT printf('%x %x', s.sym_start, s.sym_end), f.insn_count, f.call_count, s.name
		 FROM functions f JOIN symbols s ON s.id = f.symbol_id JOIN dsos d ON d.id = s.dso_id
		 WHERE s.name != '[unknown]' AND ('${2:-}' = '' OR d.long_name = '${2:-}')
		 ORDER BY s.sym_start" >"$TMP/$_pn.ours.fn"
	"$ORACLE" final-blocks "$TMP/$_pn.vg.itr" >"$TMP/$_pn.final" 2>>"$TMP/$_pn.fn.err"
	# shellcheck disable=SC2086
	"$ORACLE" $_mod cg-functions "$TMP/$_pn.cg" "$TMP/$_pn.vg.itr" >"$TMP/$_pn.cg.fn" 2>/dev/null
	awk -f "$HELPER/real_functions.awk" "$TMP/$_pn.ours.fn" "$TMP/$_pn.final" "$TMP/$_pn.cg.fn" \
		>"$TMP/$_pn.fn.diff"
	cat "$TMP/$_pn.fn.err" >>"$TMP/$_pn.fn.diff" 2>/dev/null
	_groups=$(awk '$1 == "groups" { print $2 }' "$TMP/$_pn.fn.diff")
	if [ "$(grep -vc '^groups ' "$TMP/$_pn.fn.diff")" -eq 0 ] && [ "${_groups:-0}" -gt 0 ]; then
		ok "$_pn: itrace-sqlite's per-function instructions and calls = callgrind's$_scope ($_groups functions)"
	else
		fail "$_pn: itrace-sqlite's per-function instructions and calls = callgrind's$_scope" \
			"$(grep -v '^groups ' "$TMP/$_pn.fn.diff")"
	fi
}

# check_cachegrind NAME - pipeline-sim on NAME's valgrind trace with
# cachegrind's geometry (L1I, L1D, a unified LL; no L2, no prefetcher):
# I1, D1 and LL misses (data and instructions) equal cachegrind's.
# cachegrind runs with --vex-guest-chase=no: Valgrind's default chasing
# makes it count instructions of paths the program never took (lackey
# with chasing off and callgrind, which turns it off, agree with the
# trace).
check_cachegrind() {
	_pn=$1
	run_valgrind "$_pn" cachegrind --vex-guest-chase=no --cache-sim=yes \
		--I1=$CG_I1 --D1=$CG_D1 --LL=$CG_LL --cachegrind-out-file="$TMP/$_pn.cachegrind"
	_cg=$(awk '/^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i }
		/^summary:/ { for (i = 2; i <= NF; i++) v[ev[i - 1]] = $i
			printf "I1 %d D1 %d LLd %d LLi %d\n", v["I1mr"], v["D1mr"] + v["D1mw"],
				v["DLmr"] + v["DLmw"], v["ILmr"] }' "$TMP/$_pn.cachegrind")
	"$BIN/pipeline-sim" -q --set l2=none --set prefetch=none \
		--set "l1i=size=32K assoc=8 line=64 latency=1" \
		--set "l1d=size=32K assoc=8 line=64 latency=4" \
		--set "llc=size=256K assoc=16 line=64 latency=40" \
		"$TMP/$_pn.vg.itr" >"$TMP/$_pn.sim" 2>&1
	_sim=$(awk '$1 == "L1I" { i1 = $3 } $1 == "L1D" { d1 = $3 }
		$1 == "LLC" { gsub(/[(),]/, ""); for (i = 1; i <= NF; i++) { if ($i == "data") d = $(i + 1); if ($i == "instr") n = $(i + 1) } }
		END { printf "I1 %d D1 %d LLd %d LLi %d\n", i1, d1, d, n }' "$TMP/$_pn.sim")
	check_eq "$_pn: pipeline-sim's cache misses = cachegrind's" "$_cg" "$_sim"
}

# check_fill NAME [MODULE] - a branch-level valgrind trace of the same
# command, filled by itrace-fill, is the insn-level one (variant "vg"):
# the same instructions in every thread (with MODULE, of that file), and
# no GAP.
check_fill() {
	_pn=$1
	_mod=${2:+--module $2}
	run_collect "$_pn" vgb --backend valgrind --level branch
	# shellcheck disable=SC2086
	if "$BIN/itrace-fill" -q -o "$TMP/$_pn.filled.itr" "$TMP/$_pn.vgb.itr" 2>"$TMP/$_pn.fill.err" &&
		"$ORACLE" $_mod same-insns "$TMP/$_pn.vg.itr" "$TMP/$_pn.filled.itr" >"$TMP/$_pn.same" 2>&1; then
		ok "$_pn: branch level + itrace-fill = insn level, 0 GAPs ($(cat "$TMP/$_pn.same"))"
	else
		fail "$_pn: branch level + itrace-fill = insn level, 0 GAPs" \
			"$(cat "$TMP/$_pn.fill.err" "$TMP/$_pn.same")"
	fi
}

# check_backends NAME EXE - with --only main, the ptrace and valgrind
# backends record the same instructions and memory accesses of the main
# executable EXE (addresses relative to its mapping; others as "other").
check_backends() {
	_pn=$1 _exe=$2
	run_collect "$_pn" pm --backend ptrace --only main
	run_collect "$_pn" vm --backend valgrind --only main
	"$BIN/itrace-dump" "$TMP/$_pn.pm.itr" | awk -v EXE="$_exe" -v MODE=dynamic -f "$NORMALIZE" |
		grep -v '^TRACE' >"$TMP/$_pn.pm.txt"
	"$BIN/itrace-dump" "$TMP/$_pn.vm.itr" | awk -v EXE="$_exe" -v MODE=dynamic -f "$NORMALIZE" |
		grep -v '^TRACE' >"$TMP/$_pn.vm.txt"
	_insns=$(grep -c '^INSN' "$TMP/$_pn.vm.txt")
	if [ "$_insns" -gt 0 ] && cmp -s "$TMP/$_pn.pm.txt" "$TMP/$_pn.vm.txt"; then
		ok "$_pn --only main: ptrace = valgrind on the executable ($_insns instructions)"
	else
		fail "$_pn --only main: ptrace = valgrind on the executable" \
			"$(echo "ptrace $(grep -c '^INSN' "$TMP/$_pn.pm.txt"), valgrind $_insns instructions"; diff_head "$TMP/$_pn.pm.txt" "$TMP/$_pn.vm.txt")"
	fi
}

# real_oracles NAME - the plain run and every comparison but the backends'.
real_oracles() {
	run_plain "$1"
	run_collect "$1" vg --backend valgrind
	check_output "$1" vg
	check_complete "$1" vg
	check_callgrind "$1"
	check_cachegrind "$1"
	check_fill "$1"
}
