#!/bin/sh
# qtrace-conv on a real POWER trace: the -nostdlib ppc64le program
# tests/data/ppc64le/qtrace_golden.S traced under qemu-ppc64le by the gdb
# backend, converted, then checked field by field with our reader against
# the program's known behaviour, and byte for byte against golden bytes.
. tests/lib.sh
PROG="$DATA/ppc64le/qtrace_golden"
if ! command -v qemu-ppc64le >/dev/null; then
	ok "qtrace golden # SKIP qemu-ppc64le not installed (make deps)"
	done_testing
	exit
fi
"$BIN/itrace-collect" --backend gdb -q -o "$TMP/g.itr" -- "$PROG"
check_eq "program exit status (buf[0])" "1" "$?"
check "converts" "$BIN/qtrace-conv" -o "$TMP/g.qt" "$TMP/g.itr"
"$BIN/qtrace-conv" --dump "$TMP/g.qt" >"$TMP/g.dump"
check_eq "47 records" "# 47 instructions" "$(tail -1 "$TMP/g.dump")"
grep '^iar=' "$TMP/g.dump" | cut -f1 >"$TMP/fields"
check_files_eq "every field of every record" "$SRCDATA/qtrace_golden.dump" "$TMP/fields"

# Known behaviour, independent of the golden files.
check_eq "first IAR in the header is _start" \
	"0x$(powerpc64le-linux-gnu-nm "$PROG" | awk '$3 == "_start" {print $1}' | sed 's/^0*//')" \
	"$(head -1 "$TMP/g.dump" | sed 's/.* iar=\(0x[0-9a-f]*\).*/\1/')"
check_eq "beq taken, not taken, taken, not taken" "taken not-taken taken not-taken" \
	"$(grep 'insn=0x4182000c' "$TMP/fields" | sed 's/.*branch=cond \([a-z-]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')"
check_eq "bdnz taken 3 times then falls through" "taken taken taken not-taken" \
	"$(grep 'insn=0x4200ffdc' "$TMP/fields" | sed 's/.*branch=cond \([a-z-]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')"
check_eq "bl/blr: two calls, two returns (term 0x08)" "4" \
	"$(grep -c 'insn=0x4\(8000025\|e800020\) branch=uncond taken term=0x08' "$TMP/fields")"
buf=$(powerpc64le-linux-gnu-nm "$PROG" | awk '$3 == "buf" {print $1}')
want=$(for i in 0 8 16 24; do printf 'data=0x%x\n' $((0x$buf + i)); done)
check_eq "stdx data addresses buf[0..3]" "$want" \
	"$(grep 'insn=0x7c69392a' "$TMP/fields" | sed 's/.*\(data=0x[0-9a-f]*\).*/\1/')"
check_eq "ld data address buf[0], 4 times" "4" \
	"$(grep -c "insn=0xe9090000 data=0x$(printf '%x' $((0x$buf)))\$" "$TMP/fields")"
check "comment names the source trace" grep -q "comment=\"qtrace-conv from itrace '$TMP/g.itr', thread [0-9]*\"" "$TMP/g.dump"

# Golden bytes: the 22 fixed header bytes, then every record after the
# comment (whose text holds a path and a thread id that vary).
clen=$(od -An -tu1 -j22 -N2 "$TMP/g.qt" | awk '{print $1 * 256 + $2}')
{ head -c 22 "$TMP/g.qt"; tail -c +$((22 + 2 + clen + 1)) "$TMP/g.qt"; } |
	od -An -v -tx1 | sed 's/^ //' >"$TMP/g.hex"
check_files_eq "golden bytes" "$SRCDATA/qtrace_golden.hex" "$TMP/g.hex"

# POWER10 prefixed instructions (qemu's power10 CPU): 8-byte INSN records,
# then in qtrace the prefix record with the data address and the bare
# suffix record after it, as qtrace-tools' own converter writes them (its
# reader pairs them, qtdis shows the prefix record's data address).
PFX="$DATA/ppc64le/qtrace_prefixed"
QEMU_CPU=power10 "$BIN/itrace-collect" --backend gdb -q -o "$TMP/p.itr" -- "$PFX"
check_eq "prefixed: exit status (pli 100000, pld)" "160" "$?"
val=$(powerpc64le-linux-gnu-nm "$PFX" | awk '$3 == "val" {print $1}')
vaddr=$(printf '0x%x' $((0x$val + 8)))
check "prefixed: pld is one 8-byte instruction loading val+8" sh -c \
	"'$BIN/itrace-dump' '$TMP/p.itr' | grep -A1 'INSN 0x10000154 len=8 bytes=00000004080089e4' | grep -q 'MEM load $vaddr size=8'"
