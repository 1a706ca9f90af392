#!/bin/sh
# Every consumer of a damaged trace reports the damage (what was lost,
# where) and exits 1 after producing what it could, as itrace-dump does:
# itrace-dump, itrace-fill, qtrace-conv, pipeline-sim, itrace-xml and
# itrace-sqlite, each on a trace with one corrupt chunk in the middle and
# on one cut short.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/fault_lib.sh"
B="$ITRACE_ROOT/$ITRACE_BUILD"

# Inputs: instruction level (x86-64 and ppc64le) and branch level.
"$B/bench/sim_gen" mix 300000 "$TMP/x86.itr"
"$B/bench/qtrace_gen" 200000 "$TMP/ppc.itr" >/dev/null
"$B/tests/fill-gen" --extrapolate 50 --chunk-bytes 4096 -o "$TMP/branch.itr" \
	"$DATA/fill_bench" >/dev/null 2>&1
for f in x86 ppc branch; do
	cp "$TMP/$f.itr" "$TMP/$f-flip.itr"
	flip_payload "$TMP/$f-flip.itr" 1
	head -c $(($(wc -c <"$TMP/$f.itr") * 2 / 3)) "$TMP/$f.itr" >"$TMP/$f-cut.itr"
done

# consumer NAME OUT CMD...: exits 1, says where (an offset), and wrote OUT
# (or produced output on stdout when OUT is -).
consumer() {
	name="$1" out="$2"
	shift 2
	rm -f "$TMP/out" "$out"
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check_eq "$name: exit status 1" 1 "$rc"
	if grep -q "offset [0-9]" "$TMP/err"; then
		ok "$name: the damage is reported with its offset"
	else
		fail "$name: the damage is reported with its offset" "$(cat "$TMP/err")"
	fi
	if [ "$out" = - ]; then
		check "$name: output produced" test -s "$TMP/out"
	else
		check "$name: output produced" test -s "$out"
	fi
}

for d in flip cut; do
	consumer "itrace-dump ($d)" - "$BIN/itrace-dump" "$TMP/x86-$d.itr"
	consumer "pipeline-sim ($d)" - "$BIN/pipeline-sim" -q --no-lines "$TMP/x86-$d.itr"
	consumer "pipeline-sim --kanata ($d)" "$TMP/k.log" \
		"$BIN/pipeline-sim" -q --no-lines --kanata "$TMP/k.log" "$TMP/x86-$d.itr"
	consumer "itrace-xml ($d)" "$TMP/o.xml" "$BIN/itrace-xml" -q "$TMP/x86-$d.itr" -o "$TMP/o.xml"
	consumer "itrace-sqlite ($d)" "$TMP/o.db" \
		"$BIN/itrace-sqlite" -q --level summary "$TMP/x86-$d.itr" -o "$TMP/o.db"
	consumer "itrace-fill ($d)" "$TMP/f.itr" "$BIN/itrace-fill" -q "$TMP/branch-$d.itr" -o "$TMP/f.itr"
	consumer "qtrace-conv ($d)" "$TMP/o.qt" "$BIN/qtrace-conv" -q "$TMP/ppc-$d.itr" -o "$TMP/o.qt"
done

# pipeline-sim says how much is missing, and simulated the rest.
"$BIN/pipeline-sim" -q --no-lines "$TMP/x86-flip.itr" >"$TMP/out" 2>"$TMP/err"
check "pipeline-sim: skipped chunks counted" grep -q "is damaged: 1 chunk skipped" "$TMP/err"
check "pipeline-sim: instructions of the other chunks simulated" \
	grep -q "the report covers the [0-9]* instructions read of the 300000" "$TMP/err"
# qtrace-conv goes on after a corrupt chunk: the chunks after it are there.
"$BIN/qtrace-conv" -q "$TMP/ppc.itr" -o "$TMP/all.qt"
"$BIN/qtrace-conv" -q "$TMP/ppc-flip.itr" -o "$TMP/flip.qt" 2>/dev/null
all=$("$BIN/qtrace-conv" --dump "$TMP/all.qt" | wc -l)
flip=$("$BIN/qtrace-conv" --dump "$TMP/flip.qt" | wc -l)
check "qtrace-conv: only the corrupt chunk is missing ($flip of $all)" \
	test "$flip" -gt $((all / 2)) -a "$flip" -lt "$all"
done_testing
