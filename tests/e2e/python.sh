#!/bin/sh
# The itrace Python package (python/): its pytest suite (python/tests/)
# under Debian's /usr/bin/python3, each test one TAP line.  The suite
# traces gzip and python3 with itrace-collect and compares with
# itrace-dump, itrace-fill, itrace-sqlite, nm and readelf.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON:-/usr/bin/python3}

check "the package imports from the build tree" \
	env PYTHONPATH="$ITRACE_ROOT/$ITRACE_BUILD/python" "$PY" -c 'import itrace, itrace._itrace'

# pytest's verdicts, from its JUnit XML report: passed, failed or error,
# skipped (a skip stays a skip).
(cd "$ITRACE_ROOT" && ITRACE_BUILD="$ITRACE_BUILD" PYTHONDONTWRITEBYTECODE=1 \
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
