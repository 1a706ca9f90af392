#!/bin/sh
# Install the Debian packages itrace needs, only those that are missing.
# Called by `make deps` (and so by `make check`, `make demo` and `make
# bench`; a plain `make` does not: it builds what is installed).  Needs
# root, or sudo.
set -e
# what building uses (scripts/build-deps.sh probes for each), then what
# the tests and benchmarks run
PKGS="gcc make $(sh "$(dirname "$0")/build-deps.sh" --list | tr '\n' ' ')"
PKGS="$PKGS libxml2-utils sqlite3 clang libclang-rt-14-dev qemu-user \
binutils-powerpc64le-linux-gnu gdbserver python3 gzip"
# exports: the real consumers their tests load the outputs with
PKGS="$PKGS diff-cover git linux-perf python3-pyside2.qtsql libqt5sql5-sqlite python3-pyside2.qtcore python3-pyside2.qtgui python3-pyside2.qtwidgets chromium"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm" # deps-npm.sh's client
PKGS="$PKGS llvm-19"
PKGS="$PKGS zstd" # bench/valgrind_speed.sh: the compressor's share of the time
# the itrace Python package's tests (pytest, with and without NumPy) and
# its pip install (setuptools)
PKGS="$PKGS python3-pytest python3-numpy python3-setuptools python3-pip"
PKGS="$PKGS time" # /usr/bin/time: CPU seconds and peak RSS in tests and benchmarks
# tests/real/: the programs it traces and builds (coreutils and gzip are
# essential; python3, g++ and file may be missing on a minimal system)
PKGS="$PKGS coreutils"
# valgrind's recommended libc debug information, which Valgrind reads
# unless the itrace tool keeps it from it (tests/e2e/valgrind_features.sh)
PKGS="$PKGS libc6-dbg strace"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "itrace: installing missing packages:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
	command -v sudo >/dev/null || {
		echo "itrace: missing packages:$missing; run 'make deps' as root" >&2
		exit 1
	}
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
