#!/bin/sh
# itrace-collect --backend qemu on ppc64le programs (built by tests/data
# with the Debian cross compiler), against the gdb backend, which
# single-steps the same programs under qemu-ppc64le -g: the instruction
# sequence and the memory accesses of work() (static and dynamic,
# -mcpu=power9 and -mcpu=power10 under QEMU_CPU=power10), of whole small
# programs, and of main; program output and exit status unchanged;
# branch level + itrace-fill = instruction level; signals (handled, from
# another thread, fatal), threads, fork; every executed instruction in a
# named module of a dynamic program.
. tests/lib.sh
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
P="$DATA/ppc64le"
if ! command -v qemu-ppc64le >/dev/null; then
	ok "qemu backend on ppc64le # SKIP qemu-ppc64le not installed (make deps)"
	done_testing
	exit
fi
nm_addr() { printf '0x%x' $((0x$(powerpc64le-linux-gnu-nm "$1" | awk -v s="$2" '$3 == s {print $1; exit}'))); }
# records FILE: INSN addresses and MEM records (kind, address, size).
records() { "$DUMP" "$1" | awk '$2 == "INSN" {print "INSN", $3} $2 == "MEM" {print "MEM", $3, $4, $5}'; }
# per_thread FILE: "thread-number address" of every INSN (tids renumbered).
per_thread() {
	"$DUMP" "$1" | awk '$2 == "INSN" { if (!($1 in id)) id[$1] = n++; print id[$1], $3 }' |
		sort -s -k1,1n
}

# --- work() of qemu_prog in every build, against the gdb backend -----------
for v in qemu_prog qemu_prog_dyn qemu_prog_p9 qemu_prog_p10 qemu_prog_p10dyn; do
	QEMU_CPU=power10 "$COLLECT" -q --backend qemu --start work -o "$TMP/q.itr" -- "$P/$v"
	check_eq "$v: exit status 42 under the qemu backend" "42" "$?"
	QEMU_CPU=power10 "$COLLECT" -q --backend gdb --start work -o "$TMP/g.itr" -- "$P/$v"
	records "$TMP/q.itr" >"$TMP/q.txt"
	records "$TMP/g.itr" >"$TMP/g.txt"
	check "$v: work() traced (loads, stores, 16-byte vectors)" sh -c \
		"test \$(grep -c '^INSN' '$TMP/q.txt') -gt 1000 && grep -q '^MEM load .* size=16' '$TMP/q.txt'"
	check_files_eq "$v: work()'s instructions and memory accesses equal the gdb backend's" \
		"$TMP/g.txt" "$TMP/q.txt"
	if [ $v = qemu_prog_p9 ]; then
		# POWER9's lxv/stxv: 16-byte accesses in both backends (the one
		# decoder knows them; capstone 4 alone did not).
		powerpc64le-linux-gnu-objdump -d "$P/$v" |
			awk '$6 ~ /^(lxv|stxv)$/ { sub(":", "", $1); print "0x" $1 }' \
				>"$TMP/vsx.addrs"
		check_eq "$v: lxv/stxv accesses (2 loads, 2 stores) are 16 bytes" "4" \
			"$(awk -v A="$TMP/vsx.addrs" 'BEGIN { while ((getline a < A) > 0) vsx[a] = 1 }
				$1 == "INSN" { in_vsx = ($2 in vsx) } $1 == "MEM" && in_vsx && $4 == "size=16"' \
				"$TMP/q.txt" | wc -l | tr -d ' ')"
	fi
done
# POWER10 prefixed instructions (pla, pld, xxspltidp, ...: primary opcode
# 1, the last byte of a little-endian word 0x04-0x07) in the p10 build:
# their 8-byte lengths are in the trace.
powerpc64le-linux-gnu-objdump -d "$P/qemu_prog_p10" |
	awk '$5 ~ /^0[4-7]$/ && $6 != "" { sub(":", "", $1); print "0x" $1 }' >"$TMP/prefixed.addrs"
