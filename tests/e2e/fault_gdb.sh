#!/bin/sh
# A hostile or broken gdb stub (tests/helper/hostile_stub) gets a clear
# error from the gdb backend within the reply timeout, without memory
# growing with what it sends: silence, endless noise, a byte every 200 ms
# (which a per-byte timeout never notices), a 2 MiB packet, bad
# checksums, an endless qXfer object.  No trace file is left behind.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/fault_lib.sh"
STUB="$ITRACE_ROOT/$ITRACE_BUILD/tests/hostile_stub"
export ITRACE_RSP_TIMEOUT_MS=1000

# mode MODE EXPECTED: the backend against the stub in MODE says EXPECTED.
mode() {
	rm -f "$TMP/port"
	"$STUB" "$1" >"$TMP/port" &
	stub=$!
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		[ -s "$TMP/port" ] && break
		sleep 0.1
	done
	t0=$(date +%s)
	/usr/bin/time -f '%M' -o "$TMP/peak" timeout 20 "$BIN/itrace-collect" -q --backend gdb \
		--remote "127.0.0.1:$(cat "$TMP/port")" -o "$TMP/g.itr" 2>"$TMP/err"
	rc=$?
	t1=$(date +%s)
	kill "$stub" 2>/dev/null
	wait "$stub" 2>/dev/null
	check_eq "$1: exit status 1" 1 "$rc"
	check "$1: no hang ($((t1 - t0)) s)" test $((t1 - t0)) -le 8
	if grep -q "$2" "$TMP/err"; then
		ok "$1: the error says '$2'"
	else
		fail "$1: the error says '$2'" "$(cat "$TMP/err")"
	fi
	check "$1: bounded memory ($(tail -1 "$TMP/peak") KB)" \
		test "$(tail -1 "$TMP/peak")" -lt $((60000 * MEM_SCALE))
	check_eq "$1: no trace left" "" "$(ls -A "$TMP" | grep 'g\.itr' || true)"
}

mode silence "did not answer within 1000 ms"
mode noise "sent over 65536 bytes that are not packets"
mode trickle "did not answer within 1000 ms (it sent bytes that are not packets)"
mode oversize "longer than 1048576 bytes"
mode badsum "did not answer"
mode xfer "features object is larger than 4194304 bytes"
done_testing
