#!/bin/sh
# itrace-fill end to end: filled traces equal the single-step oracle,
# pipes, rebuilt binaries, damaged input, -j N, usage errors.
. tests/lib.sh
GEN="$ITRACE_ROOT/$ITRACE_BUILD/tests/fill-gen"
FILL="$BIN/itrace-fill"
DUMP="$BIN/itrace-dump"

# insn_addrs FILE: the INSN addresses of an itrace file, one a line.
insn_addrs() { "$DUMP" "$1" | awk '$2 == "INSN" { print $3 }'; }

for style in full taken-only; do
	opt=""
	[ "$style" = taken-only ] && opt="--taken-only"
	for prog in fill_loop fill_bench; do
		if "$GEN" $opt --chunk-bytes 512 -o "$TMP/$prog.itr" --insn-out "$TMP/$prog-insn.itr" \
			"$DATA/$prog" 2>"$TMP/gen.err"; then
			"$FILL" -q "$TMP/$prog.itr" -o "$TMP/$prog-filled.itr"
			insn_addrs "$TMP/$prog-filled.itr" >"$TMP/filled.txt"
			insn_addrs "$TMP/$prog-insn.itr" >"$TMP/stepped.txt"
			if [ -s "$TMP/stepped.txt" ] && cmp -s "$TMP/filled.txt" "$TMP/stepped.txt"; then
				ok "$prog ($style): filled = single-stepped ($(wc -l <"$TMP/stepped.txt") instructions)"
			else
				fail "$prog ($style): filled = single-stepped" "$(diff "$TMP/stepped.txt" "$TMP/filled.txt" | head)"
			fi
		else
			fail "$prog ($style): fill-gen" "$(cat "$TMP/gen.err")"
		fi
	done
done

# ppc64le (little-endian 64-bit PowerPC), stepped by qemu-ppc64le.
if command -v qemu-ppc64le >/dev/null 2>&1; then
	# gdb_calls: static glibc, with POWER8+ instructions (mtvsrd) that
	# capstone 4 does not know, libitrace's own POWER table does.
	# (gdb_segv has no branch to fill.)
	for prog in qtrace_golden gdb_calls; do
		for opt in "" --taken-only; do
			if "$GEN" --qemu-ppc64le $opt -o "$TMP/ppc.itr" --insn-out "$TMP/ppc-insn.itr" \
				"$DATA/ppc64le/$prog" 2>"$TMP/gen.err"; then
				"$FILL" -q "$TMP/ppc.itr" -o "$TMP/ppc-filled.itr"
				insn_addrs "$TMP/ppc-filled.itr" >"$TMP/filled.txt"
				insn_addrs "$TMP/ppc-insn.itr" >"$TMP/stepped.txt"
				if [ -s "$TMP/stepped.txt" ] && cmp -s "$TMP/filled.txt" "$TMP/stepped.txt"; then
					ok "ppc64le $prog ${opt:-(full)}: filled = qemu-stepped ($(wc -l <"$TMP/stepped.txt") instructions)"
				else
					fail "ppc64le $prog ${opt:-(full)}: filled = qemu-stepped" "$(diff "$TMP/stepped.txt" "$TMP/filled.txt" | head)"
				fi
			else
				fail "ppc64le $prog: fill-gen" "$(cat "$TMP/gen.err")"
			fi
		done
	done
	# The pipeline of the issue: itrace-fill in.itr | qtrace-conv
	if [ -x "$BIN/qtrace-conv" ]; then
		"$GEN" --qemu-ppc64le -o "$TMP/ppc.itr" "$DATA/ppc64le/qtrace_golden" 2>/dev/null
		check "itrace-fill | qtrace-conv" sh -c "'$FILL' -q '$TMP/ppc.itr' | '$BIN/qtrace-conv' -q -o '$TMP/ppc.qt' - && test -s '$TMP/ppc.qt'"
	fi
else
	ok "ppc64le # SKIP qemu-ppc64le not installed"
fi

# The output is an instruction-level, filled trace.
check "output header says filled insn level" sh -c "'$DUMP' --header '$TMP/fill_loop-filled.itr' 2>/dev/null | grep -qi fill || '$DUMP' '$TMP/fill_loop-filled.itr' | grep -q INSN"

# Pipes: stdin in, stdout out (not a terminal here).
cat "$TMP/fill_loop.itr" | "$FILL" -q - >"$TMP/piped.itr"
check_files_eq "stdin/stdout gives the same trace as files" "$TMP/fill_loop-filled.itr" "$TMP/piped.itr"
"$FILL" -q "$TMP/fill_loop.itr" -o - >"$TMP/dash.itr"
check_files_eq "-o - writes to stdout" "$TMP/fill_loop-filled.itr" "$TMP/dash.itr"

# Listing with symbols and disassembly.
"$FILL" --text --symbols "$TMP/fill_loop.itr" >"$TMP/list.txt" 2>&1
check "listing shows symbol+offset and disassembly" grep -q 'func+0x4 .* ret' "$TMP/list.txt"