QEMU_CPU=power10 "$COLLECT" -q --backend qemu -o "$TMP/p10.itr" -- "$P/qemu_prog_p10"
check "qemu_prog_p10: prefixed instructions recorded with length 8" sh -c \
	"test -s '$TMP/prefixed.addrs' && '$DUMP' '$TMP/p10.itr' | awk '\$2 == \"INSN\" && \$4 == \"len=8\" {print \$3}' |
	 grep -q -x -F -f '$TMP/prefixed.addrs'"

# --- whole programs and main, against the gdb backend --------------------------
for v in qtrace_golden gdb_atomic; do
	"$COLLECT" -q --backend qemu -o "$TMP/q.itr" -- "$P/$v"
	q_rc=$?
	"$COLLECT" -q --backend gdb -o "$TMP/g.itr" -- "$P/$v"
	check_eq "$v: exit status as under the gdb backend" "$?" "$q_rc"
	records "$TMP/q.itr" >"$TMP/q.txt"
	records "$TMP/g.itr" >"$TMP/g.txt"
	check_files_eq "$v: every instruction and access equals the gdb backend's" "$TMP/g.txt" "$TMP/q.txt"
done
"$COLLECT" -q --backend qemu --start main -o "$TMP/q.itr" -- "$P/gdb_calls"
"$COLLECT" -q --backend gdb --start main -o "$TMP/g.itr" -- "$P/gdb_calls"
records "$TMP/q.itr" >"$TMP/q.txt"
records "$TMP/g.itr" >"$TMP/g.txt"
check_files_eq "gdb_calls --start main: main equals the gdb backend's" "$TMP/g.txt" "$TMP/q.txt"

# --- output, exit status, header -------------------------------------------------
for v in qemu_prog qemu_prog_dyn; do
	qemu-ppc64le -L /usr/powerpc64le-linux-gnu "$P/$v" >"$TMP/plain.out" 2>"$TMP/plain.err"
	plain_rc=$?
	"$COLLECT" -q --backend qemu -o "$TMP/full.itr" -- "$P/$v" >"$TMP/q.out" 2>"$TMP/q.err"
	check_eq "$v: exit status unchanged" "$plain_rc" "$?"
	check_files_eq "$v: stdout unchanged" "$TMP/plain.out" "$TMP/q.out"
	check_files_eq "$v: stderr unchanged" "$TMP/plain.err" "$TMP/q.err"
	check "$v: the trace reads back cleanly" "$DUMP" -q "$TMP/full.itr"
done
"$DUMP" -H "$TMP/full.itr" >"$TMP/h.txt"
check "header: ppc64le, instruction level with MEM" sh -c \
	"grep -q '^arch: ppc64le (e_machine 21, little-endian)' '$TMP/h.txt' && grep -q '^flags: 0x1' '$TMP/h.txt'"
check "metadata: backend qemu, signals inferred" sh -c \
	"grep -q '^meta: backend=qemu' '$TMP/h.txt' && grep -q '^meta: signals=inferred' '$TMP/h.txt'"

# --- a dynamic program: libraries named, build-ids, every instruction in a module
"$DUMP" "$TMP/full.itr" >"$TMP/full.dump"
check "dynamic: MMAP records of ld64.so.2 and libc.so.6 with build-ids" sh -c \
	"grep -q 'MMAP .* prot=r-x buildid=[0-9a-f]* .*/ld64.so.2' '$TMP/full.dump' &&
	 grep -q 'MMAP .* prot=r-x buildid=[0-9a-f]* .*/libc.so.6' '$TMP/full.dump'"
"$COLLECT" -q --backend qemu --level branch -o "$TMP/dyn-b.itr" -- "$P/qemu_crash_dyn" >/dev/null 2>&1
if [ -x "$BIN/itrace-sqlite" ]; then
	"$BIN/itrace-sqlite" -q --level summary "$TMP/dyn-b.itr" -o "$TMP/dyn.db" 2>/dev/null
	check_eq "dynamic: no instruction outside a named module ([unknown])" "0" \
		"$(sqlite3 "$TMP/dyn.db" "SELECT coalesce(sum(f.insn_count), 0) FROM functions f
			JOIN symbols s ON s.id = f.symbol_id JOIN dsos d ON d.id = s.dso_id
			WHERE d.short_name = '[unknown]'")"
	check "dynamic: instructions in the program, ld64.so.2 and libc.so.6" sh -c \
		"sqlite3 '$TMP/dyn.db' 'SELECT short_name FROM dsos' | grep -q '^qemu_crash_dyn$' &&
		 sqlite3 '$TMP/dyn.db' 'SELECT short_name FROM dsos' | grep -q '^libc.so.6$'"
	check_eq "dynamic: puts and main symbolised" "2" \
		"$(sqlite3 "$TMP/dyn.db" "SELECT count(*) FROM functions f JOIN symbols s ON s.id = f.symbol_id
			WHERE s.name IN ('main', '_IO_puts') AND f.insn_count > 0")"
