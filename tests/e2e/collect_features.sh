#!/bin/sh
# itrace-collect on a dynamic C program (collect_prog.c), tracing main
# (--start main) so ld.so start-up runs at full speed: output and exit
# status as untraced, insn/branch agreement, and the records of signals,
# threads, fork, exec, rep movs and vDSO calls.
. tests/lib.sh
. "$ITRACE_ROOT/tests/helper/collect_lib.sh"
# Same environment size in every run (the forced block-step runs below set
# it to 1): the stack layout, and so libc's paths, stay the same.
ITRACE_COLLECT_BLOCKSTEP=0
export ITRACE_COLLECT_BLOCKSTEP

# trace MODE LEVEL [options]: trace one mode into $TMP/MODE.LEVEL.itr and
# compare its output and status with an untraced run.
trace() {
	mode=$1 level=$2
	shift 2
	"$PROG" "$mode" >"$TMP/$mode.plain" 2>&1
	prc=$?
	"$COLLECT" --backend ptrace -q --insn-bytes --level "$level" --start main "$@" -o "$TMP/$mode.$level.itr" -- \
		"$PROG" "$mode" >"$TMP/$mode.$level.out" 2>&1
	trc=$?
	if [ "$prc" = "$trc" ] && cmp -s "$TMP/$mode.plain" "$TMP/$mode.$level.out" &&
		grep -q EXIT-SUCCESS "$TMP/$mode.$level.out"; then
		ok "$mode ($level): output and exit status as untraced"
	else
		fail "$mode ($level): output and exit status as untraced" \
			"status $trc (untraced $prc); output: $(cat "$TMP/$mode.$level.out")"
	fi
}

for mode in work longjmp signal trap threads fork exec repmovs; do
	trace "$mode" insn
	trace "$mode" branch
	# threads: two runs wait for their threads differently (timing)
	[ "$mode" = threads ] && continue
	check "$mode: insn and branch traces agree" \
		"$TRACECHECK" agree "$TMP/$mode.insn.itr" "$TMP/$mode.branch.itr"
done

# The block-step walk (forced; one instruction a block where the CPU
# ignores PTRACE_SINGLEBLOCK) agrees with the insn traces too.
for mode in work signal trap longjmp repmovs; do
	ITRACE_COLLECT_BLOCKSTEP=1 "$COLLECT" --backend ptrace -q --insn-bytes --level branch --start main -o "$TMP/$mode.block.itr" -- \
		"$PROG" "$mode" >"$TMP/$mode.block.out" 2>&1 # a file, as above: libc checks
	check "$mode: block-step branch trace agrees with the insn trace" \
		"$TRACECHECK" agree "$TMP/$mode.insn.itr" "$TMP/$mode.block.itr"
done

# A handled signal: delivered once, with the handler's address.
check "signal: SIGUSR1 recorded with its handler" sh -c \
	"'$DUMP' '$TMP/signal.insn.itr' | grep -q 'SIGNAL signo=10 .*handler=0x[1-9a-f]'"
# Outside a --start window (running at full speed) too: the handlers of
# vg_prog's SIGUSR1 and SIGSEGV, never "default action" (handler 0).  And a
# --start at a handler still opens a window when the signal arrives there.
VGP="$DATA/vg_prog"
"$COLLECT" --backend ptrace -q --start vg_window -o "$TMP/window.itr" -- "$VGP" >/dev/null 2>&1
"$DUMP" "$TMP/window.itr" | awk -v EXE="$VGP" -v MODE=dynamic -v SIGNALS=1 \
	-f "$ITRACE_ROOT/tests/helper/normalize.awk" >"$TMP/window.txt"
for fn in on_usr1 on_segv; do
	h=$(nm "$VGP" | awk -v f="$fn" '$3 == f { print $1 }' | sed 's/^0*//')
	check "outside a window: the SIGNAL of $fn names it" \
		grep -q "^SIGNAL .* handler=exe+$h\$" "$TMP/window.txt"
done
"$COLLECT" --backend ptrace -q --start on_usr1 -o "$TMP/inhandler.itr" -- "$VGP" >/dev/null 2>&1
check_eq "--start on_usr1: one window, at the handler" 1 \
	"$("$DUMP" "$TMP/inhandler.itr" | grep -c 'TRACE_ON trigger')"
