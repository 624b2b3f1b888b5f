# Hibernation and the system device callbacks, with the test classes of
# CONFIG_SYSDEV_PM_TEST:
#  1. pm_test=processors: the transition stops before the system devices,
#     so no test class callback may run.
#  2. pm_test=core: save and suspend with state=freeze (create_image()),
#     then resume and restore, 48 lines in order.
# A real image (mode test_resume, swap on a RAM disk) is not tried: on this
# 6.1 tree "echo disk > /sys/power/state" then fails with EBUSY after writing
# the image, because swsusp_check() opens the swap device exclusively
# (upstream fixed that later: "PM: hibernate: Do not get block device
# exclusively in test_resume mode"), and the guest hung afterwards.  The
# real image, restored by a second boot (PMSG_QUIESCE), is
# qemu/checks/hibernate-disk.sh's.
# After each: the write returned 0 and the CPUs on-line came back.
# Boot with "pm_debug_messages initcall_debug".
# Not in the gate (a hibernation costs TCG time): ci/tests/reliability.sh.
#
# Host self-test of the judge: sh hibernate.sh --judge LABEL KIND DMESG-FILE
# (KIND: none or core).
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=hibernate
. "$CHECKS_DIR/lib.sh"
T=${TMPDIR:-/tmp}/hibernate.$$
mkdir -p "$T"

# judge LABEL KIND FILE: the kernel log of one transition: KIND none, no
# test class callback; core, the 48 of them with state=freeze.  (6.1
# prints "Hibernation image restored successfully" and resumes the devices
# with PMSG_RESTORE after pm_test=core too: no check of that.)
judge() {
	case $2 in
	none) pmtest_judge "$1" none "$3" ;;
	*) pmtest_judge "$1" freeze "$3" ;;
	esac
}

if [ "${1:-}" = "--judge" ]; then
	judge "$2" "$3" "$4" && pass "$2: as expected for $3"
	rm -rf "$T"
	exit $FAILED
fi

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# hibernate LABEL KIND: one "echo disk > /sys/power/state"
hibernate() {
	dmesg -c > /dev/null
	cpus0=$(cat /sys/devices/system/cpu/online)
	u0=$(uptime_s)
	if ! echo disk > /sys/power/state; then
		fail "$1: writing disk to /sys/power/state failed"
		dmesg | grep -iE "fail|error|abort" | tail -n 3
		return 1
	fi
	u1=$(uptime_s)
	cpus1=$(cat /sys/devices/system/cpu/online)
	dmesg > "$T/log"
	info "$1: $(awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%.2f", b - a }')s cpus=$cpus1"
	judge "$1" "$2" "$T/log" || return 1
	[ "$cpus1" = "$cpus0" ] || { fail "$1: CPUs on-line $cpus0 before, $cpus1 after"; return 1; }
	case $2 in
	none) pass "$1: no system device callback" ;;
	*) pass "$1: 48 callbacks in order, state=freeze" ;;
	esac
}

if ! grep -qw disk /sys/power/state; then
	fail "no disk in /sys/power/state (CONFIG_HIBERNATION)"
	exit 0
fi
[ -d /sys/devices/system/pmtest_a ] || { fail "no test classes (CONFIG_SYSDEV_PM_TEST is not set)"; exit 0; }
grep -qw core /sys/power/pm_test || { fail "no pm_test=core (CONFIG_PM_DEBUG)"; exit 0; }
echo 1 > /sys/power/pm_debug_messages

echo processors > /sys/power/pm_test
hibernate "pm_test=processors" none
echo core > /sys/power/pm_test
hibernate "pm_test=core" core
echo none > /sys/power/pm_test

rm -rf "$T"
exit 0
