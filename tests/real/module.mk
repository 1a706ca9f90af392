# tests/real/: installed programs nobody here wrote (coreutils, gzip, python3,
# sqlite3, xmllint, ...) traced and checked against independent oracles
# (callgrind, cachegrind, objdump, the program's own output).  Each script is
# TAP through tests/lib.sh, like tests/e2e/.
E2E_TESTS += $(sort $(wildcard tests/real/*.sh))