# A binary rebuilt after tracing is refused, and said so.
cp "$DATA/fill_loop" "$TMP/prog"
"$GEN" -o "$TMP/prog.itr" "$TMP/prog" 2>/dev/null
cc -nostdlib -static -no-pie -Wl,--build-id -Wa,--defsym,REBUILT=1 -o "$TMP/prog" "$SRCDATA/fill_loop.S"
"$FILL" "$TMP/prog.itr" -o "$TMP/prog-filled.itr" 2>"$TMP/err.txt"
check "rebuilt binary: build-id mismatch reported" grep -q "buildid-mismatch.*'$TMP/prog'" "$TMP/err.txt"
check_eq "rebuilt binary: no instruction invented" "0" "$(insn_addrs "$TMP/prog-filled.itr" | wc -l)"
check "rebuilt binary: GAP records in the output" sh -c "'$DUMP' '$TMP/prog-filled.itr' | grep -q GAP"

# Binaries found under --sysroot, or by build-id under --debug-dir.
mkdir -p "$TMP/root/opt" "$TMP/dbg"
cp "$DATA/fill_loop" "$TMP/root/opt/moved"
"$GEN" -o "$TMP/moved.itr" "$TMP/root/opt/moved" 2>/dev/null
mv "$TMP/root/opt/moved" "$TMP/root/opt/moved.real"
"$FILL" "$TMP/moved.itr" -o "$TMP/moved-filled.itr" 2>"$TMP/err.txt"
check "missing binary: no-binary gap with advice" grep -q "use --sysroot" "$TMP/err.txt"
rm -rf "$TMP/root2" && mkdir -p "$TMP/root2$TMP/root/opt"
cp "$TMP/root/opt/moved.real" "$TMP/root2$TMP/root/opt/moved"
"$FILL" --sysroot "$TMP/root2" "$TMP/moved.itr" -o "$TMP/moved-filled.itr" 2>"$TMP/err.txt"
check_eq "--sysroot: filled without gaps" "$(insn_addrs "$TMP/fill_loop-filled.itr" | wc -l) " \
	"$(insn_addrs "$TMP/moved-filled.itr" | wc -l) $(cat "$TMP/err.txt")"
id=$("$DUMP" "$TMP/moved.itr" | sed -n "s/.*buildid=\([0-9a-f]*\) '.*moved'/\1/p" | head -n 1)
mkdir -p "$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)"
cp "$TMP/root/opt/moved.real" "$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)"
"$FILL" --debug-dir "$TMP/dbg" "$TMP/moved.itr" -o "$TMP/moved-filled.itr" 2>"$TMP/err.txt"
check_eq "--debug-dir: found by build-id, filled without gaps" "$(insn_addrs "$TMP/fill_loop-filled.itr" | wc -l) " \
	"$(insn_addrs "$TMP/moved-filled.itr" | wc -l) $(cat "$TMP/err.txt")"

# Truncated input: everything before the damage, then a GAP, exit 1.
"$GEN" --extrapolate 400 --chunk-bytes 256 -o "$TMP/long.itr" "$DATA/fill_bench" 2>/dev/null
"$FILL" -q "$TMP/long.itr" -o "$TMP/long-filled.itr"
size=$(wc -c <"$TMP/long.itr")
head -c $((size * 2 / 3)) "$TMP/long.itr" >"$TMP/cut.itr"
"$FILL" "$TMP/cut.itr" -o "$TMP/cut-filled.itr" 2>"$TMP/err.txt"
check_eq "truncated input: exit status 1" "1" "$?"
check "truncated input: damage reported" grep -q "damaged" "$TMP/err.txt"
insn_addrs "$TMP/long-filled.itr" >"$TMP/full.txt"
insn_addrs "$TMP/cut-filled.itr" >"$TMP/part.txt"
n=$(wc -l <"$TMP/part.txt")
full=$(wc -l <"$TMP/full.txt")
if [ "$n" -gt 0 ] && [ "$n" -lt "$full" ] && head -n "$n" "$TMP/full.txt" | cmp -s - "$TMP/part.txt"; then
	ok "truncated input: $n of $full instructions, all before the damage"
else
	fail "truncated input: prefix of the full fill" "$n of $full"
fi
check "truncated input: output ends with a GAP" sh -c "'$DUMP' '$TMP/cut-filled.itr' | grep -v '^$' | tail -n 3 | grep -q GAP"

# -j 2 output is byte-identical to -j 1 (many chunks).
"$FILL" -q -j 1 "$TMP/long.itr" -o "$TMP/j1.itr"
"$FILL" -q -j 2 "$TMP/long.itr" -o "$TMP/j2.itr"
"$FILL" -q -j 3 --bytes "$TMP/long.itr" -o "$TMP/j3b.itr"
"$FILL" -q -j 1 --bytes "$TMP/long.itr" -o "$TMP/j1b.itr"
check_files_eq "-j 2 output = -j 1 output" "$TMP/j1.itr" "$TMP/j2.itr"
check_files_eq "-j 3 --bytes output = -j 1 --bytes output" "$TMP/j1b.itr" "$TMP/j3b.itr"

# Errors, git style.
"$FILL" "$TMP/nonexistent.itr" -o "$TMP/x.itr" 2>"$TMP/err.txt"
check_eq "missing input: exit 1" "1" "$?"
check "missing input: message names the file" grep -q "itrace-fill: cannot open '$TMP/nonexistent.itr'" "$TMP/err.txt"
"$FILL" --jobs 0 "$TMP/long.itr" 2>/dev/null
check_eq "bad -j: exit 2" "2" "$?"
"$FILL" -q "$TMP/fill_loop-filled.itr" -o "$TMP/again.itr" 2>"$TMP/err.txt"
check "insn-level input refused" grep -q "not a branch-level trace" "$TMP/err.txt"
check "--version" sh -c "'$FILL' --version | grep -q 'itrace-fill '"
done_testing
