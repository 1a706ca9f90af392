#!/bin/sh
# The gdb backend on ppc64le programs under qemu-ppc64le: instruction
# sequence and memory accesses against the programs' known behaviour,
# branch level + itrace-fill against instruction level, --start/--stop,
# --remote to a stub we start, signals, and the errors.
. tests/lib.sh
GOLDEN="$DATA/ppc64le/qtrace_golden"
CALLS="$DATA/ppc64le/gdb_calls"
SEGV="$DATA/ppc64le/gdb_segv"
COLLECT="$BIN/itrace-collect"
if ! command -v qemu-ppc64le >/dev/null; then
	ok "gdb backend on ppc64le # SKIP qemu-ppc64le not installed (make deps)"
	done_testing
	exit
fi
nm_addr() { printf '0x%x' $((0x$(powerpc64le-linux-gnu-nm "$1" | awk -v s="$2" '$3 == s {print $1; exit}'))); }
# insns FILE: the addresses of the INSN records, one per line.
insns() { "$BIN/itrace-dump" "$1" | awk '$2 == "INSN" {print $3}'; }

"$COLLECT" --backend gdb -q -o "$TMP/g.itr" -- "$GOLDEN"
check_eq "exit status is the program's" "1" "$?"
check "trace reads back cleanly" "$BIN/itrace-dump" -q "$TMP/g.itr"
"$BIN/itrace-dump" -H "$TMP/g.itr" >"$TMP/g.dump"
check "header: ppc64le, instruction level" grep -q '^arch: ppc64le (e_machine 21, little-endian)' "$TMP/g.dump"
check "metadata: backend gdb under qemu-ppc64le" grep -q '^meta: gdb_stub=qemu-ppc64le' "$TMP/g.dump"
# The known instruction sequence: the iar column of the golden dump.
sed 's/^iar=\(0x[0-9a-f]*\).*/\1/' "$SRCDATA/qtrace_golden.dump" >"$TMP/want.addrs"
insns "$TMP/g.itr" >"$TMP/g.addrs"
check_files_eq "instruction sequence (47 steps)" "$TMP/want.addrs" "$TMP/g.addrs"
check "instruction bytes recorded" grep -q 'INSN 0x10000110 len=4 bytes=0110203d' "$TMP/g.dump"
buf=$(nm_addr "$GOLDEN" buf)
want="store $buf 8
load $buf 8
store $(printf '0x%x' $((buf + 8))) 8
load $buf 8
store $(printf '0x%x' $((buf + 16))) 8
load $buf 8
store $(printf '0x%x' $((buf + 24))) 8
load $buf 8"
check_eq "MEM records: stdx buf[i], ld buf[0]" "$want" \
	"$(awk '$2 == "MEM" {sub("size=", "", $5); print $3, $4, $5}' "$TMP/g.dump")"
check "starts with TRACE_ON at _start" grep -q "TRACE_ON start $(nm_addr "$GOLDEN" _start)" "$TMP/g.dump"
check "exit system call recorded" grep -q 'SYSCALL enter nr=1 args=0x1,' "$TMP/g.dump"
check "process exit status" grep -q 'PROCESS exit pid=[0-9]* status=1$' "$TMP/g.dump"

"$COLLECT" --backend gdb -q --level branch -o "$TMP/b.itr" -- "$GOLDEN"
"$BIN/itrace-dump" "$TMP/b.itr" >"$TMP/b.dump"
check_eq "branch level: 14 branches" "14" "$(grep -c ' BRANCH ' "$TMP/b.dump")"
check_eq "branch level: beq not taken twice" "2" \
	"$(grep -c 'BRANCH 0x1000012c -> 0x10000130 cond not-taken' "$TMP/b.dump")"
check_eq "branch level: calls and returns" "2 2" \
	"$(grep -c ' call taken' "$TMP/b.dump") $(grep -c ' return taken' "$TMP/b.dump")"
if [ -x "$BIN/itrace-fill" ]; then
	"$BIN/itrace-fill" -q "$TMP/b.itr" -o "$TMP/f.itr"
	insns "$TMP/f.itr" >"$TMP/f.addrs"
	check_files_eq "itrace-fill of the branch trace = instruction trace" "$TMP/g.addrs" "$TMP/f.addrs"
