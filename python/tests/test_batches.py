"""Batches (NumPy and memoryview columns), the Arrow C stream (read through
ctypes: pyarrow is not packaged for this Debian), damaged traces."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import BUILD, python_env, tool
from test_records import dump_line


def column_values(path, itrace, types):
    """The columns rebuilt from the record iterator, for comparison."""
    cols = {c: [] for c in ('type', 'tid', 'addr', 'len', 'size', 'store', 'src', 'dst', 'kind',
                            'taken')}
    for r in itrace.open(path).records(types=types):
        cols['type'].append(itrace.TYPES[r.type])
        cols['tid'].append(r.tid)
        cols['addr'].append(r.addr if r.type in ('INSN', 'MEM') else 0)
        cols['len'].append(r.len if r.type == 'INSN' else 0)
        cols['size'].append(r.size if r.type == 'MEM' else 0)
        cols['store'].append(int(r.store) if r.type == 'MEM' else 0)
        b = r.type == 'BRANCH'
        cols['src'].append(r.src if b else 0)
        cols['dst'].append(r.dst if b else 0)
        cols['kind'].append(itrace.KINDS.index(r.kind) if b else 0)
        cols['taken'].append(int(r.taken) if b else 0)
    return cols


@pytest.mark.parametrize('which,types', [('gzip_insn', ('INSN', 'MEM')),
                                         ('python_branch', ('BRANCH',))])
def test_batches_equal_records(request, itrace, which, types):
    path = request.getfixturevalue(which)
    want = column_values(path, itrace, types)
    got = {c: [] for c in want}
    sizes = []
    for b in itrace.open(path).batches(types=types, columns=tuple(want), size=100000):
        assert set(b) == set(want)
        assert all(isinstance(v, np.ndarray) for v in b.values())
        sizes.append(len(b['tid']))
        for c in want:
            got[c].extend(b[c].tolist())
    assert all(s == 100000 for s in sizes[:-1]) and 0 < sizes[-1] <= 100000
    for c in want:
        assert got[c] == want[c], c
    b = next(iter(itrace.open(path).batches(types=types, columns=('addr', 'len', 'tid'))))
    assert (b['addr'].dtype, b['len'].dtype, b['tid'].dtype) == (np.uint64, np.uint8, np.uint32)


NO_NUMPY = r'''
import sys
class Block:
    def find_spec(self, name, path, target=None):
        if name == 'numpy' or name.startswith('numpy.'):
            raise ImportError('numpy blocked for this test')
sys.meta_path.insert(0, Block())
'''


def test_batches_without_numpy(tmp, gzip_insn):
    site = tmp / 'nonumpy'
    site.mkdir(exist_ok=True)
    (site / 'sitecustomize.py').write_text(NO_NUMPY)
    code = ('import itrace, sys\n'
            'try:\n import numpy\n print("numpy imported")\nexcept ImportError: pass\n'
            't = itrace.open(sys.argv[1])\n'
            'n = s = 0\n'
            'for b in t.batches(types=("INSN",), columns=("addr", "len")):\n'
            ' assert type(b["addr"]) is memoryview and b["addr"].format == "Q"\n'
            ' n += len(b["addr"]); s += sum(b["len"])\n'
            'f = t.functions()\n'
            'print(n, s, type(f["symbol"]).__name__, type(f["insn_count"]).__name__)\n')
    env = python_env(PYTHONPATH='%s:%s' % (site, os.path.join(BUILD, 'python')))
    p = subprocess.run(['/usr/bin/python3', '-c', code, gzip_insn], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    lines = [l.split() for l in tool('itrace-dump', gzip_insn).stdout.splitlines()]
    insns = [int(l[3].split('=')[1]) for l in lines if l[1] == 'INSN']
    assert p.stdout.split() == [str(len(insns)), str(sum(insns)), 'list', 'memoryview']


# The Arrow C data and stream interfaces' structs (Apache Arrow spec).
class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [('format', ctypes.c_char_p), ('name', ctypes.c_char_p),
                        ('metadata', ctypes.c_char_p), ('flags', ctypes.c_int64),
                        ('n_children', ctypes.c_int64),
                        ('children', ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
                        ('dictionary', ctypes.POINTER(ArrowSchema)),
                        ('release', ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
                        ('private_data', ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [('length', ctypes.c_int64), ('null_count', ctypes.c_int64),
                       ('offset', ctypes.c_int64), ('n_buffers', ctypes.c_int64),
                       ('n_children', ctypes.c_int64),
                       ('buffers', ctypes.POINTER(ctypes.c_void_p)),
                       ('children', ctypes.POINTER(ctypes.POINTER(ArrowArray))),
                       ('dictionary', ctypes.POINTER(ArrowArray)),
                       ('release', ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
                       ('private_data', ctypes.c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ('get_schema', ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                    ctypes.POINTER(ArrowSchema))),
    ('get_next', ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                  ctypes.POINTER(ArrowArray))),
    ('get_last_error', ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ('release', ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ('private_data', ctypes.c_void_p)]

CTYPE = {b'C': ctypes.c_uint8, b'I': ctypes.c_uint32, b'L': ctypes.c_uint64}


def stream_of(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.cast(get(capsule, b'arrow_array_stream'), ctypes.POINTER(ArrowArrayStream))


def read_stream(capsule, move=False):
    """Consume an Arrow C stream as a consumer does: schema, arrays until a
    released one; returns {name: values}, or raises with get_last_error."""
    s = stream_of(capsule)
    if move:  # a consumer that takes the stream over (pyarrow's from_stream)
        mine = ArrowArrayStream()
        ctypes.memmove(ctypes.byref(mine), s, ctypes.sizeof(mine))
        s.contents.release = ctypes.cast(None, type(s.contents.release))
        s = ctypes.pointer(mine)
    sch = ArrowSchema()
    assert s.contents.get_schema(s, ctypes.byref(sch)) == 0
    assert sch.format == b'+s'
    names = [sch.children[i].contents.name.decode() for i in range(sch.n_children)]
    fmts = [sch.children[i].contents.format for i in range(sch.n_children)]
    sch.release(ctypes.byref(sch))
    assert not sch.release
    out = {n: [] for n in names}
    err = None
    while True:
        a = ArrowArray()
        rc = s.contents.get_next(s, ctypes.byref(a))
        if rc != 0:
            err = (rc, s.contents.get_last_error(s).decode())
            break
        if not a.release:
            break
        assert a.n_children == len(names) and a.n_buffers == 1 and a.null_count == 0
        for i, n in enumerate(names):
            c = a.children[i].contents
            assert c.length == a.length and c.n_buffers == 2 and not c.buffers[0]
            arr = ctypes.cast(c.buffers[1], ctypes.POINTER(CTYPE[fmts[i]] * c.length)).contents
            out[n].extend(arr)
        a.release(ctypes.byref(a))
        assert not a.release
    if move:
        s.contents.release(s)
    return out, fmts, err


def test_arrow_stream(itrace, gzip_insn):
    t = itrace.open(gzip_insn)
    cols = ('addr', 'len', 'tid', 'type')
    want = {c: [] for c in cols}
    for b in t.batches(types=('INSN', 'MEM'), columns=cols, size=1 << 16):
        for c in cols:
            want[c].extend(b[c].tolist())
    got, fmts, err = read_stream(t.batches(types=('INSN', 'MEM'), columns=cols,
                                           size=1 << 16).__arrow_c_stream__())
    assert err is None and fmts == [b'L', b'C', b'I', b'C']
    assert got == want
    # taken over by the consumer, and the whole trace (every column)
    got, fmts, err = read_stream(t.__arrow_c_stream__(), move=True)
    assert err is None and len(got['type']) == t.summary()['records']
    # an unread capsule is released by its destructor (no leak, no crash)
    t.batches().__arrow_c_stream__()


@pytest.fixture(scope='session')
def truncated(tmp, gzip_insn):
    """gz.itr cut inside its first chunk and inside its last."""
    size = os.path.getsize(gzip_insn)
    out = []
    for frac in (0.57, 0.999):
        p = tmp / ('cut%d.itr' % int(frac * 1000))
        with open(gzip_insn, 'rb') as f:
            p.write_bytes(f.read(int(size * frac)))
        out.append(str(p))
    return out


def test_damaged_records_then_error(itrace, truncated):
    for path in truncated:
        d = tool('itrace-dump', path, check=False)
        assert d.returncode == 1
        want = d.stdout.splitlines()
        got = []
        with pytest.raises(itrace.Error) as e:
            for r in itrace.open(path):
                got.append(dump_line(r))
        assert got == want and len(got) > 1000
        # itrace-dump: 'cutN.itr': trace is truncated: offset ...: ...
        assert d.stderr.strip().endswith(str(e.value)), (d.stderr, str(e.value))
        assert e.value.code == 6 and e.value.detail.startswith('offset ')
        rows = 0
        with pytest.raises(itrace.Error) as e2:
            for b in itrace.open(path).batches(columns=('type',), size=1 << 18):
                rows += len(b['type'])
        assert rows == len(want) and str(e2.value) == str(e.value)
        s = itrace.open(path).summary()
        assert s['records'] == len(want) and len(s['damage']) == 1 and not s['complete']
        got, _, err = read_stream(itrace.open(path).__arrow_c_stream__())
        assert len(got['type']) == len(want) and err[1] == str(e.value)


def test_damaged_analysis_warns(itrace, truncated):
    with pytest.warns(itrace.IncompleteWarning):
        f = itrace.open(truncated[0]).functions()
    assert f['insn_count'].sum() > 0
    t = itrace.open(truncated[0])
    with pytest.warns(itrace.IncompleteWarning):
        s = t.symbolize([m['start'] for m in t.mappings])
    assert all(s['module'])  # the mappings before the damage
