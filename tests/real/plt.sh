#!/bin/sh
# A shared library whose exported functions call each other through the
# library's own PLT (tests/real/prog/real_plt_lib.c), lazily bound and
# with LD_BIND_NOW=1: itrace-sqlite's call counts and call tree against
# callgrind's and against the program's own arithmetic.  Such calls were
# once taken for longjmps, counting one call where there were hundreds.
. tests/lib.sh
. tests/helper/real_oracles.sh

# plt_fib(12) makes 2 * fib(13) - 1 = 465 calls of plt_fib, each but the
# first through plt_fib_of (464); plt_even(25) alternates with plt_odd,
# 13 calls each.
expected_calls="plt_even 13
plt_fib 465
plt_fib_of 464
plt_odd 13"

for bind in lazy now; do
	name=plt-$bind
	REAL_ENV=
	[ $bind = now ] && REAL_ENV=LD_BIND_NOW=1
	real_program $name "$REAL/real_plt"
	real_oracles $name
	check_eq "$name: calls of the library's functions" "$expected_calls" \
		"$(sqlite3 -separator ' ' "$TMP/$name.db" "SELECT s.name, f.call_count FROM functions f
			JOIN symbols s ON s.id = f.symbol_id WHERE s.name LIKE 'plt\_%' ESCAPE '\\' AND s.name NOT LIKE '%@plt' ORDER BY s.name")"
	# the call tree: every activation ended by its return, none unwound;
	# plt_fib nested 12 deep (with plt_fib_of between: 23 levels)
	"$BIN/itrace-sqlite" -q "$TMP/$name.vg.itr" -o "$TMP/$name.calls.db"
	check_eq "$name: the library's activations all returned" "0" \
		"$(sqlite3 "$TMP/$name.calls.db" "SELECT count(*) FROM calls c JOIN call_paths p ON p.id = c.call_path_id
			JOIN symbols s ON s.id = p.symbol_id WHERE s.name LIKE 'plt\_%' ESCAPE '\\' AND c.flags & 10")"
	check_eq "$name: plt_fib's call tree is 12 calls deep" "12" \
		"$(sqlite3 "$TMP/$name.calls.db" "WITH RECURSIVE up(id, fibs) AS (
			SELECT p.id, 1 FROM call_paths p JOIN symbols s ON s.id = p.symbol_id
			 WHERE s.name = 'plt_fib' AND NOT EXISTS (SELECT 1 FROM call_paths q WHERE q.parent_id = p.id)
			UNION ALL SELECT p.parent_id, fibs + (SELECT count(*) FROM call_paths pp JOIN symbols ss ON ss.id = pp.symbol_id WHERE pp.id = p.parent_id AND ss.name = 'plt_fib')
			 FROM call_paths p JOIN up ON p.id = up.id WHERE p.parent_id != 0)
		 SELECT max(fibs) FROM up")"
done
check_backends plt-lazy "$REAL/real_plt"
done_testing
