"""Build the itrace package with setuptools (pip install --no-build-isolation ./python).

The C extension (src/) links libitrace-code and libitrace, found
  1. in the build tree this folder belongs to (../build/lib/*.a, after
     `make`; ITRACE_BUILD=DIR names another build directory), statically,
     with the flags of pkg-config's libdw, libelf, capstone and libzstd;
  2. else through pkg-config's itrace-code (an installed itrace,
     `make install`; PKG_CONFIG_PATH as usual).
No NumPy at build time: columns are buffers (numpy.frombuffer at run time).
"""
import os
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def pkg_config(*args):
    out = subprocess.run(['pkg-config'] + list(args), check=True, capture_output=True, text=True)
    return shlex.split(out.stdout)


def build_tree():
    # ITRACE_BUILD as the Makefile and tests name it: relative to the tree's top
    build = os.path.join(TOP, os.environ.get('ITRACE_BUILD', 'build'))
    libs = [os.path.join(build, 'lib', n) for n in ('libitrace-code.a', 'libitrace.a')]
    headers = [os.path.join(TOP, d) for d in ('reader', 'code', 'format')]
    if all(os.path.exists(p) for p in libs) and all(os.path.isdir(d) for d in headers):
        return headers, libs
    return None


def extension():
    tree = build_tree()
    if tree:
        headers, archives = tree
        # the archives' own dependencies, as the Makefile links them
        # (LIBITRACE_CODE_LIBS): libdw libelf capstone, Zydis, zstd
        extra = archives + pkg_config('--libs', 'libdw', 'libelf', 'capstone', 'libzstd') + \
            ['-lZydis', '-lpthread', '-Wl,--exclude-libs,ALL']
        cflags = ['-I' + d for d in headers]
    else:
        cflags = pkg_config('--cflags', 'itrace-code')
        extra = pkg_config('--libs', '--static', 'itrace-code')
    return Extension('itrace._itrace', sources=['src/_itrace.c', 'src/batch.c'],
                     include_dirs=['src'], extra_compile_args=['-std=c11', '-D_GNU_SOURCE'] + cflags,
                     extra_link_args=extra)


setup(
    name='itrace',
    version='0.1.0',
    description='Read, filter, fill and analyse itrace instruction and branch traces at C speed',
    packages=['itrace'],
    ext_modules=[extension()],
    python_requires='>=3.9',
)
