#!/bin/sh
# pipeline-sim on the machine it runs on: --core host names the preset it
# took from CPUID; --calibrate measures this core and writes a description
# that --core FILE (and --core host through ITRACE_HOST_CORE) accepts,
# replacing its output atomically.
. tests/lib.sh
SIM="$BIN/pipeline-sim"
GEN="$ITRACE_ROOT/$ITRACE_BUILD/bench/sim_gen"
unset ITRACE_HOST_CORE

check "generate a trace" "$GEN" mix 20000 "$TMP/mix.itr"
vendor=$(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -1)
case "$vendor" in
AuthenticAMD | GenuineIntel)
	check "--core host" sh -c '"$1" --core host "$2" >"$3/host.txt" 2>"$3/host.err"' _ "$SIM" "$TMP/mix.itr" "$TMP"
	name=$(sed -n 's/^Core \([a-z0-9]*\) .*/\1/p' "$TMP/host.txt")
	family=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)
	# AMD family 1Ah (26) is Zen 5; earlier AMD families take zen4
	if [ "$vendor" = AuthenticAMD ]; then
		if [ "$family" -ge 26 ]; then want=zen5; else want=zen4; fi
	else
		want=goldencove
	fi
	check_eq "--core host takes the $vendor preset" "$want" "$name"
	# a CPU with a preset of its own (Sapphire Rapids, family 6 model
	# 0x8f), or one without, which takes the nearest with a warning
	# (some VMs of this kind report family 6 model 0xa7)
	check "--core host says which preset and why" grep -Eq \
		"^pipeline-sim: (--core host: .* model 0x[0-9a-f]+\): $want\$|warning: --core host: .* has no preset of its own\); using $want, the nearest preset)" \
		"$TMP/host.err"
	# (a CPU with no preset of its own still gets its warning)
	check_eq "-q keeps it quiet" "" "$("$SIM" -q --core host "$TMP/mix.itr" 2>&1 >/dev/null | grep -v 'warning: --core host')"

	# --calibrate: a description of this core, read back by --core FILE
	echo "not a core" >"$TMP/target"
	ln -s "$TMP/target" "$TMP/host.core"
	check "--calibrate -o FILE" "$SIM" --calibrate -q -o "$TMP/host.core"
	check "the output replaced the symlink, not what it points to" sh -c '[ ! -L "$1/host.core" ] && grep -q "not a core" "$1/target"' _ "$TMP"
	check "it says how it was measured" grep -q '^# .*measured by pipeline-sim --calibrate' "$TMP/host.core"
	check "--core FILE reads it" "$SIM" -q --core "$TMP/host.core" -o "$TMP/cal.txt" "$TMP/mix.itr"
	check_eq "its name is host" host "$(sed -n 's/^Core \([a-z0-9]*\) .*/\1/p' "$TMP/cal.txt")"
	# what every x86-64 core of the last decade measures: add 1 cycle,
	# L1 load-to-use 3 to 6 cycles, FMA 4 or 5
	m() { sed -n "s/^#   $1  *\([0-9.]*\)\$/\1/p" "$TMP/host.core"; }
	# (a timing: 1.01 was seen at a load average of 5, so a band around 1)
	check "int_alu latency measured 1 ($(m 'int_alu latency'))" awk -v v="$(m 'int_alu latency')" 'BEGIN { exit !(v >= 0.95 && v <= 1.1) }'
	check "L1D load-to-use 3..6 ($(m 'L1D load-to-use'))" awk -v v="$(m 'L1D load-to-use')" 'BEGIN { exit !(v >= 3 && v <= 6.5) }'
	check "fp_fma latency 4..5 ($(m 'fp_fma latency'))" awk -v v="$(m 'fp_fma latency')" 'BEGIN { exit !(v >= 3.5 && v <= 5.5) }'
	# what it set from them, not the base preset's: the widths, taken
	# branches a cycle and the ports of every measured class (as many as
	# the measured operations a cycle, rounded), the caches' sizes
	k() { sed -n "s/^$1 = //p" "$TMP/host.core"; }
	ports_of() { sed -n "s/^class\.$1 *= ports=\([^ ]*\) .*/\1/p" "$TMP/host.core" | tr ',' '\n' | grep -c .; }
	check "no figure kept from the base preset against a measurement" sh -c '! grep -q "kept" "$1"' _ "$TMP/host.core"
	d=$(m 'dispatch per cycle (mix)')
	check_eq "dispatch_width is the measured dispatch rate, rounded ($d)" \
		"$(awk -v v="$d" 'BEGIN { printf "%d", v + 0.5 }')" "$(k dispatch_width)"
	check "dispatch rate 3..9 a cycle ($d)" awk -v v="$d" 'BEGIN { exit !(v >= 3 && v <= 9) }'
	t=$(m 'taken branches per cycle')
	check_eq "taken_per_cycle is the measured rate, rounded ($t)" \
		"$(awk -v v="$t" 'BEGIN { n = int(v + 0.5); print n < 1 ? 1 : n }')" "$(k taken_per_cycle)"
	for cls in int_alu int_mul load store vec vec_shuffle; do
		v=$(m "$cls per cycle")
		check_eq "$cls: as many ports as it ran a cycle, rounded ($v)" \
			"$(awk -v v="$v" 'BEGIN { n = int(v + 0.5); print n < 1 ? 1 : n }')" "$(ports_of "$cls")"
	done
	l1=$(sed -n 's/K$//p' /sys/devices/system/cpu/cpu0/cache/index0/size 2>/dev/null)
	if [ -n "$l1" ] && [ "$(cat /sys/devices/system/cpu/cpu0/cache/index0/type)" = Data ]; then
		check_eq "l1d size is what sysfs reports" "$((l1 * 1024))" "$(k l1d | sed 's/^size=\([0-9]*\) .*/\1/')"
	fi
	ITRACE_HOST_CORE="$TMP/host.core" "$SIM" --core host "$TMP/mix.itr" >"$TMP/env.txt" 2>"$TMP/env.err"
	check_eq "--core host takes ITRACE_HOST_CORE" host "$(sed -n 's/^Core \([a-z0-9]*\) .*/\1/p' "$TMP/env.txt")"
	check "and says so" grep -q 'ITRACE_HOST_CORE' "$TMP/env.err"
	check_fails "--calibrate into a missing directory fails" "$SIM" --calibrate -q -o "$TMP/no/such/dir/x.core"
	;;
*)
	check_fails "--core host off x86-64 says there is no preset" "$SIM" -q --core host "$TMP/mix.itr"
	;;
esac
done_testing
