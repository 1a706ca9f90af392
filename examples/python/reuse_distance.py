"""A sketch of data reuse from MEM records: for every access to a 64-byte
cache line, how many accesses ago the same line was last used (the reuse
time, which bounds the reuse distance - the distinct lines in between -
from above), as a log2 histogram.  Vectorised per batch with NumPy; the
last use of each line is carried from batch to batch.

    python3 reuse_distance.py prog.itr
"""
import sys

import numpy as np

import itrace

t = itrace.open(sys.argv[1])
last = {}            # line -> index of its last access (before this batch)
hist = np.zeros(65, dtype=np.int64)
cold = 0
seen = 0
for b in t.batches(types=('MEM',), columns=('addr',)):
    lines = b['addr'] >> np.uint64(6)
    idx = np.arange(seen, seen + len(lines), dtype=np.int64)
    order = np.argsort(lines, kind='stable')
    sl, si = lines[order], idx[order]
    same = np.empty(len(sl), dtype=bool)
    same[0] = False
    same[1:] = sl[1:] == sl[:-1]
    # reuses inside the batch: the previous access of the same line
    reuse = (si[1:] - si[:-1])[same[1:]]
    # first access of each line in this batch: against the carried one
    firsts = np.flatnonzero(~same)
    for line, i in zip(sl[firsts].tolist(), si[firsts].tolist()):
        j = last.get(line)
        if j is None:
            cold += 1
        else:
            reuse = np.append(reuse, i - j)
    hist += np.bincount(np.log2(reuse).astype(np.int64), minlength=65)[:65] if len(reuse) else 0
    # the last access of each line in this batch
    lasts = np.append(firsts[1:] - 1, len(sl) - 1)
    last.update(zip(sl[lasts].tolist(), si[lasts].tolist()))
    seen += len(lines)
print('accesses %d, lines %d, first uses %d' % (seen, len(last), cold))
for k in np.flatnonzero(hist):
    print('reuse time %10d..%-10d %10d %s' % (2 ** k, 2 ** (k + 1) - 1, hist[k],
                                               '#' * max(1, int(40 * hist[k] / hist.max()))))
