#!/bin/sh
# Every unit test, and every fuzz target over its checked-in corpus (the
# replayers of make check), again under Valgrind's memcheck: no invalid
# read or write, no use of uninitialised values, no memory definitely
# lost, in the libraries or in the tests.  A read of freed memory that
# still holds its old values passes a plain run unseen (bsites() read the
# paths after indirect_path() had moved them: test_vg_convert's
# test_paths_move, the corpus input fuzz_vg_convert/bsite_seqs_returns),
# and ASan (make SANITIZE=1 check) does not see into uninstrumented code
# such as cmocka's assert_memory_equal().  Not part of a SANITIZE build's
# check (tests/helper/module.mk): its binaries carry ASan.
. tests/lib.sh

# clean PROGRAM [ARG...]: it exits 0 under memcheck with no error; else
# its first messages.
clean() {
	log="$TMP/$(basename "$1").vg"
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--log-file="$log" "$@" >"$log.out" 2>&1 && return 0
	echo "exit status $?"
	grep -m 20 . "$log" "$log.out"
	return 1
}

# The unit tests and fuzz targets of this run (run-tests.sh), else every
# one built (a test renamed since leaves its old binary behind: the
# list, not the folder, says what exists).
units=${ITRACE_UNIT_TESTS:-$(cd "$ITRACE_ROOT" && ls "$ITRACE_BUILD"/tests/test_*)}
fuzzers=${ITRACE_FUZZ_TARGETS:-$(cd "$ITRACE_ROOT/$ITRACE_BUILD/fuzz-replay" && ls)}
n=0
for t in $units; do
	t="$ITRACE_ROOT/$t"
	[ -x "$t" ] || { fail "memcheck: $t is not built"; continue; }
	check "memcheck: $(basename "$t")" clean "$t"
	n=$((n + 1))
done
check "every unit test ran (more than 20)" test "$n" -gt 20

n=0
for name in $fuzzers; do
	t="$ITRACE_ROOT/$ITRACE_BUILD/fuzz-replay/$name"
	[ -x "$t" ] || { fail "memcheck: $t is not built"; continue; }
	check "memcheck: $name over its corpus" clean "$t" "$ITRACE_ROOT/tests/fuzz/corpus/$name"
	n=$((n + 1))
done
check "every fuzz corpus ran (more than 10)" test "$n" -gt 10

# The check can fail: one byte read past an allocation, which a plain
# run survives.
printf '%s\n' '#include <stdlib.h>' 'int main(void)' '{' \
	'	volatile char *p = malloc(8);' '	int c = p ? p[8] : 0;' \
	'	free((void *)p);' '	return c & 0;' '}' >"$TMP/past.c"
cc -o "$TMP/past" "$TMP/past.c"
check "the program past the allocation runs" "$TMP/past"
check_fails "memcheck: a read past an allocation fails" clean "$TMP/past"
done_testing