# The program's own int3 and raise(SIGTRAP) reach its handler.
check_eq "trap: both SIGTRAPs recorded" 2 \
	"$("$DUMP" "$TMP/trap.insn.itr" | grep -c 'SIGNAL signo=5 ')"
check_eq "threads: three THREAD create records" 3 \
	"$("$DUMP" "$TMP/threads.insn.itr" | grep -c ' THREAD create ')"
check "exec: PROCESS exec record" sh -c "'$DUMP' '$TMP/exec.insn.itr' | grep -q ' PROCESS exec '"
check_eq "exec: main traced in both images" 2 \
	"$("$DUMP" "$TMP/exec.insn.itr" | grep -c 'TRACE_ON trigger')"

# The program inherits the signal dispositions it would without the
# collector (which ignores SIGPIPE and catches SIGINT/SIGTERM itself).
trace sigign insn

# exec from a thread that is not the leader: the exec'ing thread goes on
# under the process id, main is traced again in the new image.
trace threadexec insn
check_eq "threadexec: main traced in both images" 2 \
	"$("$DUMP" "$TMP/threadexec.insn.itr" | grep -c 'TRACE_ON trigger')"
check "threadexec: PROCESS exec record" sh -c "'$DUMP' '$TMP/threadexec.insn.itr' | grep -q ' PROCESS exec '"

# rep movsb over 64 bytes: one INSN per iteration, each with its load and
# store, and one for the final check of the count (ITRACE.md 6.5.2).
"$DUMP" "$TMP/repmovs.insn.itr" | awk '
	$2 == "INSN" { counting = ($NF == "bytes=f3a4"); if (counting) insns++; next }
	counting && $2 == "MEM" { mem[$3]++ }
	END { printf "%d %d %d\n", insns, mem["load"], mem["store"] }' >"$TMP/rep.txt"
check_eq "rep movsb: 65 INSN, 64 loads, 64 stores" "65 64 64" "$(cat "$TMP/rep.txt")"

# --follow-fork: the child is traced as its own process.
"$COLLECT" --backend ptrace -q --insn-bytes --follow-fork --start main -o "$TMP/ff.itr" -- "$PROG" fork >/dev/null 2>&1
check "follow-fork: PROCESS fork record" sh -c "'$DUMP' '$TMP/ff.itr' | grep -q ' PROCESS fork '"
check "follow-fork: the child's exit status" sh -c \
	"'$DUMP' '$TMP/ff.itr' | grep -q ' PROCESS exit pid=[0-9]* status=13'"
check_eq "follow-fork: two threads with instructions" 2 \
	"$("$DUMP" "$TMP/ff.itr" | awk '$2 == "INSN" { t[$1] = 1 } END { print length(t) }')"
# A traced child that stops itself (SIGSTOP) stays stopped until its
# parent's SIGCONT, as without the tracer.
trace stopcont insn --follow-fork
check_eq "stopcont: both processes traced" 2 \
	"$("$DUMP" "$TMP/stopcont.insn.itr" | awk '$2 == "INSN" { t[$1] = 1 } END { print length(t) }')"
check_eq "no follow-fork: only the parent has instructions" 1 \
	"$("$DUMP" "$TMP/fork.insn.itr" | awk '$2 == "INSN" { t[$1] = 1 } END { print length(t) }')"

# clock_gettime runs in the vDSO: its instructions are traced there.
trace vdso insn
vdso_range=$("$DUMP" "$TMP/vdso.insn.itr" | awk '$2 == "MMAP" && $NF == "'"'[vdso]'"'" { print $4 }')
lo=${vdso_range%-*} hi=${vdso_range#*-}
check_eq "vdso: CODE record at the [vdso] mapping" "$lo" \
	"$("$DUMP" "$TMP/vdso.insn.itr" | awk '$2 == "CODE" { print $3 }')"
n=$("$DUMP" "$TMP/vdso.insn.itr" | awk -v lo="$lo" -v hi="$hi" \
	'$2 == "INSN" && length($3) == length(lo) && $3 >= lo && $3 < hi { n++ } END { print n + 0 }')
if [ "$n" -gt 0 ]; then ok "vdso: $n instructions inside [vdso]"; else fail "vdso: instructions inside [vdso]" "range $vdso_range"; fi
done_testing
