#!/bin/sh
# itrace-collect --backend qemu: the POWER pipeline (-o - | qtrace-conv,
# pipeline-sim --core power10) against the gdb backend's, --start/--stop
# against the gdb backend, --only, --insn-bytes, SIGINT, and every error
# the backend reports in one line.
. tests/lib.sh
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
P="$DATA/ppc64le"
if ! command -v qemu-ppc64le >/dev/null; then
	ok "qemu backend features # SKIP qemu-ppc64le not installed (make deps)"
	done_testing
	exit
fi
records() { "$DUMP" "$1" | awk '$2 == "INSN" {print "INSN", $3} $2 == "MEM" {print "MEM", $3, $4, $5}'; }

# --- the POWER pipeline ------------------------------------------------------------
CALLS="$P/gdb_calls"
"$COLLECT" -q --backend qemu -o - -- "$CALLS" 2>/dev/null | "$BIN/qtrace-conv" -q -o "$TMP/q.qt"
check_eq "itrace-collect -o - | qtrace-conv: qtrace-conv succeeds" "0" "$?"
"$COLLECT" -q --backend qemu -o - -- "$CALLS" >"$TMP/q.itr" 2>/dev/null
check_eq "-o -: itrace-collect exits with the program's status" "5" "$?"
check "-o -: standard output is the trace alone" "$DUMP" -q "$TMP/q.itr"
"$COLLECT" -q --backend gdb -o "$TMP/g.itr" -- "$CALLS"
"$BIN/qtrace-conv" -q "$TMP/g.itr" -o "$TMP/g.qt"
"$BIN/qtrace-conv" --dump "$TMP/q.qt" | grep '^iar=' >"$TMP/q.qtdump"
"$BIN/qtrace-conv" --dump "$TMP/g.qt" | grep '^iar=' >"$TMP/g.qtdump"
check "the qtrace file reads back (qtrace-tools' reader rules)" test -s "$TMP/q.qtdump"
check_files_eq "qtrace: every record equals the gdb backend's (words, data addresses, branches)" \
	"$TMP/g.qtdump" "$TMP/q.qtdump"
for f in itr qt; do
	"$BIN/pipeline-sim" --core power10 --elf "$CALLS" "$TMP/q.$f" 2>/dev/null | sed 1d >"$TMP/q.$f.sim"
	"$BIN/pipeline-sim" --core power10 --elf "$CALLS" "$TMP/g.$f" 2>/dev/null | sed 1d >"$TMP/g.$f.sim"
	check "pipeline-sim --core power10 on the .$f: a report" grep -q 'instructions' "$TMP/q.$f.sim"
	check_files_eq "pipeline-sim --core power10 on the .$f: the gdb backend's report" \
		"$TMP/g.$f.sim" "$TMP/q.$f.sim"
done

# --- --start/--stop windows against the gdb backend ------------------------------
# (qemu_prog's main raises a signal, whose handling the gdb backend steps
# over: --stop windows, which start at the entry point, use gdb_calls.)
for trig in "--start work --stop classify:qemu_prog" "--start classify:qemu_prog" \
	"--stop square:gdb_calls"; do
	prog="$P/${trig#*:}"
	trig=${trig%:*}
	# shellcheck disable=SC2086
	"$COLLECT" -q --backend qemu $trig -o "$TMP/qw.itr" -- "$prog"
	# shellcheck disable=SC2086
	"$COLLECT" -q --backend gdb $trig -o "$TMP/gw.itr" -- "$prog"
	"$DUMP" "$TMP/qw.itr" | awk '$2 ~ /^(INSN|MEM|TRACE_ON|TRACE_OFF)$/ { $1 = ""; print }' >"$TMP/qw.txt"
	"$DUMP" "$TMP/gw.itr" | awk '$2 ~ /^(INSN|MEM|TRACE_ON|TRACE_OFF)$/ { $1 = ""; print }' |
		sed 's/ bytes=.*//' >"$TMP/gw.txt"
	check "$trig: some instructions traced" grep -q INSN "$TMP/qw.txt"
	check_files_eq "$trig: the same windows, instructions and accesses as the gdb backend" \
		"$TMP/gw.txt" "$TMP/qw.txt"
done

