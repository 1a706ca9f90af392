# bench/lib.sh - helpers for the benchmark scripts (sourced).  The script
# sets TMP (a scratch directory) and RUNTIME (build/bench/bench-runtime,
# which times a command: wall seconds and the CPU seconds of all its
# processes and threads).

# median N CMD...: "WALL CPU" (seconds), the medians of N runs of CMD,
# its output discarded.  A failed run stops the benchmark.
median() {
	n=$1
	shift
	i=0
	: >"$TMP/times"
	while [ "$i" -lt "$n" ]; do
		"$RUNTIME" -o "$TMP/t1" "$@" >/dev/null 2>&1 ||
			{ echo "$(basename "$0" .sh): '$*' failed" >&2; exit 1; }
		cat "$TMP/t1" >>"$TMP/times"
		i=$((i + 1))
	done
	sort -n -k1,1 "$TMP/times" | awk '{ w[NR] = $1 } END { printf "%s ", w[int((NR + 1) / 2)] }'
	sort -n -k2,2 "$TMP/times" | awk '{ c[NR] = $2 } END { print c[int((NR + 1) / 2)] }'
}
# wall and cpu: the two halves of median's answer.
wall() { echo "$1" | cut -d' ' -f1; }
cpu() { echo "$1" | cut -d' ' -f2; }
