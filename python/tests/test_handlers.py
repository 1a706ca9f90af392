"""Handlers (@itrace.on, python3 -m itrace run) against counts computed
from itrace-dump's text and the ELF symbol tables (nm, readelf)."""
import os
import re
import subprocess

import pytest

from conftest import BUILD, DATA, python_env, tool
from test_analysis import nm_functions

ENV = python_env(PYTHONPATH=os.path.join(BUILD, 'python'))


def run_module(*args):
    return subprocess.run(['/usr/bin/python3', '-m', 'itrace'] + [str(a) for a in args],
                          capture_output=True, text=True, env=ENV)


def runtime_range(path, name, mappings, dynamic=False):
    """[lo, hi) of function `name` of ELF `path` in the traced process: its
    file offset (readelf's PT_LOAD) placed in the mapping that holds it."""
    out = subprocess.run(['nm', '-S', '--defined-only'] + (['-D'] if dynamic else []) + [path],
                         capture_output=True, text=True).stdout
    m = re.search(r'^([0-9a-f]+) ([0-9a-f]+) [TtWi] %s(@@?\S+)?$' % re.escape(name), out, re.M)
    vaddr, size = int(m.group(1), 16), int(m.group(2), 16)
    loads = re.findall(r'^\s*LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+)', subprocess.run(
        ['readelf', '-lW', path], capture_output=True, text=True).stdout, re.M)
    off = None
    for o, v in loads:
        o, v = int(o, 16), int(v, 16)
        if v <= vaddr:
            off = vaddr - v + o if off is None or v >= best else off
            best = v if off == vaddr - v + o else best
    real = os.path.realpath(path)
    for mp in mappings:
        if mp['path'] and os.path.realpath(mp['path']) == real and \
                mp['pgoff'] <= off < mp['pgoff'] + mp['len'] and mp['prot'] & 4:
            lo = mp['start'] + off - mp['pgoff']
            return lo, lo + size
    raise AssertionError('%s not mapped' % name)


SCRIPT = '''
import itrace
n = {'malloc': 0, 'calls': 0, 'insns': 0}
seen = []

def begin(trace):
    print('begin', trace.level)

# a call through the PLT reaches malloc by the stub's indirect jump
@itrace.on('BRANCH', kind=('call', 'indirect'), dst_symbol='malloc')
def on_malloc(r):
    n['malloc'] += 1
    seen.append(r.copy())

@itrace.on('BRANCH', kind=('call', 'indirect-call'))
def on_call(r):
    n['calls'] += 1

def end():
    assert all(r.kind in ('call', 'indirect') for r in seen)
    print('end', n['malloc'], n['calls'])
'''


def test_branch_handlers(tmp, itrace, python_branch):
    """python3 -c pass (gzip never calls malloc)."""
    script = tmp / 'h.py'
    script.write_text(SCRIPT)
    p = run_module('run', script, python_branch)
    assert p.returncode == 0, p.stderr
    t = itrace.open(python_branch)
    libc = [m['path'] for m in t.mappings if m['path'] and 'libc.so' in m['path']][0]
    lo, hi = runtime_range(libc, 'malloc', t.mappings, dynamic=True)
    malloc = calls = 0
    for line in tool('itrace-dump', python_branch).stdout.splitlines():
        w = line.split()
        if w[1] == 'BRANCH' and w[5] in ('call', 'indirect', 'indirect-call'):
            dst = int(w[4], 16)
            # a record goes to the first handler it matches
            if w[5] in ('call', 'indirect') and lo <= dst < hi:
                malloc += 1
            elif w[5] != 'indirect':
                calls += 1
    assert malloc > 0
    assert p.stdout.split() == ['begin', 'branch', 'end', str(malloc), str(calls)]


def test_insn_handler_by_function(tmp, itrace, export_prog):
    script = tmp / 'f.py'
    script.write_text('import itrace\nn = [0]\n'
                      "@itrace.on('INSN', function='collatz_steps')\n"
                      'def f(r):\n    n[0] += 1\n'
                      'def end():\n    print(n[0])\n')
    p = run_module('run', script, export_prog)
    assert p.returncode == 0, p.stderr
    t = itrace.open(export_prog)
    lo, hi = runtime_range(os.path.join(DATA, 'export_prog'), 'collatz_steps', t.mappings)
    want = sum(1 for l in tool('itrace-dump', export_prog).stdout.splitlines()
               if l.split()[1] == 'INSN' and lo <= int(l.split()[2], 16) < hi)
    assert want > 100 and p.stdout.split() == [str(want)]
    # in-process, with an explicit range: the same records
    import itrace._handlers as h
    got = []
    assert h.run(export_prog, handlers=[({'types': ('INSN',), 'field': 'addr',
                                          'range': (lo, hi)}, lambda r: got.append(r.addr))]) == want


def test_run_errors(tmp):
    p = run_module('run', tmp / 'h.py', tmp / 'nope.itr')
    assert p.returncode == 1
    assert p.stderr == "itrace-run: cannot open '%s': No such file or directory\n" % (tmp / 'nope.itr')
    p = run_module('run')
    assert p.returncode == 2 and p.stderr.startswith('usage:')
    with pytest.raises(ValueError):
        import itrace
        itrace.on('MEM', dst_symbol='x')
