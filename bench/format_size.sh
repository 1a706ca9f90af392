#!/bin/sh
# Bytes per branch / per instruction before compression, on real traces of
# bench/format_workload collected with the ptrace backend.
B="$ITRACE_ROOT/$ITRACE_BUILD"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -x "$B/bin/itrace-collect" ]; then
	echo "format-size: skipped: itrace-collect is not built" >&2
	exit 1
fi
"$B/bin/itrace-collect" -q --level branch -o "$T/branch.itr" -- "$B/bench/format_workload" >/dev/null &&
"$B/bin/itrace-collect" -q --level insn -o "$T/insn.itr" -- "$B/bench/format_workload" >/dev/null &&
"$B/bench/format_size" "$T/branch.itr" "$T/insn.itr"
