#!/bin/sh
# The trigger language of collectors/policy/ (issue 34) on real programs:
# FUNC#N, 'FUNC if argK OP VALUE', insns:N with --for, --every and the
# usage errors, under each backend wired to the policy (ptrace so far).
# The oracle is an untriggered trace of the same program: each window
# must be exactly the stretch of it the spec names, and nothing is
# recorded outside the windows.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/collect_lib.sh"

base=0x555555554000 # the PIE load address without ASLR (the collector's default)
sym() {
	printf '0x%x\n' $((base + 0x$(nm "$PROG" | awk -v s="$1" '$3 == s { print $1 }')))
}
entry() {
	printf '0x%x\n' $((base + $(readelf -h "$PROG" | awk '/Entry point/ { print $4 }')))
}
helper=$(sym helper)

# windows FILE: each window's instructions on one line ("a b c"), from
# the INSN records between a TRACE_ON and the next TRACE_OFF.
windows() {
	"$DUMP" "$1" | awk '
		/ TRACE_ON / { on = 1; line = ""; next }
		/ TRACE_OFF / { if (on) print line; on = 0; next }
		$2 == "INSN" { if (on) line = line (line == "" ? "" : " ") $3; else stray++ }
		END { if (on) print line; if (stray) print "STRAY " stray }'
}

# activation N ADDR FULL: the instructions of the Nth call of the leaf
# function at ADDR in the full trace, its ret included, in its thread.
activation() {
	"$DUMP" "$3" | awk -v n="$1" -v a="$2" '
		$2 != "INSN" { next }
		$3 == a && ++k == n { tid = $1 }
		k == n && $1 == tid { line = line (line == "" ? "" : " ") $3; if ($NF == "bytes=c3") { print line; exit } }'
}

# count_after ENTRY N M FULL [K]: instructions N..N+M-1 counted from the
# first (Kth) execution of ENTRY in the full trace.
count_after() {
	"$DUMP" "$4" | awk -v e="$1" -v n="$2" -v m="$3" -v k="${5:-1}" '
		$2 != "INSN" { next }
		$3 == e && ++seen == k { on = 1 }
		on { if (i >= n && i < n + m) line = line (line == "" ? "" : " ") $3; i++ }
		END { print line }'
}

