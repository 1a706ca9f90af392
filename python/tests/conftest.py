"""Fixtures: real traces made by itrace-collect in the test session, and the
C tools (itrace-dump, itrace-fill, itrace-sqlite) as oracles.

The package is imported from the build tree (ITRACE_BUILD, default build/);
run with Debian's /usr/bin/python3 -m pytest -q python/tests.
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get('ITRACE_BUILD', 'build'))
BIN = os.path.join(BUILD, 'bin')
DATA = os.path.join(BUILD, 'tests', 'data')
sys.path.insert(0, os.path.join(BUILD, 'python'))


def _drop_sanitizer_preload():
    """A sanitizer build's session runs with libasan preloaded and
    interpreter-specific ASAN_OPTIONS (tests/e2e/python.sh).  The programs
    the tests start (itrace-collect, valgrind, the C tools) must inherit
    neither: valgrind cannot run an ASan process, and the tools keep their
    own leak checks.  The running interpreter has read both already.
    Returns them, for the Python children that import the extension."""
    preload = os.environ.get('LD_PRELOAD', '').replace(':', ' ').split()
    asan = [p for p in preload if 'libasan' in os.path.basename(p)]
    if not asan:
        return {}
    kept = [p for p in preload if p not in asan]
    if kept:
        os.environ['LD_PRELOAD'] = ' '.join(kept)
    else:
        del os.environ['LD_PRELOAD']
    san = {'LD_PRELOAD': ' '.join(asan + kept), 'ASAN_OPTIONS': os.environ.get('ASAN_OPTIONS', '')}
    child = os.environ.pop('ITRACE_CHILD_ASAN_OPTIONS', '')
    if child:
        os.environ['ASAN_OPTIONS'] = child
    else:
        os.environ.pop('ASAN_OPTIONS', None)
    return san


_SANITIZER_ENV = _drop_sanitizer_preload()
# Is the session a sanitizer build's (libasan preloaded)?
SANITIZER = bool(_SANITIZER_ENV)


def python_env(**extra):
    """The environment of a /usr/bin/python3 child that imports the
    extension: the session's, with a sanitizer build's libasan preload and
    interpreter ASAN_OPTIONS back (see _drop_sanitizer_preload), and extra."""
    return dict(os.environ, **_SANITIZER_ENV, **extra)


def tool(name, *args, check=True, stdin=None):
    """Run a C tool of the build; returns the CompletedProcess (text)."""
    p = subprocess.run([os.path.join(BIN, name)] + [str(a) for a in args], capture_output=True,
                       text=True, stdin=stdin, errors='replace')
    if check and p.returncode != 0:
        raise AssertionError('%s %s: exit %d: %s' % (name, args, p.returncode, p.stderr))
    return p


def collect(out, *argv, level='insn', start=None, backend='valgrind', status=0):
    """Trace argv; itrace-collect exits with the program's status."""
    args = ['-q', '--backend', backend, '--level', level, '-o', str(out)]
    if start:
        args += ['--start', start]
    p = subprocess.run([os.path.join(BIN, 'itrace-collect')] + args + ['--'] + list(argv),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert p.returncode == status and os.path.getsize(out) > 0, p.stderr
    return str(out)


@pytest.fixture(scope='session')
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp('itrace')


@pytest.fixture(scope='session')
def small_file(tmp):
    p = tmp / 'small.txt'
    with open(os.path.join(ROOT, 'README.md'), 'rb') as f:
        p.write_bytes(f.read(20000))
    return str(p)


@pytest.fixture(scope='session')
def gzip_insn(tmp, small_file):
    """gzip -c of a small file, instruction level (INSN + MEM records)."""
    return collect(tmp / 'gz.itr', '/usr/bin/gzip', '-c', small_file)


@pytest.fixture(scope='session')
def gzip_branch(tmp, small_file):
    """The same at branch level (BRANCH records), for fill and handlers."""
    return collect(tmp / 'gzb.itr', '/usr/bin/gzip', '-c', small_file, level='branch')


@pytest.fixture(scope='session')
def python_branch(tmp):
    """/usr/bin/python3 -c pass, branch level."""
    return collect(tmp / 'py.itr', '/usr/bin/python3', '-c', 'pass', level='branch')


@pytest.fixture(scope='session')
def export_prog(tmp):
    """tests/data/export_prog.c from main (symbols and lines: the README's
    itrace-sqlite examples)."""
    return collect(tmp / 'prog.itr', os.path.join(DATA, 'export_prog'), start='main',
                   backend='auto', status=102)  # export_prog's exit status (its checksum)


@pytest.fixture(scope='session')
def itrace():
    import itrace as mod
    return mod
