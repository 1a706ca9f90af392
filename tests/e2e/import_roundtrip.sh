#!/bin/sh
# itrace-import end to end on synthetic perf.data: a real program is
# single-stepped by the ptrace backend, bts-gen writes what Intel BTS and
# perf would have recorded for that run (AUXTRACE full trace, snapshot,
# legacy samples, padding, inline and feature-section build-ids, truncated
# AUX areas), and perf.data -> itrace-import -> itrace-fill must give back
# the single-stepped instruction sequence.
. tests/lib.sh
GEN="$ITRACE_ROOT/$ITRACE_BUILD/tests/bts-gen"
IMPORT="$BIN/itrace-import"
FILL="$BIN/itrace-fill"
DUMP="$BIN/itrace-dump"
PROG="$DATA/bts_loops"

insn_addrs() { "$DUMP" "$1" | awk '$2 == "INSN" { print $3 }'; }
branch_list() { "$GEN" branches "$1" | cut -d' ' -f2-; }

if ! "$BIN/itrace-collect" -q --insn-bytes --level insn -o "$TMP/ref.itr" -- "$PROG" 2>"$TMP/collect.err"; then
	fail "ptrace reference trace of bts_loops" "$(cat "$TMP/collect.err")"
	done_testing
	exit
fi
ok "ptrace reference trace of bts_loops"
insn_addrs "$TMP/ref.itr" >"$TMP/ref.txt"
"$GEN" branches "$TMP/ref.itr" --kept | cut -d' ' -f2- >"$TMP/expect.txt"
check "the reference has instructions and branches" test -s "$TMP/ref.txt" -a -s "$TMP/expect.txt"

# roundtrip NAME GEN-OPTIONS...: generate, import, compare branches and fill.
roundtrip() {
	name="$1"; shift
	legacy=no
	case " $* " in *" --legacy "*) legacy=yes ;; esac
	if ! "$GEN" perf "$TMP/ref.itr" "$TMP/$name.data" "$@" 2>"$TMP/gen.err"; then
		fail "$name: bts-gen" "$(cat "$TMP/gen.err")"
		return
	fi
	if ! "$IMPORT" -q "$TMP/$name.data" -o "$TMP/$name.itr" 2>"$TMP/imp.err"; then
		fail "$name: itrace-import" "$(cat "$TMP/imp.err")"
		return
	fi
	"$DUMP" -s "$TMP/$name.itr" >"$TMP/$name.sum"
	check "$name: branch level, taken-only flag, complete" \
		sh -c "grep -q '^level: branch' '$TMP/$name.sum' && grep -q '^flags: 0x4' '$TMP/$name.sum' && grep -q '^ended: complete' '$TMP/$name.sum'"
	branch_list "$TMP/$name.itr" >"$TMP/$name.br"
	if [ "$legacy" = yes ]; then
		# The kernel drops crossings into it on the legacy path: no system calls.
		"$GEN" branches "$TMP/ref.itr" --kept --legacy | cut -d' ' -f2- >"$TMP/legacy-expect.txt"
		check_files_eq "$name: imported branches = the run's user branches" "$TMP/legacy-expect.txt" "$TMP/$name.br"
	else
		check_files_eq "$name: imported branches = what BTS records for the run" "$TMP/expect.txt" "$TMP/$name.br"
	fi
	if ! "$FILL" -q "$TMP/$name.itr" -o "$TMP/$name-filled.itr" 2>"$TMP/fill.err"; then
		fail "$name: itrace-fill" "$(cat "$TMP/fill.err")"
		return
	fi
	insn_addrs "$TMP/$name-filled.itr" >"$TMP/$name.txt"
	if [ "$legacy" = yes ]; then
		# Without the exit system call the fill stops at the last taken branch.
		n=$(wc -l <"$TMP/$name.txt")
		head -n "$n" "$TMP/ref.txt" >"$TMP/ref-prefix.txt"
		check "$name: filled = single-stepped up to the last taken branch ($n of $(wc -l <"$TMP/ref.txt"))" \
			sh -c "[ $n -gt 0 ] && cmp -s '$TMP/ref-prefix.txt' '$TMP/$name.txt'"
	else
		check_files_eq "$name: filled = single-stepped ($(wc -l <"$TMP/ref.txt") instructions)" "$TMP/ref.txt" "$TMP/$name.txt"
	fi
}

