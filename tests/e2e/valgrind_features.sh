#!/bin/sh
# itrace-collect --backend valgrind: the records besides INSN/MEM (threads,
# signals, system calls, mappings with build-ids, the vDSO), --only, how a
# trace ends (exit code, fatal signal, exec, interrupt) and the errors for
# a missing or mismatched valgrind and programs that cannot run.
. "$ITRACE_ROOT/tests/lib.sh"
# Without valgrind (or its development files at build time) there is no
# backend to test: say so instead of failing.
if ! command -v valgrind >/dev/null 2>&1 ||
	[ ! -x "$BIN/../lib/itrace/valgrind/itrace-amd64-linux" ]; then
	echo "ok 1 # SKIP valgrind or the itrace valgrind tool is not installed"
	echo "1..1"
	exit 0
fi
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
PROG="$DATA/vg_prog"

hexaddr() { # symbol's run-time address: first mapping of the executable + value
	"$DUMP" "$1" | awk -v exe="'$PROG'" -v off="$(nm "$PROG" | awk -v s="$2" '$3 == s { print $1 }')" '
		function hex(s, n, i) { n = 0; sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n }
		$2 == "MMAP" && $NF == exe { split($4, r, "-"); if (!base || hex(r[1]) < base) base = hex(r[1]) }
		END { printf "0x%x\n", base + hex(off) }'
}

"$COLLECT" -q --backend valgrind -o "$TMP/p.itr" -- "$PROG" >/dev/null 2>&1
"$DUMP" "$TMP/p.itr" >"$TMP/p.txt"
"$DUMP" --summary "$TMP/p.itr" >"$TMP/sum.txt"
check "the trace ends complete with the program's status" grep -q '^ended: complete, status 5$' "$TMP/sum.txt"
check "metadata names the backend and valgrind's version" \
	sh -c "grep -q '^meta: backend=valgrind$' '$TMP/sum.txt' && grep -q '^meta: valgrind=3\.' '$TMP/sum.txt'"

# Signals: SIGUSR1 from raise() (si_code SI_TKILL) into on_usr1, and the
# SIGSEGV of a store to address 16 (SEGV_MAPERR) into on_segv.
usr1=$(hexaddr "$TMP/p.itr" on_usr1)
segv=$(hexaddr "$TMP/p.itr" on_segv)
check "SIGNAL 10: si_code SI_TKILL and the handler's address" \
	grep -q "SIGNAL signo=10 code=-6 addr=0x0 pc=0x[0-9a-f]* handler=$usr1\$" "$TMP/p.txt"
check "SIGNAL 11: SEGV_MAPERR at 0x10 and the handler's address" \
	grep -q "SIGNAL signo=11 code=1 addr=0x10 pc=0x[0-9a-f]* handler=$segv\$" "$TMP/p.txt"
pc=$(awk '$2 == "SIGNAL" && $3 == "signo=11" { sub(/pc=/, "", $6); print $6 }' "$TMP/p.txt")
check "the faulting store is not recorded as executed" sh -c "! grep -q 'INSN $pc ' '$TMP/p.txt'"
check "the handler's first instruction follows the SIGNAL" sh -c \
	"grep -A1 'SIGNAL signo=11' '$TMP/p.txt' | tail -1 | grep -q 'INSN $segv '"

# Threads: the worker is created, runs its own instructions, exits.
worker=$(awk '$2 == "THREAD" && $3 == "create" { sub(/tid=/, "", $4); print $4; exit }' "$TMP/p.txt")
check "THREAD create names the worker" test -n "$worker"
check "the worker's instructions belong to it" sh -c \
	"awk '\$2 == \"INSN\" { print \$1 }' '$TMP/p.txt' | grep -qx '$worker'"
check "THREAD switch before the worker's records" grep -q "^$worker THREAD switch tid=$worker " "$TMP/p.txt"
check "THREAD exit for the worker" grep -q "THREAD exit tid=$worker " "$TMP/p.txt"
check "the main thread exits with the process status" grep -q "THREAD exit tid=[0-9]* pid=[0-9]* status=5" "$TMP/p.txt"

