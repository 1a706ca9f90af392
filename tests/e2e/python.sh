#!/bin/sh
# The itrace Python package (python/): its pytest suite (python/tests/)
# under Debian's /usr/bin/python3, each test one TAP line.  The suite
# traces gzip and python3 with itrace-collect and compares with
# itrace-dump, itrace-fill, itrace-sqlite, nm and readelf.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON:-/usr/bin/python3}

# A sanitizer build (make SANITIZE=1: build-san) links the extension with
# ASan, whose run-time must be the first library of the process: Debian's
# python3 is not instrumented, so the interpreter gets the very libasan the
# extension needs (ldd's) preloaded.  detect_leaks=0: CPython leaves its
# own objects (interned strings, static types, module state) unfreed at
# exit by design, and LeakSanitizer would report them, allocations of the
# interpreter, not of the extension (test_leaks.py watches the extension's
# own).  halt_on_error=1: the first error stops the run, as everywhere.
# The test session takes libasan out of LD_PRELOAD again at start-up and
# gives back the caller's ASAN_OPTIONS (python/tests/conftest.py), so the
# programs it starts (itrace-collect, valgrind, the tools) inherit neither.
EXT=$(ls "$ITRACE_ROOT/$ITRACE_BUILD"/python/itrace/_itrace*.so 2>/dev/null | head -1)
ASAN_LIB=
if [ -n "$EXT" ] && readelf -d "$EXT" | grep -q 'NEEDED.*libasan'; then
	ASAN_LIB=$(ldd "$EXT" | awk '/libasan/ {print $3; exit}')
	check "the sanitizer build's extension finds its libasan" test -f "$ASAN_LIB"
fi
# with_py_env [VAR=VALUE...] CMD...: env(1), and the sanitizer settings above
# for a sanitizer build.
with_py_env() {
	if [ -n "$ASAN_LIB" ]; then
		env LD_PRELOAD="$ASAN_LIB" ITRACE_CHILD_ASAN_OPTIONS="${ASAN_OPTIONS-}" \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:halt_on_error=1" "$@"
	else
		env "$@"
	fi
}

check "the package imports from the build tree" \
	with_py_env PYTHONPATH="$ITRACE_ROOT/$ITRACE_BUILD/python" "$PY" -c 'import itrace, itrace._itrace'

# pytest's verdicts, from its JUnit XML report: passed, failed or error,
# skipped (a skip stays a skip).
(cd "$ITRACE_ROOT" && with_py_env ITRACE_BUILD="$ITRACE_BUILD" PYTHONDONTWRITEBYTECODE=1 \
	"$PY" -m pytest -q -p no:cacheprovider --junitxml="$TMP/junit.xml" python/tests \
	>"$TMP/pytest.out" 2>&1)
rc=$?
if [ ! -s "$TMP/junit.xml" ]; then
	fail "pytest ran (exit $rc)" "$(tail -20 "$TMP/pytest.out")"
	done_testing
	exit
fi
"$PY" - "$TMP/junit.xml" >"$TMP/verdicts" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).iter('testcase'):
    name = '%s::%s' % (case.get('classname'), case.get('name'))
    bad = case.find('failure') if case.find('failure') is not None else case.find('error')
    skip = case.find('skipped')
    if bad is not None:
        print('fail\t%s\t%s' % (name, (bad.get('message') or '').replace('\n', ' ')[:300]))
    elif skip is not None:
        print('skip\t%s\t%s' % (name, (skip.get('message') or '').replace('\n', ' ')[:200]))
    else:
        print('pass\t%s\t' % name)
PYEOF
while IFS='	' read -r verdict name why; do
	case $verdict in
	pass) ok "pytest $name" ;;
	skip) skip "pytest $name" "$why" ;;
	*) fail "pytest $name" "$why" ;;
	esac
done <"$TMP/verdicts"
check_eq "pytest's exit status" "$( [ -s "$TMP/verdicts" ] && ! grep -q '^fail' "$TMP/verdicts" && echo 0 || echo 1)" "$( [ $rc -eq 0 ] && echo 0 || echo 1)"
done_testing