roundtrip full
roundtrip small-buffers --chunk 5 --pad 2
roundtrip inline-buildid --inline-buildid --chunk 1000
roundtrip legacy --legacy
roundtrip pipe --pipe --pad 1
roundtrip pipe-legacy --pipe --legacy

# Build-ids reach the MMAP records, from the feature section or MMAP2.
id=$(readelf -n "$PROG" | awk '/Build ID/ { print $3 }')
check "build-id from the feature section" sh -c "'$DUMP' '$TMP/full.itr' | grep MMAP | grep -q 'buildid=$id'"
check "build-id from MMAP2 records" sh -c "'$DUMP' '$TMP/inline-buildid.itr' | grep MMAP | grep -q 'buildid=$id'"

# Snapshot mode: one snapshot of the last 16 records at exit.
"$GEN" perf "$TMP/ref.itr" "$TMP/snap.data" --snapshot 16
"$IMPORT" -q "$TMP/snap.data" -o "$TMP/snap.itr"
branch_list "$TMP/snap.itr" >"$TMP/snap.br"
tail -n 16 "$TMP/expect.txt" >"$TMP/snap-expect.txt"
check_files_eq "snapshot: the last 16 branches" "$TMP/snap-expect.txt" "$TMP/snap.br"
check "snapshot: perf_mode metadata" sh -c "'$DUMP' -s '$TMP/snap.itr' | grep -q 'perf_mode=intel_bts snapshot'"

# Truncated AUX areas become LOST records; the fill reports the gaps.
"$GEN" perf "$TMP/ref.itr" "$TMP/trunc.data" --chunk 10 --truncate-every 3
"$IMPORT" -q "$TMP/trunc.data" -o "$TMP/trunc.itr"
areas=$(( ($(wc -l <"$TMP/expect.txt") + 9) / 10 ))
lost=$("$DUMP" "$TMP/trunc.itr" | grep -c ' LOST ')
check_eq "truncated AUX: one LOST record per truncated area" "$((areas / 3))" "$lost"
"$FILL" "$TMP/trunc.itr" -o "$TMP/trunc-filled.itr" 2>"$TMP/trunc.err"
check "truncated AUX: the fill reports lost-input gaps" sh -c "'$DUMP' '$TMP/trunc-filled.itr' | grep -q ' GAP '"

# An independent reader of the generated files: perf itself, when installed.
if command -v perf >/dev/null 2>&1; then
	"$GEN" branches "$TMP/ref.itr" --kept --legacy | cut -d' ' -f2- >"$TMP/user.txt"
	# (perf skips the last record of each AUX buffer, "for (; sz > bsz; ...)";
	# real buffers end in padding, so the padded file is the fair comparison.)
	perf script -i "$TMP/small-buffers.data" --itrace=b 2>/dev/null |
		awk '{ for (i = 1; i <= NF; i++) if ($i == "=>") print $(i - 3), $(i + 1) }' >"$TMP/perf-bts.txt"
	grep -v ' ffffffff' "$TMP/perf-bts.txt" >"$TMP/perf-bts-user.txt"
	check_files_eq "perf script decodes the synthetic intel_bts file to the same user branches" \
		"$TMP/user.txt" "$TMP/perf-bts-user.txt"
	check_eq "perf script sees the same system call crossings" \
		"$(($(wc -l <"$TMP/expect.txt") - $(wc -l <"$TMP/user.txt")))" "$(grep -c ' ffffffff' "$TMP/perf-bts.txt")"
	perf script -i "$TMP/legacy.data" -F ip,addr 2>/dev/null | awk '{ print $1, $3 }' >"$TMP/perf-legacy.txt"
	check_files_eq "perf script reads the synthetic legacy samples identically" "$TMP/user.txt" "$TMP/perf-legacy.txt"
	perf script -i "$TMP/pipe-legacy.data" -F ip,addr 2>/dev/null | awk '{ print $1, $3 }' >"$TMP/perf-pipe.txt"
	check_files_eq "perf script reads the synthetic pipe-mode stream identically" "$TMP/user.txt" "$TMP/perf-pipe.txt"
