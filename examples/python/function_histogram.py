"""Instructions executed per function, from an instruction-level trace:
the INSN addresses come in NumPy batches, each distinct address is
symbolized once, and the counts are grouped by function (with pandas when
it is installed, else NumPy alone).

    python3 function_histogram.py prog.itr [TOP]
"""
import sys

import numpy as np

import itrace

t = itrace.open(sys.argv[1])
top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
counts = {}
for b in t.batches(types=('INSN',), columns=('addr',)):
    addrs, n = np.unique(b['addr'], return_counts=True)
    for a, k in zip(addrs.tolist(), n.tolist()):
        counts[a] = counts.get(a, 0) + k
addrs = np.fromiter(counts, dtype=np.uint64, count=len(counts))
insns = np.fromiter(counts.values(), dtype=np.uint64, count=len(counts))
sym = t.symbolize(addrs)
names = [f or '[unknown] %s' % (m or '') for f, m in zip(sym['function'], sym['module'])]
try:
    import pandas as pd
except ImportError:
    pd = None
if pd is not None:
    df = pd.DataFrame({'function': names, 'insns': insns})
    per = df.groupby('function')['insns'].sum().sort_values(ascending=False)
    rows = list(per.head(top).items())
else:
    keys, inv = np.unique(np.array(names, dtype=object), return_inverse=True)
    sums = np.bincount(inv, weights=insns)
    order = np.argsort(-sums, kind='stable')[:top]
    rows = [(keys[i], int(sums[i])) for i in order]
total = int(insns.sum())
width = 50
for name, n in rows:
    bar = '#' * max(1, int(width * int(n) / total))
    print('%-40.40s %12d %6.2f%% %s' % (name, n, 100.0 * int(n) / total, bar))
