#!/bin/sh
# Four threads started and joined in turn (tests/real/prog/real_threads.c).
# Whether pthread_join finds a thread still running depends on Valgrind's
# scheduler, which differs from run to run: the oracles compare the
# program's own code (callgrind, the filled branch-level trace), where
# nothing depends on it; the output and the trace's completeness are
# checked as a whole.
. tests/lib.sh
. tests/helper/real_oracles.sh

real_program threads "$REAL/real_threads"
run_plain threads
run_collect threads vg --backend valgrind
check_output threads vg
check_complete threads vg
check_eq "threads: five threads traced" 5 \
	"$("$BIN/itrace-dump" --summary "$TMP/threads.vg.itr" | awk '/^  tid [1-9]/ && $5 > 0' | wc -l)"
check_callgrind threads "$REAL/real_threads"
check_fill threads "$REAL/real_threads"
run_collect threads pt --backend ptrace --start worker
check_output threads pt
check_eq "threads: ptrace --start worker traced the four workers" 4 \
	"$("$BIN/itrace-dump" --summary "$TMP/threads.pt.itr" | awk '/^  tid [1-9]/ && $5 > 0' | wc -l)"
done_testing