else
	ok "itrace-fill comparison # SKIP itrace-fill not built"
fi

# A system call followed by an instruction, and a lwarx/stwcx. loop: the
# two things plain single-stepping gets wrong.
ATOMIC="$DATA/ppc64le/gdb_atomic"
"$COLLECT" --backend gdb -q -o "$TMP/at.itr" -- "$ATOMIC"
check_eq "atomic loop: exit status (counter incremented 3 times)" "3" "$?"
{
	for a in 110 114 118 11c 120 124 128; do echo 0x10000$a; done
	for i in 1 2 3; do for a in 12c 130 134 138 13c; do echo 0x10000$a; done; done
	for a in 140 144 148; do echo 0x10000$a; done
} >"$TMP/at.want"
insns "$TMP/at.itr" >"$TMP/at.addrs"
check_files_eq "atomic loop: every instruction, the one after sc included" "$TMP/at.want" "$TMP/at.addrs"
counter=$(nm_addr "$ATOMIC" counter)
check_eq "atomic loop: lwarx loads and stwcx. stores the counter" \
	"$(for i in 1 2 3; do echo "load $counter"; echo "store $counter"; done; echo "load $counter")" \
	"$("$BIN/itrace-dump" "$TMP/at.itr" | awk '$2 == "MEM" {print $3, $4}')"
check "atomic loop: getpid recorded" sh -c "'$BIN/itrace-dump' '$TMP/at.itr' | grep -q 'SYSCALL exit nr=20'"
if [ -x "$BIN/itrace-fill" ]; then
	"$COLLECT" --backend gdb -q --level branch -o "$TMP/atb.itr" -- "$ATOMIC"
	"$BIN/itrace-fill" -q "$TMP/atb.itr" -o "$TMP/atf.itr"
	insns "$TMP/atf.itr" >"$TMP/atf.addrs"
	check_files_eq "atomic loop: itrace-fill of the branch trace agrees" "$TMP/at.want" "$TMP/atf.addrs"
fi

# --start FUNC: run at full speed to work(), trace it until it returns.
"$COLLECT" --backend gdb -q --start work -o "$TMP/c.itr" -- "$CALLS"
check_eq "--start: exit status work(6) = 5" "5" "$?"
"$BIN/itrace-dump" "$TMP/c.itr" >"$TMP/c.dump"
work=$(nm_addr "$CALLS" work) square=$(nm_addr "$CALLS" square)
first=$(awk '$2 == "INSN" {print $3; exit}' "$TMP/c.dump")
check "--start: first instruction is work's entry" \
	test "$first" = "$work" -o "$first" = "$(printf '0x%x' $((work + 8)))"
check_eq "--start: square() entered 6 times" "6" "$(awk -v a="$square" '$2 == "INSN" && $3 == a' "$TMP/c.dump" | wc -l)"
check_eq "--start: tracing stops when work returns (blr last)" "bytes=2000804e" \
	"$(awk '$2 == "INSN" {b = $5} END {print b}' "$TMP/c.dump")"
check "--start: trigger records" sh -c "grep -q 'TRACE_ON trigger' '$TMP/c.dump' && grep -q 'TRACE_OFF trigger' '$TMP/c.dump'"
data=$(printf '0x%x' $((0x$(powerpc64le-linux-gnu-nm "$CALLS" | awk '$2 == "B" && $3 == "data" {print $1}'))))
for i in 0 1 2 3 4 5; do printf 'store 0x%x\n' $((data + 4 * i)); done >"$TMP/want.stores"
awk '$2 == "MEM" {print $3, $4}' "$TMP/c.dump" | grep -x -F -f "$TMP/want.stores" >"$TMP/got.stores"
check_files_eq "--start: data[i] = square(i) stores, in order" "$TMP/want.stores" "$TMP/got.stores"
check_eq "--start: fewer than 300 steps" "yes" "$([ "$(grep -c ' INSN ' "$TMP/c.dump")" -lt 300 ] && echo yes)"
"$COLLECT" --backend gdb -q --start work --stop square -o "$TMP/s.itr" -- "$CALLS"
check_eq "--stop: tracing ends at square's entry" "TRACE_OFF trigger $square" \
	"$("$BIN/itrace-dump" "$TMP/s.itr" | awk '$2 == "TRACE_OFF" {print $2, $3, $4; exit}')"

