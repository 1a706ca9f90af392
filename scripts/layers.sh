#!/bin/sh
# layers.sh [BUILD] - print the module graph and fail on a cycle.
#
# Modules are the top-level folders (collectors/<backend>/ each a module of
# its own); an edge A -> B means a file of A includes a header of B
# (#include "..." lines, resolved as the compiler would: beside the file,
# then by name in the source tree).  Inside the file groups named below,
# files are nodes too (foo.c and foo.h are one node, foo): an edge means an
# include, or a symbol one object uses and another defines (nm on
# BUILD/obj), so a call circle is a cycle even through a shared header.
# tsort finds the cycles.  Exit 0: no cycle; 1: a cycle (printed); 2: usage.
set -eu
BUILD=${1:-build}
GROUPS=${LAYERS_GROUPS:-"fill/ collectors/ptrace/"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

find . \( -path ./build -o -path './build-*' -o -path ./.git -o -path ./node_modules \) -prune \
	-o \( -name '*.c' -o -name '*.h' -o -name '*.S' \) -type f -print |
	sed 's|^\./||' | LC_ALL=C sort >"$tmp/files"

# includes: "FROM TO" for every #include "..." that names a file of the tree.
awk '
function module(p,   n, a) {
	n = split(p, a, "/")
	if (n == 1) return "."
	if (a[1] == "collectors" && n > 2) return a[1] "/" a[2]
	return a[1]
}
function norm(p,   n, a, out, i, k, s) {
	n = split(p, a, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "." || a[i] == "") continue
		if (a[i] == ".." && k > 0) { k--; continue }
		out[++k] = a[i]
	}
	s = out[1]
	for (i = 2; i <= k; i++) s = s "/" out[i]
	return s
}
{ files[NR] = $0; have[$0] = 1; nf = NR }
END {
	for (i = 1; i <= nf; i++) {
		f = files[i]
		dir = f; sub(/[^\/]*$/, "", dir)
		while ((getline line < f) > 0) {
			if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
			sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", line); sub(/".*/, "", line)
			to = norm(dir line)
			if (!(to in have)) {
				# by name, as -I would find it: prefer the same module
				to = ""
				for (j = 1; j <= nf; j++) {
					g = files[j]
					if (g != line && substr(g, length(g) - length(line)) != "/" line) continue
					if (to == "" || (module(g) == module(f) && module(to) != module(f))) to = g
				}
			}
			if (to != "") print f, to, module(f), module(to)
		}
		close(f)
	}
}' "$tmp/files" >"$tmp/includes"

status=0
report() { # NAME EDGES-FILE: print the graph, tsort it
	echo "$1:"
	awk '$1 != $2 { d[$1] = d[$1] " " $2 } { n[$1]; n[$2] }
	     END { for (m in n) print "  " m " ->" (m in d ? d[m] : "") }' "$2" | LC_ALL=C sort
	if ! tsort "$2" >/dev/null 2>"$tmp/loop"; then
		echo "layers: cycle in $1:" >&2
		sed -n 's/^tsort: //p' "$tmp/loop" | grep -v 'input contains a loop' | tr '\n' ' ' >&2
		echo >&2
		status=1
	fi
}

awk '$3 != $4 { print $3, $4 }' "$tmp/includes" | LC_ALL=C sort -u >"$tmp/modules"
report "modules (A -> B: A includes B)" "$tmp/modules"

stem() { sed 's/\.[chS]$//'; }
for g in $GROUPS; do
	: >"$tmp/edges"
	grep "^$g" "$tmp/files" >"$tmp/gfiles" || continue
	# includes inside the group
	awk -v g="$g" 'index($1, g) == 1 && index($2, g) == 1 { print $1, $2 }' "$tmp/includes" |
		sed 's/\.[chS] / /; s/\.[chS]$//' >>"$tmp/edges"
	# symbols: one object uses what another defines
	: >"$tmp/syms"
	for f in $(grep '\.c$' "$tmp/gfiles"); do
		o="$BUILD/obj/${f%.c}.o"
		if [ ! -f "$o" ]; then
			echo "layers: $o is missing (build first)" >&2
			exit 2
		fi
		s=$(echo "$f" | stem)
		nm -P --defined-only "$o" | awk -v s="$s" '$2 ~ /^[TDBRVW]$/ { print "D", s, $1 }' >>"$tmp/syms"
		nm -P -u "$o" | awk -v s="$s" '{ print "U", s, $1 }' >>"$tmp/syms"
	done
	awk '$1 == "D" { def[$3] = $2; next } { use[NR] = $2 " " $3 }
	     END { for (i in use) { split(use[i], a, " "); if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' \
		"$tmp/syms" >>"$tmp/edges"
	for s in $(stem <"$tmp/gfiles"); do echo "$s $s"; done >>"$tmp/edges"
	LC_ALL=C sort -u -o "$tmp/edges" "$tmp/edges"
	report "files of $g* (A -> B: A includes or calls B)" "$tmp/edges"
done
if [ "$status" = 0 ]; then
	echo "layers: no cycle"
fi
exit "$status"
