#!/bin/sh
# format/itrace_spec_reader.py, the second reader written from ITRACE.md
# alone, against itrace-dump (libitrace): the whole listing byte for byte,
# the messages on standard error (but for the program's name) and the exit
# status, on every golden trace and fuzz corpus file, on damaged copies
# (truncated at several points, a byte flipped in a chunk) and on real
# traces taken here by every backend: valgrind (insn with MEM and BLOCK
# records, branch with BRANCH_SEQ), ptrace, qemu (x86-64 and ppc64le), gdb,
# itrace-import of a synthetic perf.data, and itrace-fill.  Where the two
# disagree, ITRACE.md is fixed first (format/README.md).
. tests/lib.sh
PY=/usr/bin/python3
SPEC="$ITRACE_ROOT/format/itrace_spec_reader.py"
DUMP="$BIN/itrace-dump"
COLLECT="$BIN/itrace-collect"

# agree FILE [DUMP-OPTIONS]: both readers print the same on both streams and
# exit with the same status; else say how they differ, on stdout.
agree() {
	_f="$1"; shift
	"$DUMP" "$@" "$_f" >"$TMP/dump.out" 2>"$TMP/dump.err"
	_drc=$?
	"$PY" "$SPEC" "$@" "$_f" >"$TMP/spec.out" 2>"$TMP/spec.err"
	_src=$?
	sed 's/^itrace-dump: /itrace-spec-reader: /' "$TMP/dump.err" >"$TMP/dump.err.named"
	if [ "$_drc" != "$_src" ]; then
		echo "exit status: itrace-dump $_drc, spec reader $_src"
		cat "$TMP/dump.err.named" "$TMP/spec.err"
		return 1
	fi
	if ! cmp -s "$TMP/dump.out" "$TMP/spec.out"; then
		diff "$TMP/dump.out" "$TMP/spec.out" | head -20
		return 1
	fi
	if ! cmp -s "$TMP/dump.err.named" "$TMP/spec.err"; then
		diff "$TMP/dump.err.named" "$TMP/spec.err" | head -20
		return 1
	fi
	return 0
}

# agree_all FILE [-H-OPTIONS]: agree on the listing, on --summary (header,
# counts, how it ended, whether it is complete) and on -H (the header, then
# the records; given options, -H -n 100 for instance, for large files).
agree_all() {
	_file="$1"; shift
	agree "$_file" || return 1
	_n=$(wc -l <"$TMP/dump.out")
	agree "$_file" --summary || { echo "(--summary)"; return 1; }
	agree "$_file" -H "$@" || { echo "(-H $*)"; return 1; }
	echo "$_n"
}

# same NAME FILE [-H-OPTIONS]: one test, both readers agree on FILE.
same() {
	_name="$1"; shift
	if _why=$(agree_all "$@"); then
		ok "$_name ($_why records; --summary and -H alike)"
	else
		fail "$_name" "$_why"
	fi
}

# flip FILE OFFSET OUT: a copy of FILE with the byte at OFFSET inverted.
flip() {
	"$PY" -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[int(sys.argv[2])] ^= 0xff
open(sys.argv[3], "wb").write(d)' "$1" "$2" "$3"
}

# damaged NAME FILE: copies cut inside the header, inside and at the end of
# the first chunk header, inside chunks, inside the footer and the trailer,
# and copies with one byte flipped in a chunk header, a payload and the
# footer.  One test for them all, naming the first that differs.
damaged() {
	_size=$(wc -c <"$2")
	_hs=$(od -An -tu4 -j16 -N4 "$2" | tr -d ' ')
	_bad=""
	_copies=0
	for _cut in 5 12 40 63 $((_hs - 1)) $((_hs + 10)) $((_hs + 72)) $((_hs + 100)) \
		$((_size / 3)) $((_size / 2)) $((_size * 4 / 5)) $((_size - 40)) $((_size - 16)) \
		$((_size - 1)); do
		[ "$_cut" -gt 0 ] && [ "$_cut" -lt "$_size" ] || continue
		head -c "$_cut" "$2" >"$TMP/cut.itr"
		_copies=$((_copies + 1))
		if ! _why=$(agree_all "$TMP/cut.itr"); then
			_bad="cut at $_cut: $_why"
			break
		fi
	done
	for _at in $((_hs + 2)) $((_hs + 20)) $((_hs + 80)) $((_hs + 200)) $((_size / 2)) \
		$((_size - 60)) $((_size - 3)); do
		[ -z "$_bad" ] && [ "$_at" -lt "$_size" ] || continue
		flip "$2" "$_at" "$TMP/flip.itr"
		_copies=$((_copies + 1))
		if ! _why=$(agree_all "$TMP/flip.itr"); then
			_bad="byte $_at flipped: $_why"
		fi
	done
	if [ -z "$_bad" ]; then
		ok "$1: $_copies damaged copies read alike"
	else
		fail "$1: damaged copies" "$_bad"
	fi
}

# --- the golden traces and the fuzz corpora -------------------------------------
for f in "$SRCDATA"/*.itr; do
	same "golden $(basename "$f")" "$f"
done
damaged "golden format_golden.itr" "$SRCDATA/format_golden.itr"
for dir in "$ITRACE_ROOT"/tests/fuzz/corpus/*/; do
	n=0
	bad=""
	for f in "$dir"*; do
		case "$f" in *.itr) ;; *) [ "$(basename "$dir")" = fuzz_reader ] || continue ;; esac
		n=$((n + 1))
		why=$(agree_all "$f") || { bad="$(basename "$f"): $why"; break; }
	done
	[ "$n" -gt 0 ] || continue
	if [ -z "$bad" ]; then ok "fuzz corpus $(basename "$dir"): $n files read alike"
	else fail "fuzz corpus $(basename "$dir")" "$bad"; fi
