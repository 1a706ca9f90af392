#!/bin/sh
# itrace-xml: every output validates (itrace-profile against
# format/itrace-profile.xsd, Cobertura against Cobertura's own
# coverage-04.dtd), hostile names stay well-formed, and the counts are
# those of the trace.
. tests/lib.sh
XML="$BIN/itrace-xml"
XSD="$ITRACE_ROOT/format/itrace-profile.xsd"
# The real DTD, as published by Cobertura, lies in the team's shared
# reference folder beside the checkout (CI clones beside a copy of it);
# ITRACE_COBERTURA_DTD names another copy.  The repository keeps none (a
# copy could drift) and no Debian package ships it: without it each
# validation is a named skip (lib.sh's missing_reference), and the file
# is still checked to be well-formed.
DTD="${ITRACE_COBERTURA_DTD:-$ITRACE_ROOT/../shared/reference/cobertura/coverage-04.dtd}"
# check_dtd NAME FILE: FILE is valid against Cobertura's DTD.
check_dtd() {
	if [ -f "$DTD" ]; then
		check "$1" xmllint --noout --nonet --dtdvalid "$DTD" "$2"
	else
		check "$1 (well-formed only: no DTD)" xmllint --noout --nonet "$2"
		missing_reference "$1" "$DTD"
	fi
}
xp() { xmllint --xpath "$2" "$1" 2>/dev/null; }

# ---- synthetic trace: counts known from the iteration count
"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/s.itr" 1000
check "export synthetic trace" "$XML" -q "$TMP/s.itr" -o "$TMP/s.xml"
check "valid against the XSD" xmllint --noout --nonet --schema "$XSD" "$TMP/s.xml"
check_eq "format version" 1 "$(xp "$TMP/s.xml" 'string(/itrace-profile/@version)')"
check_eq "total instructions" 10001 "$(xp "$TMP/s.xml" 'string(/itrace-profile/totals/@instructions)')"
check_eq "functions add up to the total" 10001 "$(xp "$TMP/s.xml" 'sum(//function/@instructions)')"
check_eq "inner jne: executions and taken" "3000 2000" \
	"$(xp "$TMP/s.xml" 'string(//branch[@from="0x402007"]/@executions)') $(xp "$TMP/s.xml" 'string(//branch[@from="0x402007"]/@taken)')"
check_eq "call graph edges count the calls (root edges: activations)" "1000 1" \
	"$(xp "$TMP/s.xml" 'sum(//edge[@caller!="0"]/@calls)') $(xp "$TMP/s.xml" 'sum(//edge[@caller="0"]/@calls)')"
"$XML" -q "$TMP/s.itr" >"$TMP/stdout.xml"
check_files_eq "stdout when no -o" "$TMP/s.xml" "$TMP/stdout.xml"
"$XML" -q -f cobertura "$TMP/s.itr" -o "$TMP/s-cov.xml"
check_dtd "Cobertura without line info is valid too" "$TMP/s-cov.xml"

# ---- damaged input: exit 1, the records before the damage still exported
"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/chunks.itr" 1000 100
size=$(wc -c <"$TMP/chunks.itr")
head -c $((size - 400)) "$TMP/chunks.itr" >"$TMP/cut.itr"   # past the footer, into a chunk
"$XML" -q "$TMP/cut.itr" -o "$TMP/cut.xml" 2>"$TMP/cut.err"
check_eq "truncated: exit 1" 1 $?
check "truncated: still valid" xmllint --noout --nonet --schema "$XSD" "$TMP/cut.xml"
check_eq "truncated: marked incomplete, with instructions" "false true" \
	"$(xp "$TMP/cut.xml" 'string(//source/@complete)') $(xp "$TMP/cut.xml" '//totals/@instructions > 0')"
