"""functions(), hot_branches(), symbolize() and fill() against the C tools:
itrace-sqlite's tables (read with the sqlite3 module), nm, itrace-fill."""
import math
import os
import sqlite3
import subprocess

import numpy as np
import pytest

from conftest import DATA, python_env, tool
from test_records import dump_line


@pytest.fixture(scope='session')
def prog_db(tmp, export_prog):
    db = str(tmp / 'prog.db')
    tool('itrace-sqlite', export_prog, '-o', db)
    return db


@pytest.fixture(scope='session')
def gzip_db(tmp, gzip_insn):
    db = str(tmp / 'gz.db')
    tool('itrace-sqlite', gzip_insn, '-o', db)
    return db


FUNCTION_COLUMNS = ('id', 'symbol', 'dso', 'sym_start', 'insn_count', 'total_insn_count',
                    'call_count', 'insn_percent', 'src_file', 'src_line')


@pytest.mark.parametrize('which', ['prog', 'gzip'])
def test_functions_equal_itrace_sqlite(request, itrace, which):
    path = request.getfixturevalue({'prog': 'export_prog', 'gzip': 'gzip_insn'}[which])
    db = request.getfixturevalue(which + '_db')
    rows = sqlite3.connect(db).execute('SELECT %s FROM functions_view ORDER BY id'
                                       % ', '.join(FUNCTION_COLUMNS)).fetchall()
    f = itrace.open(path).functions()
    assert set(f) == set(FUNCTION_COLUMNS)
    ours = []
    for i in range(len(f['id'])):
        ours.append((int(f['id'][i]), f['symbol'][i], f['dso'][i], sqlhex(f['sym_start'][i]), int(f['insn_count'][i]),
                     int(f['total_insn_count'][i]), int(f['call_count'][i]),
                     float(f['insn_percent'][i]), f['src_file'][i],
                     int(f['src_line'][i]) or None))
    assert len(ours) == len(rows) > 10
    assert ours == [tuple(r) for r in rows]


def sqlhex(v):
    """SQLite's printf('%#x', v): '0' for 0 (Python's '%#x' gives '0x0')."""
    return '%#x' % v if v else '0'


def test_hot_branches_equal_itrace_sqlite(itrace, export_prog, prog_db):
    rows = sqlite3.connect(prog_db).execute(
        'SELECT id, symbol, ip, sym_offset, to_ip, branch_type_name, kind, exec_count,'
        ' taken_count, taken_ratio FROM hot_branches_view').fetchall()
    hb = itrace.open(export_prog).hot_branches()
    ours = {}
    for i in range(len(hb['id'])):
        r = hb['taken_ratio'][i]
        ours[int(hb['id'][i])] = (int(hb['id'][i]), hb['symbol'][i], sqlhex(hb['ip'][i]),
                                  sqlhex(hb['sym_offset'][i]), sqlhex(hb['to_ip'][i]),
                                  hb['branch_type_name'][i], hb['kind'][i],
                                  int(hb['exec_count'][i]), int(hb['taken_count'][i]),
                                  None if math.isnan(r) else float(r))
    assert ours == {r[0]: tuple(r) for r in rows}
    ex = hb['exec_count']
    assert list(ex) == sorted(ex, reverse=True)
    top = itrace.open(export_prog).hot_branches(3)
    assert list(top['id']) == list(hb['id'][:3])


def test_readme_hot_branches_example(itrace, export_prog, prog_db):
    """README's SQL question 2, in five lines of Python (examples/python/hot_branches.py)."""
    sql = ("SELECT sym_offset, exec_count, taken_count, round(taken_ratio, 2) AS ratio"
           " FROM hot_branches_view WHERE symbol = 'collatz_steps' AND branch_type_name ="
           " 'conditional jump' AND exec_count > 0"
           " ORDER BY min(taken_ratio, 1 - taken_ratio) * exec_count DESC")
    want = sqlite3.connect(prog_db).execute(sql).fetchall()
    env = python_env(PYTHONPATH=os.path.join(os.path.dirname(DATA), '..', 'python'))
    ex = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'python', 'hot_branches.py')
    out = subprocess.run(['/usr/bin/python3', ex, export_prog], capture_output=True, text=True,
                         env=env)
    assert out.returncode == 0, out.stderr
    got = [tuple(l.split()) for l in out.stdout.splitlines()]
    assert len(want) > 0
    assert got == [(o, str(e), str(t), '%.2f' % r) for o, e, t, r in want]


