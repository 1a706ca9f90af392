#!/bin/sh
# --backend auto, the default (#22): valgrind for a program the collector
# starts when valgrind can run it, ptrace for -p, for what only ptrace does
# (--ring, --follow-fork, --aslr), for set-user-ID programs and where
# valgrind is missing; the qemu backend for a program of another
# architecture (or an error naming --backend gdb when this build has
# none).  The choice and its reason are in the metadata and, with -v, on
# stderr.  The ptrace backend runs the collector and the program it starts
# on one CPU unless --no-pin.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"

meta() { "$DUMP" --header "$1" 2>/dev/null | sed -n "s/^meta: $2=//p"; }

# No flags: valgrind, fast, complete.
ls / >"$TMP/native.out"
"$COLLECT" -q -o "$TMP/ls.itr" -- ls / >"$TMP/ls.out"
check_files_eq "no flags: ls's output unchanged" "$TMP/native.out" "$TMP/ls.out"
check_eq "no flags: the valgrind backend" valgrind "$(meta "$TMP/ls.itr" backend)"
check_eq "no flags: the reason is in the metadata" \
	"auto: valgrind can run this x86-64 program, far faster than single-stepping" \
	"$(meta "$TMP/ls.itr" backend_reason)"
"$COLLECT" -v -q -o "$TMP/v.itr" -- ls / 2>"$TMP/v.err" >/dev/null
check "-v: the choice and the reason on stderr" grep -qx \
	"itrace-collect: backend valgrind (auto: valgrind can run this x86-64 program, far faster than single-stepping)" \
	"$TMP/v.err"

# valgrind missing: ptrace, and why.
ITRACE_VALGRIND=/nonexistent/valgrind "$COLLECT" -q -o "$TMP/nv.itr" -- /bin/true
check_eq "ITRACE_VALGRIND names no valgrind: ptrace" ptrace "$(meta "$TMP/nv.itr" backend)"
check "ITRACE_VALGRIND names no valgrind: the reason says so" sh -c \
	"'$DUMP' --header '$TMP/nv.itr' | grep -q '^meta: backend_reason=auto: valgrind cannot be used here (valgrind is not installed'"
mkdir "$TMP/bin" && ln -s "$(readlink -f /bin/true)" "$TMP/bin/true"
PATH="$TMP/bin" "$COLLECT" -q -o "$TMP/np.itr" -- true
check_eq "no valgrind in PATH: ptrace" ptrace "$(meta "$TMP/np.itr" backend)"

# What only ptrace does.
for opt in "--ring 10" "--follow-fork" "--aslr" "--insn-bytes"; do
	# shellcheck disable=SC2086
	"$COLLECT" -q $opt -o "$TMP/o.itr" -- /bin/true
	check_eq "$opt: ptrace, and why" "ptrace / auto: ${opt% *} needs the ptrace backend" \
		"$(meta "$TMP/o.itr" backend) / $(meta "$TMP/o.itr" backend_reason)"
done
sleep 2 &
sleeper=$!
"$COLLECT" -q -p $sleeper -o "$TMP/p.itr"
check_eq "-p: ptrace, and why" "ptrace / auto: -p attaches to a running process, which only ptrace does" \
	"$(meta "$TMP/p.itr" backend) / $(meta "$TMP/p.itr" backend_reason)"
check_eq "-p: an attached process keeps its CPU affinity" no "$(meta "$TMP/p.itr" pinned)"
wait $sleeper

if [ "$(id -u)" = 0 ]; then
	chmod 755 "$TMP"
	cp /usr/bin/id "$TMP/id-suid" && chown 65534 "$TMP/id-suid" && chmod 4755 "$TMP/id-suid"
	"$COLLECT" -q -o "$TMP/s.itr" -- "$TMP/id-suid" -u >"$TMP/s.out"
	check_eq "a set-user-ID program: ptrace, which runs it (as root, with its uid)" \
		"ptrace 65534" "$(meta "$TMP/s.itr" backend) $(cat "$TMP/s.out")"
else
	fail "a set-user-ID program: the test makes one and needs root"
fi

# --backend names one: that one.
"$COLLECT" -q --backend ptrace -o "$TMP/a.itr" -- /bin/true
check_eq "--backend ptrace: asked" "ptrace / asked: --backend ptrace" \
	"$(meta "$TMP/a.itr" backend) / $(meta "$TMP/a.itr" backend_reason)"

# Another architecture: qemu, or an error that names --backend gdb.
if "$COLLECT" --list-backends | grep -q '^qemu '; then
	"$COLLECT" -q -o "$TMP/q.itr" -- "$DATA/ppc64le/pipe_hello" 2>"$TMP/q.err" >/dev/null
	check_eq "a ppc64le program: the qemu backend" "qemu" "$(meta "$TMP/q.itr" backend)"
else
	"$COLLECT" -q -o "$TMP/q.itr" -- "$DATA/ppc64le/pipe_hello" 2>"$TMP/q.err" >/dev/null
	check_eq "a ppc64le program, no qemu backend in this build: exit 1" 1 $?
	check_eq "a ppc64le program, no qemu backend: one line naming --backend gdb" \
		"itrace-collect: '$DATA/ppc64le/pipe_hello' is a ppc64le program and this itrace has no qemu backend to run it: use --backend gdb (it runs it under qemu-user's gdb stub)" \
		"$(cat "$TMP/q.err")"
fi

# ptrace pins the program it starts to the collector's CPU; it sees one.
"$COLLECT" -q --backend ptrace -o "$TMP/n1.itr" -- nproc >"$TMP/n1.out"
check_eq "ptrace: the program runs on one CPU (nproc)" 1 "$(cat "$TMP/n1.out")"
check "ptrace: the metadata names the CPU" sh -c "echo '$(meta "$TMP/n1.itr" pinned)' | grep -qx 'cpu [0-9]*'"
"$COLLECT" -q --backend ptrace --no-pin -o "$TMP/n2.itr" -- nproc >"$TMP/n2.out"
check_eq "ptrace --no-pin: the program's own affinity" "$(nproc) no" "$(cat "$TMP/n2.out") $(meta "$TMP/n2.itr" pinned)"
done_testing
