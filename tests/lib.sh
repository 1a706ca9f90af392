# tests/lib.sh - helpers for end-to-end test scripts (sourced).
#
# Each script prints TAP lines through ok/fail/check and ends with done_testing.
# Paths: $BIN is the build's bin directory, $DATA the built test programs,
# $TMP a scratch directory removed at exit.
: "${ITRACE_BUILD:=build}"
: "${ITRACE_ROOT:=$(pwd)}"
BIN="$ITRACE_ROOT/$ITRACE_BUILD/bin"
DATA="$ITRACE_ROOT/$ITRACE_BUILD/tests/data"
SRCDATA="$ITRACE_ROOT/tests/data"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/itrace-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_n=0
_failed=0

ok() { _n=$((_n + 1)); echo "ok $_n - $1"; }
fail() {
	_n=$((_n + 1)); _failed=$((_failed + 1))
	echo "not ok $_n - $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | head -20 | sed 's/^/# /'
	return 0
}
# skip NAME REASON: NAME did not run.  Counted as skipped, never as passed,
# and make check fails on it: a test that can run on this machine must run
# (a tool that make deps installs, a program the build makes, a known bug).
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
# unavailable NAME REASON: NAME cannot run on this machine because it lacks
# hardware or a kernel feature that no package provides (Intel BTS,
# PTRACE_SINGLEBLOCK, hardware performance counters), found by probing
# for it.  Reported as skipped, by name, like skip; the only skip that
# make check accepts.
unavailable() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP unavailable here: $2"; }
# missing_reference NAME FILE: NAME needs FILE, a reference document the
# repository does not keep (the team's ../shared/reference/, which CI lays
# beside its clone; no Debian package ships it), and FILE is not there.
# Reported as a skip by name, "unavailable here: reference file FILE is
# missing", which make check accepts as it does a missing feature: a
# fresh clone without ../shared passes, naming what it could not check.
missing_reference() { unavailable "$1" "reference file $2 is missing"; }
# check NAME CMD...: passes when CMD exits 0.
check() {
	_name="$1"; shift
	if _out=$("$@" 2>&1); then ok "$_name"; else fail "$_name" "$_out"; fi
}
# check_fails NAME CMD...: passes when CMD exits non-zero.
check_fails() {
	_name="$1"; shift
	if _out=$("$@" 2>&1); then fail "$_name (unexpectedly succeeded)" "$_out"; else ok "$_name"; fi
}
# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected: $2
actual:   $3"; fi
}
# check_files_eq NAME EXPECTED_FILE ACTUAL_FILE
check_files_eq() {
	if cmp -s "$2" "$3"; then ok "$1"; else fail "$1" "$(diff "$2" "$3" | head -20)"; fi
}
done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }

# gone PID [SECONDS]: the process no longer runs (or is a zombie, killed
# and waiting for its parent to reap it), waiting up to SECONDS (3).
gone() {
	_tenths=$((${2:-3} * 10))
	while [ "$_tenths" -gt 0 ]; do
		state=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
		case "$state" in "" | Z) return 0 ;; esac
		sleep 0.1
		_tenths=$((_tenths - 1))
	done
	echo "process $1 is in state $state"
	return 1
}

# none_left MARK: every process with MARK in its command line is gone,
# as gone() says, each within 3 s.
none_left() {
	for _p in $(pgrep -f -- "$1"); do
		gone "$_p" || return 1
	done
}

# started_by PID: the program that itrace-collect PID started: the child
# of its guardian (collectors/guard.h), empty until both exist.
started_by() {
	_guardian=$(pgrep -P "$1" -x itrace-guardian | head -1)
	[ -n "$_guardian" ] && pgrep -P "$_guardian" | head -1
	return 0
}