"$BIN/qtrace-conv" -o "$TMP/p.qt" "$TMP/p.itr"
"$BIN/qtrace-conv" --dump "$TMP/p.qt" | grep '^iar=' | cut -f1 >"$TMP/p.fields"
check "prefixed: pli read back as one record" grep -qx 'iar=0x10000148 insn=0x06000001 suffix=0x386086a0' "$TMP/p.fields"
check "prefixed: pld with its data address" grep -qx "iar=0x10000154 insn=0x04000000 suffix=0xe4890008 data=$vaddr" "$TMP/p.fields"
check_eq "prefixed: 9 instructions" "9" "$(wc -l <"$TMP/p.fields")"
# On disk: the prefix record with DATA_ADDRESS, then the bare suffix record.
clen=$(od -An -tu1 -j22 -N2 "$TMP/p.qt" | awk '{print $1 * 256 + $2}')
off=$((22 + 2 + clen + 6 + 6))
ea=$(printf '%016x' $((0x$val + 8)))
check_eq "prefixed: bytes of pli, std, and pld's prefix record (data) then suffix record" \
	"060000010000386086a00000f86900080800${ea}040000000800${ea}e48900080000" \
	"$(od -An -tx1 -j $off -N 46 "$TMP/p.qt" | tr -d ' \n')"
# Filled from a branch-level trace, pld is still one 8-byte instruction
# (the fill walks with the same decoder) and qtrace-conv writes the same pair.
if [ -x "$BIN/itrace-fill" ]; then
	QEMU_CPU=power10 "$BIN/itrace-collect" --backend gdb -q --level branch -o "$TMP/pb.itr" -- "$PFX"
	"$BIN/itrace-fill" -q "$TMP/pb.itr" -o "$TMP/pf.itr"
	check "prefixed: itrace-fill keeps pld one 8-byte instruction" sh -c \
		"'$BIN/itrace-dump' '$TMP/pf.itr' | grep -q 'INSN 0x10000154 len=8'"
	check "prefixed: itrace-fill output has no GAP" sh -c "! '$BIN/itrace-dump' '$TMP/pf.itr' | grep -q GAP"
	"$BIN/qtrace-conv" -o "$TMP/pf.qt" "$TMP/pf.itr"
	"$BIN/qtrace-conv" --dump "$TMP/pf.qt" | grep '^iar=' | cut -f1 | sed 's/ data=0x[0-9a-f]*//' >"$TMP/pf.fields"
	sed 's/ data=0x[0-9a-f]*//' "$TMP/p.fields" >"$TMP/p.nodata"
	check_files_eq "prefixed: filled = collected in qtrace" "$TMP/p.nodata" "$TMP/pf.fields"
else
	fail "prefixed fill: itrace-fill not built"
fi

# The pipeline from the brief: itrace-fill of the branch-level trace into
# qtrace-conv on stdin gives the same records.
if [ -x "$BIN/itrace-fill" ]; then
	"$BIN/itrace-collect" --backend gdb -q --level branch -o "$TMP/b.itr" -- "$PROG"
	"$BIN/itrace-fill" -q "$TMP/b.itr" -o - | "$BIN/qtrace-conv" -o "$TMP/f.qt"
	"$BIN/qtrace-conv" --dump "$TMP/f.qt" | grep '^iar=' | cut -f1 | sed 's/ data=0x[0-9a-f]*//' >"$TMP/f.fields"
	sed 's/ data=0x[0-9a-f]*//' "$SRCDATA/qtrace_golden.dump" >"$TMP/want.nodata"
	check_files_eq "itrace-fill | qtrace-conv: same records (no data addresses)" \
		"$TMP/want.nodata" "$TMP/f.fields"
else
	ok "itrace-fill | qtrace-conv # SKIP itrace-fill not built"
fi
done_testing