done

# --- real traces, every backend -------------------------------------------------
echo "a small file for gzip" >"$TMP/small.txt"
# trace NAME COLLECT-OPTIONS... -- PROGRAM...: take a trace, compare, and keep
# it as $TMP/NAME.itr.
trace() {
	_name="$1"; shift
	if "$COLLECT" -q -o "$TMP/$_name.itr" "$@" >/dev/null 2>"$TMP/collect.err" ||
		[ -s "$TMP/$_name.itr" ]; then
		same "$_name" "$TMP/$_name.itr" -n 100
	else
		fail "$_name: itrace-collect" "$(cat "$TMP/collect.err")"
	fi
}
trace valgrind-insn-true --backend valgrind --level insn -- /bin/true
trace valgrind-insn-gzip --backend valgrind --level insn -- gzip -c "$TMP/small.txt"
trace valgrind-branch-true --backend valgrind --level branch -- /bin/true
trace valgrind-branch-gzip --backend valgrind --level branch -- gzip -c "$TMP/small.txt"
trace valgrind-branch-uncompressed --backend valgrind --level branch --no-compress -- /bin/true
trace ptrace-insn-true --backend ptrace --level insn -- /bin/true
trace ptrace-insn-bytes --backend ptrace --level insn --insn-bytes -- "$DATA/collect_mem"
trace ptrace-branch-true --backend ptrace --level branch -- /bin/true
trace qemu-x86-64-true --backend qemu -- /bin/true
trace qemu-x86-64-branch --backend qemu --level branch -- gzip -c "$TMP/small.txt"
trace gdb-x86-64 --backend gdb -- "$DATA/qtrace_gdb_x86"
if command -v qemu-ppc64le >/dev/null; then
	trace qemu-ppc64le-insn --backend qemu -- "$DATA/ppc64le/qemu_prog"
	trace qemu-ppc64le-branch --backend qemu --level branch -- "$DATA/ppc64le/qemu_prog_dyn"
	trace gdb-ppc64le --backend gdb -- "$DATA/ppc64le/gdb_atomic"
else
	skip "qemu and gdb backends on ppc64le" "qemu-ppc64le not installed (make deps)"
fi
damaged "valgrind-branch-true" "$TMP/valgrind-branch-true.itr"
damaged "valgrind-branch-uncompressed" "$TMP/valgrind-branch-uncompressed.itr"
damaged "ptrace-insn-bytes" "$TMP/ptrace-insn-bytes.itr"

# itrace-import: what Intel BTS and perf would have recorded for a ptrace run
# (tests/e2e/import_roundtrip.sh), then itrace-fill of it.
GEN="$ITRACE_ROOT/$ITRACE_BUILD/tests/bts-gen"
"$COLLECT" -q --backend ptrace --insn-bytes --level insn -o "$TMP/bts-ref.itr" -- "$DATA/bts_loops" \
	>/dev/null 2>"$TMP/gen.err"
if "$GEN" perf "$TMP/bts-ref.itr" "$TMP/bts.data" --chunk 50 --pad 1 2>>"$TMP/gen.err" &&
	"$BIN/itrace-import" -q "$TMP/bts.data" -o "$TMP/import.itr" 2>"$TMP/import.err"; then
	same "itrace-import of a synthetic perf.data" "$TMP/import.itr"
	if "$BIN/itrace-fill" -q "$TMP/import.itr" -o "$TMP/import-filled.itr" 2>"$TMP/fill.err"; then
		same "itrace-fill of the imported trace" "$TMP/import-filled.itr"
	else
		fail "itrace-fill of the imported trace" "$(cat "$TMP/fill.err")"
	fi
else
	fail "itrace-import of a synthetic perf.data" "$(cat "$TMP/gen.err" "$TMP/import.err")"
fi
# itrace-fill of a trace with BRANCH_SEQ records, and of ppc64le branches.
for t in valgrind-branch-gzip qemu-ppc64le-branch; do
	[ -s "$TMP/$t.itr" ] || continue
	if "$BIN/itrace-fill" -q "$TMP/$t.itr" -o "$TMP/$t-filled.itr" 2>"$TMP/fill.err" ||
		[ -s "$TMP/$t-filled.itr" ]; then
		same "itrace-fill of $t" "$TMP/$t-filled.itr"
	else
		fail "itrace-fill of $t" "$(cat "$TMP/fill.err")"
	fi
done

# Standard input, and the API: the module's records equal the listing.
"$DUMP" - <"$TMP/valgrind-insn-true.itr" >"$TMP/stdin.dump" 2>&1
"$PY" "$SPEC" - <"$TMP/valgrind-insn-true.itr" 2>&1 |
	sed 's/^itrace-spec-reader: /itrace-dump: /' >"$TMP/stdin.spec"
check_files_eq "standard input ('-') read alike" "$TMP/stdin.dump" "$TMP/stdin.spec"
check_eq "the module's API delivers every record the listing has" \
	"$("$DUMP" "$TMP/valgrind-insn-gzip.itr" 2>/dev/null | wc -l)" \
	"$("$PY" -c 'import sys
sys.path.insert(0, sys.argv[1])
import itrace_spec_reader as isr
print(len(isr.records(sys.argv[2])))' "$ITRACE_ROOT/format" "$TMP/valgrind-insn-gzip.itr")"
done_testing
