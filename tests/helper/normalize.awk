# normalize.awk - reduce `itrace-dump` output to what the valgrind and
# ptrace backends must agree on: the instructions of the main executable
# (EXE=path of it) and the loads and stores they make, the branches from
# its code, and where recording starts and stops.
#
#   awk -v EXE=/path/prog -v MODE=static|dynamic [-v SIGNALS=1] -f normalize.awk DUMP
#
# Addresses inside the executable's mappings are printed relative to its
# first mapping, so a PIE loaded elsewhere under Valgrind compares equal.
# Other data addresses (the stack; Valgrind places it elsewhere) are, in
# MODE=static, printed relative to the first such address of the trace;
# in MODE=dynamic (heap and libraries laid out differently), as "other".
# Instruction bytes (the ptrace backend records them) are dropped.
# With -v SIGNALS=1, SIGNAL records too: number, code, and their addresses
# placed as data addresses are.
function field(name,    i) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
function hex(s,    n, i, c) {
	n = 0
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		n = n * 16 + c
	}
	return n
}
function in_exe(a,    i) {
	for (i = 0; i < nmap; i++)
		if (a >= lo[i] && a < hi[i])
			return 1
	return 0
}
function where(a) {
	if (in_exe(a))
		return sprintf("exe+%x", a - base)
	if (MODE == "dynamic")
		return "other"
	if (!have_first) {
		first = a
		have_first = 1
	}
	return sprintf("data%+d", a - first)
}
$2 == "MMAP" && $NF == "'" EXE "'" {
	split($4, r, "-")
	lo[nmap] = hex(r[1])
	hi[nmap] = hex(r[2])
	if (nmap == 0 || lo[nmap] < base)
		base = lo[nmap]
	nmap++
	next
}
$2 == "INSN" {
	a = hex($3)
	keep = in_exe(a)
	if (keep)
		printf "INSN exe+%x %s\n", a - base, $4
	next
}
$2 == "MEM" && keep {
	printf "MEM %s %s %s\n", $3, where(hex($4)), $5
	next
}
$2 == "BRANCH" && in_exe(hex($3)) {
	to = hex($5)
	printf "BRANCH exe+%x -> %s %s %s\n", hex($3) - base, in_exe(to) ? sprintf("exe+%x", to - base) : "other", $6, $7
	next
}
$2 == "TRACE_ON" || $2 == "TRACE_OFF" {
	a = hex($4)
	printf "%s %s %s\n", $2, $3, in_exe(a) ? sprintf("exe+%x", a - base) : "other"
	next
}
# A signal: where it was delivered, the fault address and the handler, in
# the executable (relative) or elsewhere (as recorded: 0, a fixed address).
function place(s,    a) {
	a = hex(s)
	return in_exe(a) ? sprintf("exe+%x", a - base) : (MODE == "dynamic" && a >= 65536 ? "other" : s)
}
SIGNALS && $2 == "SIGNAL" {
	printf "SIGNAL %s %s addr=%s pc=%s handler=%s\n", $3, $4, place(field("addr")),
		place(field("pc")), place(field("handler"))
	next
}