# --- --only main: the program's own code, library calls left out ------------------
DYN="$P/qemu_prog_dyn"
"$COLLECT" -q --backend qemu -o "$TMP/all.itr" -- "$DYN"
"$COLLECT" -q --backend qemu --only main -o "$TMP/only.itr" -- "$DYN"
check_eq "--only main: exit status" "42" "$?"
# exe_insns DUMP: INSN addresses inside the program's executable mappings,
# from its entry point on (where --only starts).
exe_insns() {
	awk -v exe="'$DYN'" -v entry="$1" '
		function hex(s, n, i) { n = 0; sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n }
		$2 == "MMAP" && $NF == exe && $6 ~ /x/ { split($4, r, "-"); lo[n] = hex(r[1]); hi[n++] = hex(r[2]) }
		$2 == "INSN" { a = hex($3); if (a == entry) on = 1; if (!on) next
			for (i = 0; i < n; i++) if (a >= lo[i] && a < hi[i]) { print $3; next } }'
}
base=$("$DUMP" "$TMP/all.itr" | awk -v exe="'$DYN'" '$2 == "MMAP" && $NF == exe { split($4, r, "-"); print r[1]; exit }')
entry=$(($base + 0x$(powerpc64le-linux-gnu-readelf -h "$DYN" | awk '/Entry point/ { sub("0x", "", $4); print $4 }')))
"$DUMP" "$TMP/all.itr" | exe_insns "$entry" >"$TMP/all.exe"
"$DUMP" "$TMP/only.itr" | awk '$2 == "INSN" { print $3 }' >"$TMP/only.exe"
check "--only main: the program's code is traced" test -s "$TMP/only.exe"
check_files_eq "--only main: exactly the program's instructions of a full trace" "$TMP/all.exe" "$TMP/only.exe"
check "--only main: leaving and re-entering the module is marked" sh -c \
	"'$DUMP' '$TMP/only.itr' | grep -q 'TRACE_OFF scope' && '$DUMP' '$TMP/only.itr' | grep -q 'TRACE_ON scope'"
check "--only libc.so.6: library code only" sh -c \
	"'$COLLECT' -q --backend qemu --only libc.so.6 -o '$TMP/libc.itr' -- '$DYN';
	 '$DUMP' '$TMP/libc.itr' | awk '\$2 == \"INSN\"' | grep -q . &&
	 ! '$DUMP' '$TMP/libc.itr' | awk '\$2 == \"INSN\" && \$3 ~ /^0x40000/' | grep -q ."

# --- --insn-bytes ----------------------------------------------------------------------
"$COLLECT" -q --backend qemu --insn-bytes -o "$TMP/bytes.itr" -- "$P/qtrace_golden"
check "--insn-bytes: INSN records carry the bytes" sh -c \
	"'$DUMP' '$TMP/bytes.itr' | grep -q 'INSN 0x10000110 len=4 bytes=0110203d' &&
	 '$DUMP' -H '$TMP/bytes.itr' | grep -q '^flags: 0x3'"

# --- execve: the trace ends there, the new program runs on untraced -------------------
"$COLLECT" -q --backend qemu -o "$TMP/exec.itr" -- "$P/qemu_exec" /bin/sh -c 'echo after; exit 7' >"$TMP/exec.out"
check_eq "execve: the new program's exit status and output" "7 before exec after" \
	"$? $(tr '\n' ' ' <"$TMP/exec.out" | sed 's/ $//')"
"$DUMP" "$TMP/exec.itr" >"$TMP/exec.dump"
check_eq "execve: PROCESS exec, TRACE_OFF detach, then the exit status" \
	"PROCESS exec '/bin/sh' TRACE_OFF detach PROCESS exit status=7" \
	"$(awk '$2 == "PROCESS" && $3 == "exec" { print $2, $3, $5 } $2 == "TRACE_OFF" { print $2, $3 }
		$2 == "PROCESS" && $3 == "exit" { print $2, $3, $5 }' "$TMP/exec.dump" | tr '\n' ' ' | sed 's/ $//')"
check "execve: the trace ends as detached" sh -c "'$DUMP' -s '$TMP/exec.itr' | grep -q '^ended: detached, status 7'"
"$COLLECT" -q --backend qemu -o "$TMP/noexec.itr" -- "$P/qemu_exec" "$TMP/nothing" >/dev/null 2>&1
check_eq "a failed execve: the program goes on traced (exit 3)" "3" "$?"
check "a failed execve: its error returned, the trace complete" sh -c \
	"'$DUMP' '$TMP/noexec.itr' | grep -q 'SYSCALL exit nr=11 ret=-2' &&
	 '$DUMP' -s '$TMP/noexec.itr' | grep -q '^ended: complete, status 3'"

# --- SIGINT ------------------------------------------------------------------------------
"$COLLECT" -q --backend qemu -o "$TMP/spin.itr" -- "$P/gdb_spin" & cpid=$!
sleep 1
kill -INT $cpid
wait $cpid
check_eq "SIGINT: exit status 130" "130" "$?"
check "SIGINT: the trace ends as interrupted" sh -c "'$DUMP' -s '$TMP/spin.itr' | grep -q '^ended: interrupted'"
check "SIGINT: the instructions before it are kept" sh -c \
	"test \$('$DUMP' '$TMP/spin.itr' | grep -c ' INSN ') -gt 1000"

