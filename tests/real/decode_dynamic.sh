#!/bin/sh
# The decoder on what real programs execute: instruction-level traces of
# installed programs contain no instruction the decoder cannot decode, and
# each decodes to the length the collector recorded (under the valgrind
# backend an independent decoder, Valgrind's, measured it); itrace-fill of
# the branch-level traces of the same runs has no GAP.
#   ptrace (the real CPU: glibc's AVX-512/EVEX string functions where the
#           CPU has them, CET's rdsspq on the C++ unwinder path):
#           a C++ throw, sha256sum
#   valgrind (whole runs, fast): ls, sha256sum, gzip, python3 -c
#   gdb + qemu-ppc64le -cpu power10: a static program built with
#           -mcpu=power10 (prefixed pld/pla/pstd, ISA 3.1 instructions,
#           and glibc's POWER10 string functions)
. tests/lib.sh
COLLECT="$BIN/itrace-collect"
FILL="$BIN/itrace-fill"
DUMP="$BIN/itrace-dump"
ORACLE="$ITRACE_ROOT/$ITRACE_BUILD/tests/decode-oracle"

# decoded NAME TRACE: every executed instruction decodes, to its length.
decoded() {
	if "$ORACLE" --trace "$2" >"$TMP/oracle.out" 2>&1; then
		ok "$1: $(sed 's/^[^:]*: //' "$TMP/oracle.out")"
	else
		fail "$1: every executed instruction decodes" "$(cat "$TMP/oracle.out")"
	fi
}

# filled NAME TRACE: itrace-fill of a branch-level trace, without GAP.
filled() {
	if ! "$FILL" "$2" -o "$TMP/filled.itr" 2>"$TMP/fill.err"; then
		fail "$1: itrace-fill failed" "$(cat "$TMP/fill.err")"
		return
	fi
	"$DUMP" --summary "$TMP/filled.itr" >"$TMP/summary" 2>&1
	gaps=$(awk '$1 == "GAP" { n = $2 } END { print n + 0 }' "$TMP/summary")
	n=$(awk '$1 == "INSN" { n = $2 } END { print n + 0 }' "$TMP/summary")
	if [ "$gaps" -eq 0 ] && [ "$n" -gt 0 ] && [ ! -s "$TMP/fill.err" ]; then
		ok "$1: itrace-fill of the branch trace: $n instructions, no GAP"
	else
		fail "$1: itrace-fill of the branch trace without GAP ($gaps GAPs, $n instructions)" \
			"$(cat "$TMP/fill.err"; "$DUMP" "$TMP/filled.itr" | grep ' GAP ' | head -5)"
	fi
}

# both NAME COLLECT-OPTIONS -- PROGRAM ARGS: an instruction-level and a
# branch-level run, checked as above.
both() {
	name="$1"
	shift
	if ! "$COLLECT" -q --level insn -o "$TMP/i.itr" "$@" >/dev/null 2>"$TMP/collect.err"; then
		fail "$name: itrace-collect --level insn" "$(cat "$TMP/collect.err")"
	else
		decoded "$name (insn level)" "$TMP/i.itr"
	fi
	if ! "$COLLECT" -q --level branch -o "$TMP/b.itr" "$@" >/dev/null 2>"$TMP/collect.err"; then
		fail "$name: itrace-collect --level branch" "$(cat "$TMP/collect.err")"
	else
		filled "$name" "$TMP/b.itr"
	fi
}

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
echo "the decoder sees every instruction" >"$TMP/small.txt"
mkdir "$TMP/dir" && touch "$TMP/dir/a" "$TMP/dir/b"