fi

# --- branch level + itrace-fill = instruction level ----------------------------------
for v in qemu_prog qemu_prog_dyn qemu_prog_p9 qemu_prog_p10; do
	QEMU_CPU=power10 "$COLLECT" -q --backend qemu -o "$TMP/i.itr" -- "$P/$v"
	QEMU_CPU=power10 "$COLLECT" -q --backend qemu --level branch -o "$TMP/b.itr" -- "$P/$v"
	"$BIN/itrace-fill" -q "$TMP/b.itr" -o "$TMP/f.itr"
	check "$v: itrace-fill of the branch trace leaves no gap" sh -c \
		"! '$DUMP' '$TMP/f.itr' | grep -q ' GAP '"
	per_thread "$TMP/i.itr" >"$TMP/i.txt"
	per_thread "$TMP/f.itr" >"$TMP/f.txt"
	check_files_eq "$v: itrace-fill of the branch trace = the instruction trace" "$TMP/i.txt" "$TMP/f.txt"
done

# --- signals -----------------------------------------------------------------------
"$DUMP" "$TMP/i.itr" >"$TMP/i.dump" # qemu_prog_p10: raise(SIGUSR1) in main
"$COLLECT" -q --backend qemu -o "$TMP/s.itr" -- "$P/qemu_prog"
"$DUMP" "$TMP/s.itr" >"$TMP/s.dump"
handler=$(nm_addr "$P/qemu_prog" on_usr1)
check "raise(SIGUSR1): SIGNAL with its handler, code SI_TKILL" \
	grep -q "SIGNAL signo=10 code=-6 addr=0x0 pc=0x[0-9a-f]* handler=$handler" "$TMP/s.dump"
pc=$(awk '$2 == "SIGNAL" { sub("pc=", "", $6); print $6 }' "$TMP/s.dump")
check_eq "raise(SIGUSR1): delivered after the tgkill system call, the handler's first instruction next" \
	"SYSCALL SYSCALL SIGNAL INSN $handler" \
	"$(awk '$2 == "SIGNAL" { print p2, p1, $2; n = 1; next } n == 1 && $2 == "INSN" { print "INSN", $3; exit }
		$2 == "SYSCALL" || $2 == "INSN" { p2 = p1; p1 = $2 }' "$TMP/s.dump" | tr '\n' ' ' | sed 's/ $//')"
check_eq "raise(SIGUSR1): the handler returns to the interrupted pc" "$pc" \
	"$(awk '$2 == "SYSCALL" && $4 == "nr=172" { r = 1; next } r && $2 == "INSN" { print $3; exit }' "$TMP/s.dump")"

"$COLLECT" -q --backend qemu -o "$TMP/t.itr" -- "$P/qemu_threads_dyn" >"$TMP/t.out"
check_eq "threads: exit status 0 (handled, child 7, sums right)" "0" "$?"
check_eq "threads: program output" "handled 12, child 7" "$(cat "$TMP/t.out")"
"$DUMP" "$TMP/t.itr" >"$TMP/t.dump"
check_eq "threads: two THREAD create, three exits" "2 3" \
	"$(grep -c 'THREAD create' "$TMP/t.dump") $(grep -c 'THREAD exit' "$TMP/t.dump")"
check "threads: fork recorded" grep -q 'PROCESS fork pid=[0-9]* child=[0-9]*' "$TMP/t.dump"
base=$(awk '$2 == "MMAP" && /qemu_threads_dyn/ { split($4, r, "-"); print r[1]; exit }' "$TMP/t.dump")
usr2=$(printf '0x%x' $((base + $(nm_addr "$P/qemu_threads_dyn" on_usr2))))
check "threads: SIGUSR2 from another thread, into its handler" \
	grep -q "SIGNAL signo=12 code=0 addr=0x0 pc=0x[0-9a-f]* handler=$usr2" "$TMP/t.dump"
