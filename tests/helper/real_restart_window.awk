# restart_window.awk - from itrace-dump output, the instructions of each
# system call restarted after a signal handler (ITRACE.md 6.5.10): from
# the syscall instruction that the SIGNAL names as its pc (the last
# instruction before the SIGNAL) through the handler and the sigreturn to
# that instruction run again.  Addresses as FILE+0xOFFSET (the file's
# basename and its offset in it, from the MMAP records), so that traces
# with other load addresses compare; one window per line group, headed
# "restart N".  Prints nothing if no signal restarted a call.
function hex(s,    n, i) {
	n = 0
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
function base(p) { sub(/.*\//, "", p); return p }
function where(a,    i) {
	for (i = n_maps; i > 0; i--)
		if (a >= lo[i] && a < hi[i])
			return sprintf("%s+0x%x", file[i], a - lo[i] + off[i])
	return sprintf("0x%x", a)
}
$2 == "MMAP" {
	split($4, r, "-")
	n_maps++
	lo[n_maps] = hex(r[1]); hi[n_maps] = hex(r[2])
	off[n_maps] = hex(substr($5, 7))
	p = $0; sub(/^[^']*'/, "", p); sub(/'$/, "", p)
	file[n_maps] = base(p)
	next
}
$2 == "INSN" {
	a = hex($3)
	if (open) {
		print where(a)
		if (a == restart_pc) { open = 0 }
	}
	last = a
	next
}
$2 == "SIGNAL" && !open {
	pc = $6; sub(/^pc=/, "", pc); pc = hex(pc)
	if (pc != 0 && pc == last) {
		n++
		print "restart " n " " $3
		print where(last)
		restart_pc = pc
		open = 1
	}
}
