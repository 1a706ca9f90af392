#!/bin/sh
# What a traced program sees of itself (tests/real/prog/real_env.c: open
# descriptors, signal dispositions and mask, limits, umask, working
# directory, environment) is what it sees untraced: the ptrace backend
# against a plain run; the valgrind backend against a run under callgrind
# (another Valgrind tool: Valgrind itself reserves descriptors, sets
# LD_PRELOAD and lowers the descriptor limit for every tool).
. tests/lib.sh
. tests/helper/real_oracles.sh

real_program env "$REAL/real_env"
run_plain env
run_collect env ptrace --backend ptrace --start main
check_output env ptrace
run_collect env vg --backend valgrind
# (-q and no log descriptor: callgrind says nothing, and a descriptor of
# Valgrind's would be one more the program sees)
run_cmd env "$TMP/env.callgrind.out" "$TMP/env.callgrind.err" \
	"$VALGRIND" -q --tool=callgrind --callgrind-out-file="$TMP/env.cg"
check_files_eq "env under valgrind: as under callgrind" "$TMP/env.callgrind.out" "$TMP/env.vg.out"
# the trace goes to a pipe: still nothing of it is the program's
REAL_ENV=
for b in ptrace valgrind; do
	(cd "$WORK" && exec env -i PATH=/usr/bin:/bin HOME="$WORK" LC_ALL=C TZ=UTC \
		"$BIN/itrace-collect" -q --backend $b -o - -- "$REAL/real_env" 3>&- \
		2>"$TMP/pipe.$b.err" | cat >"$TMP/pipe.$b.itr")
	grep -a '^descriptors:' "$TMP/pipe.$b.itr" >"$TMP/pipe.$b.fds"
	check "trace to a pipe under $b: the program's output is not in it" \
		sh -c "! grep -aq 'descriptors:' '$TMP/pipe.$b.itr'"
done
done_testing
