#!/bin/sh
# What the shared libraries export is what their installed headers
# declare, both ways, each symbol under its version node (the version
# scripts reader/libitrace.map and code/libitrace-code.map); each
# library needs only its own layer's dependencies, and a tool that only
# reads records links the core only.
. "$ITRACE_ROOT/tests/lib.sh"
LIB="$ITRACE_ROOT/$ITRACE_BUILD/lib"

# needed FILE: the DT_NEEDED entries of FILE, one a line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

# declared HEADER: the functions the header declares, one a line, from its
# preprocessed text (every prototype is "name(" after cpp).
declared() {
	cc -E -P -I"$ITRACE_ROOT/format" -I"$ITRACE_ROOT/reader" -I"$ITRACE_ROOT/code" "$ITRACE_ROOT/$1" |
		grep -oE '\bitrace_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u
}
declared reader/itrace.h >"$TMP/itrace.h.decl"
# itrace_code.h includes itrace.h: its own declarations are the rest;
# libitrace-code's API is itrace_code.h and itrace_handler.h (which
# includes itrace_code.h)
declared code/itrace_handler.h | comm -23 - "$TMP/itrace.h.decl" >"$TMP/itrace_code.h.decl"

# The version node of each library's API (release 0.1 of both).
for spec in libitrace:itrace.h:ITRACE_0.1 libitrace-code:itrace_code.h:ITRACE_CODE_0.1; do
	l=${spec%%:*} rest=${spec#*:}
	h=${rest%%:*} node=${rest#*:}
	so="$LIB/$l.so"
	if [ ! -f "$so" ]; then
		fail "$l.so is built" "no $so"
		continue
	fi
	# Defined dynamic symbols as NAME@@NODE; the nodes themselves are
	# symbols of type A.
	nm -D --defined-only "$so" >"$TMP/$l.nm"
	awk '$2 != "A" {print $3}' "$TMP/$l.nm" | sort >"$TMP/$l.all"
	check "$l.so exports functions" test -s "$TMP/$l.all"
	unversioned=$(grep -v '@@' "$TMP/$l.all")
	check_eq "every symbol $l.so exports carries a version node" "" "$unversioned"
	# ITRACE_PRIVATE: the core functions the code layer calls (see
	# libitrace.map), left out of the header comparison on purpose, as
	# glibc's GLIBC_PRIVATE: not API, in no installed header.  The node
	# holds itrace_priv_* names only, and those are in no other node.
	grep '@@ITRACE_PRIVATE$' "$TMP/$l.all" | sed 's/@@.*//' >"$TMP/$l.priv"
	bad_priv=$(grep -v '^itrace_priv_' "$TMP/$l.priv")
	check_eq "$l.so's ITRACE_PRIVATE node holds itrace_priv_ names only" "" "$bad_priv"
	grep -v '@@ITRACE_PRIVATE$' "$TMP/$l.all" >"$TMP/$l.pub"
	others=$(grep -v "@@$node\$" "$TMP/$l.pub")
	check_eq "$l.so's API is under the version node $node" "" "$others"
	sed 's/@@.*//' "$TMP/$l.pub" >"$TMP/$l.syms"
	leaked=$(grep '^itrace_priv_' "$TMP/$l.syms")
	check_eq "$l.so exports no itrace_priv_ name as API" "" "$leaked"
	nodes=$(awk '$2 == "A" {print $3}' "$TMP/$l.nm" | sort -u | tr '\n' ' ')
	if [ "$l" = libitrace ]; then want="ITRACE_0.1 ITRACE_PRIVATE "; else want="$node "; fi
	check_eq "$l.so's version nodes" "$want" "$nodes"
	soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
	check_eq "$l.so's soname is $l.so.MAJOR" "$l.so.0" "$soname"
	missing=$(comm -23 "$TMP/$h.decl" "$TMP/$l.syms")
	check_eq "every function $h declares is exported by $l.so" "" "$missing"
	extra=$(comm -13 "$TMP/$h.decl" "$TMP/$l.syms")
	check_eq "$l.so exports nothing $h does not declare" "" "$extra"
done
check "the private functions are not declared in itrace.h or itrace_code.h" \
	sh -c "! grep -q '^itrace_priv_' '$TMP/itrace.h.decl' '$TMP/itrace_code.h.decl'"
# The code layer takes the private functions from the core by that node.
check "libitrace-code.so takes the itrace_priv_ functions at ITRACE_PRIVATE" \
	sh -c "nm -D --undefined-only '$LIB/libitrace-code.so' | grep -q ' itrace_priv_[a-z_]*@ITRACE_PRIVATE\$'"

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
