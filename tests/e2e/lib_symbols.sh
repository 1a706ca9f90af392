#!/bin/sh
# The shared libraries export only itrace_-prefixed symbols (the version
# script reader/libitrace.map), each library needs only its own layer's
# dependencies, and a tool that only reads records links the core only.
. "$ITRACE_ROOT/tests/lib.sh"
LIB="$ITRACE_ROOT/$ITRACE_BUILD/lib"

# needed FILE: the DT_NEEDED entries of FILE, one a line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

for l in libitrace libitrace-code; do
	so="$LIB/$l.so"
	if [ ! -f "$so" ]; then
		fail "$l.so is built" "no $so"
		continue
	fi
	# Defined dynamic symbols; the version node itself (type A, ITRACE_0)
	# is not a symbol of the API.
	nm -D --defined-only "$so" >"$TMP/$l.nm"
	awk '$2 != "A" {print $3}' "$TMP/$l.nm" | sed 's/@.*//' >"$TMP/$l.syms"
	check "$l.so exports functions" test -s "$TMP/$l.syms"
	others=$(grep -v '^itrace_' "$TMP/$l.syms")
	check_eq "$l.so exports only itrace_ symbols" "" "$others"
	versions=$(awk '$2 == "A" {print $3}' "$TMP/$l.nm" | sort -u | tr '\n' ' ')
	check_eq "$l.so's symbols carry the version ITRACE_0" "ITRACE_0 " "$versions"
	soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
	check_eq "$l.so's soname is $l.so.MAJOR" "$l.so.0" "$soname"
done

# Every function of each public header is exported by its own library.
for pair in reader/itrace.h:libitrace code/itrace_code.h:libitrace-code; do
	path=${pair%%:*} l=${pair#*:}
	h=${path##*/}
	cc -E -P -I"$ITRACE_ROOT/format" -I"$ITRACE_ROOT/reader" "$ITRACE_ROOT/$path" |
		grep -oE '\bitrace_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$TMP/$h.decl"
	[ "$h" = itrace_code.h ] && { comm -23 "$TMP/itrace_code.h.decl" "$TMP/itrace.h.decl" >"$TMP/x"; mv "$TMP/x" "$TMP/$h.decl"; }
	missing=$(sort -u "$TMP/$l.syms" | comm -23 "$TMP/$h.decl" -)
	check_eq "every function of $h is exported by $l.so" "" "$missing"
done

# The core depends on zstd alone; the code layer on the core, not on
# anything the core already brings.
core_needs=$(needed "$LIB/libitrace.so" | grep -E 'libdw|libelf|capstone|Zydis')
check_eq "libitrace.so needs no ELF or decoder library" "" "$core_needs"
check "libitrace.so needs zstd" sh -c "readelf -d '$LIB/libitrace.so' | grep -q 'libzstd'"
check "libitrace-code.so needs libitrace.so.0" \
	sh -c "readelf -d '$LIB/libitrace-code.so' | grep -q '\[libitrace.so.0\]'"
for lib in libdw libelf libcapstone libZydis; do
	check "libitrace-code.so needs $lib" sh -c "readelf -d '$LIB/libitrace-code.so' | grep -q '\[$lib'"
done

# itrace-dump only reads records: the core and zstd, nothing of the code layer.
dump_needs=$(needed "$BIN/itrace-dump" | grep -E 'libdw|libelf|capstone|Zydis')
check_eq "itrace-dump links no ELF or decoder library" "" "$dump_needs"
if nm "$BIN/itrace-dump" | grep -qE ' T itrace_(decoder|image|symbolizer|filler|analysis)_'; then
	fail "itrace-dump holds no code-layer function"
else
	ok "itrace-dump holds no code-layer function"
fi

done_testing
