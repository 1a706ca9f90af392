#!/bin/sh
# The installed headers and pkg-config files (make check's staged install,
# examples/module.mk): each header compiles on its own, as C11 and as C++;
# a program that calls every function a header declares links with
# `pkg-config --libs` of its library alone, shared or static; versions agree.
. "$ITRACE_ROOT/tests/lib.sh"
STAGE="$ITRACE_ROOT/$ITRACE_BUILD/stage"
PREFIX=/usr/local
INC="$STAGE$PREFIX/include"
LIBDIR="$STAGE$PREFIX/lib"
PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
PKG_CONFIG_SYSROOT_DIR="$STAGE"
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# Sanitizer builds: the staged libraries need the runtime in the program.
case "$ITRACE_BUILD" in *san*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac

for f in itrace.h itrace_code.h itrace_handler.h itrace_format.h itrace.pc itrace-code.pc; do
	case $f in *.pc) p="$LIBDIR/pkgconfig/$f" ;; *) p="$INC/$f" ;; esac
	check "make install installed $f" test -f "$p"
done
check_eq "itrace.pc names the version of itrace.h" \
	"$(sed -n 's/^#define ITRACE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$INC/itrace.h" | paste -sd.)" \
	"$(pkg-config --modversion itrace 2>&1)"
check_eq "itrace-code.pc has the same version" "$(pkg-config --modversion itrace 2>&1)" \
	"$(pkg-config --modversion itrace-code 2>&1)"
check "pkg-config --libs itrace names the core library only" \
	sh -c 'l=$(pkg-config --libs itrace) && test "${l% }" = "-L$0 -litrace"' "$LIBDIR"

# The installed archives define no global but the itrace_ ones either.
for a in libitrace.a libitrace-code.a; do
	nm -g --defined-only "$LIBDIR/$a" 2>&1 | awk 'NF == 3 {print $3}' >"$TMP/$a.syms"
	check "$a defines functions" test -s "$TMP/$a.syms"
	check_eq "$a defines only itrace_ globals" "" "$(grep -v '^itrace_' "$TMP/$a.syms")"
done

# Each header on its own, the first include of a translation unit.
for h in itrace.h itrace_code.h itrace_handler.h; do
	printf '#include <%s>\n' "$h" >"$TMP/alone.c"
	check "$h compiles alone as C11" \
		cc -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only $(pkg-config --cflags itrace) "$TMP/alone.c"
	check "$h compiles alone as C++" \
		c++ -x c++ -Wall -Wextra -Werror -fsyntax-only $(pkg-config --cflags itrace) "$TMP/alone.c"
done

# calls_all HEADER [EXCLUDE]: a C program whose table holds the address of
# every function HEADER declares (but those EXCLUDE declares), so that
# linking it proves each one exists in the library.
calls_all() {
	cc -E -P $(pkg-config --cflags itrace) "$INC/$1" | grep -oE '\bitrace_[a-z0-9_]+ *\(' |
		tr -d ' (' | sort -u >"$TMP/$1.fns"
	if [ -n "${2:-}" ]; then
		comm -23 "$TMP/$1.fns" "$TMP/$2.fns" >"$TMP/x" && mv "$TMP/x" "$TMP/$1.fns"
	fi
	{
		printf '#include <%s>\n#include <stdio.h>\n' "$1"
		printf 'typedef void (*fn)(void);\nstatic const fn all[] = {\n'
		sed 's/.*/\t(fn)&,/' "$TMP/$1.fns"
		printf '};\nint main(void)\n{\n'
		printf '\tprintf("%%zu %%s\\n", sizeof(all) / sizeof(all[0]), itrace_version());\n'
		printf '\treturn all[0] == 0;\n}\n'
	}
}
calls_all itrace.h >"$TMP/core.c"
calls_all itrace_code.h itrace.h >"$TMP/code.c"
calls_all itrace_handler.h itrace.h >"$TMP/handler.c"
nhandler=$(comm -23 "$TMP/itrace_handler.h.fns" "$TMP/itrace_code.h.fns" | wc -l)
check "itrace_handler.h declares functions ($nhandler)" test "$nhandler" -gt 15
if cc -std=c11 -Wall -Werror $SAN -o "$TMP/handler-shared" "$TMP/handler.c" \
	$(pkg-config --cflags --libs itrace-code) 2>"$TMP/err"; then
	ok "every function of itrace_handler.h links from libitrace-code.so ($nhandler)"
else
	fail "every function of itrace_handler.h links from libitrace-code.so" "$(cat "$TMP/err")"
fi
ncore=$(wc -l <"$TMP/itrace.h.fns")
ncode=$(wc -l <"$TMP/itrace_code.h.fns")
check "itrace.h declares functions ($ncore)" test "$ncore" -gt 40
check "itrace_code.h declares functions ($ncode)" test "$ncode" -gt 40
version=$(pkg-config --modversion itrace)

for lib in itrace itrace-code; do
	src="$TMP/core.c" n=$ncore
	[ $lib = itrace-code ] && src="$TMP/code.c" n=$ncode
	if cc -std=c11 -Wall -Werror $SAN -o "$TMP/$lib-shared" "$src" \
		$(pkg-config --cflags --libs $lib) 2>"$TMP/err"; then
		ok "every function of its header links from lib$lib.so ($n)"
		out=$(LD_LIBRARY_PATH="$LIBDIR" "$TMP/$lib-shared" 2>&1)
		check_eq "the program runs with lib$lib.so" "$n $version" "$out"
	else
		fail "every function of its header links from lib$lib.so" "$(cat "$TMP/err")"
	fi
	# Static: the archives in place of the -l of the libraries themselves,
	# and what --static adds for them (Libs.private, Requires.private).
	archives="-Wl,-Bstatic -l$lib"
	[ $lib = itrace-code ] && archives="$archives -litrace"
	others=$(pkg-config --static --libs $lib | tr ' ' '\n' | grep -vE '^-litrace(-code)?$' | tr '\n' ' ')
	if cc -std=c11 -Wall -Werror $SAN -o "$TMP/$lib-static" "$src" $(pkg-config --cflags $lib) \
		-L"$LIBDIR" $archives -Wl,-Bdynamic $others 2>"$TMP/err"; then
		ok "every function of its header links from lib$lib.a ($n)"
		needed=$(readelf -d "$TMP/$lib-static" | grep -c 'NEEDED.*libitrace')
		check_eq "the static program needs no libitrace shared library" 0 "$needed"
	else
		fail "every function of its header links from lib$lib.a" "$(cat "$TMP/err")"
	fi
done

# The core alone cannot satisfy the code header: the layers are really two.
if cc -std=c11 $SAN -o "$TMP/wrong" "$TMP/code.c" $(pkg-config --cflags --libs itrace) 2>/dev/null; then
	fail "itrace_code.h's functions are not in libitrace"
else
	ok "itrace_code.h's functions are not in libitrace"
fi

done_testing