def nm_functions(path):
    out = subprocess.run(['nm', '-S', '--defined-only', path], capture_output=True, text=True).stdout
    funcs = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in 'tT':
            funcs[w[3]] = (int(w[0], 16), int(w[1], 16))
    return funcs


def test_symbolize_against_nm(itrace, export_prog):
    prog = os.path.join(DATA, 'export_prog')
    funcs = nm_functions(prog)
    t = itrace.open(export_prog)
    m = [m for m in t.mappings if m['path'] and m['path'].endswith('export_prog')]
    assert m
    # the executable's load bias: a PIE is mapped where the first mapping
    # (file offset 0) begins
    base = min(x['start'] - x['pgoff'] for x in m)
    bias = 0 if base == min(v[0] for v in funcs.values()) & ~0xfff else base
    names = ['collatz_steps', 'fib', 'main']
    addrs = np.array([funcs[n][0] + bias + 1 for n in names], dtype=np.uint64)
    s = t.symbolize(addrs)
    assert list(s['function']) == names
    assert list(s['offset']) == [1, 1, 1]
    assert all(x.endswith('export_prog') for x in s['module'])
    assert all(f.endswith('export_prog.c') for f in s['file']) and all(s['line'] > 0)
    s = t.symbolize([0x10])
    assert s['function'][0] is None and s['module'][0] is None


def test_fill_equals_itrace_fill(itrace, tmp, gzip_branch):
    out = str(tmp / 'filled.itr')
    tool('itrace-fill', gzip_branch, '-o', out)
    want = tool('itrace-dump', out).stdout.splitlines()
    f = itrace.fill(gzip_branch)
    assert f.level == 'insn'
    got = [dump_line(r) for r in f]
    assert len(got) == len(want) and got == want
    assert f.ended == itrace.open(gzip_branch).ended
    f2 = itrace.fill(itrace.open(gzip_branch), output=str(tmp / 'filled2.itr'))
    assert sum(1 for _ in f2) == len(want)
    with pytest.raises(itrace.Error):
        itrace.fill(out)  # already instruction level


def run_example(name, *args):
    ex = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'python', name)
    env = python_env(PYTHONPATH=os.path.join(os.path.dirname(DATA), '..', 'python'))
    p = subprocess.run(['/usr/bin/python3', ex] + list(args), capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_reuse_distance_example(gzip_insn):
    out = run_example('reuse_distance.py', gzip_insn)
    head = out[0].split()
    accesses, lines, cold = int(head[1].rstrip(',')), int(head[3].rstrip(',')), int(head[6])
    mem = [l.split() for l in tool('itrace-dump', gzip_insn).stdout.splitlines()
           if l.split()[1] == 'MEM']
    assert accesses == len(mem)
    assert lines == cold == len({int(w[3], 16) >> 6 for w in mem})
    # every access is a first use or one reuse in the histogram
    assert cold + sum(int(l.split()[3]) for l in out[1:]) == accesses


def test_function_histogram_example(itrace, export_prog):
    out = run_example('function_histogram.py', export_prog, '5')
    f = itrace.open(export_prog).functions()
    # instructions at a function's addresses are those its activations
    # execute themselves: functions()'s self counts
    self_count = dict(zip(f['symbol'], f['insn_count'].tolist()))
    rows = [l.split() for l in out]
    assert len(rows) == 5 and rows[0][0] == 'fib'
    for name, n, *_ in rows:
        assert int(n) == self_count[name], name
