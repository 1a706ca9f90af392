#!/bin/sh
# Every shell example of README.md (its ```sh blocks) runs as printed, in a
# scratch directory, against the built tools; make check runs this.
#
# What is substituted, mechanically:
# - comments (" # ...") are dropped; each remaining line is one command;
# - an optional group "[...]" makes two commands: without every group, and
#   with every group, taking the first of alternatives "a|b";
# - the programs: ./prog and prog are tests/real/prog/prog.c (functions
#   main, parse and emit; the scratch directory is on PATH), except in a
#   pipeline ending in qtrace-conv, which takes POWER code only, where
#   ./prog is ./prog.ppc64le, a static ppc64le program (tests/real/prog/
#   ppc64le/real_ppc_mem.S); in other qemu examples ./prog.ppc64le is
#   tests/real/prog/ppc64le/prog_c.c, dynamically linked (a function
#   "work"), and ./prog.power10 the same built -mcpu=power10;
# - the words PID (a running `prog sleep`), host:1234 (qemu-x86_64 -g
#   running prog on a free local port), DIR (/ after --sysroot, the
#   Debian cross root /usr/powerpc64le-linux-gnu in a qemu example,
#   /usr/lib/debug after --debug-dir), TRACE (trace.itr), FILE (out.xml);
# - a trace a command reads that no earlier command wrote (NAME.itr, not
#   after -o) is made first by `itrace-collect --level branch -o NAME --
#   ./prog`; a .qt file, by qtrace-conv from the ppc64le program's trace;
# - perf's viewer (a window) runs headless (QT_QPA_PLATFORM=offscreen)
#   with Debian's python3, and passes if it is still showing its window
#   after 15 s with nothing on stderr but Qt's notes;
# - diff-cover runs in the scratch directory made a git repository: prog.c
#   committed on branch main, then changed on a branch;
# - make demo runs in the source tree (with this build directory); make
#   check is the run this test is part of, and is not started again.
# Every command must exit 0, a trace it writes must hold instructions or
# branches, and where output is deterministic it is compared with
# tests/real/readme/*.golden.
. tests/lib.sh
. tests/helper/real_oracles.sh

W="$TMP/readme"
mkdir -p "$W"
cp "$REAL/prog" "$W/prog"
cp "$REAL/ppc64le/real_ppc_mem" "$W/prog.ppc64le"
cp "$REAL/ppc64le/prog_c" "$W/prog_c.ppc64le"
cp "$REAL/ppc64le/prog_c_p10" "$W/prog.power10"
GOLDEN="$ITRACE_ROOT/tests/real/readme"
export PATH="$BIN:$W:$PATH"

# free_port - a local TCP port nobody listens on (asked of the kernel).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# variants LINE - the commands of one example line (optional groups).
variants() {
	case $1 in
	*\[*)
		printf '%s\n' "$1" | sed 's/ *\[[^]]*\]//g'
		printf '%s\n' "$1" | sed 's/\[\([^]|]*\)|[^]]*\]/\1/g; s/\[\([^]]*\)\]/\1/g'
		;;
	*) printf '%s\n' "$1" ;;
	esac
}

# substitute CMD - the placeholder words replaced (see above).
substitute() {
	_c=$1
	case $_c in
	*qtrace-conv*) _c=$(printf '%s' "$_c" | sed 's#\./prog\b\([^.]\|$\)#./prog.ppc64le\1#g') ;;
	*--backend\ qemu*)
		_c=$(printf '%s' "$_c" | sed 's#\./prog\.ppc64le#./prog_c.ppc64le#g; s#--sysroot DIR#--sysroot /usr/powerpc64le-linux-gnu#g') ;;
	esac
	printf '%s\n' "$_c" | sed \
		-e 's#--sysroot DIR#--sysroot /#g' -e 's#--debug-dir DIR#--debug-dir /usr/lib/debug#g' \
		-e 's#\bTRACE\b#trace.itr#g' -e 's#\bFILE\b#out.xml#g' \
		-e "s#\\bPID\\b#${PID:-PID}#g" -e "s#host:1234#127.0.0.1:${PORT:-0}#g"
}

