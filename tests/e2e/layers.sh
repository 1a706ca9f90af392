#!/bin/sh
# make layers (scripts/layers.sh): the tree has no cycle, and the script
# finds one between folders (#include lines) and one between the files of
# fill/ through calls alone (a shared header hides it from the includes).
. tests/lib.sh
LAYERS="$ITRACE_ROOT/scripts/layers.sh"

check "the tree has no cycle" sh -c "cd '$ITRACE_ROOT' && sh '$LAYERS' '$ITRACE_BUILD' >'$TMP/tree.out'"
check "the graph names fill's files" grep -q 'code/fill/fill_run ->.*code/fill/fill_par' "$TMP/tree.out"

# two folders that include each other
mkdir -p "$TMP/inc/a" "$TMP/inc/b"
printf '#include "b.h"\n' >"$TMP/inc/a/a.h"
printf '#include "a.h"\n' >"$TMP/inc/b/b.h"
(cd "$TMP/inc" && sh "$LAYERS" build >"$TMP/inc.out" 2>&1)
check_eq "folder cycle: exit status" 1 "$?"
check "folder cycle: named" grep -q 'cycle in modules' "$TMP/inc.out"

# fill/x.c and fill/y.c call each other through one shared header
mkdir -p "$TMP/call/fill" "$TMP/call/build/obj/fill"
printf 'int x(int);\nint y(int);\n' >"$TMP/call/fill/xy.h"
printf '#include "xy.h"\nint x(int n) { return n ? y(n - 1) : 0; }\n' >"$TMP/call/fill/x.c"
printf '#include "xy.h"\nint y(int n) { return n ? x(n - 1) : 1; }\n' >"$TMP/call/fill/y.c"
for f in x y; do
	cc -c "$TMP/call/fill/$f.c" -o "$TMP/call/build/obj/fill/$f.o"
done
(cd "$TMP/call" && LAYERS_GROUPS=fill/ sh "$LAYERS" build >"$TMP/call.out" 2>&1)
check_eq "call cycle: exit status" 1 "$?"
check "call cycle: named" grep -q 'cycle in files of fill/' "$TMP/call.out"
# the same files with the call one way only: no cycle
printf '#include "xy.h"\nint y(int n) { return n + 1; }\n' >"$TMP/call/fill/y.c"
cc -c "$TMP/call/fill/y.c" -o "$TMP/call/build/obj/fill/y.o"
check "one-way calls: no cycle" sh -c "cd '$TMP/call' && LAYERS_GROUPS=fill/ sh '$LAYERS' build >/dev/null"
done_testing