# -- the real CPU (ptrace) --------------------------------------------------
cat >"$TMP/throw.cc" <<'EOF'
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
static int depth(int n, const std::string &why)
{
	if (n == 0)
		throw std::runtime_error(why);
	return depth(n - 1, why) + 1;
}
int main(int argc, char **argv)
{
	try {
		depth(5, std::string("thrown from depth ") + argv[0]);
	} catch (const std::exception &e) {
		std::printf("caught %zu bytes\n", std::strlen(e.what()));
	}
	return argc - 1;
}
EOF
if ! c++ -O1 -o "$TMP/throw" "$TMP/throw.cc" 2>"$TMP/cc.err"; then
	fail "C++ test program builds (make deps installs g++)" "$(cat "$TMP/cc.err")"
elif ! "$COLLECT" -q --backend ptrace --level branch -o "$TMP/probe.itr" -- /bin/true >/dev/null 2>&1; then
	# no ptrace here (a container's seccomp policy): the valgrind runs below still go
	echo "ok $((_n + 1)) # SKIP ptrace not permitted: the real-CPU runs need it"
	_n=$((_n + 1))
else
	both "C++ throw (ptrace, from main)" --backend ptrace --start main -- "$TMP/throw"
	both "sha256sum (ptrace, from __libc_start_main)" --backend ptrace --start __libc_start_main \
		-- sha256sum "$TMP/small.txt"
fi

# -- whole runs under valgrind --------------------------------------------------
both "ls (valgrind)" --backend valgrind -- ls -l "$TMP/dir"
both "sha256sum (valgrind)" --backend valgrind -- sha256sum "$TMP/small.txt"
both "gzip (valgrind)" --backend valgrind -- gzip -c "$TMP/small.txt"
both "python3 -c (valgrind)" --backend valgrind -- "$PY" -c 'print(sum(range(10)))'

# -- POWER10 through qemu's gdb stub --------------------------------------------
cat >"$TMP/p10.c" <<'EOF'
#include <string.h>
#include <unistd.h>
static char buf[512];
static long table[300];
static double dv[256], ev[256];
__attribute__((noinline)) long sum(const long *p, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += p[i] * 3 + (p[i] >> 2);
	return s;
}
__attribute__((noinline)) double dot(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += dv[i] * ev[i];
	return s;
}
__attribute__((noinline)) unsigned long bits(unsigned long x)
{
	return __builtin_popcountl(x) + __builtin_ctzl(x | 1) + __builtin_bswap64(x);
}
__attribute__((noinline)) __int128 mul128(__int128 a, __int128 b) { return a * b + a / 7; }
int main(int argc, char **argv)
{
	for (int i = 0; i < 300; i++)
		table[i] = i * 7 + argc;
	for (int i = 0; i < 256; i++) {
		dv[i] = i * 0.5;
		ev[i] = i + 1.0;
	}
	memset(buf, 'x', sizeof(buf) - 1);
	memcpy(buf + 100, argv[0], strlen(argv[0]));
	long r = sum(table, 300) + (long)dot(256) + (long)bits(0x1234) +
		 (long)mul128(argc + 12345678901LL, 98765);
	buf[0] = (char)('0' + (r & 7));
	buf[1] = '\n';
	return write(1, buf, 2) == 2 ? 0 : 1;
}
EOF
if ! powerpc64le-linux-gnu-gcc -O2 -mcpu=power10 -static -o "$TMP/p10" "$TMP/p10.c" 2>"$TMP/cc.err"; then
	fail "POWER10 test program builds (make deps installs gcc-powerpc64le-linux-gnu)" "$(cat "$TMP/cc.err")"
else
	export QEMU_CPU=power10
	both "ppc64le -mcpu=power10 (gdb, qemu -cpu power10)" --backend gdb -- "$TMP/p10"
	prefixed=$("$DUMP" "$TMP/i.itr" | grep -c ' INSN .* len=8')
	if [ "$prefixed" -gt 0 ]; then
		ok "ppc64le: $prefixed executions of prefixed instructions, each one 8-byte INSN"
	else
		fail "ppc64le: the POWER10 build runs prefixed instructions" "$("$DUMP" "$TMP/i.itr" | head)"
	fi
fi
done_testing
