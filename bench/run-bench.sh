#!/bin/sh
# Run each benchmark script/program given and print its lines.  Every
# benchmark prints lines of the form:
#   NAME  OURS UNIT  BASELINE UNIT  ratio R  (target T)
# measured in the same run, so the ratio is what counts, not the machine.
: "${ITRACE_BUILD:=build}"
export ITRACE_BUILD
ITRACE_ROOT=$(pwd)
export ITRACE_ROOT
status=0
for b in "$@"; do
	case "$b" in
	*.sh) sh "$b" || status=1 ;;
	*) "./$b" || status=1 ;;
	esac
done
exit $status
