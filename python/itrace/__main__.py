"""python3 -m itrace run SCRIPT.py TRACE [ARGS...]

Runs the handlers a script registers with @itrace.on over TRACE ('-' for
standard input), with the script's begin(trace) and end() hooks.  Errors
are reported as the itrace tools report them, exit 1 for bad input, 2 for
bad usage.
"""
import sys

from . import _itrace
from ._handlers import run_script

USAGE = 'usage: python3 -m itrace run SCRIPT.py TRACE [ARGS...]\n'


def main(argv):
    if len(argv) >= 1 and argv[0] in ('-h', '--help'):
        sys.stdout.write(USAGE + __doc__.split('\n', 2)[2])
        return 0
    if len(argv) < 3 or argv[0] != 'run':
        sys.stderr.write(USAGE)
        return 2
    script, trace = argv[1], argv[2]
    try:
        run_script(script, trace, argv[3:])
    except OSError as e:
        sys.stderr.write("itrace-run: cannot open '%s': %s\n" % (e.filename or trace, e.strerror))
        return 1
    except _itrace.Error as e:
        sys.stderr.write("itrace-run: '%s': %s\n" % (trace, e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
