#!/bin/sh
# Code without symbols is named and bounded per function from what the
# file has (README.md, "Functions without a symbol"): the stripped
# /usr/bin/sha256sum, gzip -c of libc.so.6 (hot_branches_view), and a
# dynamic ppc64le program under qemu, whose Debian cross ld64.so.2 has no
# symbols for its internals.  Oracles: readelf --debug-dump=frames (FDE
# ranges), objdump -d (PLT stubs' NAME@plt), readelf -l (file offsets),
# the trace's own instruction count, the basic block that ran most.
. tests/lib.sh
. tests/helper/real_oracles.sh

# sql DB QUERY
sql() { sqlite3 -separator ' ' "$1" "$2"; }

# fdes FILE - "START END" (hex, link-time, no 0x) of every FDE of FILE's .eh_frame
fdes() {
	readelf --debug-dump=frames "$1" 2>/dev/null |
		awk '$4 == "FDE" { split(substr($NF, 4), r, /\.\./); print r[1] " " r[2] }' |
		sed 's/^0*\([0-9a-f]\)/\1/; s/ 0*\([0-9a-f]\)/ \1/'
}

# text_offset_is_vaddr FILE - the executable segment's file offset equals
# its address (PIE, shared library): names' offsets are then addresses too
text_offset_is_vaddr() {
	readelf -lW "$1" | awk '$1 == "LOAD" && / R.E / { if ($2 != $3) bad = 1; n++ } END { exit !(n && !bad) }'
}

