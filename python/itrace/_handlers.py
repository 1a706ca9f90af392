"""Handlers: functions a script registers with @itrace.on, run over a trace
with the records they want chosen in C (the filters are pushed down: the
address ranges of named functions are looked up in the trace's symbols at
each new mapping, then compared in C), so Python sees only the matches.

    import itrace

    calls = 0

    @itrace.on('BRANCH', kind='call', dst_symbol='malloc')
    def on_malloc(r):
        global calls
        calls += 1

    @itrace.on('INSN', function='deflate')
    def in_deflate(r):
        ...

    def begin(trace):        # optional: before the first record
        print(trace.arch)

    def end():               # optional: after the last
        print(calls, 'calls of malloc')

Run it with ``python3 -m itrace run script.py trace.itr``.
"""
import runpy
import sys

from . import _itrace

_registry = []

# keyword -> (record types it applies to, field compared)
_SYMBOL_FIELDS = {
    'function': ('addr', ('INSN', 'MEM')),
    'src_symbol': ('src', ('BRANCH',)),
    'dst_symbol': ('dst', ('BRANCH',)),
}
_RANGE_FIELDS = {'addr_range': 'addr', 'src_range': 'src', 'dst_range': 'dst'}


def on(*types, kind=None, tids=None, function=None, src_symbol=None, dst_symbol=None,
       addr_range=None, src_range=None, dst_range=None):
    """Register the decorated function for the records of `types` ('INSN',
    'BRANCH', 'MEM', ...; none: every record) that match every filter given:
    kind (a branch kind or a sequence of them: 'call', 'cond', ...), tids,
    function (INSN/MEM address inside that function), src_symbol /
    dst_symbol (BRANCH source / target inside that function), or explicit
    address ranges (lo, hi) as addr_range / src_range / dst_range.  The
    function is called with the record (reused after the call: r.copy() to
    keep it).  At most one symbol or range filter per handler."""
    fields = [(k, v) for k, v in (('function', function), ('src_symbol', src_symbol),
                                  ('dst_symbol', dst_symbol)) if v is not None]
    ranges = [(k, v) for k, v in (('addr_range', addr_range), ('src_range', src_range),
                                  ('dst_range', dst_range)) if v is not None]
    if len(fields) + len(ranges) > 1:
        raise ValueError('itrace.on: one symbol or address range per handler')
    rule = {'types': types or None, 'kind': kind, 'tids': tids}
    if fields:
        key, name = fields[0]
        field, applies = _SYMBOL_FIELDS[key]
        rule['field'] = field
        rule['symbol'] = name
        rule['types'] = tuple(t for t in (types or applies) if t in applies)
        if not rule['types']:
            raise ValueError('itrace.on: %s= applies to %s records' % (key, '/'.join(applies)))
    elif ranges:
        key, rng = ranges[0]
        rule['field'] = _RANGE_FIELDS[key]
        rule['range'] = (int(rng[0]), int(rng[1]))

    def register(fn):
        _registry.append((rule, fn))
        return fn
    return register


def run(trace, handlers=None, begin=None, end=None):
    """Run `handlers` (default: those registered with @itrace.on) over
    `trace` (a Trace or what itrace.open takes), calling begin(trace) first
    and end() last when given.  Returns the number of handler calls."""
    handlers = list(_registry if handlers is None else handlers)
    t = trace if isinstance(trace, _itrace.Trace) else _itrace.open(trace)
    if begin:
        begin(t)
    fns = [fn for _, fn in handlers]
    calls = 0
    for which, r in t._select([rule for rule, _ in handlers]):
        fns[which](r)
        calls += 1
    if end:
        end()
    return calls


def run_script(script, trace_path, argv=()):
    """`python3 -m itrace run script.py trace.itr`: run the script (its
    @itrace.on functions register themselves, its begin/end hooks are
    found by name), then the handlers over the trace."""
    del _registry[:]
    old_argv = sys.argv
    sys.argv = [script] + list(argv)
    try:
        ns = runpy.run_path(script, run_name='__itrace_handler__')
        return run(trace_path, begin=ns.get('begin'), end=ns.get('end'))
    finally:
        sys.argv = old_argv