check "truncated: one-line error naming the damage" grep -q "^itrace-xml: '.*cut.itr' is damaged" "$TMP/cut.err"
"$XML" -q -f cobertura "$TMP/cut.itr" -o "$TMP/cut-cov.xml" 2>/dev/null
check_eq "truncated Cobertura: exit 1" 1 $?
check_dtd "truncated Cobertura: valid" "$TMP/cut-cov.xml"
check "truncated Cobertura: says so inside" grep -q '<!--incomplete: the trace is damaged' "$TMP/cut-cov.xml"

# ---- a trace that records lost data: marked in both formats, exit 1
EXPORT_SYNTH_LOST=1 "$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/lost.itr" 100
"$XML" -q "$TMP/lost.itr" -o "$TMP/lost.xml" 2>/dev/null
check_eq "lost data: exit 1, marked incomplete" "1 false" "$? $(xp "$TMP/lost.xml" 'string(//source/@complete)')"
"$XML" -q -f cobertura "$TMP/lost.itr" -o "$TMP/lost-cov.xml" 2>/dev/null
check_eq "lost data: Cobertura exit 1" 1 $?
check "lost data: Cobertura says so inside" grep -q '<!--incomplete: the trace records lost data' "$TMP/lost-cov.xml"
check_dtd "lost data: Cobertura stays valid" "$TMP/lost-cov.xml"

# ---- memory stays flat: a 40x longer trace of the same code, same peak
if [ -x /usr/bin/time ]; then
	"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/m1.itr" 10000
	"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/m40.itr" 400000
	r1=$(/usr/bin/time -f %M "$XML" -q "$TMP/m1.itr" -o /dev/null 2>&1)
	r40=$(/usr/bin/time -f %M "$XML" -q "$TMP/m40.itr" -o /dev/null 2>&1)
	check "peak memory flat (${r1} kB vs ${r40} kB)" test "$r40" -le $((r1 + r1 / 10))
	rm -f "$TMP/m1.itr" "$TMP/m40.itr"
fi

# ---- errors
out=$("$XML" "$TMP/nope.itr" 2>&1); rc=$?
check_eq "missing input: exit 1, one line" "1|itrace-xml: cannot open '$TMP/nope.itr': No such file or directory" "$rc|$out"
"$XML" -f html "$TMP/s.itr" >/dev/null 2>&1; check_eq "bad format: usage error" 2 $?
out=$("$XML" -q "$TMP/s.itr" 2>&1 >/dev/full); rc=$?
check_eq "full disk: exit 1, one line" "1|itrace-xml: cannot write to stdout: No space left on device" "$rc|$out"
out=$("$XML" -q "$TMP/s.itr" -o "$TMP/no/such/dir.xml" 2>&1); rc=$?
check_eq "unwritable target: exit 1, one line" "1|itrace-xml: cannot create '$TMP/no/such/dir.xml': No such file or directory" "$rc|$out"
(ulimit -f 1; trap '' XFSZ; "$XML" -q "$TMP/s.itr" -o "$TMP/big.xml" 2>/dev/null)
check_eq "write failure: exit 1, no file, no temporary left" "1|" "$?|$(ls -A "$TMP" | grep 'big.xml')"