# --remote: a stub started by hand, with and without naming the program.
port=$((20000 + $$ % 20000))
qemu-ppc64le -g $port "$GOLDEN" & qpid=$!
"$COLLECT" --backend gdb -q --remote 127.0.0.1:$port -o "$TMP/r.itr" -- "$GOLDEN"
check_eq "--remote: exit status" "1" "$?"
wait $qpid 2>/dev/null
insns "$TMP/r.itr" >"$TMP/r.addrs"
check_files_eq "--remote: same instruction sequence" "$TMP/want.addrs" "$TMP/r.addrs"
port=$((port + 1))
qemu-ppc64le -g $port "$GOLDEN" & qpid=$!
"$COLLECT" --backend gdb -q --remote 127.0.0.1:$port -o "$TMP/r2.itr"
wait $qpid 2>/dev/null
insns "$TMP/r2.itr" >"$TMP/r2.addrs"
check_files_eq "--remote without the program: byte order from the registers" "$TMP/want.addrs" "$TMP/r2.addrs"
check "--remote without the program: ppc64le header" sh -c "'$BIN/itrace-dump' -H '$TMP/r2.itr' | grep -q '^arch: ppc64le'"

# A fatal signal: recorded, trace ends as crashed, shell-style status.
"$COLLECT" --backend gdb -q -o "$TMP/segv.itr" -- "$SEGV" 2>/dev/null
check_eq "SIGSEGV: exit status 128+11" "139" "$?"
"$BIN/itrace-dump" "$TMP/segv.itr" >"$TMP/segv.dump"
check "SIGSEGV: signal record at the faulting store" grep -q 'SIGNAL signo=11 .*pc=0x100000e0' "$TMP/segv.dump"
check "SIGSEGV: trace ends as crashed" sh -c "'$BIN/itrace-dump' -s '$TMP/segv.itr' | grep -qi 'crash'"
check "SIGSEGV: store to address 0 recorded" sh -c "'$BIN/itrace-dump' '$TMP/segv.itr' | grep -q 'MEM store 0x0 size=4'"

# SIGINT ends the trace cleanly, while stepping and while running free.
SPIN="$DATA/ppc64le/gdb_spin"
for mode in step free; do
	[ $mode = free ] && set -- --start never || set --
	"$COLLECT" --backend gdb -q "$@" -o "$TMP/spin.itr" -- "$SPIN" & cpid=$!
	sleep 1
	kill -INT $cpid
	wait $cpid
	check_eq "SIGINT while $mode: exit status 130" "130" "$?"
	check "SIGINT while $mode: trace ends as interrupted" \
		sh -c "'$BIN/itrace-dump' -s '$TMP/spin.itr' | grep -q '^ended: interrupted'"
	if [ $mode = step ]; then
		n=$("$BIN/itrace-dump" "$TMP/spin.itr" | grep -c ' INSN ')
		check_eq "SIGINT while stepping: the instructions before it are kept" "yes" \
			"$([ "$n" -gt 100 ] && echo yes)"
	fi
done

out=$("$COLLECT" --backend gdb -q --remote 127.0.0.1:1 -o "$TMP/x.itr" 2>&1); rc=$?
check_eq "--remote to a closed port: exit 1" "1" "$rc"
printf '%s\n' "$out" >"$TMP/err"
check "--remote to a closed port: says so" grep -q "cannot connect to gdb stub at '127.0.0.1:1'" "$TMP/err"
out=$("$COLLECT" --backend gdb -q -p 1 -o "$TMP/x.itr" 2>&1); rc=$?
printf '%s\n' "$out" >"$TMP/err"
check "attach by pid refused with the way out" grep -q 'gdbserver --attach' "$TMP/err"
check_eq "attach by pid: non-zero exit" "yes" "$([ $rc -ne 0 ] && echo yes)"
done_testing
