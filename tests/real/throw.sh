#!/bin/sh
# C++ exceptions thrown three calls deep through destructors and caught
# (tests/real/prog/real_throw.cc): unwinding through libgcc, cold parts
# (-O2 moves catch and cleanup code to function.cold).
. tests/lib.sh
. tests/helper/real_oracles.sh

real_program throw "$REAL/real_throw"
real_oracles throw
check_backends throw "$REAL/real_throw"
done_testing
