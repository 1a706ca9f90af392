#!/bin/sh
# bench/python_speed.sh - the itrace Python package against the C reader,
# same run, same synthetic trace (python-cread gen: INSN records with a MEM
# after every third, ITRACE_PY_BENCH_RECORDS of them, default 100M):
#   python batches   t.batches(types=('INSN','MEM'), columns=('addr','len','tid'))
#                    end to end, each batch's addr summed with NumPy
#                    (target >= 0.5 of the C reader's records/s)
#   python iterator  for r in t: n += 1 (target >= 5M records/s)
#   python handler   a handler whose pushed-down filter (an address range)
#                    matches 0.1% of the records (target >= 0.5 of C)
#   memory           peak RSS reading the whole trace, against reading a
#                    tenth of it (target: flat, ratio <= 1.1)
# Baseline: python-cread read, itrace_reader_next over every record with
# the addresses summed, in C.
: "${ITRACE_BUILD:=build}"
PY=${PYTHON:-/usr/bin/python3}
N=${ITRACE_PY_BENCH_RECORDS:-100000000}
CREAD="$ITRACE_BUILD/bench/python-cread"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/itrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$CREAD" gen "$TMP/big.itr" "$N" || exit 1
"$CREAD" gen "$TMP/tenth.itr" "$((N / 10))" || exit 1

cat >"$TMP/bench.py" <<'PYEOF'
import resource, sys, time
import itrace
import itrace._handlers as handlers
mode, path = sys.argv[1], sys.argv[2]
t = itrace.open(path)
t0 = time.perf_counter()
if mode == 'batches':
    n = s = 0
    for b in t.batches(types=('INSN', 'MEM'), columns=('addr', 'len', 'tid')):
        s += int(b['addr'].sum())
        n += len(b['addr'])
elif mode == 'iterator':
    n = 0
    for r in t:
        n += 1
else:
    hits = [0]
    def hit(r):
        hits[0] += 1
    # one of the trace's 1000 instruction addresses: 0.1% of its INSN records
    handlers.run(t, handlers=[({'types': ('INSN',), 'field': 'addr',
                                'range': (0x401000, 0x401004)}, hit)])
dt = time.perf_counter() - t0
if mode == 'handler':  # after the clock: a pass of its own
    n = t.summary()['records']
    assert hits[0] * 1000 == t.summary()['types']['INSN'], hits
print(n, dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
PYEOF
pyrun() { PYTHONPATH="$ITRACE_BUILD/python" "$PY" "$TMP/bench.py" "$@"; }
# records/s of "N SECONDS ..." lines
rate() { echo "$1" | awk '{ printf "%.0f", $1 / $2 }'; }

c=$("$CREAD" read "$TMP/big.itr") || exit 1
crate=$(rate "$c")
status=0
line() { # NAME OURS BASE UNIT TARGET_RATIO
	r=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
	printf '%-22s %12s %s  %12s %s  ratio %s  (target %s)\n' "$1" "$2" "$4" "$3" "$4" "$r" "$5"
	awk -v r="$r" -v t="$5" 'BEGIN { exit !(r + 0 >= t + 0) }' || status=1
}
b=$(pyrun batches "$TMP/big.itr") || exit 1
line "python batches" "$(rate "$b")" "$crate" records/s 0.5
i=$(pyrun iterator "$TMP/big.itr") || exit 1
irate=$(rate "$i")
line "python iterator" "$irate" 5000000 records/s 1.0
echo "python iterator vs C: ratio $(awk -v a="$irate" -v b="$crate" 'BEGIN { printf "%.2f", a / b }') (target >= 0.125, within 8x)"
h=$(pyrun handler "$TMP/big.itr") || exit 1
line "python handler 0.1%" "$(rate "$h")" "$crate" records/s 0.5
small=$(pyrun batches "$TMP/tenth.itr" | awk '{ print $3 }')
big=$(echo "$b" | awk '{ print $3 }')
r=$(awk -v a="$big" -v b="$small" 'BEGIN { printf "%.2f", a / b }')
printf '%-22s %12s KiB  %12s KiB  ratio %s  (target <= 1.1: %s records vs a tenth)\n' \
	"python batches peak RSS" "$big" "$small" "$r" "$N"
awk -v r="$r" 'BEGIN { exit !(r <= 1.1) }' || status=1
small=$(pyrun iterator "$TMP/tenth.itr" | awk '{ print $3 }')
big=$(echo "$i" | awk '{ print $3 }')
r=$(awk -v a="$big" -v b="$small" 'BEGIN { printf "%.2f", a / b }')
printf '%-22s %12s KiB  %12s KiB  ratio %s  (target <= 1.1)\n' "python iter peak RSS" "$big" "$small" "$r"
awk -v r="$r" 'BEGIN { exit !(r <= 1.1) }' || status=1
exit $status
