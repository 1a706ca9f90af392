#!/bin/sh
# itrace-import on bad input and bad usage: one clear line, exit 1 (input)
# or 2 (usage); unsupported content writes nothing; damage keeps every
# branch before it in a trace whose footer says "error".
. tests/lib.sh
GEN="$ITRACE_ROOT/$ITRACE_BUILD/tests/bts-gen"
IMPORT="$BIN/itrace-import"
DUMP="$BIN/itrace-dump"

# expect_fail NAME STATUS PATTERN CMD...: exit status and message.
expect_fail() {
	name="$1" want="$2" pattern="$3"; shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	# One line; usage errors add the standard "try --help" line.
	lines=$(grep -vc "try '.*--help'" "$TMP/err")
	if [ "$rc" = "$want" ] && head -n 1 "$TMP/err" | grep -q "$pattern" && [ "$lines" -eq 1 ]; then
		ok "$name (exit $rc)"
	else
		fail "$name" "exit $rc, stderr: $(cat "$TMP/err")"
	fi
}

expect_fail "no input is a usage error" 2 "no input file" "$IMPORT"
expect_fail "unknown option is a usage error" 2 "unknown option" "$IMPORT" --bogus x
expect_fail "missing file" 1 "cannot open '$TMP/none.data': No such file or directory" \
	"$IMPORT" "$TMP/none.data" -o "$TMP/x.itr"
printf 'hello world, not perf data at all\n' >"$TMP/text.data"
expect_fail "not a perf.data file" 1 "not a perf.data file" "$IMPORT" "$TMP/text.data" -o "$TMP/text.itr"
check "nothing written for a non-perf.data input" test ! -e "$TMP/text.itr"

# A real recording to damage: the reference run of bts_loops.
if ! "$BIN/itrace-collect" -q --insn-bytes --level insn -o "$TMP/ref.itr" -- "$DATA/bts_loops" 2>"$TMP/c.err"; then
	fail "ptrace reference trace" "$(cat "$TMP/c.err")"
	done_testing
	exit
fi
"$GEN" perf "$TMP/ref.itr" "$TMP/good.data" --chunk 8
size=$(wc -c <"$TMP/good.data")

# The data section ends before the feature sections: cut inside the data.
data_end=$(od -An -t u8 -j 40 -N 16 "$TMP/good.data" | awk '{ print $1 + $2 }')
head -c $((data_end - 100)) "$TMP/good.data" >"$TMP/cut.data"
expect_fail "truncated data section" 1 "runs past the file end" "$IMPORT" "$TMP/cut.data" -o "$TMP/cut.itr"

# Damage in the middle of the data: a record size of 0.  Branches before it are kept.
data_off=$(od -An -t u8 -j 40 -N 8 "$TMP/good.data" | tr -d ' ')
cp "$TMP/good.data" "$TMP/bad.data"
# Find the first record past the middle of the data (AUXTRACE records carry extra bytes).
off=$data_off
while [ $off -lt $(( (data_off + data_end) / 2 )) ]; do
	type=$(od -An -t u4 -j "$off" -N 4 "$TMP/bad.data" | tr -d ' ')
	sz=$(od -An -t u2 -j $((off + 6)) -N 2 "$TMP/bad.data" | tr -d ' ')
	[ "$type" = 71 ] && sz=$((sz + $(od -An -t u8 -j $((off + 8)) -N 8 "$TMP/bad.data" | tr -d ' ')))
	off=$((off + sz))
done
printf '\000\000' | dd of="$TMP/bad.data" bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
expect_fail "corrupt record size" 1 "offset $off has invalid size 0" "$IMPORT" "$TMP/bad.data" -o "$TMP/bad.itr"
n=$("$GEN" branches "$TMP/bad.itr" | wc -l)
check "the branches before the damage are written ($n)" test "$n" -gt 0
check "its footer says error" sh -c "'$DUMP' -s '$TMP/bad.itr' | grep -q '^ended: collector error'"

# Unsupported content: Intel PT data (AUXTRACE_INFO type 1), unfinished file.
cp "$TMP/good.data" "$TMP/pt.data"
printf '\001' | dd of="$TMP/pt.data" bs=1 seek=$((data_off + 8)) conv=notrunc 2>/dev/null
expect_fail "Intel PT data is named as unsupported" 1 "Intel PT" "$IMPORT" "$TMP/pt.data" -o "$TMP/pt.itr"
check "nothing written for unsupported content" test ! -e "$TMP/pt.itr"
cp "$TMP/good.data" "$TMP/unfinished.data"
dd if=/dev/zero of="$TMP/unfinished.data" bs=1 seek=48 count=8 conv=notrunc 2>/dev/null
expect_fail "unfinished recording (data size 0)" 1 "not finished" "$IMPORT" "$TMP/unfinished.data" -o "$TMP/u.itr"

# Every truncation of the file fails cleanly or succeeds; never a crash.
crashed=0 len=0
while [ $len -lt "$size" ]; do
	head -c $len "$TMP/good.data" >"$TMP/t.data"
	"$IMPORT" -q "$TMP/t.data" -o "$TMP/t.itr" 2>/dev/null
	rc=$?
	[ $rc -gt 1 ] && crashed=$((crashed + 1))
	len=$((len + 97))
done
check_eq "truncated files: no crash or usage status" 0 "$crashed"

done_testing
