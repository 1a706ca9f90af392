"""Records, summary and metadata against itrace-dump's text."""
import errno
import io
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import BUILD, python_env, tool

CTL = {'start': 'start', 'trigger': 'trigger', 'attach': 'attach', 'detach': 'detach',
       'scope': 'scope'}


def sq(s):
    out = []
    for c in s.encode('utf-8', 'surrogateescape'):
        out.append('\\x%02x' % c if c < 0x20 or c == 0x7f or c in (0x27, 0x5c) else chr(c))
    return "'" + ''.join(out) + "'"


def dump_line(r):
    """The line itrace-dump prints for record r (tools/itrace_dump.c),
    rebuilt from the Python record's fields."""
    t = r.type
    if t == 'BRANCH':
        s = 'BRANCH 0x%x -> 0x%x %s %s' % (r.src, r.dst, r.kind, 'taken' if r.taken else 'not-taken')
        if r.predicted is not None:
            s += ' predicted' if r.predicted else ' mispredicted'
    elif t == 'INSN':
        s = 'INSN 0x%x len=%d' % (r.addr, r.len)
        if r.bytes is not None:
            s += ' bytes=' + r.bytes.hex()
    elif t == 'MEM':
        s = 'MEM %s 0x%x size=%d' % ('store' if r.store else 'load', r.addr, r.size)
    elif t == 'MMAP':
        p = r.prot
        s = 'MMAP pid=%d 0x%x-0x%x pgoff=0x%x prot=%s%s%s' % (
            r.pid, r.start, r.start + r.len, r.pgoff, 'r' if p & 1 else '-', 'w' if p & 2 else '-',
            'x' if p & 4 else '-')
        if r.buildid:
            s += ' buildid=' + r.buildid.hex()
        if r.path is not None:
            s += ' ' + sq(r.path)
    elif t == 'THREAD':
        s = 'THREAD %s tid=%d pid=%d' % (r.event, r.thread_tid, r.thread_pid)
        if r.event == 'create':
            s += ' parent=%d' % r.other
        if r.event == 'exit':
            s += ' status=%d' % r.other
        if r.name is not None:
            s += ' ' + sq(r.name)
    elif t == 'PROCESS':
        s = 'PROCESS %s pid=%d' % (r.event, r.pid)
        if r.event == 'fork':
            s += ' child=%d' % r.other
        if r.event == 'exit':
            s += ' status=%d' % r.status
        if r.name is not None:
            s += ' ' + sq(r.name)
    elif t == 'SYSCALL':
        if r.dir == 'exit':
            s = 'SYSCALL exit nr=%d ret=%d' % (r.nr, r.ret)
        else:
            s = 'SYSCALL enter nr=%d' % r.nr
            if r.args:
                s += ' args=' + ','.join('0x%x' % a for a in r.args)
    elif t == 'SIGNAL':
        s = 'SIGNAL signo=%d code=%d addr=0x%x pc=0x%x handler=0x%x' % (
            r.signo, r.code, r.addr, r.pc, r.handler)
    elif t == 'TIMESTAMP':
        s = 'TIMESTAMP %d' % r.time_ns
    elif t == 'TRACE_CTL':
        s = 'TRACE_%s %s 0x%x' % ('ON' if r.on else 'OFF', r.reason, r.addr)
    elif t == 'LOST':
        s = 'LOST %d %s reason=%s' % (r.count, r.unit, r.reason)
    elif t == 'GAP':
        s = 'GAP reason=%s addr=0x%x resume=0x%x count=%d' % (r.reason, r.addr, r.resume, r.count)
    else:
        s = 'UNKNOWN type=%d' % r.raw_type
    return '%d %s' % (r.tid, s)


def dump_records(path, check=True):
    p = tool('itrace-dump', path, check=check)
    return p.stdout.splitlines(), p


def summary_of(path):
    """itrace-dump --summary as a dict of its lines."""
    out = tool('itrace-dump', '--summary', path).stdout.splitlines()
    d = {'types': {}, 'threads': {}, 'meta': {}}
    for line in out:
        if line.startswith('  tid '):
            tid, rest = line[6:].split(':', 1)
            n = [int(w) for w in rest.replace(',', ' ').split() if w.isdigit()]
            d['threads'][int(tid)] = {'records': n[0], 'insns': n[1], 'branches': n[2]}
        elif line.startswith('  '):
            name, n = line.split()
            d['types'][name] = int(n)
        elif line.startswith('meta: '):
            k, v = line[6:].split('=', 1)
            d['meta'][k] = v
        else:
            k, _, v = line.partition(': ')
            d['nthreads' if k == 'threads' else k] = v
    return d


@pytest.mark.parametrize('which', ['gzip_insn', 'gzip_branch', 'python_branch', 'export_prog'])
def test_records_equal_itrace_dump(request, itrace, which):
    path = request.getfixturevalue(which)
    lines, _ = dump_records(path)
    ours = [dump_line(r) for r in itrace.open(path)]
    assert len(ours) == len(lines)
    assert ours == lines


@pytest.mark.parametrize('which', ['gzip_insn', 'python_branch'])
def test_summary_equals_itrace_dump(request, itrace, which):
    path = request.getfixturevalue(which)
    want = summary_of(path)
    t = itrace.open(path)
    s = t.summary()
    assert s['records'] == int(want['records'])
    assert s['types'] == want['types']
    assert s['threads'] == want['threads']
    assert list(s['threads']) == t.threads
    assert want['ended'] == '%s, status %d' % (s['ended'], s['status'])
    assert int(want['chunks']) == s['chunks']
    assert want['how'] == s['how'] == t.how
    assert want['complete'] == ('yes' if s['complete'] else 'no')
    assert t.complete == s['complete']
    assert s['file_bytes'] == int(want['file bytes']) == os.path.getsize(path)
    assert t.meta == want['meta']
    assert want['arch'].startswith(t.arch + ' ')
    assert want['level'] == t.level
    assert s['damage'] == []
    assert len(t.mappings) == s['types']['MMAP']
    lines, _ = dump_records(path)
    mm = [l for l in lines if ' MMAP ' in l]
    assert [m['start'] for m in t.mappings] == [int(l.split()[3].split('-')[0], 16) for l in mm]