# inputs CMD - make the traces CMD reads that do not exist yet.
inputs() {
	_prev=
	for _w in $1; do
		case $_prev in -o | ">") _prev=$_w; continue ;; esac
		_prev=$_w
		case $_w in
		*.itr)
			[ -e "$W/$_w" ] || (cd "$W" && itrace-collect -q --level branch -o "$_w" -- ./prog >/dev/null) ;;
		*.qt)
			[ -e "$W/$_w" ] || (cd "$W" && itrace-collect -q --backend gdb -o qt-src.itr -- ./prog.ppc64le >/dev/null &&
				qtrace-conv -q qt-src.itr -o "$_w") ;;
		esac
	done
}

# run_window CMD - a program that shows a window: headless, and still
# showing it after 15 s with no error.
run_window() {
	_w=$(printf '%s' "$1" | sed 's#^python3 #/usr/bin/python3 #')
	(cd "$W" && export HOME="$TMP" QT_QPA_PLATFORM=offscreen && eval "timeout 15 $_w") >"$TMP/example.out" 2>&1
	_st=$?
	if [ "$_st" = 124 ] && ! grep -qv -e '^QStandardPaths:' -e '^qt\.' "$TMP/example.out"; then
		ok "README: $1 (its window up for 15 s)"
	else
		fail "README: $1 (its window up for 15 s)" "exit status $_st; $(tail -5 "$TMP/example.out")"
	fi
}

# a git repository for diff-cover: prog.c on main, changed on a branch
git_for_diff_cover() {
	(cd "$W" && cp "$ITRACE_ROOT/tests/real/prog/prog.c" . &&
		git init -q -b main . && git add prog.c &&
		git -c user.name=itrace -c user.email=itrace@localhost commit -qm base &&
		git checkout -qb change && sed -i 's/i < 100/i < 120/' prog.c &&
		git -c user.name=itrace -c user.email=itrace@localhost commit -qam change)
}

# run_example CMD - run it in the scratch directory; one TAP line.
run_example() {
	_cmd=$1
	case $_cmd in
	"make check") return ;;	# this very run
	"make demo")
		check "README: make demo" make -s --no-print-directory -C "$ITRACE_ROOT" demo BUILD="$ITRACE_BUILD"
		return
		;;
	esac
	PID= PORT=
	case $_cmd in
	*PID*)
		(cd "$W" && exec ./prog sleep >/dev/null) &
		PID=$!
		sleep 0.3
		;;
	*host:1234*)
		PORT=$(free_port)
		(cd "$W" && exec qemu-x86_64 -g "$PORT" ./prog >/dev/null 2>&1) &
		GDBSTUB=$!
		sleep 0.5
		;;
	esac
	_run=$(substitute "$_cmd")
	inputs "$_run"
	case $_run in
	*exported-sql-viewer.py*)
		run_window "$_run"
		;;
	*)
		if (cd "$W" && eval "$_run") >"$TMP/example.out" 2>&1; then
			ok "README: $_run"
		else
			fail "README: $_run" "$(tail -5 "$TMP/example.out")"
		fi
		;;
	esac
	# a trace it wrote has instructions or branches in it
	_prev=
	for _w in $_run; do
		case $_prev:$_w in
		-o:*.itr)
			check_eq "README: $_run: $_w holds what ran" yes \
				"$(itrace-dump --summary "$W/$_w" 2>&1 | awk '$1 == "INSN" || $1 == "BRANCH" { n += $2 } END { print (n > 0 ? "yes" : "none") }')"
			;;
		esac
		_prev=$_w
	done
	[ -n "$PID" ] && wait "$PID" 2>/dev/null
	[ -n "$PORT" ] && { kill "$GDBSTUB" 2>/dev/null; wait "$GDBSTUB" 2>/dev/null; }
	_key=$(printf '%s' "$_run" | tr -c 'A-Za-z0-9.-' '_')
	if [ -f "$GOLDEN/$_key.golden" ]; then
		check_files_eq "README: $_run: output as recorded" "$GOLDEN/$_key.golden" "$TMP/example.out"
	fi
}

awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on' "$ITRACE_ROOT/README.md" |
	sed 's/[[:space:]]#.*$//; s/^#.*$//; s/[[:space:]]*$//' | grep -v '^$' >"$TMP/examples"
check "README.md has shell examples" test -s "$TMP/examples"
check "a git repository for diff-cover" git_for_diff_cover
while IFS= read -r line; do
	variants "$line" >"$TMP/variants"
	while IFS= read -r cmd; do
		run_example "$cmd" </dev/null
	done <"$TMP/variants"
done <"$TMP/examples"
done_testing
