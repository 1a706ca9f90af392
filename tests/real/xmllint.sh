#!/bin/sh
# xmllint (libxml2) parsing, validating against an internal DTD and
# re-serialising a small document.
. tests/lib.sh
. tests/helper/real_oracles.sh

cat >"$WORK/doc.xml" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE library [
<!ELEMENT library (book+)>
<!ELEMENT book (title, author+)>
<!ATTLIST book id ID #REQUIRED year CDATA #IMPLIED>
<!ELEMENT title (#PCDATA)>
<!ELEMENT author (#PCDATA)>
<!ENTITY pub "&#169; itrace">
]>
<library>
  <book id="b1" year="1978"><title>The C Programming Language</title><author>Kernighan</author><author>Ritchie</author></book>
  <book id="b2"><title>Lions' Commentary &pub;</title><author>Lions</author></book>
  <book id="b3" year="2003"><title>Linkers &amp; Loaders</title><author>Levine</author></book>
</library>
XML
# (the preload reaches itrace-collect too: an ASan build of it, make
# SANITIZE=1, then needs to be told that its runtime comes second)
REAL_ENV="LD_PRELOAD=$REAL/libreal_fixedtime.so ASAN_OPTIONS=verify_asan_link_order=0"
real_program xmllint xmllint --valid --noent --format doc.xml
real_oracles xmllint
done_testing