# --- errors: one line, exit 1 -----------------------------------------------------------
# error NAME WANT CMD...: exit 1 and the one-line message WANT.
error() {
	err_name="$1" err_want="$2"
	shift 2
	err_out=$("$@" 2>&1 >/dev/null)
	err_rc=$?
	check_eq "$err_name: exit 1" "1" "$err_rc"
	check_eq "$err_name: says why in one line" "$err_want" "$err_out"
}
printf '#!/bin/sh\necho hi\n' >"$TMP/script.sh"
chmod +x "$TMP/script.sh"
error "a script" "itrace-collect: qemu backend unavailable: QEMU cannot run '$TMP/script.sh': not an ELF executable" \
	"$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$TMP/script.sh"
error "no such program" "itrace-collect: qemu backend unavailable: cannot run '$TMP/nothing': No such file or directory" \
	"$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$TMP/nothing"
# An AArch64 program: a copy of a ppc64le one with e_machine 183.
cp "$CALLS" "$TMP/aarch64"
printf '\267\000' | dd of="$TMP/aarch64" bs=1 seek=18 conv=notrunc 2>/dev/null
error "an AArch64 program" \
	"itrace-collect: qemu backend unavailable: QEMU cannot run '$TMP/aarch64' here: aarch64 programs are not supported by the qemu backend (ppc64le, ppc64, x86-64)" \
	"$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$TMP/aarch64"
error "--arch of another architecture" \
	"itrace-collect: qemu backend unavailable: '$CALLS' is a ppc64le program, not x86-64 (--arch)" \
	"$COLLECT" -q --backend qemu --arch x86-64 -o "$TMP/x.itr" -- "$CALLS"
error "qemu-user missing" \
	"itrace-collect: qemu backend unavailable: qemu-nowhere is not installed (apt-get install qemu-user, or set ITRACE_QEMU)" \
	env ITRACE_QEMU=qemu-nowhere "$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$CALLS"
error "an emulator without plugin support" \
	"itrace-collect: qemu backend unavailable: /bin/true cannot load TCG plugins (built without plugin support, e.g. qemu-user-static's static binaries); install qemu-user" \
	env ITRACE_QEMU=/bin/true "$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$CALLS"
error "the plugin missing" \
	"itrace-collect: qemu backend unavailable: the itrace QEMU plugin ($TMP/itrace-qemu.so) is not installed next to itrace-collect; build it with make or set ITRACE_QEMU_LIB" \
	env ITRACE_QEMU_LIB="$TMP" "$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$CALLS"
error "no sysroot" \
	"itrace-collect: qemu backend unavailable: no sysroot '$TMP/none' for ppc64le programs (No such file or directory; install libc6-ppc64el-cross, or give --sysroot DIR or QEMU_LD_PREFIX)" \
	"$COLLECT" -q --backend qemu --sysroot "$TMP/none" -o "$TMP/x.itr" -- "$DYN"
mkdir -p "$TMP/emptyroot"
error "the foreign libraries missing" \
	"itrace-collect: qemu backend unavailable: the ppc64le dynamic loader /lib64/ld64.so.2 of '$DYN' is not under $TMP/emptyroot (install libc6-ppc64el-cross, or give --sysroot DIR or QEMU_LD_PREFIX)" \
	env QEMU_LD_PREFIX="$TMP/emptyroot" "$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$DYN"
error "a plugin API version QEMU does not support" \
	"itrace-collect: $ITRACE_ROOT/$ITRACE_BUILD/tests/qemu-fake-emulator: plugin API version mismatch: the emulator supports versions 2 to 3, itrace's plugin is written for version 1 (QEMU 5.0 to 8.1)" \
	env ITRACE_QEMU="$ITRACE_ROOT/$ITRACE_BUILD/tests/qemu-fake-emulator" \
	"$COLLECT" -q --backend qemu -o "$TMP/x.itr" -- "$CALLS"
check "after a failed start, the trace says so" sh -c "'$DUMP' -s '$TMP/x.itr' | grep -q '^ended: collector error'"
error "-p refused" \
	"itrace-collect: qemu backend unavailable: qemu-user cannot attach to a running process (-p); start the program under itrace-collect, or use --backend ptrace" \
	"$COLLECT" -q --backend qemu -p 1 -o "$TMP/x.itr"
error "--follow-fork refused" \
	"itrace-collect: qemu backend unavailable: --follow-fork is not supported by the qemu backend (forked children run untraced)" \
	"$COLLECT" -q --backend qemu --follow-fork -o "$TMP/x.itr" -- "$CALLS"
check "--list-backends: qemu available" sh -c "'$COLLECT' --list-backends | grep -q '^qemu *available'"
done_testing
