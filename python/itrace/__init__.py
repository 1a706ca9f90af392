"""itrace: read, filter, fill and analyse itrace files at C speed.

    import itrace
    with itrace.open('prog.itr') as t:
        print(t.arch, t.level, t.summary()['types'])
        for r in t.records(types=('BRANCH',)):        # filtered in C
            if r.kind == 'call':
                print(hex(r.src), '->', hex(r.dst))
        for b in t.batches(types=('INSN',), columns=('addr', 'len')):
            print(b['addr'].sum())                    # NumPy columns

Records (``for r in t``) are light objects reused while nobody else holds
them: ``r.type`` is the name itrace-dump prints ('INSN', 'BRANCH', 'MEM',
'MMAP', ...), ``r.tid`` the thread, then the fields of the type.
Handlers (``@itrace.on``) run with ``python3 -m itrace run script.py
trace.itr``.  See python/README.md.
"""
from ._itrace import (Column, Error, IncompleteWarning, KINDS, Record, TYPES, Trace, fill,
                      library_version, open)
from ._handlers import on, run

__all__ = ['open', 'fill', 'on', 'run', 'Trace', 'Record', 'Column', 'Error',
           'IncompleteWarning', 'TYPES', 'KINDS', 'TYPE_NAMES', 'library_version']
__version__ = library_version

#: type number -> name, for the 'type' column of batches
TYPE_NAMES = {v: k for k, v in TYPES.items()}
