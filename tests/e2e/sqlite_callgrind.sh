#!/bin/sh
# itrace-sqlite against valgrind's callgrind on tests/data/export_prog.c,
# traced from main to exit: per-function instruction counts of the
# program's functions equal callgrind's Ir, and per-branch executed/taken
# counts equal callgrind's (--collect-jumps=yes) where both see the branch.
# callgrind runs with --skip-plt=no so that PLT stubs are their own
# functions, as in the trace (otherwise it charges them to the caller).
. tests/lib.sh
SQL="$BIN/itrace-sqlite"
q() { sqlite3 -batch "$1" "$2"; }
PROG="$DATA/export_prog"

if ! command -v valgrind >/dev/null || [ ! -x "$BIN/itrace-collect" ]; then
	echo "ok 1 # SKIP valgrind or itrace-collect not available"
	echo "1..1"
	exit 0
fi

# callgrind.out parser: prints "ir FN ADDR COUNT" per cost line and
# "jcnd FN ADDR TAKEN" per conditional jump.  Positions are compressed
# (0x.. absolute, +N/-N relative, * same), names as "(id) name" / "(id)";
# FN loses callgrind's recursion suffix ('N).  mawk: no strtonum.
cat >"$TMP/cg.awk" <<'AWK'
function num(t,   v, i) {
	if (t !~ /^0x/) return t + 0
	v = 0
	for (i = 3; i <= length(t); i++)
		v = v * 16 + index("0123456789abcdef", tolower(substr(t, i, 1))) - 1
	return v
}
function pos(tok, cur) {
	if (tok == "*") return cur
	if (tok ~ /^\+/) return cur + num(substr(tok, 2))
	if (tok ~ /^-/) return cur - num(substr(tok, 2))
	return num(tok)
}
function fname(s,   id, rest) {
	if (match(s, /^\([0-9]+\)/)) {
		id = substr(s, 2, RLENGTH - 2)
		rest = substr(s, RLENGTH + 2)
		if (rest != "") names[id] = rest
		s = names[id]
	}
	sub(/'[0-9]+$/, "", s)
	return s
}
/^fn=/ { fn = fname(substr($0, 4)); next }
/^cfn=/ { fname(substr($0, 5)); next }
/^calls=/ { skip = 1; next }
/^jcnd=/ { split(substr($1, 6), c, "/"); taken = c[1]; jcnd = 1; next }
/^jump=/ { jump = 1; next }
/^[0-9+*-]/ {
	addr = pos($1, addr)
	if (skip) { skip = 0; next }     # inclusive cost of a call
	if (jcnd) { printf "jcnd %s %d %d\n", fn, addr, taken; jcnd = 0; next }
	if (jump) { jump = 0; next }     # source position of a jump
	if (NF >= 3) printf "ir %s %d %d\n", fn, addr, $3
}
AWK

"$BIN/itrace-collect" -q --start main -o "$TMP/p.itr" -- "$PROG" >/dev/null 2>&1
check "collect export_prog from main" test -s "$TMP/p.itr"
check "export" "$SQL" -q "$TMP/p.itr" -o "$TMP/p.db"
"$BIN/itrace-collect" -q --level branch --start main -o "$TMP/pb.itr" -- "$PROG" >/dev/null 2>&1
check "collect export_prog from main at branch level" test -s "$TMP/pb.itr"
check "export branch level (filled)" "$SQL" -q "$TMP/pb.itr" -o "$TMP/pb.db"
valgrind --tool=callgrind --collect-jumps=yes --dump-instr=yes --skip-plt=no \
	--callgrind-out-file="$TMP/cg.out" "$PROG" >/dev/null 2>&1
awk -f "$TMP/cg.awk" "$TMP/cg.out" >"$TMP/cg.txt"
check "callgrind output parsed" grep -q '^ir main ' "$TMP/cg.txt"

# The program's own functions: those whose source is export_prog.c.
funcs=$(q "$TMP/p.db" "SELECT symbol FROM functions_view WHERE src_file LIKE '%export_prog.c' AND insn_count > 0 ORDER BY symbol")
check_eq "traced functions of the program" "collatz_steps deep fib main" "$(echo $funcs)"
for f in $funcs; do
	theirs=$(awk -v f="$f" '$1 == "ir" && $2 == f { s += $4 } END { print s + 0 }' "$TMP/cg.txt")
	check_eq "$f: instructions = callgrind Ir" "$theirs" \
		"$(q "$TMP/p.db" "SELECT insn_count FROM functions_view WHERE symbol='$f'")"
	check_eq "$f: branch level: instructions = callgrind Ir" "$theirs" \
		"$(q "$TMP/pb.db" "SELECT insn_count FROM functions_view WHERE symbol='$f'")"
done

# Branches: callgrind positions are file addresses (PIE), ours runtime:
# compare by (function, offset from the function's symbol).
nm "$PROG" | awk '$2 == "T" || $2 == "t" { print $3, $1 }' >"$TMP/syms"
awk 'FILENAME == ARGV[1] { start[$1] = $2; next }
     function hex(h,   v, i) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
     $1 == "ir" { ir[$2 " " $3] += $4 }
     $1 == "jcnd" { tk[$2 " " $3] += $4 }
     END { for (k in tk) { split(k, p, " "); if (p[1] in start) printf "%s %d %d %d\n", p[1], p[2] - hex(start[p[1]]), ir[k], tk[k] } }' \
	"$TMP/syms" "$TMP/cg.txt" | sort >"$TMP/cg.branches"
check "callgrind saw conditional branches" test -s "$TMP/cg.branches"
q "$TMP/p.db" "SELECT s.name, h.ip - s.sym_start, h.exec_count, h.taken_count FROM hot_branches h JOIN symbols s ON s.id = h.symbol_id JOIN functions f ON f.symbol_id = s.id WHERE f.src_file LIKE '%export_prog.c' AND h.branch_type = 9" |
	tr '|' ' ' | sort >"$TMP/our.branches"
awk 'FNR == NR { ours[$1 " " $2] = 1; next } ($1 " " $2) in ours { print $1, $2 }' \
	"$TMP/our.branches" "$TMP/cg.branches" >"$TMP/both"
check "some branches seen by both" test -s "$TMP/both"
q "$TMP/pb.db" "SELECT s.name, h.ip - s.sym_start, h.exec_count, h.taken_count FROM hot_branches h JOIN symbols s ON s.id = h.symbol_id JOIN functions f ON f.symbol_id = s.id WHERE f.src_file LIKE '%export_prog.c' AND h.branch_type = 9" |
	tr '|' ' ' | sort >"$TMP/our-b.branches"
while read -r fn off; do
	check_eq "$fn+$off: executed/taken = callgrind" \
		"$(grep "^$fn $off " "$TMP/cg.branches")" "$(grep "^$fn $off " "$TMP/our.branches")"
	check_eq "$fn+$off: branch level: executed/taken = callgrind" \
		"$(grep "^$fn $off " "$TMP/cg.branches")" "$(grep "^$fn $off " "$TMP/our-b.branches")"
done <"$TMP/both"
done_testing