# System calls, mappings, vDSO.
check "SYSCALL write of the output line, with its result" sh -c \
	"grep -q 'SYSCALL enter nr=1 args=0x1,' '$TMP/p.txt' && grep -q 'SYSCALL exit nr=1 ret=31' '$TMP/p.txt'"
id=$(readelf -n "$PROG" | awk '/Build ID/ { print $3 }')
check "MMAP of the executable carries its build-id" grep -q "buildid=$id '$PROG'" "$TMP/p.txt"
check "MMAP of libc" grep -q "MMAP .*buildid=[0-9a-f]* '.*/libc.so.6'" "$TMP/p.txt"
# Valgrind 3.19 gives the program no vDSO (clock_gettime is a system call),
# so every executed instruction must lie in a file mapping of the trace.
check "every instruction lies in an executable mapping of the trace" sh -c "
	awk '
		function hex(s, n, i) { n = 0; sub(/^0x/, \"\", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index(\"0123456789abcdef\", substr(s, i, 1)) - 1
			return n }
		\$2 == \"MMAP\" && \$6 ~ /x/ { split(\$4, r, \"-\"); lo[n] = hex(r[1]); hi[n++] = hex(r[2]) }
		\$2 == \"INSN\" { a = hex(\$3); ok = 0; for (i = 0; i < n; i++) if (a >= lo[i] && a < hi[i]) { ok = 1; break }
			if (!ok) { print \"outside: \" \$3; exit 1 } }' '$TMP/p.txt'"
check "no mapping of valgrind's preload library reaches the trace unnamed" sh -c \
	"! grep -q \"MMAP .* ''\" '$TMP/p.txt'"

# A trigger on a versioned library function (pthread_create@@GLIBC_2.34
# to Valgrind) is found by its plain name, as the ptrace backend finds it.
"$COLLECT" -q --backend valgrind --start pthread_create -o "$TMP/pc.itr" -- "$PROG" >/dev/null 2>&1
check_eq "--start pthread_create: one window" 1 "$("$DUMP" "$TMP/pc.itr" | grep -c 'TRACE_ON trigger')"

# Valgrind's separate debug information: Valgrind 3.19 reads libc6-dbg's
# files under /usr/lib/debug at every start (0.1 s); the tool needs them
# only for a trigger by function name, and otherwise has Valgrind find
# none.  libc's file, by its build-id (scripts/deps.sh installs
# libc6-dbg, which Debian's valgrind recommends).
libc=$(ldd "$PROG" | awk '$1 ~ /^libc\.so/ { print $3 }')
bid=$(readelf -n "$libc" | awk '/Build ID:/ { print $3 }')
dbg="/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
check "libc's debug file is installed ($dbg)" test -f "$dbg"
strace -f -e trace=open,openat -o "$TMP/st.txt" "$COLLECT" -q --backend valgrind --level branch \
	-o "$TMP/d.itr" -- "$PROG" >/dev/null 2>&1
# (the dynamic loader's failed lookups of libraries there do not count)
check_eq "no trigger: the run opens no file under /usr/lib/debug" "" \
	"$(grep '"/usr/lib/debug/.*= [0-9]' "$TMP/st.txt")"
check "no trigger: the trace is complete" sh -c "'$DUMP' --summary '$TMP/d.itr' | grep -q '^ended: complete, status 5\$'"
strace -f -e trace=open,openat -o "$TMP/st2.txt" "$COLLECT" -q --backend valgrind --level branch \
	--start main -o "$TMP/d2.itr" -- "$PROG" >/dev/null 2>&1
check "--start main: Valgrind reads libc's debug file" grep -q "\"$dbg\", O_RDONLY.*= [0-9]" "$TMP/st2.txt"

# --only main: only the executable's instructions, with scope records.
"$COLLECT" -q --backend valgrind --only main -o "$TMP/o.itr" -- "$PROG" >/dev/null 2>&1
check_eq "--only main: exit status" 5 $?
"$DUMP" "$TMP/o.itr" >"$TMP/o.txt"
check "--only main: every INSN is in the executable" sh -c "
	awk -v exe=\"'$PROG'\" '
		function hex(s, n, i) { n = 0; sub(/^0x/, \"\", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index(\"0123456789abcdef\", substr(s, i, 1)) - 1
			return n }
		\$2 == \"MMAP\" && \$NF == exe { split(\$4, r, \"-\"); lo[n] = hex(r[1]); hi[n++] = hex(r[2]) }
		\$2 == \"INSN\" { a = hex(\$3); ok = 0; for (i = 0; i < n; i++) if (a >= lo[i] && a < hi[i]) ok = 1
			if (!ok) bad++; good += ok }
		END { exit !(good > 100 && bad == 0) }' '$TMP/o.txt'"
check "--only main: tracing starts at the entry point" grep -q "TRACE_ON start $(hexaddr "$TMP/o.itr" _start)\$" "$TMP/o.txt"
check "--only main: leaving and re-entering the executable is recorded" sh -c \
	"grep -q 'TRACE_OFF scope' '$TMP/o.txt' && grep -q 'TRACE_ON scope' '$TMP/o.txt'"

# The program sees the descriptors it sees without valgrind: none of the
# collector's channels or of valgrind's log (Valgrind's own live above the
# program's RLIMIT_NOFILE, which it lowers by 12).
limit=$(($(ulimit -n) - 12))
/bin/ls /proc/self/fd | awk -v l="$limit" '$1 < l' >"$TMP/fd.native"
"$COLLECT" -q --backend valgrind -o "$TMP/fd.itr" -- /bin/ls /proc/self/fd | awk -v l="$limit" '$1 < l' >"$TMP/fd.vg"
check_files_eq "the program's open descriptors are those of a plain run" "$TMP/fd.native" "$TMP/fd.vg"

# argv[0] as typed (found in $PATH like execvp does).
check_eq "the program's argv[0] is the name as typed" "sh" \
	"$("$COLLECT" -q --backend valgrind -o "$TMP/a.itr" -- sh -c 'echo $0')"

# How traces end: a shell that forks, execs and dies of SIGSEGV.
/bin/sh -c 'echo a; /bin/echo b | cat; kill -SEGV $$' >"$TMP/n.out" 2>/dev/null
"$COLLECT" -q --backend valgrind -o "$TMP/s.itr" -- /bin/sh -c 'echo a; /bin/echo b | cat; kill -SEGV $$' \
	>"$TMP/s.out" 2>"$TMP/s.err"
check_eq "killed by SIGSEGV: itrace-collect exits 128+11" 139 $?
check_files_eq "fork and exec inside: output unchanged" "$TMP/n.out" "$TMP/s.out"
check "killed by SIGSEGV: trace ends 'target crashed, status 11'" sh -c \
	"'$DUMP' --summary '$TMP/s.itr' | grep -q '^ended: target crashed, status 11$'"
check_eq "killed by SIGSEGV: nothing of valgrind's on stderr" "" "$(cat "$TMP/s.err")"
check "killed by SIGSEGV: THREAD and PROCESS exit carry -11" sh -c "'$DUMP' '$TMP/s.itr' >'$TMP/s.txt' &&
	grep -q 'THREAD exit tid=[0-9]* pid=[0-9]* status=18446744073709551605\$' '$TMP/s.txt' &&
	grep -q 'PROCESS exit pid=[0-9]* status=-11\$' '$TMP/s.txt'"

# exec: the new program is traced too (tests/e2e/valgrind_exec.sh has
# more).  The shell's first try (a failed execve in $PATH order) is not an
# exec.
"$COLLECT" -q --backend valgrind -o "$TMP/x.itr" -- /bin/sh -c 'PATH=/nonexistent:/bin; exec true 3' >/dev/null 2>&1
check_eq "exec: the exit status of the new program" 0 $?
"$DUMP" "$TMP/x.itr" >"$TMP/x.txt"
check "exec: PROCESS exec names the new program, then its tracing starts" sh -c \
	"sed -n \"/PROCESS exec pid=[0-9]* '\\/usr\\/bin\\/true'/,\\\$p\" '$TMP/x.txt' | grep -q 'TRACE_ON start'"
check_eq "exec: one PROCESS exec (the failed execve is not one)" 1 "$(grep -c 'PROCESS exec' "$TMP/x.txt")"
check "exec: the trace ends complete" sh -c \
	"'$DUMP' --summary '$TMP/x.itr' | grep -q '^ended: complete, status 0$'"

"$COLLECT" -q --backend valgrind -o "$TMP/i.itr" -- "$DATA/vg_work" 1000000 >/dev/null 2>&1 &
pid=$!
sleep 2
kill -INT $pid
wait $pid
check_eq "SIGINT: itrace-collect exits 128+2" 130 $?
check "SIGINT: the trace is readable and marked interrupted" sh -c \
	"'$DUMP' --summary '$TMP/i.itr' | grep -q '^ended: interrupted'"

# SIGKILL of the collector: the program it started dies with it.
"$COLLECT" -q --backend valgrind -o "$TMP/k.itr" -- "$DATA/vg_work" 1000000 >/dev/null 2>&1 &
pid=$!
sleep 2
prog=$(started_by $pid)
kill -KILL $pid
wait $pid 2>/dev/null
sleep 1
# (gone, or a zombie waiting for whoever inherited it)
check "SIGKILL of itrace-collect: the program does not outlive it" \
	sh -c "test -n '$prog' && ! ps -o stat= -p '$prog' | grep -qv '^Z'"

# Errors.
"$COLLECT" -q --backend valgrind -o "$TMP/e.itr" -- "$TMP/nonexistent" 2>"$TMP/e.err"
check_eq "missing program: exit 1" 1 $?
check "missing program: one clear line" grep -qx "itrace-collect: cannot run '$TMP/nonexistent': No such file or directory" "$TMP/e.err"

ITRACE_VALGRIND=/nonexistent/valgrind "$COLLECT" -q --backend valgrind -o "$TMP/e.itr" -- /bin/true 2>"$TMP/e.err"
check_eq "valgrind missing: exit 1" 1 $?
check "valgrind missing: says to install it" grep -q "valgrind is not installed (apt-get install valgrind" "$TMP/e.err"

printf '#!/bin/sh\necho valgrind-3.10.0\n' >"$TMP/oldvg"
chmod +x "$TMP/oldvg"
ITRACE_VALGRIND="$TMP/oldvg" "$COLLECT" -q --backend valgrind -o "$TMP/e.itr" -- /bin/true 2>"$TMP/e.err"
check_eq "other valgrind release: exit 1" 1 $?
check "other valgrind release: names both versions" grep -q "valgrind 3.10.0 is installed but itrace's tool was built for valgrind 3\." "$TMP/e.err"

cp /bin/true "$TMP/badelf"
printf '\267\000' | dd of="$TMP/badelf" bs=1 seek=18 conv=notrunc 2>/dev/null
"$COLLECT" -q --backend valgrind -o "$TMP/e.itr" -- "$TMP/badelf" 2>"$TMP/e.err"
check_eq "program valgrind cannot run (aarch64 ELF): exit 1" 1 $?
check "program valgrind cannot run: says so" grep -q "itrace-collect: valgrind could not run '$TMP/badelf'" "$TMP/e.err"

for opt in "--ring 100" "--follow-fork" "--aslr" "--insn-bytes"; do
	# shellcheck disable=SC2086
	"$COLLECT" -q --backend valgrind $opt -o "$TMP/e.itr" -- /bin/true 2>"$TMP/e.err"
	check_eq "$opt: refused (exit 1)" 1 $?
	check "$opt: one line naming it" sh -c "test \$(wc -l <'$TMP/e.err') = 1 && grep -q -- '${opt% *}' '$TMP/e.err'"
done

"$COLLECT" -q --backend valgrind -p 1 -o "$TMP/e.itr" 2>"$TMP/e.err"
check_eq "-p: exit 1" 1 $?
check "-p: valgrind cannot attach" grep -q "valgrind cannot attach" "$TMP/e.err"
done_testing
