# Hibernation and the system device callbacks: the 9 x86 interrupts-off
# callbacks (x86_judge in lib.sh) in each of:
#  1. pm_test=processors: the transition stops before syscore, so none of
#     them may run.
#  2. pm_test=core: create_image() runs syscore_suspend() and, without
#     taking the snapshot, syscore_resume(): one cycle in order.
#  3. with hibernate_swap=DEV on the kernel command line (a block device
#     to swap the image to, e.g. the debug kernel's /dev/ram0): a real image
#     in the mode test_resume: the snapshot, the image written to DEV as
#     swap, read back and restored in the same boot (resume_target_kernel()).
#     6.12 can (6.1 failed with EBUSY after writing the image: swsusp_check()
#     opened the swap device exclusively).  The kernel log is restored with
#     the rest of the memory, so this boot's dmesg afterwards holds the way
#     down to the snapshot ("Creating image:") and the way up in the
#     restored image, one cycle, and not what the first pass printed after
#     the snapshot ("Image saving done"); the image read back and the
#     restore's own way down reach only a console kept on.  The real image
#     across two boots in platform mode is qemu/checks/hibernate-disk.sh's.
# After each: the write returned 0 and the CPUs on-line came back.
# Boot with "pm_debug_messages initcall_debug".
# Not in the gate (a hibernation costs TCG time): ci/tests/reliability.sh.
#
# Host self-test of the judge: sh hibernate.sh --judge LABEL KIND DMESG-FILE
# (KIND: none, core or image; X86_CONVERTED names the converted classes).
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=hibernate
. "$CHECKS_DIR/lib.sh"
T=${TMPDIR:-/tmp}/hibernate.$$
mkdir -p "$T"

restored='PM: hibernation: Hibernation image restored successfully'

# judge LABEL KIND FILE: the kernel log of one transition: KIND none, no
# x86 callback; core, one cycle of them; image, one cycle in a log that
# the restored image's memory brought back: a snapshot was taken, the
# image says it was restored, and the first pass's "Image saving done" is
# gone.  (6.12 prints "Hibernation image restored successfully" after
# pm_test=processors and core too, where no image was made.)
judge() {
	case $2 in
	none) x86_judge "$1" none "$3" ;;
	core) x86_judge "$1" cycle "$3" ;;
	image)
		x86_judge "$1" cycle "$3" || return 1
		if ! grep -q "PM: hibernation: Creating image:" "$3"; then
			fail "$1: no 'Creating image:': no snapshot was taken"
			return 1
		elif ! grep -q "$restored" "$3"; then
			fail "$1: no '$restored'"
			return 1
		elif grep -q "PM: Image saving done" "$3"; then
			fail "$1: 'Image saving done' in the log: this is the first pass's log, not the restored image's"
			return 1
		fi
		;;
	*) fail "$1: unknown kind $2"; return 1 ;;
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
	none) pass "$1: no x86 interrupts-off callback" ;;
	core) pass "$1: $(x86_expected | wc -l) x86 callbacks in order" ;;
	image) pass "$1: image written to $dev and restored, $(x86_expected | wc -l) x86 callbacks in order" ;;
	esac
}

if ! grep -qw disk /sys/power/state; then
	fail "no disk in /sys/power/state (CONFIG_HIBERNATION)"
	exit 0
fi
grep -qw core /sys/power/pm_test || { fail "no pm_test=core (CONFIG_PM_DEBUG)"; exit 0; }
echo 1 > /sys/power/pm_debug_messages

echo processors > /sys/power/pm_test
hibernate "pm_test=processors" none
echo core > /sys/power/pm_test
hibernate "pm_test=core" core
echo none > /sys/power/pm_test

dev=${hibernate_swap:-}
if [ -z "$dev" ]; then
	info "no real image: no hibernate_swap=DEV on the kernel command line"
elif [ ! -b "$dev" ]; then
	fail "hibernate_swap=$dev: no such block device"
elif ! mkswap "$dev" > /dev/null || ! swapon "$dev"; then
	fail "mkswap or swapon $dev failed"
else
	mode=$(cat /sys/power/disk)
	if echo test_resume > /sys/power/disk; then
		hibernate "test_resume" image
	else
		fail "test_resume not in /sys/power/disk: $mode"
	fi
	echo platform > /sys/power/disk 2>/dev/null || echo shutdown > /sys/power/disk
	swapoff "$dev" || fail "swapoff $dev failed"
fi

rm -rf "$T"
exit 0