def test_filtered_records(itrace, gzip_insn, python_branch):
    lines, _ = dump_records(gzip_insn)
    got = [dump_line(r) for r in itrace.open(gzip_insn).records(types=('MEM', 'MMAP'))]
    assert got == [l for l in lines if l.split()[1] in ('MEM', 'MMAP')]
    t = itrace.open(python_branch)
    lines, _ = dump_records(python_branch)
    tid = int(t.meta['pid'])
    got = [dump_line(r) for r in t.records(types='BRANCH', tids=[tid], kind=('call', 'return'))]
    want = [l for l in lines if l.split()[:2] == [str(tid), 'BRANCH'] and l.split()[5] in ('call', 'return')]
    assert got == want and len(got) > 1000


def test_reused_records_kept_are_not_changed(itrace, gzip_insn):
    kept = []
    for i, r in enumerate(itrace.open(gzip_insn)):
        kept.append(r)
        if i == 99:
            break
    lines, _ = dump_records(gzip_insn)
    assert [dump_line(r) for r in kept] == lines[:100]
    assert len({id(r) for r in kept}) == 100


def test_open_forms(itrace, gzip_insn):
    n = itrace.open(gzip_insn).summary()['records']
    assert sum(1 for _ in itrace.open(pathlib.Path(gzip_insn))) == n
    with open(gzip_insn, 'rb') as f:
        assert sum(1 for _ in itrace.open(f)) == n
    with open(gzip_insn, 'rb') as f:
        data = f.read()
    assert sum(1 for _ in itrace.open(memoryview(data))) == n
    assert sum(1 for _ in itrace.open(io.BytesIO(data))) == n
    # a trace can be read again (a file, a buffer); a pipe once
    t = itrace.open(gzip_insn)
    assert sum(1 for _ in t) == sum(1 for _ in t) == n
    code = ('import sys; sys.path.insert(0, %r); import itrace; t = itrace.open("-");'
            'print(sum(1 for _ in t), t.ended)\n'
            'try:\n  list(t)\nexcept itrace.Error as e:\n  print("again:", e)') % os.path.join(BUILD, 'python')
    p = subprocess.run(['/usr/bin/python3', '-c', code], input=data, capture_output=True,
                       env=python_env())
    out = p.stdout.decode().splitlines()
    assert out[0] == '%d complete' % n, p.stderr
    assert out[1].startswith('again:') and 'stream' in out[1]


def test_context_manager_and_close(itrace, gzip_insn):
    with itrace.open(gzip_insn) as t:
        assert t.level == 'insn'
    with pytest.raises(ValueError, match='closed'):
        list(t)


def test_errors(itrace, tmp):
    with pytest.raises(OSError) as e:
        itrace.open(str(tmp / 'nope.itr'))
    assert e.value.errno == errno.ENOENT and e.value.filename == str(tmp / 'nope.itr')
    p = tool('itrace-dump', tmp / 'nope.itr', check=False)
    assert os.strerror(errno.ENOENT) in p.stderr
    with pytest.raises(OSError) as e:
        itrace.open(str(tmp))
    assert e.value.errno == errno.EISDIR
    bad = tmp / 'bad.itr'
    bad.write_bytes(b'not a trace at all, not at all' * 4)
    with pytest.raises(itrace.Error) as e:
        itrace.open(str(bad))
    msg = tool('itrace-dump', bad, check=False).stderr
    assert str(e.value).split(' (')[0] in msg and e.value.code == 4  # ITRACE_E_BADMAGIC


def test_record_fields(itrace, gzip_insn):
    for r in itrace.open(gzip_insn).records(types='MEM'):
        assert r.type == 'MEM' and r.size in (1, 2, 4, 8, 16, 32) and r.store in (True, False)
        with pytest.raises(AttributeError):
            r.src
        d = r.as_dict()
        assert set(d) == {'type', 'tid', 'addr', 'size', 'store'}
        break
    assert itrace.TYPES['INSN'] == 2 and itrace.KINDS[2] == 'call'


def test_pip_install_offline(tmp, gzip_insn):
    """pip install --no-build-isolation ./python, no index: setuptools links
    the build tree's archives; the installed package reads the trace."""
    src = os.path.join(os.path.dirname(__file__), '..')
    target = tmp / 'pip-target'
    p = subprocess.run(['/usr/bin/python3', '-m', 'pip', 'install', '-q', '--no-build-isolation',
                        '--no-index', '--no-deps', '--target', str(target), src],
                       capture_output=True, text=True,
                       env=dict(os.environ, PIP_NO_CACHE_DIR='1', PIP_ROOT_USER_ACTION='ignore'))
    assert p.returncode == 0, p.stderr
    code = 'import itrace, sys; print(itrace.__file__); print(itrace.open(sys.argv[1]).summary()["records"])'
    p = subprocess.run(['/usr/bin/python3', '-c', code, gzip_insn], capture_output=True, text=True,
                       env=python_env(PYTHONPATH=str(target)), cwd=str(tmp))
    assert p.returncode == 0, p.stderr
    where, n = p.stdout.split()
    assert where.startswith(str(target))
    assert int(n) == int(tool('itrace-dump', '--summary', gzip_insn).stdout.split('records: ')[1].split()[0])
