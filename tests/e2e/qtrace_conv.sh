#!/bin/sh
# qtrace-conv on synthetic itrace input (bench/qtrace_gen writes it through
# libitrace's writer): record fields, stdin, threads, refusals, --dump.
. tests/lib.sh
GEN="$ITRACE_ROOT/$ITRACE_BUILD/bench/qtrace_gen"
QC="$BIN/qtrace-conv"

"$GEN" 3 "$TMP/loop.itr"
check "converts a ppc64le loop" "$QC" "$TMP/loop.itr" -o "$TMP/loop.qt"
"$QC" --dump "$TMP/loop.qt" >"$TMP/loop.dump" 2>&1
# Every field of every record: words, data EAs, branch codes, successor IARs.
cat >"$TMP/want.dump" <<'END'
iar=0x10000000 insn=0x38630001
iar=0x10000004 insn=0xe8810008 data=0x7fffe008
iar=0x10000008 insn=0xf8810010 data=0x7fffe010
iar=0x1000000c insn=0x4200fff4 branch=cond taken term=0x80 next=0x10000000
iar=0x10000000 insn=0x38630001
iar=0x10000004 insn=0xe8810008 data=0x7fffe008
iar=0x10000008 insn=0xf8810010 data=0x7fffe010
iar=0x1000000c insn=0x4200fff4 branch=cond taken term=0x80 next=0x10000000
iar=0x10000000 insn=0x38630001
iar=0x10000004 insn=0xe8810008 data=0x7fffe008
iar=0x10000008 insn=0xf8810010 data=0x7fffe010
iar=0x1000000c insn=0x4200fff4 branch=cond not-taken term=0x80
iar=0x10000010 insn=0x60000000
END
grep '^iar=' "$TMP/loop.dump" | cut -f1 >"$TMP/got.dump"
check_files_eq "records field by field" "$TMP/want.dump" "$TMP/got.dump"
check_eq "header names the source trace" \
	"# qtrace version=0x07010000 iar=0x10000000 comment=\"qtrace-conv from itrace '$TMP/loop.itr', thread 0\"" \
	"$(head -1 "$TMP/loop.dump")"
check "disassembly of the words" grep -q 'bdnz 0x10000000' "$TMP/loop.dump"
# Bytes of the first records after the header (6-byte addi, 14-byte ld).
hdr_len=$((22 + 2 + $(printf '%s' "qtrace-conv from itrace '$TMP/loop.itr', thread 0" | wc -c)))
check_eq "big-endian record bytes" "386300010000e88100080800000000007fffe008" \
	"$(od -An -tx1 -j "$hdr_len" -N 20 "$TMP/loop.qt" | tr -d ' \n')"

check "reads stdin" sh -c "'$QC' -o '$TMP/stdin.qt' <'$TMP/loop.itr'"
"$QC" --dump "$TMP/stdin.qt" | grep '^iar=' | cut -f1 >"$TMP/stdin.dump"
check_files_eq "stdin gives the same records" "$TMP/want.dump" "$TMP/stdin.dump"
check "stdin source named in the comment" grep -q "from itrace 'stdin'" "$TMP/stdin.qt"

"$GEN" --machine ppc64 3 "$TMP/be.itr"
"$QC" "$TMP/be.itr" -o "$TMP/be.qt"
"$QC" --dump "$TMP/be.qt" | grep '^iar=' | cut -f1 >"$TMP/be.dump"
check_files_eq "big-endian ppc64 trace gives the same words" "$TMP/want.dump" "$TMP/be.dump"

"$GEN" --threads 2 4 "$TMP/mt.itr"
check "multi-threaded trace" "$QC" -q "$TMP/mt.itr" -o "$TMP/mt.qt"
check "one file per thread" test -f "$TMP/mt.1000.qt" -a -f "$TMP/mt.1001.qt" -a ! -f "$TMP/mt.qt"
check_eq "thread 1000 instructions" "# 9 instructions" "$("$QC" --dump "$TMP/mt.1000.qt" | tail -1)"
check_eq "thread 1001 instructions" "# 9 instructions" "$("$QC" --dump "$TMP/mt.1001.qt" | tail -1)"
check "--tid keeps one thread" "$QC" --tid 1001 "$TMP/mt.itr" -o "$TMP/one.qt"
check_eq "--tid output" "# 9 instructions" "$("$QC" --dump "$TMP/one.qt" | tail -1)"
out=$("$QC" --tid 4242 "$TMP/mt.itr" -o "$TMP/none.qt" 2>&1); rc=$?
check_eq "--tid of an absent thread: exit 1" "1" "$rc"
check_eq "--tid of an absent thread: says so" \
	"qtrace-conv: thread 4242 has no instructions in the trace (18 instructions of other threads)" "$out"
