#!/bin/sh
# exec under the valgrind backend (#15 items 4, 5): the new program is
# traced, as with ptrace, instead of a trace of the wrapper that says
# complete.  Installed programs: env, sh and ls.  A program Valgrind
# cannot run (set-user-ID: tests/e2e/collect_messages.sh) ends the trace
# detached.
. "$ITRACE_ROOT/tests/lib.sh"
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
NORM="$ITRACE_ROOT/tests/helper/normalize.awk"
LS=$(readlink -f /bin/ls)

# insns_in EXE TRACE: instructions recorded in EXE's mappings.
insns_in() {
	"$DUMP" "$2" | awk -v EXE="$1" -v MODE=dynamic -f "$NORM" | grep -c '^INSN'
}

/usr/bin/env ls -d / /proc >"$TMP/native.out"
for level in insn branch; do
	"$COLLECT" -q --backend valgrind --level $level -o "$TMP/$level.itr" -- /usr/bin/env ls -d / /proc \
		>"$TMP/$level.out" 2>"$TMP/$level.err"
	check_eq "env ls ($level): exit status 0" 0 $?
	check_files_eq "env ls ($level): output unchanged" "$TMP/native.out" "$TMP/$level.out"
	check_eq "env ls ($level): nothing on stderr" "" "$(cat "$TMP/$level.err")"
	"$DUMP" "$TMP/$level.itr" >"$TMP/$level.txt"
	check "env ls ($level): PROCESS exec names ls" grep -q "PROCESS exec pid=[0-9]* '$LS'\$" "$TMP/$level.txt"
	check "env ls ($level): ls's mappings come after the exec" sh -c \
		"sed -n '/PROCESS exec/,\$p' '$TMP/$level.txt' | grep -q \"MMAP .* prot=r-x .*'$LS'\""
	check "env ls ($level): the trace is complete" sh -c \
		"'$DUMP' --summary '$TMP/$level.itr' | grep -q '^complete: yes$'"
done
n=$(insns_in "$LS" "$TMP/insn.itr")
check "env ls: ls's own code is traced ($n instructions)" test "$n" -gt 1000
# The exec'd image filled from its branches is the insn-level trace.
"$BIN/itrace-fill" -q "$TMP/branch.itr" -o "$TMP/filled.itr"
"$DUMP" "$TMP/filled.itr" | awk '$2 == "INSN" { print $3 } $2 == "GAP" { print "GAP" }' >"$TMP/filled.seq"
"$DUMP" "$TMP/insn.itr" | awk '$2 == "INSN" { print $3 }' >"$TMP/insn.seq"
check_files_eq "env ls: branch level, filled, equals insn level across the exec" "$TMP/insn.seq" "$TMP/filled.seq"

# As many instructions of ls as the ptrace backend traces (counted in the
# executable, where both trace the same code; within 1%: the environment
# Valgrind gives the program differs a little).
"$COLLECT" -q --backend ptrace -o "$TMP/pt.itr" -- /usr/bin/env ls -d / /proc >/dev/null
p=$(insns_in "$LS" "$TMP/pt.itr")
check "ptrace traces the exec'd ls too: $p instructions of ls, valgrind $n" \
	test $((n > p ? n - p : p - n)) -le $((p / 100))

# A chain of execs (sh, then sh, then ls), and --only main follows the
# executable: after the last exec only ls's code.
"$COLLECT" -q --backend valgrind --only main -o "$TMP/o.itr" -- /bin/sh -c 'exec sh -c "exec ls -d /"' >"$TMP/o.out"
check_eq "sh, sh, ls: output" "/" "$(cat "$TMP/o.out")"
"$DUMP" "$TMP/o.itr" >"$TMP/o.txt"
check_eq "sh, sh, ls: two PROCESS exec records" 2 "$(grep -c ' PROCESS exec ' "$TMP/o.txt")"
check "--only main after the exec: every instruction is in ls" sh -c "
	awk -v EXE=\"'$LS'\" '
		function hex(s, n, i) { n = 0; sub(/^0x/, \"\", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index(\"0123456789abcdef\", substr(s, i, 1)) - 1
			return n }
		\$2 == \"PROCESS\" && \$3 == \"exec\" && \$NF == EXE { after = 1 }
		after && \$2 == \"MMAP\" && \$NF == EXE { split(\$4, r, \"-\"); lo[n] = hex(r[1]); hi[n++] = hex(r[2]) }
		after && \$2 == \"INSN\" { a = hex(\$3); ok = 0; for (i = 0; i < n; i++) if (a >= lo[i] && a < hi[i]) ok = 1
			if (!ok) bad++; good += ok }
		END { exit !(good > 1000 && bad == 0) }' '$TMP/o.txt'"
done_testing
