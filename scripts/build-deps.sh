#!/bin/sh
# The Debian packages that building needs, each with a probe that says
# whether this machine has what the package provides (a header, a
# pkg-config file, a compiler), so that a plain `make` builds what the
# installed packages allow, as any user, and names what it leaves out.
#
#   build-deps.sh --list        every package the build can use (deps.sh
#                               installs them with the rest)
#   build-deps.sh [HIDDEN...]   the packages that are missing, one line
#                               each; a package named in HIDDEN counts as
#                               missing (the Makefile passes ITRACE_MISSING,
#                               to try the build without a package)
#
# What the Makefile leaves out without each package is said where it uses
# this list (Makefile, "What the installed packages allow").  The probes
# look for what the build uses, not for the package's name, so that a
# machine that has a library from elsewhere builds with it.
# CC, CXX and PPC_CC are the Makefile's compilers, PYTHON its Python.
: "${CC:=cc}" "${CXX:=g++}" "${PPC_CC:=powerpc64le-linux-gnu-gcc}" "${PYTHON:=/usr/bin/python3}"

# header COMPILER HEADER: the compiler finds HEADER.
header() { printf '#include <%s>\n' "$2" | $1 -E -x c - >/dev/null 2>&1; }
pc() { pkg-config --exists "$1" 2>/dev/null; }
tool() { command -v "$1" >/dev/null 2>&1; }
# pyheader: $PYTHON's own Python.h (python/module.mk builds for it).
pyheader() {
	d=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null) &&
		[ -f "$d/Python.h" ]
}

# "package probe" pairs; the probe is a command line run with eval.
PROBES='
pkg-config	tool pkg-config
libzstd-dev	pc libzstd
libelf-dev	pc libelf
libdw-dev	pc libdw
libcapstone-dev	pc capstone
libzydis-dev	header "$CC" Zydis/Zydis.h
libxml2-dev	pc libxml-2.0
libsqlite3-dev	pc sqlite3
libcmocka-dev	pc cmocka
python3-dev	pyheader
valgrind	pc valgrind
g++	tool "$CXX"
gcc-powerpc64le-linux-gnu	tool "$PPC_CC"
libc6-dev-ppc64el-cross	header "$PPC_CC" stdio.h
'

if [ "${1:-}" = --list ]; then
	printf '%s\n' "$PROBES" | cut -f1 | grep .
	exit 0
fi
printf '%s\n' "$PROBES" | while IFS='	' read -r pkg probe; do
	[ -n "$pkg" ] || continue
	case " $* " in *" $pkg "*) echo "$pkg"; continue ;; esac
	eval "$probe" || echo "$pkg"
done
