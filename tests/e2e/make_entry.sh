#!/bin/sh
# The entry points as a newcomer meets them: a plain `make` on a clean
# copy of the tree, as a user who is not root, installs nothing (no
# apt-get, no sudo: both are replaced by stubs that record a call) and
# builds the tools and libraries; with packages missing (ITRACE_MISSING,
# scripts/build-deps.sh) it still builds the rest and names, one line
# each, what it left out.  The suite runs as root (make check installs
# packages): the user here is nobody, through setpriv.
. tests/lib.sh
if [ "$(id -u)" = 0 ]; then
	USER_ID=65534
	AS="setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups"
else
	# setpriv needs root to become another user; as a user, this run is it
	USER_ID=$(id -u)
	AS=""
fi

# A clean copy: the files git tracks (with this work tree's changes), or
# outside a git checkout every file but the build folders.
chmod 755 "$TMP"
TREE="$TMP/tree"
mkdir -p "$TREE" "$TMP/home" "$TMP/stub"
if git -C "$ITRACE_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$ITRACE_ROOT" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$TREE"
else
	(cd "$ITRACE_ROOT" && tar --exclude=./build --exclude=./build-san -cf - .) | tar -xf - -C "$TREE"
fi
check "the copy has the Makefile and no build folder" sh -c "test -f '$TREE/Makefile' && test ! -e '$TREE/build'"

# apt-get and sudo stubs: any call is recorded, and fails.
for tool in apt-get sudo; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexit 1\n' "$tool" "$TMP/stub" >"$TMP/stub/$tool"
	chmod 755 "$TMP/stub/$tool"
done
: >"$TMP/stub/calls"
chmod 666 "$TMP/stub/calls"
[ -n "$AS" ] && chown -R "$USER_ID:$USER_ID" "$TREE" "$TMP/home"

# as_user CMD...: CMD in the copy, as the user, with a plain PATH (the
# stubs first) and no variable of the suite's.
as_user() {
	(cd "$TREE" && $AS env -i HOME="$TMP/home" PATH="$TMP/stub:/usr/local/bin:/usr/bin:/bin" \
		LANG=C "$@")
}

as_user make -j2 >"$TMP/make.out" 2>&1
rc=$?
check_eq "make as user $USER_ID: exit 0" 0 "$rc"
[ "$rc" = 0 ] || fail "make's output" "$(tail -20 "$TMP/make.out")"
check_eq "make called neither apt-get nor sudo" "" "$(cat "$TMP/stub/calls")"
for b in itrace-dump itrace-collect itrace-fill itrace-import qtrace-conv pipeline-sim \
	itrace-sqlite itrace-xml itrace-timeline; do
	check "built $b, and it runs" "$TREE/build/bin/$b" --version
done
check "built libitrace and libitrace-code" sh -c \
	"test -f '$TREE/build/lib/libitrace.so.0' && test -f '$TREE/build/lib/libitrace-code.so.0'"
check "built the valgrind tool and the qemu plugin" sh -c \
	"test -x '$TREE/build/lib/itrace/valgrind/itrace-amd64-linux' && test -f '$TREE/build/lib/itrace/qemu/itrace-qemu.so'"
check "built the itrace Python package, and it imports from the build tree" \
	env PYTHONPATH="$TREE/build/python" /usr/bin/python3 -c 'import itrace; itrace.open'
# make check installed every package (make deps) before this test ran
check_eq "nothing left out: every package is installed here" "" \
	"$(grep '^itrace: not building' "$TMP/make.out")"
check "every file the build wrote belongs to the user" sh -c \
	"test -z \"\$(find '$TREE' ! -uid $USER_ID | head -3)\""

# Two packages missing: the rest still builds, and what is not is named.
as_user make -j2 BUILD=build-missing ITRACE_MISSING="valgrind libxml2-dev" >"$TMP/miss.out" 2>&1
check_eq "make without valgrind and libxml2-dev: exit 0" 0 "$?"
check_eq "one line for each missing package, at the end" \
	"itrace: not building itrace-xml and the gdb backend of itrace-collect: package libxml2-dev missing ('make deps' installs it)
itrace: not building the Valgrind tool of itrace-collect --backend valgrind: package valgrind missing ('make deps' installs it)" \
	"$(tail -2 "$TMP/miss.out")"
check "no itrace-xml, no valgrind tool" sh -c \
	"test ! -e '$TREE/build-missing/bin/itrace-xml' && test ! -e '$TREE/build-missing/lib/itrace/valgrind'"
check "itrace-collect built, without the gdb backend" sh -c \
	"'$TREE/build-missing/bin/itrace-collect' --list-backends >'$TMP/backends' && grep -q '^ptrace' '$TMP/backends' && ! grep -q '^gdb' '$TMP/backends'"
check "itrace-fill and itrace-sqlite built" sh -c \
	"test -x '$TREE/build-missing/bin/itrace-fill' && test -x '$TREE/build-missing/bin/itrace-sqlite'"
check_eq "still no apt-get, no sudo" "" "$(cat "$TMP/stub/calls")"

# make check-quick says what it needs instead of running fewer tests.
as_user make check-quick ITRACE_MISSING=libcmocka-dev >"$TMP/quick.out" 2>&1
check_eq "check-quick without cmocka: fails" 2 "$?"
check "check-quick without cmocka: names the package" \
	grep -q "make check-quick needs the packages libcmocka-dev; run 'make deps' as root" "$TMP/quick.out"
done_testing
