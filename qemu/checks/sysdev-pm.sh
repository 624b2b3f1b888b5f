# System device callbacks around power transitions, with the test classes
# of CONFIG_SYSDEV_PM_TEST (drivers/base/test/sysdev_pm_test.c): pm_test=core
# suspend-to-RAM, pm_test=core hibernation and one real suspend-to-RAM.
# Each cycle must print the save, suspend, resume and restore lines of the
# test classes in the documented order, with the state of the transition.
# gate: CONFIG_SYSDEV_PM_TEST
. /checks/lib.sh
rtc=/sys/class/rtc/rtc0

if [ ! -d /sys/devices/system/pmtest_a ]; then
	fail "no test classes (CONFIG_SYSDEV_PM_TEST is not set)"
	exit 0
fi
for d in pmtest_a/pmtest_a0 pmtest_a/pmtest_a1 pmtest_b/pmtest_b0 pmtest_b/pmtest_b1; do
	[ -e /sys/devices/system/$d ] || fail "/sys/devices/system/$d missing"
	[ -e /sys/bus/${d%%/*}/devices/${d##*/} ] || fail "/sys/bus/${d%%/*}/devices/${d##*/} missing"
	# the uevent file, and the subsystem link that makes SUBSYSTEM=<class>
	[ -f /sys/devices/system/$d/uevent ] || fail "/sys/devices/system/$d/uevent missing"
	sub=$(readlink /sys/devices/system/$d/subsystem)
	[ "${sub##*/}" = "${d%%/*}" ] || fail "$d: subsystem link is '$sub', expected .../bus/${d%%/*}"
done

# check_cycle NAME STATE: the test classes' callbacks in this dmesg
# (pmtest_judge of lib.sh).
check_cycle() {
	dmesg > /tmp/sdpm.log
	pmtest_judge "$1" "$2" /tmp/sdpm.log && pass "$1: 48 callbacks in order, state=$2"
}

echo 1 > /sys/power/pm_debug_messages
echo 0 > /sys/module/suspend/parameters/pm_test_delay 2>/dev/null

# 1. suspend-to-RAM, stopping after the syscore callbacks
if grep -qw mem /sys/power/state && grep -qw core /sys/power/pm_test; then
	dmesg -c > /dev/null
	echo core > /sys/power/pm_test
	if echo mem > /sys/power/state; then
		check_cycle "pm_test=core mem" suspend
	else
		fail "pm_test=core: writing mem to /sys/power/state failed"
	fi
	echo none > /sys/power/pm_test
else
	fail "pm_test=core mem: not available"
fi

# 2. hibernation, stopping after the syscore callbacks (no image written)
if grep -qw disk /sys/power/state && grep -qw core /sys/power/pm_test; then
	dmesg -c > /dev/null
	echo core > /sys/power/pm_test
	if echo disk > /sys/power/state; then
		check_cycle "pm_test=core disk" freeze
	else
		fail "pm_test=core: writing disk to /sys/power/state failed"
	fi
	echo none > /sys/power/pm_test
else
	fail "pm_test=core disk: not available"
fi

# 3. a real suspend-to-RAM, woken by the CMOS RTC alarm
if grep -qw mem /sys/power/state && [ -e $rtc/wakealarm ]; then
	dmesg -c > /dev/null
	echo none > /sys/power/pm_test 2>/dev/null
	echo 0 > $rtc/wakealarm
	echo +3 > $rtc/wakealarm
	if echo mem > /sys/power/state; then
		check_cycle "suspend-to-RAM" suspend
	else
		fail "suspend-to-RAM: writing mem to /sys/power/state failed"
	fi
else
	fail "suspend-to-RAM: no mem state or RTC wakealarm"
fi
exit 0
