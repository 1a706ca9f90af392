#!/bin/sh
# python3 (the Debian interpreter) running a small script: classes,
# recursion, an exception, sorting with a key function.  -S skips the
# site module: the interpreter's start-up alone is 20 million instructions.
. tests/lib.sh
. tests/helper/real_oracles.sh

cat >"$WORK/script.py" <<'PY'
class Shape:
    def __init__(self, n):
        self.n = n

    def area(self):
        return self.n * self.n


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


try:
    {}["missing"]
except KeyError as e:
    err = str(e)
shapes = sorted((Shape(i) for i in range(40)), key=lambda s: -s.area())
print(fib(12), shapes[0].area(), err)
PY
real_program python3 python3 -S script.py
run_plain python3
run_collect python3 vg --backend valgrind
check_output python3 vg
check_complete python3 vg
# callgrind: calls and instructions of the interpreter and its libraries.
# (Its start-up alone is 20 million instructions: the cache and fill
# oracles run on the smaller programs, to keep the suite short.)
check_callgrind python3
done_testing