out=$("$QC" "$TMP/mt.itr" -o - 2>&1 >/dev/null); rc=$?
check_eq "several threads on stdout refused" "1" "$rc"
printf '%s\n' "$out" >"$TMP/mt.out"
check "that error says what to do" grep -q -- '--tid TID' "$TMP/mt.out"

# Self-modifying code: bdnz at 0x1000000c becomes "b" half-way.  Each
# distinct instruction is decoded once (a cache keyed by address and
# bytes): the new bytes at the same address must give the new word and
# branch code, whether they come with the INSN records or from CODE records.
for how in bytes code; do
	"$GEN" --patch $([ $how = code ] && echo --no-bytes) 4 "$TMP/smc-$how.itr"
	"$QC" -q "$TMP/smc-$how.itr" -o "$TMP/smc-$how.qt"
	"$QC" --dump "$TMP/smc-$how.qt" | grep '^iar=0x1000000c' | cut -f1 >"$TMP/smc-$how.dump"
	cat >"$TMP/smc.want" <<'END'
iar=0x1000000c insn=0x4200fff4 branch=cond taken term=0x80 next=0x10000000
iar=0x1000000c insn=0x4200fff4 branch=cond taken term=0x80 next=0x10000000
iar=0x1000000c insn=0x4bfffff4 branch=uncond taken term=0x08 next=0x10000000
iar=0x1000000c insn=0x4bfffff4 branch=uncond not-taken term=0x08
END
	check_files_eq "self-modifying code, new bytes from the $how records" \
		"$TMP/smc.want" "$TMP/smc-$how.dump"
done

"$GEN" --machine x86-64 3 "$TMP/x86.itr"
out=$("$QC" "$TMP/x86.itr" -o "$TMP/x86.qt" 2>&1); rc=$?
check_eq "x86-64 input refused (exit 1)" "1" "$rc"
check_eq "x86-64 refusal message" \
	"qtrace-conv: '$TMP/x86.itr' is an x86-64 trace: qtrace carries only fixed 32-bit POWER instruction words; run pipeline-sim on the itrace file directly (pipeline-sim $TMP/x86.itr)" \
	"$out"

"$GEN" --no-bytes 2 "$TMP/nobytes.itr"
out=$("$QC" "$TMP/nobytes.itr" -o "$TMP/nb.qt" 2>&1); rc=$?
check_eq "instructions without bytes nor mappings refused" "1" "$rc"
printf '%s\n' "$out" >"$TMP/nb.out"
check "that error names the address" grep -q 'instruction at 0x10000000' "$TMP/nb.out"

head -c $((hdr_len + 29)) "$TMP/loop.qt" >"$TMP/cut.qt"
out=$("$QC" --dump "$TMP/cut.qt" 2>&1); rc=$?
check_eq "truncated qtrace: exit 1" "1" "$rc"
check_eq "truncated qtrace: complete records first" "2" "$(echo "$out" | grep -c '^iar=')"
printf '%s\n' "$out" >"$TMP/cut.out"
check "truncated qtrace: error names the offset" \
	grep -q "offset $((hdr_len + 20)): file ends inside the data address" "$TMP/cut.out"
out=$("$QC" --dump "$TMP/loop.itr" 2>&1); rc=$?
check_eq "an itrace file is not a qtrace file" "1" "$rc"
out=$("$QC" --bogus 2>&1); rc=$?
check_eq "unknown option: exit 2" "2" "$rc"
out=$("$QC" "$TMP/nope.itr" -o "$TMP/n.qt" 2>&1); rc=$?
check_eq "missing input" "qtrace-conv: cannot read '$TMP/nope.itr': No such file or directory" "$out"
check "--help" "$QC" --help
done_testing