for backend in ptrace; do
	"$COLLECT" --backend $backend -q --insn-bytes -o "$TMP/full.itr" -- "$PROG" calls >/dev/null 2>&1
	check_eq "$backend: untriggered run" 5 "$?"

	# FUNC#N: the second call of helper only
	"$COLLECT" --backend $backend -q --insn-bytes --start 'helper#2' -o "$TMP/nth.itr" -- \
		"$PROG" calls >/dev/null 2>&1
	check_eq "$backend: --start helper#2: exit status kept" 5 "$?"
	activation 2 "$helper" "$TMP/full.itr" >"$TMP/nth.want"
	windows "$TMP/nth.itr" >"$TMP/nth.got"
	check "$backend: --start helper#2: the oracle has it" test -s "$TMP/nth.want"
	check_files_eq "$backend: --start helper#2: exactly its second activation" \
		"$TMP/nth.want" "$TMP/nth.got"
	windows "$TMP/nth.itr" | awk '{ print $1 }' >"$TMP/nth.first"
	check_eq "$backend: --start helper#2: opens at helper" "$helper" "$(cat "$TMP/nth.first")"
	# the TRACE_CTL records name what fired (ITRACE.md 6.5.12)
	check_eq "$backend: --start helper#2: TRACE_CTL names --start #0, then the return" \
		"TRACE_ON trigger $helper by=start#0|TRACE_OFF by=return" \
		"$("$DUMP" "$TMP/nth.itr" | awk '/ TRACE_ON / { on = $2 " " $3 " " $4 " " $5 } / TRACE_OFF / { off = $2 " " $5 } END { print on "|" off }')"

	# a condition on the first argument: helper(2) only (i = 0, 1, 2)
	"$COLLECT" --backend $backend -q --insn-bytes --start 'helper if arg0>1' -o "$TMP/cond.itr" -- \
		"$PROG" calls >/dev/null 2>&1
	activation 3 "$helper" "$TMP/full.itr" >"$TMP/cond.want"
	windows "$TMP/cond.itr" >"$TMP/cond.got"
	check_files_eq "$backend: --start 'helper if arg0>1': exactly helper(2)" \
		"$TMP/cond.want" "$TMP/cond.got"
	"$COLLECT" --backend $backend -q --insn-bytes --start 'helper if arg0 >= 0x1' -o "$TMP/c2.itr" -- \
		"$PROG" calls >/dev/null 2>&1
	{ activation 2 "$helper" "$TMP/full.itr"; activation 3 "$helper" "$TMP/full.itr"; } >"$TMP/c2.want"
	windows "$TMP/c2.itr" >"$TMP/c2.got"
	check_files_eq "$backend: --start 'helper if arg0 >= 0x1': helper(1) and helper(2)" \
		"$TMP/c2.want" "$TMP/c2.got"
	"$COLLECT" --backend $backend -q --start 'helper if arg0>100' -o "$TMP/never.itr" -- \
		"$PROG" calls >/dev/null 2>"$TMP/never.err"
	check_eq "$backend: a condition never true: the program's status kept" 5 "$?"
	check "$backend: ... says the trigger never fired" grep -q "start trigger never fired" "$TMP/never.err"
	check_eq "$backend: ... footer" "start never triggered" "$(ended "$TMP/never.itr" | sed 's/,.*//')"
	printf 'hello policy\n' >"$TMP/small.txt"
	# gzip -c writes its output with write(1, ...) and nothing to fd 2
	"$COLLECT" --backend $backend -q --start 'write if arg0==2' -o "$TMP/gz.itr" -- \
		gzip -c "$TMP/small.txt" >/dev/null 2>"$TMP/gz.err"
	check_eq "$backend: gzip, a write to fd 2 never: exit 1 (gzip exited 0)" 1 "$?"
	"$COLLECT" --backend $backend -q --insn-bytes --start 'write#1 if arg0==1' -o "$TMP/gz2.itr" -- \
		gzip -c "$TMP/small.txt" >"$TMP/gz.out" 2>"$TMP/gz2.err"
	check_eq "$backend: gzip --start 'write#1 if arg0==1': gzip's status" 0 "$?"
	check "$backend: ... gzip's output intact" sh -c "gzip -dc '$TMP/gz.out' | cmp -s - '$TMP/small.txt'"
	check_eq "$backend: ... one window" "1 1" \
		"$("$DUMP" "$TMP/gz2.itr" | grep -c 'TRACE_ON trigger') $("$DUMP" "$TMP/gz2.itr" | grep -c 'TRACE_OFF trigger')"
	check_eq "$backend: ... the write syscall inside it" 1 \
		"$("$DUMP" "$TMP/gz2.itr" | grep -c ' SYSCALL enter nr=1 args=0x1,')"
	check_eq "$backend: ... nothing outside it" "" "$(windows "$TMP/gz2.itr" | grep STRAY)"

	# insns:N --for insns:M: exactly M instructions, N after the entry point
	"$COLLECT" --backend $backend -q --insn-bytes --start insns:5000 --for insns:300 \
		-o "$TMP/ins.itr" -- "$PROG" calls >/dev/null 2>&1
	check_eq "$backend: --start insns:5000 --for insns:300: exit status kept" 5 "$?"
	count_after "$(entry)" 5000 300 "$TMP/full.itr" >"$TMP/ins.want"
	windows "$TMP/ins.itr" >"$TMP/ins.got"
	check_eq "$backend: --for insns:300: 300 instructions" 300 "$(wc -w <"$TMP/ins.got")"
	check_eq "$backend: --for insns:300: opened by --start #0, closed by --for" "by=start#0 by=for" \
		"$("$DUMP" "$TMP/ins.itr" | awk '/ TRACE_O(N|FF) / { printf "%s%s", n++ ? " " : "", $5 } END { print "" }')"
	check_files_eq "$backend: --start insns:5000 --for insns:300: the oracle's stretch" \
		"$TMP/ins.want" "$TMP/ins.got"

	# --every insns:P --for insns:L: windows of L every P from the entry
	"$COLLECT" --backend $backend -q --insn-bytes --every insns:2000 --for insns:50 \
		-o "$TMP/ev.itr" -- "$PROG" calls >/dev/null 2>&1
	windows "$TMP/ev.itr" >"$TMP/ev.got"
	: >"$TMP/ev.want"
	n=$(windows "$TMP/ev.itr" | wc -l)
	check "$backend: --every: several windows ($n)" test "$n" -ge 3
	check_eq "$backend: --every: later windows opened by --every" "$((n - 1))" \
		"$("$DUMP" "$TMP/ev.itr" | grep -c 'TRACE_ON trigger .* by=every')"
	k=0
	while [ $k -lt "$n" ]; do
		count_after "$(entry)" $((k * 2000)) 50 "$TMP/full.itr" >>"$TMP/ev.want"
		k=$((k + 1))
	done
	# the last window may be cut by the exit
	check_files_eq "$backend: --every insns:2000 --for insns:50: each window where it belongs" \
		"$TMP/ev.want" "$TMP/ev.got"

	# FUNC --for: N instructions from helper's first entry
	"$COLLECT" --backend $backend -q --insn-bytes --start 'helper#3' --for insns:4 -o "$TMP/hf.itr" -- \
		"$PROG" calls >/dev/null 2>&1
	count_after "$helper" 0 4 "$TMP/full.itr" 3 >"$TMP/hf.want"
	windows "$TMP/hf.itr" >"$TMP/hf.got"
	check_files_eq "$backend: --start helper#3 --for insns:4: past its return" "$TMP/hf.want" "$TMP/hf.got"
	# signal:NAME: the window opens with the delivery, the handler inside
	"$COLLECT" --backend $backend -q --insn-bytes --start signal:SIGUSR1 --for insns:20 \
		-o "$TMP/sig.itr" -- "$PROG" signal >/dev/null 2>&1
	check_eq "$backend: --start signal:SIGUSR1: exit status kept" 5 "$?"
	check_eq "$backend: --start signal:SIGUSR1: the SIGNAL first, with on_usr1 as handler" \
		"signo=10 handler=$(sym on_usr1)" \
		"$("$DUMP" "$TMP/sig.itr" | awk '/ TRACE_ON / { on = 1; next } on && $2 == "SIGNAL" { print $3, $7; exit } on && $2 == "INSN" { print "INSN first"; exit }')"
	check_eq "$backend: --start signal:SIGUSR1 --for insns:20: 20 instructions" 20 \
		"$(windows "$TMP/sig.itr" | wc -w)"
	check_eq "$backend: ... starting at the handler" "$(sym on_usr1)" \
		"$(windows "$TMP/sig.itr" | awk '{ print $1 }')"

	# threads: the condition picks the thread whose argument is 2; each
	# thread_main activation runs the same straight-line code.
	# KNOWN RACE (ptrace, not fixed yet): a thread stepping over a lifted
	# int3 lets the others run, and one may pass the lifted entry unseen,
	# so under load an entry can be missed (the window then never opens,
	# or #N counts one short).  The fix is to hold the process's other
	# threads (PTRACE_INTERRUPT) for that one step; this test fails,
	# rarely, until then.
	"$COLLECT" --backend $backend -q --insn-bytes -o "$TMP/thf.itr" -- "$PROG" threads >/dev/null 2>&1
	tm=$(sym thread_main)
	activation 1 "$tm" "$TMP/thf.itr" >"$TMP/th.want"
	for spec in 'thread_main if arg0==2' 'thread_main#3'; do
		"$COLLECT" --backend $backend -q --insn-bytes --start "$spec" -o "$TMP/th.itr" -- \
			"$PROG" threads >/dev/null 2>&1
		check_eq "$backend: threads --start '$spec': exit status kept" 5 "$?"
		windows "$TMP/th.itr" >"$TMP/th.got"
		check_files_eq "$backend: threads --start '$spec': one activation, nothing else" \
			"$TMP/th.want" "$TMP/th.got"
		check "$backend: threads --start '$spec': in a thread other than main" sh -c \
			"'$DUMP' '$TMP/th.itr' | awk '\$2 == \"INSN\" { print \$1 }' | sort -u | grep -qv \"^\$('$DUMP' '$TMP/th.itr' | sed -n 's/.*PROCESS start pid=\\([0-9]*\\).*/\\1/p')\\\$\""
	done
