# tests/helper/collect_lib.sh - helpers shared by tests/e2e/collect_*.sh
# (sourced after tests/lib.sh).
COLLECT="$BIN/itrace-collect"
DUMP="$BIN/itrace-dump"
TRACECHECK="$ITRACE_ROOT/$ITRACE_BUILD/tests/collect-tracecheck"
PROG="$DATA/collect_prog"

# normalize FILE: the dump without MMAP/CODE records (they hold the
# kernel's vDSO) and with the process ids and the build path replaced, so
# that two runs of a deterministic program compare equal.
normalize() {
	"$DUMP" "$1" | grep -v -e '^[0-9]* MMAP ' -e '^[0-9]* CODE ' |
		awk '
		/ PROCESS (start|fork) / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^(pid|child)=[0-9]+$/) {
					split($i, kv, "="); if (!(kv[2] in id)) id[kv[2]] = "P" ++n
				}
		}
		{
			out = ""
			for (i = 1; i <= NF; i++) {
				f = $i
				if (f in id) f = id[f]
				else if (match(f, /=[0-9]+$/) && (substr(f, RSTART + 1) in id))
					f = substr(f, 1, RSTART) id[substr(f, RSTART + 1)]
				out = out (i > 1 ? " " : "") f
			}
			print out
		}' | sed "s|'[^']*/\\([^/']*\\)'|'\\1'|"
}

# ended FILE: "complete, status 5" etc., from the dump summary.
ended() {
	"$DUMP" -s "$1" 2>/dev/null | sed -n 's/^ended: //p'
}

# insn_addrs FILE: the addresses of the INSN records, one a line.
insn_addrs() {
	"$DUMP" "$1" | awk '$2 == "INSN" { print $3 }'
}