else
	ok "perf script cross-check # SKIP perf is not installed"
fi

# A dynamically linked program: the start is the interpreter's entry, then
# PLT calls, libc, system calls and a vDSO call (its bytes come from perf's
# build-id cache, which bts-gen fills as perf record would).  glibc runs
# the string functions it picks for this CPU (AVX-512/EVEX ones where it
# has them): libitrace's decoder knows them all.
if "$BIN/itrace-collect" -q --insn-bytes --level insn -o "$TMP/dyn.itr" -- "$DATA/bts_dyn" >/dev/null 2>"$TMP/dyn.err"; then
	"$GEN" perf "$TMP/dyn.itr" "$TMP/dyn.data" --pad 1 --buildid-dir "$TMP/debug"
	"$IMPORT" -q --buildid-dir "$TMP/debug" "$TMP/dyn.data" -o "$TMP/dyn-imp.itr"
	check "dynamic: the start is the interpreter's entry point" \
		sh -c "'$DUMP' '$TMP/dyn-imp.itr' | grep -m1 TRACE_ON | grep -q \"start \$('$DUMP' '$TMP/dyn.itr' | awk '\$2 == \"INSN\" { print \$3; exit }')\""
	"$FILL" -q "$TMP/dyn-imp.itr" -o "$TMP/dyn-filled.itr"
	# (a branch trace store records no rep iterations: the single-stepped
	# trace has one record per iteration, the filled one per execution;
	# ITRACE.md 6.5.2)
	insn_addrs "$TMP/dyn.itr" | uniq >"$TMP/dyn-ref.txt"
	insn_addrs "$TMP/dyn-filled.itr" >"$TMP/dyn.txt"
	check_files_eq "dynamic: filled = single-stepped ($(wc -l <"$TMP/dyn-ref.txt") instructions)" "$TMP/dyn-ref.txt" "$TMP/dyn.txt"
	check "dynamic: the vDSO bytes came from the build-id cache" sh -c "'$DUMP' '$TMP/dyn-imp.itr' | grep -q ' CODE '"
	# Without the cache the vDSO code is unknown: the fill says so with a gap.
	mkdir -p "$TMP/empty"
	"$IMPORT" -q --buildid-dir "$TMP/empty" "$TMP/dyn.data" -o "$TMP/dyn-nocache.itr"
	"$FILL" -q "$TMP/dyn-nocache.itr" -o "$TMP/dyn-nocache-filled.itr" 2>/dev/null
	check "dynamic: no cached vDSO gives an explicit gap" sh -c "'$DUMP' '$TMP/dyn-nocache-filled.itr' | grep -q ' GAP '"
else
	fail "dynamic: ptrace reference trace of bts_dyn" "$(cat "$TMP/dyn.err")"
fi

# Standard input, and -o -.
cat "$TMP/full.data" | "$IMPORT" -q - -o "$TMP/stdin.itr"
check "reads perf.data from stdin" sh -c "[ \"\$('$GEN' branches '$TMP/stdin.itr' | wc -l)\" = \"\$(wc -l <'$TMP/expect.txt')\" ]"
"$IMPORT" -q "$TMP/full.data" -o - >"$TMP/stdout.itr"
check "writes to stdout with -o -" sh -c "'$DUMP' -q '$TMP/stdout.itr'"

done_testing