# named_like_fdes NAME DB FILE DSO - every made name FILE+0xN of DSO in DB
# whose N starts an FDE has that FDE's bounds; prints the mismatches.
# (x86-64's .plt has one FDE: there PLT0 is a 16-byte stub, as objdump's
# "FIRST@plt-0x10" is.)
named_like_fdes() {
	plt=$(readelf -SW "$3" | awk '$2 == ".plt" { sub(/^0*/, "", $4); print $4 }')
	fdes "$3" | grep -v "^${plt:-none} " >"$TMP/$1.fdes"
	sql "$2" "SELECT s.name, printf('%x', s.sym_end - s.sym_start) FROM symbols s
		JOIN dsos d ON d.id = s.dso_id WHERE d.short_name = '$4' AND s.name LIKE '$4+0x%'" |
		awk -v F="$TMP/$1.fdes" 'BEGIN { while ((getline l < F) > 0) { split(l, r, " "); fde[r[1]] = r[2] } }
		function hex(s,    n, i) { n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
		{ n = $1; sub(/.*\+0x/, "", n)
		  if (n in fde) { checked++; want = sprintf("%x", hex(fde[n]) - hex(n)); if ($2 != want) print $1 " size " $2 ", FDE " n ".." fde[n] }
		}
		END { print "checked " checked + 0 }'
}

# ---- sha256sum, stripped ----------------------------------------------------------
SHA=/usr/bin/sha256sum
check "sha256sum is stripped (no .symtab)" sh -c "! readelf -SW $SHA | grep -q '\.symtab'"
check "sha256sum's code lies at its file offsets" text_offset_is_vaddr "$SHA"
head -c 1000000 /usr/lib/x86_64-linux-gnu/libc.so.6 >"$WORK/in.bin"
real_program sha sha256sum in.bin
run_plain sha
run_collect sha vg --backend valgrind
check_output sha vg
"$BIN/itrace-sqlite" -q "$TMP/sha.vg.itr" -o "$TMP/sha.db"
total=$("$BIN/itrace-dump" --summary "$TMP/sha.vg.itr" | awk '$1 == "INSN" { print $2 }')
check_eq "sha256sum: the per-function instructions add up to the trace's" "$total" \
	"$(sql "$TMP/sha.db" "SELECT sum(insn_count) FROM functions")"
check_eq "sha256sum: no instruction is in an [unknown] function" 0 \
	"$(sql "$TMP/sha.db" "SELECT coalesce(sum(f.insn_count), 0) FROM functions f JOIN symbols s ON s.id = f.symbol_id WHERE s.name = '[unknown]'")"
hot=$(sql "$TMP/sha.db" "SELECT s.name, s.sym_start, s.sym_end, f.insn_count FROM functions f
	JOIN symbols s ON s.id = f.symbol_id ORDER BY f.insn_count DESC LIMIT 1")
set -- $hot
check "sha256sum: the hottest function ($1, $4 of $total instructions) is a named range of the executable" \
	sh -c "echo '$1' | grep -Eq '^sha256sum\+0x[0-9a-f]+$' && [ $3 -gt $2 ]"
check_eq "sha256sum: the basic block that ran most (the hashing loop) is in it" 1 \
	"$(sql "$TMP/sha.db" "SELECT b.start_ip >= $2 AND b.end_ip <= $3 FROM basic_blocks b ORDER BY b.exec_count * b.insn_count DESC LIMIT 1")"
named_like_fdes sha "$TMP/sha.db" "$SHA" sha256sum >"$TMP/sha.fde"
check "sha256sum: each function named at an FDE start has the FDE's bounds ($(tail -1 "$TMP/sha.fde"))" \
	sh -c "[ \$(wc -l <'$TMP/sha.fde') -eq 1 ] && ! grep -q '^checked 0$' '$TMP/sha.fde'"
# sym_start and sym_end are run-time addresses: the executable's base
# is its first mapping's start, at file offset 0
base=$("$BIN/itrace-dump" "$TMP/sha.vg.itr" | awk -v F="'$SHA'" '$2 == "MMAP" && $NF == F && $5 == "pgoff=0x0" { split($4, r, "-"); print r[1]; exit }')
objdump -d "$SHA" | sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' | sort >"$TMP/sha.plt.objdump"
sql "$TMP/sha.db" "SELECT printf('%x', sym_start - $((base)) ), name FROM symbols s JOIN dsos d ON d.id = s.dso_id
	WHERE d.short_name = 'sha256sum' AND name LIKE '%@plt'" | sort >"$TMP/sha.plt.ours"
check "sha256sum: PLT stubs ran and are named and placed as objdump -d shows ($(wc -l <"$TMP/sha.plt.ours"))" \
	sh -c "[ -s '$TMP/sha.plt.ours' ] && [ -z \"\$(comm -23 '$TMP/sha.plt.ours' '$TMP/sha.plt.objdump')\" ]"
# every export names it the same way
"$BIN/itrace-xml" -q "$TMP/sha.vg.itr" -o "$TMP/sha.xml"
"$BIN/itrace-timeline" -q "$TMP/sha.vg.itr" -o "$TMP/sha.json"
"$BIN/pipeline-sim" --max-insns 2000000 --callgrind "$TMP/sha.cg" "$TMP/sha.vg.itr" >"$TMP/sha.sim" 2>&1
for f in sha.xml sha.json sha.cg sha.sim; do
	check "sha256sum: $f names $1" grep -qF "$1" "$TMP/$f"
done

# ---- gzip -c libc.so.6: the hottest branches --------------------------------------
real_program gz gzip -c /usr/lib/x86_64-linux-gnu/libc.so.6
run_collect gz vg --backend valgrind
"$BIN/itrace-sqlite" -q "$TMP/gz.vg.itr" -o "$TMP/gz.db"
sql "$TMP/gz.db" "SELECT symbol, dso, dso_offset, sym_offset FROM hot_branches_view ORDER BY exec_count DESC LIMIT 3" >"$TMP/gz.hot"
check "gzip: the three hottest branches are named and in gzip ($(head -1 "$TMP/gz.hot"))" \
	sh -c "[ \$(wc -l <'$TMP/gz.hot') -eq 3 ] && awk '\$1 !~ /^gzip\\+0x/ || \$2 != \"gzip\" { bad = 1 } END { exit bad }' '$TMP/gz.hot'"
# dso_offset against the file: gzip's code lies at its file offsets, so
# the offset is the branch's address less where the file's start is mapped
check "gzip's code lies at its file offsets" text_offset_is_vaddr /usr/bin/gzip
gzbase=$("$BIN/itrace-dump" "$TMP/gz.vg.itr" | awk '$2 == "MMAP" && $NF == "'"'/usr/bin/gzip'"'" && $5 == "pgoff=0x0" { split($4, r, "-"); print r[1]; exit }')
check_eq "gzip: the hottest branch's dso_offset is its address in the file" \
	"$(sql "$TMP/gz.db" "SELECT printf('%#x', ip - $((gzbase))) FROM hot_branches ORDER BY exec_count DESC LIMIT 1")" \
	"$(sql "$TMP/gz.db" "SELECT dso_offset FROM hot_branches_view ORDER BY exec_count DESC LIMIT 1")"
# gzip+0xS, dso_offset O, sym_offset O - S: one place, named twice
check "gzip: dso_offset = the name's offset + sym_offset" \
	awk 'function hex(s,    n, i) { n = 0; sub(/^0x/, "", s); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
	     { s = $1; sub(/.*\+/, "", s); if (hex(s) + hex($4) != hex($3)) bad = 1 } END { exit bad }' "$TMP/gz.hot"

# ---- ppc64le under qemu: the cross ld64.so.2 has 40 dynamic symbols ---------------
LD64=/usr/powerpc64le-linux-gnu/lib/ld64.so.2
"$BIN/itrace-collect" -q --backend qemu -o "$TMP/ppc.itr" -- "$REAL/ppc64le/prog_c" >/dev/null
"$BIN/itrace-sqlite" -q "$TMP/ppc.itr" -o "$TMP/ppc.db"
pct=$(sql "$TMP/ppc.db" "SELECT round(100.0 * coalesce(sum(f.insn_count), 0) / (SELECT sum(insn_count) FROM functions), 2)
	FROM functions f JOIN symbols s ON s.id = f.symbol_id WHERE s.name = '[unknown]'")
check_eq "ppc64le prog_c: share of instructions in [unknown] functions (%)" 0.0 "$pct"
check "ld64.so.2's code lies at its file offsets" text_offset_is_vaddr "$LD64"
named_like_fdes ppc "$TMP/ppc.db" "$LD64" ld64.so.2 >"$TMP/ppc.fde"
check "ppc64le: each ld64.so.2 function named at an FDE start has the FDE's bounds ($(tail -1 "$TMP/ppc.fde"))" \
	sh -c "[ \$(wc -l <'$TMP/ppc.fde') -eq 1 ] && ! grep -q '^checked 0$' '$TMP/ppc.fde'"
done_testing
