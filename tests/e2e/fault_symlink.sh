#!/bin/sh
# Outputs are never written through a symlink nor in place: for each tool
# that writes a file (itrace-collect, itrace-fill, itrace-import,
# qtrace-conv, pipeline-sim -o and --kanata, itrace-xml, itrace-sqlite), a
# symlink planted at the output path is replaced, the file it pointed to is
# untouched, the new file's permissions follow the umask, --no-clobber
# keeps an existing file, and devices are written in place.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/fault_lib.sh"
B="$ITRACE_ROOT/$ITRACE_BUILD"

"$B/bench/qtrace_gen" 2000 "$TMP/ppc.itr" >/dev/null
"$B/bench/sim_gen" mix 20000 "$TMP/x86.itr"
"$BIN/itrace-collect" -q --level branch -o "$TMP/branch.itr" -- "$DATA/fill_loop" >/dev/null
PERF="$ITRACE_ROOT/tests/fuzz/corpus/fuzz_perfdata/bts_full.data"

# run_tool NAME OUT: the tool NAME writing OUT.
run_tool() {
	case "$1" in
	collect) "$BIN/itrace-collect" -q $NC -o "$2" -- "$DATA/fill_loop" >/dev/null ;;
	fill) "$BIN/itrace-fill" -q $NC "$TMP/branch.itr" -o "$2" ;;
	fill-text) "$BIN/itrace-fill" -q $NC --text "$TMP/branch.itr" -o "$2" ;;
	import) "$BIN/itrace-import" -q $NC "$PERF" -o "$2" ;;
	qtrace-conv) "$BIN/qtrace-conv" -q $NC "$TMP/ppc.itr" -o "$2" ;;
	sim-report) "$BIN/pipeline-sim" -q --no-lines $NC -o "$2" "$TMP/x86.itr" ;;
	sim-kanata) "$BIN/pipeline-sim" -q --no-lines $NC --kanata "$2" "$TMP/x86.itr" >/dev/null ;;
	xml) "$BIN/itrace-xml" -q $NC "$TMP/x86.itr" -o "$2" ;;
	sqlite) "$BIN/itrace-sqlite" -q --level summary $NC "$TMP/x86.itr" -o "$2" ;;
	esac
}
TOOLS="collect fill fill-text import qtrace-conv sim-report sim-kanata xml sqlite"

for t in $TOOLS; do
	d="$TMP/$t"
	mkdir -p "$d"
	echo "precious" >"$d/victim"
	ln -s victim "$d/out"
	NC="" run_tool "$t" "$d/out" 2>"$d/err"
	check_eq "$t: exit status with a symlink at the output" 0 $?
	check_eq "$t: the symlink's target is untouched" precious "$(cat "$d/victim")"
	check "$t: the output replaced the symlink with a file" test -f "$d/out" -a ! -L "$d/out"
	check "$t: the output is complete" test -s "$d/out"
	check_eq "$t: no temporary left" "" "$(temporaries "$d")"

	# A dangling symlink is no different.
	rm -f "$d/out"
	ln -s "$d/nowhere/x" "$d/out"
	NC="" run_tool "$t" "$d/out" 2>"$d/err"
	check "$t: a dangling symlink is replaced" test -f "$d/out" -a ! -L "$d/out"

	# The umask decides the permissions, as for a shell redirection.
	rm -f "$d/out"
	(umask 002 && NC="" run_tool "$t" "$d/out") 2>"$d/err"
	check_eq "$t: umask 002 gives rw-rw-r--" "-rw-rw-r--" "$(ls -l "$d/out" | cut -c1-10)"
	rm -f "$d/out"
	(umask 077 && NC="" run_tool "$t" "$d/out") 2>"$d/err"
	check_eq "$t: umask 077 gives rw-------" "-rw-------" "$(ls -l "$d/out" | cut -c1-10)"
done

# --no-clobber: an existing file stays.
for t in $TOOLS; do
	d="$TMP/$t"
	echo "previous" >"$d/kept"
	NC=--no-clobber run_tool "$t" "$d/kept" 2>"$d/err"
	check_eq "$t --no-clobber: exit status 1" 1 $?
	check_eq "$t --no-clobber: the existing file stays" previous "$(cat "$d/kept")"
	check "$t --no-clobber: says why" grep -q "exists; not replaced (--no-clobber)" "$d/err"
	rm -f "$d/new"
	NC=--no-clobber run_tool "$t" "$d/new" 2>"$d/err"
	check "$t --no-clobber: a new file is written" test -s "$d/new"
done

# Devices are written in place, never replaced: a private null device
# (the real /dev/null is shared with everything else on the machine).
if mknod "$TMP/null" c 1 3 2>"$TMP/err"; then
	for t in fill fill-text import qtrace-conv sim-report sim-kanata xml; do
		NC="" run_tool "$t" "$TMP/null" 2>"$TMP/err"
		check_eq "$t -o a device: exit status 0" 0 $?
		check "$t -o a device: still the device" test -c "$TMP/null"
	done
	NC="" run_tool sqlite "$TMP/null" 2>"$TMP/err"
	check_eq "sqlite -o a device: refused" 1 $?
	check "sqlite -o a device: still the device" test -c "$TMP/null"
else
	fail "mknod (needs root, as the tests do)" "$(cat "$TMP/err")"
fi
done_testing
