"""References and memory: a loop of open, iterate, batches, close keeps
Python's allocations (tracemalloc) and the process's RSS flat."""
import gc
import os
import subprocess
import tracemalloc

import numpy as np

from conftest import BUILD, SANITIZER, python_env


def rss_kib():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])


def work(itrace, path):
    with itrace.open(path) as t:
        for i, r in enumerate(t):
            if i == 20000:
                break
        n = sum(len(b['addr']) for b in t.batches(types=('INSN',), columns=('addr', 'tid'),
                                                  size=1 << 16))
        kept = [r.copy() for r in t.records(types='MMAP')]
        t.summary()
        t.__arrow_c_stream__()
    try:
        itrace.open(path + '.missing')
    except OSError:
        pass
    return n + len(kept)


LOOP = r"""
import gc, sys, tracemalloc
sys.path.insert(0, sys.argv[2])
import itrace
from test_leaks import work, rss_kib
for _ in range(3):  # warm up: NumPy, interned names, allocator pools
    work(itrace, sys.argv[1])
gc.collect()
tracemalloc.start()
work(itrace, sys.argv[1])
gc.collect()
base_py, base_rss = tracemalloc.get_traced_memory()[0], rss_kib()
for _ in range(30):
    work(itrace, sys.argv[1])
gc.collect()
print(tracemalloc.get_traced_memory()[0] - base_py, rss_kib() - base_rss)
"""


def test_open_close_loop_is_flat(gzip_insn):
    """In a fresh interpreter (pytest's own allocations would count too)."""
    env = python_env(PYTHONPATH=os.path.join(BUILD, 'python'))
    if SANITIZER:
        # ASan keeps freed blocks out of reuse (its quarantine, 256 MiB,
        # to catch use after free): memory the loop freed would count as
        # RSS growth.  Without it, the RSS is the live memory again.
        env['ASAN_OPTIONS'] += ':quarantine_size_mb=0'
    p = subprocess.run(['/usr/bin/python3', '-c', LOOP, gzip_insn, os.path.dirname(__file__)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    grown_py, grown_rss = map(int, p.stdout.split())
    # 30 rounds of ~3M records each: a leak of one object per record or per
    # batch would be megabytes, of a reader per round (MiBs of chunk
    # buffers) hundreds of them
    assert grown_py < 16 * 1024, grown_py
    assert grown_rss < 8 * 1024, grown_rss


PEAKS = r"""
import gc, sys, tracemalloc
import numpy as np
import itrace
path = sys.argv[1]
for r in itrace.open(path):  # warm up
    break
gc.collect()
tracemalloc.start()
for r in itrace.open(path):
    pass
peak_iter = tracemalloc.get_traced_memory()[1]
tracemalloc.reset_peak()
s = 0
for b in itrace.open(path).batches(columns=('addr',), size=1 << 16):
    s += int(np.sum(b['addr']))
print(peak_iter, tracemalloc.get_traced_memory()[1])
"""


def test_iteration_memory_flat_in_length(gzip_insn):
    """Reading the whole trace (4M records) holds one record and one batch
    at a time (the column buffers are malloc'd in C, outside tracemalloc:
    the RSS figures of bench/python_speed.sh cover them)."""
    p = subprocess.run(['/usr/bin/python3', '-c', PEAKS, gzip_insn], capture_output=True,
                       text=True, env=python_env(PYTHONPATH=os.path.join(BUILD, 'python')))
    assert p.returncode == 0, p.stderr
    peak_iter, peak_batch = map(int, p.stdout.split())
    assert peak_iter < 256 * 1024, peak_iter
    assert peak_batch < 256 * 1024, peak_batch
