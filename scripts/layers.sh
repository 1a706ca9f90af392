#!/bin/sh
# layers.sh [-v] [BUILD] - print the module graph and fail on a circle.
#
# A module is a folder: each top-level folder, and each subfolder of
# code/ and of collectors/ a module of its own (the files directly in
# code/ or collectors/ are the module code or collectors).  Inside every
# module the files are nodes too, foo.c and foo.h being one node, foo.
#
# Two kinds of edge, between modules and between the files of a module:
#  - A includes B: a file of A has an #include "..." line naming a file of
#    B, resolved as the compiler would (beside the file, then by name in
#    the source tree, preferring the including file's own module);
#  - A uses B: an object of A (BUILD/obj/<source>.o) has an undefined
#    symbol that an object of B defines (nm), so a call between two files
#    that share one header, or between folders that include nothing of
#    each other, is an edge all the same.
# Any circle, in the module graph or in the files of one module, fails
# the check and is printed edge by edge with what made each edge.
#
# Prints the module graph; -v the graph of each module's files too, and
# every edge with its reason.  Objects are needed for every source of the
# two libraries (reader/, code/); a source elsewhere without an object is
# named, its includes counted, its calls not.
# Exit 0: no circle; 1: a circle; 2: usage or missing objects.
set -eu
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
if [ $# -gt 1 ] || case "${1:-}" in -*) true ;; *) false ;; esac; then
	echo "usage: layers.sh [-v] [BUILD]" >&2
	exit 2
fi
BUILD=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

find . \( -path ./build -o -path './build-*' -o -path "./$BUILD" -o -path ./.git \
	-o -path ./node_modules \) -prune \
	-o \( -name '*.c' -o -name '*.h' -o -name '*.S' \) -type f -print |
	sed 's|^\./||' | LC_ALL=C sort >"$tmp/files"

# The module of a path (shared by the awk programs below).
MODULE='
function module(p,   n, a) {
	n = split(p, a, "/")
	if (n == 1) return "."
	if ((a[1] == "code" || a[1] == "collectors") && n > 2) return a[1] "/" a[2]
	return a[1]
}
function stem(p) { sub(/\.[chS]$/, "", p); return p }'

# includes: "FROM TO WHY" for every #include "..." that names a file of the tree.
awk "$MODULE"'
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
			if (to != "") print f, to, "includes " line
		}
		close(f)
	}
}' "$tmp/files" >"$tmp/includes"

# symbols: "D SOURCE SYM" for what an object defines, "U SOURCE SYM" for
# what it needs; only objects whose source is in the tree (an object left
# behind by a file that moved is no part of it).
: >"$tmp/syms"
: >"$tmp/noobj"
for f in $(grep -E '\.(c|S)$' "$tmp/files"); do
	o="$BUILD/obj/${f%.*}.o"
	if [ ! -f "$o" ]; then
		echo "$f" >>"$tmp/noobj"
		continue
	fi
	nm -P "$o" | awk -v f="$f" '
		$2 ~ /^[Uwv]$/ { print "U", f, $1; next }
		$2 ~ /^[TDBRVWCi]$/ { print "D", f, $1 }' >>"$tmp/syms"
done
missing=$(grep -E '^(reader|code)/' "$tmp/noobj" || true)
if [ -n "$missing" ]; then
	echo "layers: no object in $BUILD/obj for these library sources (build first):" >&2
	echo "$missing" | sed 's/^/  /' >&2
	exit 2
fi

# edges: "LEVEL FROM TO WHY", LEVEL "-" between modules, else the module
# whose files FROM and TO are.  A symbol more than one object defines
# (main, a fuzz target's entry) is an edge to each: only one is linked,
# and any of them may be.
{
	cat "$tmp/includes"
	awk '$1 == "D" { def[$3] = def[$3] " " $2; next }
	     { use[++n] = $2 " " $3 }
	     END {
		for (i = 1; i <= n; i++) {
			split(use[i], a, " ")
			if (!(a[2] in def)) continue
			k = split(def[a[2]], d, " ")
			for (j = 1; j <= k; j++) if (d[j] != a[1]) print a[1], d[j], "uses " a[2]
		}
	     }' "$tmp/syms"
} | awk "$MODULE"'
{
	why = $3 " " $4
	ma = module($1); mb = module($2)
	if (ma != mb) print "-", ma, mb, why
	else if (stem($1) != stem($2)) print ma, stem($1), stem($2), why
}' | LC_ALL=C sort -u | LC_ALL=C sort -k1,3 -u >"$tmp/edges"
# (one reason per edge, the first in order; nodes without edges below)
awk "$MODULE"'{ print module($0), stem($0) }' "$tmp/files" | LC_ALL=C sort -u >"$tmp/nodes"

