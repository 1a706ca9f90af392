#!/bin/sh
# make layers (scripts/layers.sh): the tree has no circle, and the script
# finds each kind it must: between folders through includes, between
# folders through an include one way and calls the other (reader/ and
# fill/ before code/ existed), and between the files of one folder
# through calls alone (decoder.c and decoder_x86.c, which share one
# header).  Fixture trees in $TMP, their objects built with cc.
. tests/lib.sh
LAYERS="$ITRACE_ROOT/scripts/layers.sh"

# layers DIR [ARGS]: run the script in DIR, output in $TMP/out, status in $rc.
layers() {
	_dir=$1; shift
	rc=0
	(cd "$_dir" && sh "$LAYERS" "$@" build) >"$TMP/out" 2>&1 || rc=$?
}
# obj DIR SRC [CFLAGS]: DIR/build/obj/SRC.o from DIR/SRC.
obj() {
	mkdir -p "$(dirname "$1/build/obj/$2")"
	cc -c ${3:-} -o "$1/build/obj/${2%.c}.o" "$1/$2"
}

# The tree itself, the graph printed and the decoder's calls one way.
layers "$ITRACE_ROOT" -v
check_eq "the tree has no circle" 0 "$rc"
cp "$TMP/out" "$TMP/tree.out"
check "the module graph is printed" grep -q '^modules (A -> B' "$TMP/tree.out"
check "code/fill uses code/image, code/analysis code/fill" sh -c \
	"grep -q '^  code/fill -> .*code/image' '$TMP/tree.out' && grep -q '^  code/analysis -> .*code/fill' '$TMP/tree.out'"
check "reader/ (libitrace) needs nothing of code/" sh -c \
	"grep '^  reader ->' '$TMP/tree.out' | grep -qv code"
check "every folder is a module: collectors/main, the tests" sh -c \
	"grep -q '^  collectors/main -> ' '$TMP/tree.out' && grep -q '^  tests -> ' '$TMP/tree.out'"
check "-v: the fill engine's files" grep -q '^  code/fill/fill_run ->.*code/fill/fill_par' "$TMP/tree.out"
check "-v: the dispatcher uses both back ends" \
	grep -q '^  code/decoder/decoder -> .*code/decoder/decoder_ppc .*code/decoder/decoder_x86' "$TMP/tree.out"
check "-v: the back ends use decoder_util, not the dispatcher" sh -c \
	"grep -q '^  code/decoder/decoder_x86 -> .*code/decoder/decoder_util' '$TMP/tree.out' &&
	 ! grep -q '^  code/decoder/decoder_x86 -> .*code/decoder/decoder\\( \\|$\\)' '$TMP/tree.out'"

# (a) decoder.c dispatches to decoder_x86.c, which calls back a helper of
# decoder.c: both include decoder_int.h alone, so only calls show it.
T="$TMP/calls"
mkdir -p "$T/code/decoder"
printf 'int dec_starts(int);\nint dec_x86_decode(int);\n' >"$T/code/decoder/decoder_int.h"
printf '#include "decoder_int.h"\nint dec_starts(int c) { return c == 0x0f; }\nint itrace_decoder_decode(int c) { return dec_x86_decode(c); }\n' \
	>"$T/code/decoder/decoder.c"
printf '#include "decoder_int.h"\nint dec_x86_decode(int c) { return dec_starts(c) ? 2 : 1; }\n' \
	>"$T/code/decoder/decoder_x86.c"
obj "$T" code/decoder/decoder.c
obj "$T" code/decoder/decoder_x86.c
layers "$T"
check_eq "(a) a call circle between two files: exit 1" 1 "$rc"
check "(a) named, edge by edge, with the symbols" grep -q \
	'^  code/decoder/decoder -> code/decoder/decoder_x86 (uses dec_x86_decode) -> code/decoder/decoder (uses dec_starts)$' \
	"$TMP/out"
check "(a) in the files of code/decoder" grep -q '^layers: circle between the files of code/decoder:' "$TMP/out"
# the helper in a file of its own that calls nothing back: one way
printf '#include "decoder_int.h"\nint itrace_decoder_decode(int c) { return dec_x86_decode(c); }\n' \
	>"$T/code/decoder/decoder.c"
printf '#include "decoder_int.h"\nint dec_starts(int c) { return c == 0x0f; }\n' >"$T/code/decoder/decoder_util.c"
obj "$T" code/decoder/decoder.c
obj "$T" code/decoder/decoder_util.c
layers "$T"
check_eq "(a) with decoder_util.c: no circle" 0 "$rc"
# an object whose source has gone (it moved) is no part of the tree
printf 'int dec_x86_decode(int);\nint dec_starts(int c) { return c; }\nint itrace_decoder_decode(int c) { return dec_x86_decode(c); }\n' >"$T/old.c"
cc -c -o "$T/build/obj/code/decoder/decoder_old.o" "$T/old.c"
layers "$T"
check_eq "(a) a stale object is ignored" 0 "$rc"
rm "$T/build/obj/code/decoder/decoder_util.o"
layers "$T"
check_eq "(a) a library source without an object: exit 2" 2 "$rc"
check "(a) the source is named" grep -q '^  code/decoder/decoder_util.c$' "$TMP/out"

# (b) reader/analysis.o calls fill's itrace_filler_run; fill includes
# reader's image_int.h: an include one way, calls the other.
T="$TMP/mixed"
mkdir -p "$T/reader" "$T/fill"
printf 'int image_generation(void);\n' >"$T/reader/image_int.h"
printf '#include "image_int.h"\nint image_generation(void) { return 1; }\n' >"$T/reader/image.c"
printf 'int itrace_filler_run(void);\nint analysis(void) { return itrace_filler_run(); }\n' >"$T/reader/analysis.c"
printf '#include "image_int.h"\nint itrace_filler_run(void) { return image_generation(); }\n' >"$T/fill/fill_run.c"
for f in reader/image.c reader/analysis.c fill/fill_run.c; do
	obj "$T" $f -I"$T/reader"
done
layers "$T"
check_eq "(b) a circle of an include and a call: exit 1" 1 "$rc"
check "(b) named between modules" grep -q \
	'^  fill -> reader (includes image_int.h) -> fill (uses itrace_filler_run)$' "$TMP/out"
# analysis in a folder of its own, over both
mkdir -p "$T/analysis"
mv "$T/reader/analysis.c" "$T/analysis/"
obj "$T" analysis/analysis.c
layers "$T"
check_eq "(b) analysis in a folder of its own: no circle" 0 "$rc"
check "(b) and the graph shows it above both" grep -q '^  analysis -> fill$' "$TMP/out"

# Two folders whose headers include each other: no object needed.
T="$TMP/inc"
mkdir -p "$T/a" "$T/b"
printf '#include "b.h"\n' >"$T/a/a.h"
printf '#include "a.h"\n' >"$T/b/b.h"
layers "$T"
check_eq "include circle between folders: exit 1" 1 "$rc"
check "include circle: named" grep -q '^  a -> b (includes b.h) -> a (includes a.h)$' "$TMP/out"
done_testing