if [ -x "$BIN/itrace-collect" ]; then
	# ---- hostile names: <&>", a control byte and a non-UTF-8 byte
	"$BIN/itrace-collect" -q -o "$TMP/c.itr" -- "$DATA/export_calls"
	check "export collected trace" "$XML" -q "$TMP/c.itr" -o "$TMP/c.xml"
	check "well-formed and valid" xmllint --noout --nonet --schema "$XSD" "$TMP/c.xml"
	check_eq "hostile name escaped, bad bytes as \\xHH" 'we<&>"ird\x01\xffname' \
		"$(xp "$TMP/c.xml" 'string(//function[@calls="1"]/@name)')"
	check_eq "recursion counted: fact 20 calls, 140 instructions" "20 140" \
		"$(xp "$TMP/c.xml" 'string(//function[@name="fact"]/@calls)') $(xp "$TMP/c.xml" 'string(//function[@name="fact"]/@total-instructions)')"
	n=$("$BIN/itrace-dump" "$TMP/c.itr" | grep -c ' INSN ')
	check_eq "instructions = what the reader counts" "$n $n" \
		"$(xp "$TMP/c.xml" 'string(//totals/@instructions)') $(xp "$TMP/c.xml" 'sum(//function/@instructions)')"

	# ---- a C program with debug info: source lines and Cobertura
	"$BIN/itrace-collect" -q --start main -o "$TMP/p.itr" -- "$DATA/export_prog" >/dev/null 2>&1
	check "export C program" "$XML" -q "$TMP/p.itr" -o "$TMP/p.xml"
	check "C program: valid against the XSD" xmllint --noout --nonet --schema "$XSD" "$TMP/p.xml"
	check "Cobertura export" "$XML" -q -f cobertura "$TMP/p.itr" -o "$TMP/cov.xml"
	check_dtd "Cobertura: valid against Cobertura's coverage-04.dtd" "$TMP/cov.xml"
	src=$(grep -n 'for (i = 1; i < 12; i++)' "$SRCDATA/export_prog.c" | cut -d: -f1)
	never=$(grep -n 'total += never_called(argc);' "$SRCDATA/export_prog.c" | cut -d: -f1)
	check_eq "loop line executed" 1 \
		"$(xp "$TMP/cov.xml" "count(//class[@name='export_prog.c']/lines/line[@number='$src' and @hits > 0])")"
	check_eq "line never reached has hits 0" 0 \
		"$(xp "$TMP/cov.xml" "string(//class[@name='export_prog.c']/lines/line[@number='$never']/@hits)")"
	check_eq "some lines of the file not covered" true \
		"$(xp "$TMP/cov.xml" "//class[@name='export_prog.c']/@line-rate < 1")"
	check_eq "a function never called is listed, its lines with hits 0" "1 0" \
		"$(xp "$TMP/cov.xml" "count(//class[@name='export_prog.c']//method[@name='never_called'])") $(xp "$TMP/cov.xml" "sum(//class[@name='export_prog.c']//method[@name='never_called']/lines/line/@hits)")"
	valid=$(xp "$TMP/cov.xml" "count(//class/lines/line)")
	covered=$(xp "$TMP/cov.xml" "count(//class/lines/line[@hits > 0])")
	check_eq "coverage totals are over every listed line" "$valid $covered" \
		"$(xp "$TMP/cov.xml" "string(/coverage/@lines-valid)") $(xp "$TMP/cov.xml" "string(/coverage/@lines-covered)")"
	check_eq "methods carry McCabe complexity (fib: 1 + 1 conditional)" 2 \
		"$(xp "$TMP/cov.xml" "string(//method[@name='fib']/@complexity)")"
	check_eq "collatz loop condition (two jumps): all four outcomes seen" "true 100% (4/4)" \
		"$(xp "$TMP/cov.xml" "string(//class[@name='export_prog.c']/lines/line[@branch='true'][1]/@branch)") $(xp "$TMP/cov.xml" "string(//class[@name='export_prog.c']/lines/line[@branch='true'][1]/@condition-coverage)")"
	# XML and SQLite agree (the SQLite numbers are checked against callgrind)
	if [ -x "$BIN/itrace-sqlite" ]; then
		"$BIN/itrace-sqlite" -q "$TMP/p.itr" -o "$TMP/p.db"
		for f in main fib collatz_steps deep; do
			check_eq "$f: XML = SQLite" \
				"$(sqlite3 "$TMP/p.db" "SELECT insn_count || ' ' || total_insn_count || ' ' || call_count FROM functions_view WHERE symbol='$f'")" \
				"$(xp "$TMP/p.xml" "string(//function[@name='$f']/@instructions)") $(xp "$TMP/p.xml" "string(//function[@name='$f']/@total-instructions)") $(xp "$TMP/p.xml" "string(//function[@name='$f']/@calls)")"
		done
	fi
fi
done_testing
