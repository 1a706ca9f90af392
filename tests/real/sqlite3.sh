#!/bin/sh
# The sqlite3 command-line shell (libsqlite3, which calls itself through
# its PLT all the time) creating, filling and querying a table in memory.
. tests/lib.sh
. tests/helper/real_oracles.sh

cat >"$WORK/script.sql" <<'SQL'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 150)
INSERT INTO t SELECT x, printf('row%d', x * 7 % 13) FROM c;
CREATE INDEX tb ON t(b);
SELECT b, count(*), sum(a) FROM t GROUP BY b ORDER BY b;
SQL
real_program sqlite3 sqlite3 -batch :memory: ".read script.sql"
real_oracles sqlite3
done_testing
