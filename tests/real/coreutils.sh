#!/bin/sh
# Installed coreutils (ls, sort, sha256sum) and gzip, traced on small
# inputs, against their own output, callgrind, cachegrind, the filled
# branch-level trace and the other backend (tests/helper/real_oracles.sh).
. tests/lib.sh
. tests/helper/real_oracles.sh

# inputs: numbers in a fixed shuffled order, a small directory tree
awk 'BEGIN { for (i = 0; i < 300; i++) print (i * 7919) % 1000 }' >"$WORK/nums.txt"
printf 'itrace\n' >"$WORK/small.txt"
mkdir -p "$WORK/dir/sub"
for f in alpha beta gamma; do echo "$f" >"$WORK/dir/$f.txt"; done
touch -d '2020-01-02 03:04:05' "$WORK/dir" "$WORK/dir"/* "$WORK/dir/sub"

real_program ls ls -l --time-style=+%F dir
# sort sizes its buffer from the memory free at the moment (coreutils'
# default_sort_size), and a buffer on either side of malloc's mmap
# threshold takes other paths: two runs compared must ask for the same.
real_program sort sort -S 1M --parallel=1 -n nums.txt
real_program sha256sum sha256sum nums.txt
real_program gzip gzip -9 -c nums.txt
for p in ls sort sha256sum gzip; do
	real_oracles "$p"
done
# single-stepping is slow: the executables' own code on tiny inputs
real_program sha256sum-small sha256sum small.txt
real_program gzip-small gzip -1 -c small.txt
check_backends ls /usr/bin/ls
check_backends sha256sum-small /usr/bin/sha256sum
check_backends gzip-small /usr/bin/gzip
done_testing
