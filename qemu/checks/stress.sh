# Repeated power transitions with 2 CPUs: 10 real suspend-to-RAM cycles
# (SeaBIOS S3, woken by the CMOS RTC alarm), then 20 pm_test=core cycles.
# After each cycle: the transition returned without error, the local timer
# interrupts advance again, the CPUs that were on-line are on-line again,
# and the 9 x86 interrupts-off callbacks ran once each, in 6.12's syscore
# order, the converted classes' from their class (x86_judge in lib.sh).
# One "SYSDEV-INFO stress <kind> cycle N" line per
# cycle gives its time: wall= is boot time (it includes the time asleep,
# which the kernel only knows to the second from the CMOS clock), active=
# is CLOCK_MONOTONIC (without the time asleep).
#
# Boot with "pm_debug_messages initcall_debug".  The kernel command line
# may change the counts: stress_s3=N stress_core=N.
# Not in the gate (a minute of TCG per boot): ci/tests/reliability.sh.
#
# Host self-test of the judge: sh stress.sh --judge LABEL KIND DMESG-FILE
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=stress
. "$CHECKS_DIR/lib.sh"
rtc=/sys/class/rtc/rtc0
T=${TMPDIR:-/tmp}/stress.$$
mkdir -p "$T"

# judge LABEL KIND FILE: the kernel log of one cycle (KIND s3 or core).
judge() {
	x86_judge "$1" cycle "$3" || return 1
	if [ "$2" = s3 ] && ! grep -q "ACPI: PM: Low-level resume complete" "$3"; then
		fail "$1: no 'Low-level resume complete': the machine did not sleep"
		return 1
	fi
	if [ "$2" = core ] && grep -q "ACPI: PM: Low-level resume complete" "$3"; then
		fail "$1: 'Low-level resume complete' with pm_test=core"
		return 1
	fi
	return 0
}

if [ "${1:-}" = "--judge" ]; then
	judge "$2" "$3" "$4" && pass "$2: $(x86_expected | wc -l) x86 callbacks in order"
	rm -rf "$T"
	exit $FAILED
fi

uptime_s() { cut -d' ' -f1 /proc/uptime; }
mono_s() { awk '/^now at/ { printf "%.3f", $3 / 1e9; exit }' /proc/timer_list; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# cycle KIND N: one transition; returns 1 on failure.
cycle() {
	label="$1 cycle $2"
	dmesg -c > /dev/null
	cpus0=$(cat /sys/devices/system/cpu/online)
	loc0=$(irq_count LOC); u0=$(uptime_s); m0=$(mono_s)
	if [ "$1" = s3 ]; then
		echo 0 > $rtc/wakealarm
		echo +3 > $rtc/wakealarm
	fi
	if ! echo mem > /sys/power/state; then
		fail "$label: writing mem to /sys/power/state failed"
		dmesg | grep -iE "fail|error|abort" | tail -n 3
		return 1
	fi
	u1=$(uptime_s); m1=$(mono_s); loc1=$(irq_count LOC)
	sleep 0.2
	loc2=$(irq_count LOC)
	cpus1=$(cat /sys/devices/system/cpu/online)
	dmesg > "$T/cycle"
	info "$1 cycle $2: wall=$(sub "$u0" "$u1")s active=$(sub "$m0" "$m1")s LOC $loc0 -> $loc1 -> $loc2 cpus=$cpus1"
	echo "$(sub "$u0" "$u1") $(sub "$m0" "$m1")" >> "$T/times.$1"
	judge "$label" "$1" "$T/cycle" || return 1
	[ "$loc1" -gt "$loc0" ] || { fail "$label: local timer interrupts did not advance ($loc0 -> $loc1)"; return 1; }
	[ "$loc2" -gt "$loc1" ] || { fail "$label: no local timer interrupt after resume ($loc1 -> $loc2 in 0.2s)"; return 1; }
	[ "$cpus1" = "$cpus0" ] || { fail "$label: CPUs on-line $cpus0 before, $cpus1 after"; return 1; }
	return 0
}

# summary KIND: "n cycles, wall min/avg/max a/b/c s, active ..."
summary() {
	awk '{ w += $1; a += $2; if (NR == 1 || $1 < wmin) wmin = $1; if ($1 > wmax) wmax = $1
	       if (NR == 1 || $2 < amin) amin = $2; if ($2 > amax) amax = $2 }
	     END { printf "wall min/avg/max %.2f/%.2f/%.2fs, active %.2f/%.2f/%.2fs", wmin, w / NR, wmax, amin, a / NR, amax }' "$T/times.$1"
}

online=$(cat /sys/devices/system/cpu/online)
case $online in
0) fail "one CPU on-line: this check wants 2 (boot without -1)"; exit 0 ;;
esac
grep -qw mem /sys/power/state || { fail "mem not in /sys/power/state: $(cat /sys/power/state)"; exit 0; }
[ -e $rtc/wakealarm ] || { fail "no $rtc/wakealarm"; exit 0; }
grep -qw core /sys/power/pm_test || { fail "no pm_test=core (CONFIG_PM_DEBUG)"; exit 0; }
echo 1 > /sys/power/pm_debug_messages
echo 0 > /sys/module/suspend/parameters/pm_test_delay

n_s3=${stress_s3:-10}
n_core=${stress_core:-20}
echo none > /sys/power/pm_test
i=1
while [ $i -le "$n_s3" ]; do
	cycle s3 $i || break
	i=$((i + 1))
done
[ $FAILED -eq 0 ] && pass "$n_s3 suspend-to-RAM cycles, CPUs $online: $(summary s3)"

if [ $FAILED -eq 0 ]; then
	echo core > /sys/power/pm_test
	i=1
	while [ $i -le "$n_core" ]; do
		cycle core $i || break
		i=$((i + 1))
	done
	echo none > /sys/power/pm_test
	[ $FAILED -eq 0 ] && pass "$n_core pm_test=core cycles, CPUs $online: $(summary core)"
fi
rm -rf "$T"
exit 0
