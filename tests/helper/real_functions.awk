# real_functions.awk - per-function instructions and calls of an itrace export
# against callgrind's (tests/helper/real_oracles.sh, check_callgrind_functions).
#
#   awk -f real_functions.awk OURS FINAL CG
#
# OURS:  "START END INSNS CALLS NAME", the export's functions with a symbol
#        (hexadecimal run-time addresses, END exclusive; END = START for a
#        symbol without a size), sorted by START
# FINAL: "ADDR COUNT", the instructions callgrind never counts: each
#        thread's last block, blocks cut short by a fault (real-oracle
#        final-blocks)
# CG:    "ADDR[,ADDR...] IR CALLS NAME" per callgrind function
#        (real-oracle cg-functions)
#
# Each callgrind function is matched with the functions of the export that
# hold the addresses its calls reached.  Callgrind may join functions (two
# static functions of one name in one source file are one for it), so the
# comparison is per connected group.  Prints one line per difference and
# "groups N" at the end.
function hex(s,    n, i) {
	n = 0
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
# at(a) - index of our function holding address a, 0 if none
function at(a,    lo, hi, mid) {
	lo = 1
	hi = n
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (s[mid] <= a)
			lo = mid
		else
			hi = mid - 1
	}
	if (n && s[lo] <= a && (a < e[lo] || a == s[lo]))
		return lo
	return 0
}
function root(x) {
	while (up[x] != x)
		x = up[x]
	return x
}
FILENAME == ARGV[1] {
	n++
	s[n] = hex($1)
	e[n] = hex($2)
	ins[n] = $3
	cal[n] = $4
	nm[n] = $5
	up[n] = n
	next
}
FILENAME == ARGV[2] {
	if ((i = at(hex($1))))
		ins[i] -= $2
	next
}
{
	m++
	cir[m] = $2
	ccal[m] = $3
	cname[m] = $4
	for (k = 5; k <= NF; k++)
		cname[m] = cname[m] " " $k
	split($1, t, ",")
	first = 0
	for (k in t) {
		if (!(i = at(hex(t[k]))))
			continue
		if (!first)
			first = i
		else
			up[root(i)] = root(first)
	}
	of[m] = first
}
END {
	for (j = 1; j <= m; j++) {
		if (!of[j]) {
			# code without a symbol in the export: not comparable
			if (cname[j] !~ /^0x/ && cname[j] !~ /^\?\?\?/)
				printf "callgrind's %s is no function of the export\n", cname[j]
			continue
		}
		r = root(of[j])
		gir[r] += cir[j]
		gcal[r] += ccal[j]
		gname[r] = gname[r] (gname[r] == "" ? "" : "+") cname[j]
		seen[r] = 1
	}
	for (i = 1; i <= n; i++) {
		r = root(i)
		oir[r] += ins[i]
		ocal[r] += cal[i]
		oname[r] = oname[r] (oname[r] == "" ? "" : "+") nm[i]
	}
	for (i = 1; i <= n; i++) {
		if (root(i) != i)
			continue
		if (!seen[i]) {
			# callgrind prints no function, and no call, that cost
			# nothing (calls= only with a cost: callgrind's dump.c)
			if (oir[i])
				printf "%s: %d instructions, %d calls; callgrind: none\n", oname[i], oir[i], ocal[i]
			continue
		}
		groups++
		if (oir[i] != gir[i] || ocal[i] != gcal[i])
			printf "%s: %d instructions, %d calls; callgrind (%s): %d, %d\n", oname[i], oir[i], ocal[i], gname[i], gir[i], gcal[i]
	}
	printf "groups %d\n", groups
}
