#!/bin/sh
# A full disk (a small tmpfs) is reported with the real errno, "No space
# left on device" (not "input/output error"), with a non-zero exit:
#  - itrace-collect (ptrace, valgrind) keeps every chunk it wrote before
#    the disk filled, readable up to the cut, and its program dies;
#  - itrace-fill, itrace-import, qtrace-conv, pipeline-sim --kanata,
#    itrace-xml and itrace-sqlite leave the previous output intact and no
#    temporary behind.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/fault_lib.sh"
B="$ITRACE_ROOT/$ITRACE_BUILD"
FULL="$TMP/full"
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=4m tmpfs "$FULL" 2>"$TMP/err"; then
	fail "mount a small tmpfs (the tests run as root)" "$(cat "$TMP/err")"
	done_testing
	exit
fi
trap 'umount "$FULL"; rm -rf "$TMP"' EXIT

# ---- the collector ------------------------------------------------------
for be in ptrace valgrind; do
	rm -f "$FULL"/*
	# 32 KiB left: filled within seconds, even single-stepping
	dd if=/dev/zero of="$FULL/ballast" bs=4096 count=1016 2>/dev/null
	timeout 60 "$BIN/itrace-collect" -q --backend "$be" --no-compress -o "$FULL/t.itr" -- \
		"$DATA/fault_spin" >/dev/null 2>"$TMP/err"
	rc=$?
	check_eq "$be: exit status 1" 1 "$rc"
	check "$be: says No space left on device" grep -q "No space left on device" "$TMP/err"
	n=$("$BIN/itrace-dump" --summary "$FULL/t.itr" 2>/dev/null | sed -n 's/^records: //p')
	check "$be: the records written before are readable ($n)" test "${n:-0}" -gt 1000
done

# ---- the other writing tools --------------------------------------------
"$B/bench/sim_gen" mix 2000 "$TMP/x86-small.itr"
"$B/bench/sim_gen" mix 200000 "$TMP/x86.itr"
"$B/bench/qtrace_gen" 200 "$TMP/ppc-small.itr" >/dev/null
"$B/bench/qtrace_gen" 20000 "$TMP/ppc.itr" >/dev/null
"$B/tests/fill-gen" -o "$TMP/branch-small.itr" "$DATA/fill_loop" >/dev/null 2>&1
"$B/tests/fill-gen" --extrapolate 20 -o "$TMP/branch.itr" "$DATA/fill_bench" >/dev/null 2>&1
PERF="$ITRACE_ROOT/tests/fuzz/corpus/fuzz_perfdata"

# write TOOL SMALL|BIG OUT
write() {
	case "$1" in
	fill) "$BIN/itrace-fill" -q "$TMP/branch$2.itr" -o "$3" ;;
	fill-text) "$BIN/itrace-fill" -q --text "$TMP/branch$2.itr" -o "$3" ;;
	import) "$BIN/itrace-import" -q "$PERF/$([ "$2" = -small ] && echo legacy || echo bts_full).data" -o "$3" ;;
	qtrace-conv) "$BIN/qtrace-conv" -q "$TMP/ppc$2.itr" -o "$3" ;;
	kanata) "$BIN/pipeline-sim" -q --no-lines --kanata "$3" --kanata-max 200 "$TMP/x86$2.itr" >/dev/null ;;
	xml) "$BIN/itrace-xml" -q "$TMP/x86$2.itr" -o "$3" ;;
	sqlite) "$BIN/itrace-sqlite" -q --level summary "$TMP/x86$2.itr" -o "$3" ;;
	esac
}

for t in fill fill-text import qtrace-conv kanata xml sqlite; do
	rm -f "$FULL"/*
	write "$t" -small "$FULL/out" 2>"$TMP/err"
	cp "$FULL/out" "$TMP/previous"
	# Nothing left: whatever the tool writes fails.
	dd if=/dev/zero of="$FULL/ballast" bs=4096 2>/dev/null
	write "$t" "" "$FULL/out" 2>"$TMP/err"
	check_eq "$t: exit status 1 on a full disk" 1 $?
	check "$t: says No space left on device" grep -q "No space left on device" "$TMP/err"
	check_files_eq "$t: the previous output is intact" "$TMP/previous" "$FULL/out"
	check_eq "$t: no temporary left" "" "$(temporaries "$FULL")"
done
done_testing