done

# Usage errors: exit 2, the spec quoted, the bad part pointed at.
"$COLLECT" --start 'malloc if arg9>1' -- /bin/true >/dev/null 2>"$TMP/u1.err"
check_eq "bad argument index: exit 2" 2 "$?"
check "bad argument index: the message" grep -qF \
	"itrace-collect: --start 'malloc if arg9>1': argument index 9 out of range (0..5) at column 11" \
	"$TMP/u1.err"
check "bad argument index: a caret under it" grep -qx '                     ^' "$TMP/u1.err"
"$COLLECT" --stop 'f#0' -- /bin/true >/dev/null 2>"$TMP/u2.err"
check_eq "#0: exit 2" 2 "$?"
"$COLLECT" --every insns:100 -- /bin/true >/dev/null 2>"$TMP/u3.err"
check_eq "--every without --for: exit 2" 2 "$?"
check "--every without --for: the message" grep -q -- "--every: needs --for insns:L" "$TMP/u3.err"
# A backend not wired refuses the new forms instead of tracing something else.
for b in valgrind gdb qemu bts; do
	"$COLLECT" --backend $b --start 'helper#2' -o "$TMP/r.itr" -- "$PROG" calls >/dev/null 2>"$TMP/r.err"
	rc=$?
	if grep -q "backend unavailable\|no backend" "$TMP/r.err"; then
		continue # not on this machine: nothing to refuse
	fi
	check_eq "$b: --start helper#2 refused (exit 2)" 2 "$rc"
	check "$b: ... with a message" grep -q "the $b backend does not implement" "$TMP/r.err"
done
"$COLLECT" --backend ptrace --start 'sqlite3_*' -o "$TMP/r.itr" -- "$PROG" calls >/dev/null 2>"$TMP/g.err"
check_eq "ptrace: globs refused for now (exit 2)" 2 "$?"
# auto picks the backend that implements the form
"$COLLECT" -v -q --start 'helper#2' -o "$TMP/auto.itr" -- "$PROG" calls >/dev/null 2>"$TMP/auto.err"
check_eq "auto: --start helper#2 runs" 5 "$?"
check "auto: ... under ptrace" grep -q "backend ptrace" "$TMP/auto.err"
done_testing
