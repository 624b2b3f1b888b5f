# x86 system devices of the series: the local APIC (class lapic) and the
# 8259A PIC (class i8259).
#
# 1. A converted class (x86_converted in lib.sh) has its device,
#    /sys/devices/system/<class>/<class>0, with a uevent file and a
#    subsystem link to /sys/bus/<class>, and its code did not fall back
#    to syscore ("using syscore" in the boot log).  A class whose
#    conversion is not in this kernel is not expected (an info line says
#    so), so the check runs at every patch of the series.
# 2. A pm_test=core cycle of suspend-to-RAM and one of hibernation, with
#    pm_debug_messages: the x86 interrupts-off callbacks run once each, in
#    6.12's syscore order, a converted class's from the class and not
#    from syscore_ops as well (x86_judge in lib.sh); afterwards the local
#    timer interrupts advance.
#
# Host self-tests: sh x86-sysdev.sh --judge LABEL KIND FILE, the cycle
# judge (KIND cycle or none; X86_CONVERTED names the converted classes);
# sh x86-sysdev.sh --fallback FILE, the fallback test of a boot log.
# gate: CONFIG_SUSPEND
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=x86-sysdev
. "$CHECKS_DIR/lib.sh"

# fallen_back FILE: fail each class whose code fell back to syscore_ops,
# by the message apic.c and i8259.c print ("no lapic system device (-16),
# using syscore"), whatever the symbols say is converted; FELL lists them.
fallen_back() {
	FELL=" "
	for c in lapic i8259; do
		if grep -q "no $c system device" "$1"; then
			fail "$c: fell back to syscore: $(grep "no $c system device" "$1" | head -n 1)"
			FELL="$FELL$c "
		fi
	done
}

if [ "${1:-}" = "--judge" ]; then
	x86_judge "$2" "$3" "$4" && pass "$2: as expected ($3)"
	exit $FAILED
fi
if [ "${1:-}" = "--fallback" ]; then
	fallen_back "$2"
	[ "$FELL" = " " ] && pass "no fallback in $2"
	exit $FAILED
fi

sys=/sys/devices/system
T=${TMPDIR:-/tmp}/x86-sysdev.$$
mkdir -p "$T"
dmesg > "$T/boot"
# one line, a space at each end: the matches below look for " $cls "
conv=" $(echo $(x86_converted)) "
fallen_back "$T/boot"
for cls in lapic i8259; do
	d=$sys/$cls/${cls}0
	case "$FELL" in *" $cls "*) continue ;; esac
	case "$conv" in
	*" $cls "*) ;;
	*) info "$cls: not a system device in this kernel"; continue ;;
	esac
	if [ ! -e "$d/uevent" ]; then
		fail "$cls: no $d/uevent"
	elif [ "$(readlink -f "$d/subsystem")" != "/sys/bus/$cls" ]; then
		fail "$cls: $d/subsystem is '$(readlink "$d/subsystem")', want /sys/bus/$cls"
	else
		pass "$cls: $d, subsystem /sys/bus/$cls"
	fi
done

# cycle STATE: one pm_test=core transition to STATE (mem or disk)
cycle() {
	mark="x86-sysdev-$1-$$"
	echo "$mark" > /dev/kmsg
	loc0=$(irq_count LOC)
	if ! echo "$1" > /sys/power/state; then
		fail "pm_test=core $1: writing $1 to /sys/power/state failed"
		return
	fi
	sleep 0.2
	loc1=$(irq_count LOC)
	dmesg | sed -n "/$mark/,\$p" > "$T/$1"
	x86_judge "pm_test=core $1" cycle "$T/$1" &&
		pass "pm_test=core $1: $(x86_expected | wc -l) x86 callbacks in order (converted: $(echo ${conv:-none}))"
	[ "$loc1" -gt "$loc0" ] || fail "pm_test=core $1: local timer interrupts did not advance ($loc0 -> $loc1)"
}

if ! grep -qw core /sys/power/pm_test 2>/dev/null; then
	fail "no pm_test=core (CONFIG_PM_DEBUG)"
else
	echo 1 > /sys/power/pm_debug_messages
	echo 0 > /sys/module/suspend/parameters/pm_test_delay
	echo core > /sys/power/pm_test
	cycle mem
	if grep -qw disk /sys/power/state; then
		cycle disk
	else
		fail "disk not in /sys/power/state (CONFIG_HIBERNATION): $(cat /sys/power/state)"
	fi
	echo none > /sys/power/pm_test
fi
rm -rf "$T"
exit 0