check_eq "threads: the signal went to the first worker" \
	"$(awk '$2 == "THREAD" && $3 == "create" { sub("tid=", "", $4); print $4; exit }' "$TMP/t.dump")" \
	"$(awk '$2 == "SIGNAL" { print $1 }' "$TMP/t.dump")"
"$COLLECT" -q --backend qemu --level branch -o "$TMP/tb.itr" -- "$P/qemu_threads_dyn" >/dev/null
"$DUMP" "$TMP/tb.itr" >"$TMP/tb.dump"
check "threads, branch level: SIGNAL then the interrupt branch into the handler" sh -c \
	"grep -A1 'SIGNAL signo=12' '$TMP/tb.dump' | grep -q 'BRANCH 0x[0-9a-f]* -> $usr2 interrupt taken'"
"$BIN/itrace-fill" -q "$TMP/tb.itr" -o "$TMP/tf.itr"
check "threads, branch level: itrace-fill leaves no gap" sh -c "! '$DUMP' '$TMP/tf.itr' | grep -q ' GAP '"

# --- fatal signals ---------------------------------------------------------------------
"$COLLECT" -q --backend qemu -o "$TMP/segv.itr" -- "$P/gdb_segv" 2>/dev/null
check_eq "SIGSEGV: exit status 128+11" "139" "$?"
"$DUMP" "$TMP/segv.itr" >"$TMP/segv.dump"
check "SIGSEGV: signal record at the faulting store" grep -q 'SIGNAL signo=11 .*pc=0x100000e0 handler=0x0' "$TMP/segv.dump"
check_eq "SIGSEGV: the instructions before it, not the store (it did not complete)" \
	"0x100000d8 0x100000dc" "$(awk '$2 == "INSN" {print $3}' "$TMP/segv.dump" | tr '\n' ' ' | sed 's/ $//')"
check "SIGSEGV: trace ends as crashed" sh -c "'$DUMP' -s '$TMP/segv.itr' | grep -qi 'crash'"
"$COLLECT" -q --backend qemu -o "$TMP/crash.itr" -- "$P/qemu_crash_dyn" >"$TMP/crash.out" 2>/dev/null
check_eq "C program crash: exit status 139, its output kept" "139 about to crash" "$? $(cat "$TMP/crash.out")"
"$DUMP" "$TMP/crash.itr" >"$TMP/crash.dump"
# The store in crash(), at its run-time address (the PIE's first mapping + its offset).
store=$(powerpc64le-linux-gnu-objdump -d --disassemble=crash "$P/qemu_crash_dyn" |
	awk '$NF ~ /^r[0-9]+,0\(r[0-9]+\)$/ && $(NF-1) == "stw" { sub(":", "", $1); print $1; exit }')
base=$("$DUMP" "$TMP/crash.itr" | awk '$2 == "MMAP" && /qemu_crash_dyn/ { split($4, r, "-"); print r[1]; exit }')
check "C program crash: SIGNAL at the store in crash()" grep -q \
	"SIGNAL signo=11 code=0 addr=0x0 pc=$(printf '0x%x' $((base + 0x$store))) handler=0x0" \
	"$(printf '%s' "$TMP/crash.dump")"
"$COLLECT" -q --backend qemu --level branch --ring 16 -o "$TMP/ring.itr" -- "$P/qemu_crash_dyn" >/dev/null 2>&1
"$DUMP" "$TMP/ring.itr" >"$TMP/ring.dump"
# Exactly N branches, the way every backend keeps them (signals take no slot).
check_eq "--ring 16: the last 16 branches, the fatal SIGNAL last" "16 SIGNAL" \
	"$(grep -c ' BRANCH ' "$TMP/ring.dump") $(awk '$2 == "BRANCH" || $2 == "SIGNAL" { l = $2 } END { print l }' "$TMP/ring.dump")"
check "--ring 16: the branches dropped are counted" grep -q 'LOST' "$TMP/ring.dump"
done_testing
