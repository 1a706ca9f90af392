#!/bin/sh
# Messages that must not mislead (#15 item 10).  A set-user-ID program
# traced without its privileges says so (ptrace: run by an unprivileged
# user; valgrind: it cannot run one at all, and does not follow an exec of
# one); attaching to a process that another tracer holds names that
# tracer and its pid, not a /proc file that does not exist.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	fail "these tests make set-user-ID files and change user: they need root and setpriv (util-linux)"
	done_testing
	exit
fi
# A directory the unprivileged user can use, a set-user-ID-root copy of id.
chmod 755 "$TMP"
mkdir "$TMP/u" && chmod 777 "$TMP/u"
cp /usr/bin/id "$TMP/id-root" && chmod 4755 "$TMP/id-root"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

check_eq "set-user-ID root id, run by nobody: euid 0" 0 "$(nobody "$TMP/id-root" -u)"
( cd "$TMP/u" && nobody "$COLLECT" -q -o t.itr -- "$TMP/id-root" -u ) >"$TMP/p.out" 2>"$TMP/p.err"
check_eq "ptrace, as nobody: the program runs without its privileges" 65534 "$(cat "$TMP/p.out")"
check "ptrace, as nobody: and itrace-collect says so" grep -q \
	"^itrace-collect: warning: '$TMP/id-root' is set-user-ID (uid 0) but runs as uid 65534: the kernel does not give a traced program the privileges of its mode" \
	"$TMP/p.err"
"$COLLECT" -q -o "$TMP/r.itr" -- "$TMP/id-root" -u >"$TMP/r.out" 2>"$TMP/r.err"
check "ptrace, as root (CAP_SYS_PTRACE): it runs with them, no warning" sh -c \
	"test \"\$(cat '$TMP/r.out')\" = 0 && test ! -s '$TMP/r.err'"

"$COLLECT" -q --backend valgrind -o "$TMP/v.itr" -- "$TMP/id-root" -u >"$TMP/v.out" 2>"$TMP/v.err"
check_eq "valgrind: a set-user-ID program is refused (exit 1)" 1 $?
check_eq "valgrind: one line, naming the way out" \
	"itrace-collect: cannot run '$TMP/id-root' under valgrind: it is set-user-ID or set-group-ID, which Valgrind refuses (use --backend ptrace)" \
	"$(cat "$TMP/v.err")"
( cd "$TMP/u" && nobody "$COLLECT" -q --backend valgrind -o ve.itr -- /bin/sh -c "exec '$TMP/id-root' -u" ) \
	>"$TMP/ve.out" 2>"$TMP/ve.err"
check_eq "valgrind, exec of one: it runs natively, with its privileges" 0 "$(cat "$TMP/ve.out")"
check "valgrind, exec of one: the warning says it was not traced and why" grep -q \
	"^itrace-collect: warning: '$TMP/id-root' was not traced (set-user-ID or set-group-ID" "$TMP/ve.err"
check "valgrind, exec of one: the trace ends detached, not complete" sh -c \
	"'$BIN/itrace-dump' --summary '$TMP/u/ve.itr' | grep -q '^ended: detached' &&
	 '$BIN/itrace-dump' --summary '$TMP/u/ve.itr' | grep -q '^complete: no$'"

# Attaching to a process another tracer holds: its pid and name.
"$COLLECT" -q --backend ptrace -o "$TMP/a.itr" -- sleep 5 >/dev/null 2>&1 &
collector=$!
sleep 1
target=$(started_by $collector)
"$COLLECT" -q -p "$target" -o "$TMP/b.itr" 2>"$TMP/b.err"
check_eq "attach to a traced process: exit 1" 1 $?
check_eq "attach to a traced process: the real cause, with the tracer" \
	"itrace-collect: cannot attach to process $target: it is already traced by process $collector (itrace-collect), and a process has one tracer at a time: detach that one first" \
	"$(cat "$TMP/b.err")"
kill -INT $collector
wait $collector 2>/dev/null
"$COLLECT" -q -p 2147483646 -o "$TMP/c.itr" 2>"$TMP/c.err"
check_eq "attach to a process that does not exist" \
	"itrace-collect: cannot attach to process 2147483646: no such process" "$(cat "$TMP/c.err")"
done_testing
