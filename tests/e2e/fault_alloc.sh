#!/bin/sh
# Traces built to maximise what a reader allocates or spends
# (tests/helper/hostile_gen) cost memory in proportion to the data behind
# them and time in proportion to their length:
#  - 848 CODE records of 1 MiB at one address (a 139 KB file): one copy
#    of the live bytes, not 848 (tools took 0.9 to 1.8 GB);
#  - 40,000 mmap/munmap pairs, each at a new address: linear time (each
#    MMAP re-sorted the mappings and rebuilt the symbol tables: minutes);
#  - 100,000 threads of one instruction: small per-thread state.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/fault_lib.sh"
GEN="$ITRACE_ROOT/$ITRACE_BUILD/tests/hostile_gen"
LIMIT=$((150000 * MEM_SCALE)) # KB

"$GEN" code-same "$TMP/code.itr" 848
"$GEN" mmap-pairs "$TMP/pairs.itr" 40000 "$DATA/fill_loop"
"$GEN" threads "$TMP/threads.itr" 100000

# bounded NAME LIMIT_KB CMD...: CMD succeeds within 30 s and below LIMIT_KB.
bounded() {
	name="$1" limit="$2"
	shift 2
	t0=$(date +%s)
	/usr/bin/time -f '%M' -o "$TMP/peak" timeout 30 "$@" >/dev/null 2>"$TMP/err"
	rc=$?
	t1=$(date +%s)
	kb=$(tail -1 "$TMP/peak")
	check_eq "$name: exit status 0" 0 "$rc"
	check "$name: peak memory $kb KB (limit $limit KB)" test "$kb" -lt "$limit"
	check "$name: time $((t1 - t0)) s" test $((t1 - t0)) -lt 30
}

for t in code pairs threads; do
	bounded "itrace-dump $t" "$LIMIT" "$BIN/itrace-dump" --summary "$TMP/$t.itr"
	bounded "pipeline-sim $t" "$LIMIT" "$BIN/pipeline-sim" -q --no-lines "$TMP/$t.itr"
	bounded "itrace-xml $t" "$LIMIT" "$BIN/itrace-xml" -q "$TMP/$t.itr" -o "$TMP/out.xml"
done
bounded "itrace-sqlite code" "$LIMIT" "$BIN/itrace-sqlite" -q --level summary "$TMP/code.itr" \
	-o "$TMP/out.db"
bounded "itrace-sqlite pairs" "$LIMIT" "$BIN/itrace-sqlite" -q --level summary "$TMP/pairs.itr" \
	-o "$TMP/out.db"
# The same CODE bytes everywhere: the last record is what the sim decodes.
check "pipeline-sim code: decodes the CODE bytes" \
	sh -c "'$BIN/pipeline-sim' -v --no-lines '$TMP/code.itr' 2>&1 >/dev/null | grep -q '(0 without bytes,'"
done_testing