# Print the graphs and look for circles: a depth-first search per level
# over the sorted edges, a circle being an edge back to a node still on
# the search path.
awk -v verbose="$verbose" -v nfiles="$(wc -l <"$tmp/files")" '
FILENAME == ARGV[1] {
	lvl = $1; from = $2; to = $3
	why = $4; for (i = 5; i <= NF; i++) why = why " " $i
	adj[lvl, from] = adj[lvl, from] " " to
	reason[lvl, from, to] = why
	if (!(lvl in seen)) { seen[lvl] = 1; levels[++nl] = lvl }
	if (lvl == "-") { mnode[from] = 1; mnode[to] = 1 }
	nedges[lvl]++
	next
}
{ nodes[$1] = nodes[$1] " " $2; mnode[$1] = 1 }
function dfs(L, u,   list, n, i, v, k, s) {
	color[L, u] = 1
	path[++depth] = u
	n = split(adj[L, u], list, " ")
	for (i = 1; i <= n; i++) {
		v = list[i]
		if (color[L, v] == 1) {
			for (k = depth; path[k] != v; k--) ;
			s = "  " v
			for (; k < depth; k++)
				s = s " -> " path[k + 1] " (" reason[L, path[k], path[k + 1]] ")"
			s = s " -> " v " (" reason[L, u, v] ")"
			cycles[L] = cycles[L] s "\n"
			ncycles++
		} else if (color[L, v] == 0) {
			dfs(L, v)
		}
	}
	depth--
	color[L, u] = 2
}
function search(L, names,   list, n, i) {
	n = split(names, list, " ")
	for (i = 1; i <= n; i++)
		if (color[L, list[i]] == 0) dfs(L, list[i])
}
function show(L, names, title,   list, n, i, t, m, j, s) {
	print title
	n = split(names, list, " ")
	for (i = 1; i <= n; i++) {
		s = "  " list[i] " ->"
		m = split(adj[L, list[i]], t, " ")
		for (j = 1; j <= m; j++) s = s " " t[j]
		print s
		if (verbose)
			for (j = 1; j <= m; j++)
				print "      " t[j] ": " reason[L, list[i], t[j]]
	}
}
END {
	for (m in mnode) all = all " " m
	n = split(all, sorted, " ")
	# (a small insertion sort: mawk has no asort)
	for (i = 2; i <= n; i++) {
		x = sorted[i]
		for (j = i - 1; j >= 1 && sorted[j] > x; j--) sorted[j + 1] = sorted[j]
		sorted[j + 1] = x
	}
	all = ""
	for (i = 1; i <= n; i++) if (sorted[i] != ".") all = all " " sorted[i]
	show("-", all, "modules (A -> B: A includes or uses B):")
	search("-", all)
	nm = 0; fe = 0
	for (i = 1; i <= n; i++) {
		m = sorted[i]
		search(m, nodes[m])
		nm++; fe += nedges[m]
		if (verbose || (m in cycles))
			show(m, nodes[m], "files of " m " (A -> B: A includes or uses B):")
	}
	printf "files: %d in %d modules, %d edges between files of one module\n", nfiles, nm, fe
	if (ncycles) {
		fflush()
		if ("-" in cycles) printf "layers: circle between modules:\n%s", cycles["-"] >"/dev/stderr"
		for (i = 1; i <= n; i++)
			if (sorted[i] in cycles)
				printf "layers: circle between the files of %s:\n%s", sorted[i], cycles[sorted[i]] >"/dev/stderr"
		exit 1
	}
}' "$tmp/edges" "$tmp/nodes" || exit 1

if [ -s "$tmp/noobj" ]; then
	echo "includes only (no object in $BUILD/obj): $(wc -l <"$tmp/noobj") sources, $(sed 's|/[^/]*$||' "$tmp/noobj" | LC_ALL=C sort -u | tr '\n' ' ')"
fi
echo "layers: no circle"
