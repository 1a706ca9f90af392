#!/bin/sh
# itrace-sqlite is atomic: killed at any point (SIGKILL: no cleanup at
# all; SIGTERM/SIGINT: cleanup), the target is either absent or the
# previous complete database, never a half-written file.
. tests/lib.sh
SQL="$BIN/itrace-sqlite"
q() { sqlite3 -batch "$1" "$2"; }
SYNTH="$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth"

"$SYNTH" "$TMP/small.itr" 10
"$SYNTH" "$TMP/big.itr" 150000

# kill_at SIGNAL BYTES: export the first BYTES of the big trace, fed
# through a FIFO that stays open, so the exporter can never finish on its
# own however fast the machine; then kill it while it waits for the rest.
SIZE=$(wc -c <"$TMP/big.itr")
kill_at() {
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	# a background job of a script ignores SIGINT, and tools keep signals
	# that were ignored ignored: reset it, as an interactive shell would
	env --default-signal=INT "$SQL" -q - -o "$TMP/out.db" <"$TMP/fifo" 2>/dev/null &
	pid=$!
	exec 3>"$TMP/fifo"
	head -c "$2" "$TMP/big.itr" >&3
	sleep 0.2
	kill "-$1" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	exec 3>&-
	rm -f "$TMP/fifo"
}
QUARTER=$((SIZE / 4))
HALF=$((SIZE / 2))
ALL_BUT_ONE=$((SIZE - 1))

# Without a previous database: nothing appears under the final name.
for n in 0 $QUARTER $ALL_BUT_ONE; do
	kill_at KILL "$n"
	check_eq "SIGKILL after $n of $SIZE bytes, no previous db: no target" "" "$(ls "$TMP/out.db" 2>/dev/null)"
done
rm -f "$TMP"/.out.db.itrace-tmp.*

# With a previous database: it stays, intact, until a run completes.
"$SQL" -q "$TMP/small.itr" -o "$TMP/out.db"
before=$(q "$TMP/out.db" "SELECT value FROM metadata WHERE key='insn_count'")
check_eq "previous db holds the small trace" 101 "$before"
for n in 0 $QUARTER $HALF $ALL_BUT_ONE; do
	kill_at KILL "$n"
	check_eq "SIGKILL after $n of $SIZE bytes: previous db intact" "ok|101|3" \
		"$(q "$TMP/out.db" "SELECT (SELECT * FROM pragma_integrity_check), (SELECT value FROM metadata WHERE key='insn_count'), (SELECT * FROM pragma_user_version)")"
done
# SIGKILL cannot be cleaned up after: the leftovers are hidden temporaries
check_eq "only hidden temporaries left by SIGKILL" "" \
	"$(cd "$TMP" && ls -A | grep -v -e '^\.out\.db\.itrace-tmp\.' -e '^out.db$' -e '\.itr$')"
rm -f "$TMP"/.out.db.itrace-tmp.*
for sig in TERM INT; do
	kill_at "$sig" "$HALF"
	check_eq "SIG$sig: previous db intact and temporary removed" "101|" \
		"$(q "$TMP/out.db" "SELECT value FROM metadata WHERE key='insn_count'")|$(ls -A "$TMP" | grep '^\.out\.db\.itrace-tmp\.')"
done

# A write failure (file size limit: EFBIG, like a full disk) is reported,
# and the temporary file removed; the previous db stays.
(ulimit -f 2048; trap '' XFSZ; exec "$SQL" -q --level branches "$TMP/big.itr" -o "$TMP/out.db") 2>"$TMP/efbig.err"
check_eq "write failure: exit 1" 1 $?
check "write failure: SQLite's error reported" grep -q "^itrace-sqlite: cannot write '.*out.db': SQLite: " "$TMP/efbig.err"
check_eq "write failure: previous db intact, no temporary" "101|" \
	"$(q "$TMP/out.db" "SELECT value FROM metadata WHERE key='insn_count'")|$(ls -A "$TMP" | grep '^\.out\.db\.itrace-tmp\.')"

# A run that completes replaces it.
check "complete run" "$SQL" -q "$TMP/big.itr" -o "$TMP/out.db"
check_eq "replaced by the complete export" 1500001 \
	"$(q "$TMP/out.db" "SELECT value FROM metadata WHERE key='insn_count'")"
done_testing
