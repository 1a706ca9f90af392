#!/bin/sh
# itrace-xml -f cobertura read by a real consumer: diff-cover (Debian's
# diff-cover) reports the changed lines a trace did not execute.  A small
# git repository gets a change that touches executed lines, lines of a
# branch not taken and a function never called; diff-cover must name
# exactly the changed lines that have code and did not run.  Which lines
# have code comes from the DWARF line table as readelf decodes it; which
# ones run is marked in the source ("run" / "never").
. tests/lib.sh
XML="$BIN/itrace-xml"

for tool in diff-cover git readelf; do
	if ! command -v "$tool" >/dev/null; then
		echo "not ok 1 - $tool is not installed (make deps installs it)"
		echo "1..1"
		exit 1
	fi
done

repo="$TMP/repo"
mkdir -p "$repo"
cd "$repo" || exit 1
git init -q -b main . && git config user.email t@example.invalid && git config user.name test
cat >prog.c <<'EOF'
#include <stdio.h>

static int twice(int x)
{
	return 2 * x;
}

int main(int argc, char **argv)
{
	int s = 0;

	(void)argv;
	for (int i = 0; i < 10; i++)
		s += twice(i);
	printf("%d\n", s);
	return 0;
}
EOF
git add prog.c && git commit -q -m base && git branch base

# The change: a new function never called, a new branch not taken, and
# new lines that run.  Every line that can hold code carries a marker.
cat >prog.c <<'EOF'
#include <stdio.h>

static int twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) int rarely(int x)	/* never */
{	/* never */
	int y = x + 1;	/* never */

	return y * 3;	/* never */
}	/* never */

__attribute__((noinline)) int often(int x)	/* run */
{	/* run */
	return x - 1;	/* run */
}	/* run */

int main(int argc, char **argv)
{
	int s = 0;

	(void)argv;
	for (int i = 0; i < 10; i++)
		s += twice(i);
	s += often(s);	/* run */
	if (argc > 5)	/* run */
		s += rarely(argc);	/* never */
	printf("%d\n", s);
	return 0;
}
EOF
gcc -std=gnu11 -O0 -g -o prog prog.c
check "built the changed program" test -x prog

# Lines with code per DWARF (readelf's decoded line table of prog.c).
readelf --debug-dump=decodedline prog 2>/dev/null |
	awk '$1 == "prog.c" && $2 ~ /^[0-9]+$/ { print $2 }' | sort -u >"$TMP/code"
grep -n '/\* never \*/' prog.c | cut -d: -f1 | sort >"$TMP/never"
grep -n '/\* run \*/' prog.c | cut -d: -f1 | sort >"$TMP/run"
missing=$(comm -12 "$TMP/code" "$TMP/never" | sort -n | tr '\n' ' ' | sed 's/ $//')
ran=$(comm -12 "$TMP/code" "$TMP/run" | wc -l)
check "DWARF knows code on the never-run lines" test -n "$missing"

"$BIN/itrace-collect" -q --start main -o "$TMP/p.itr" -- ./prog >"$TMP/out" 2>&1
check_eq "the program ran" 179 "$(cat "$TMP/out")"
check "Cobertura export" "$XML" -q -f cobertura "$TMP/p.itr" -o "$TMP/cov.xml"

diff-cover "$TMP/cov.xml" --compare-branch=base --json-report "$TMP/dc.json" >"$TMP/dc.txt" 2>&1
check "diff-cover reads the report" test -s "$TMP/dc.json"
got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(str(n) for n in r["src_stats"]["prog.c"]["violation_lines"]))' "$TMP/dc.json" 2>&1)
check_eq "diff-cover: missing lines are the changed lines that never ran" "$missing" "$got"
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_num_lines"])' "$TMP/dc.json" 2>&1)
check_eq "diff-cover: changed lines with code = run + never run" \
	"$((ran + $(echo "$missing" | wc -w)))" "$total"
done_testing
