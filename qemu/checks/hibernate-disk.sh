# A real hibernation in platform mode, across two boots of the same
# kernel (ci/tests/reliability.sh, reliability_hibernate_disk; not in the
# gate, so no "# gate:" line):
#  1. this boot makes the virtio disk /dev/vda its swap, chooses
#     /sys/power/disk = platform and writes "disk" to /sys/power/state: the
#     snapshot (PMSG_FREEZE), the image written to the swap, then the ACPI
#     S4 entry of hibernation_platform_enter() (PMSG_HIBERNATE), at which
#     QEMU powers off;
#  2. the host boots the kernel again with resume=/dev/vda: its boot
#     kernel loads the image and jumps into it (resume_target_kernel(),
#     PMSG_QUIESCE), and this check goes on here, in the first boot's
#     memory, after the write to /sys/power/state returned.
# The host judges the system device callbacks of both boots from the
# console: the boot kernel's lines are not in this kernel's log, nor are
# the S4 entry's, which only a console kept on (no_console_suspend) shows.
. /checks/lib.sh
dev=/dev/vda
[ -b $dev ] || { fail "no $dev: QEMU without the swap disk"; exit 0; }
mkswap $dev > /dev/null && swapon $dev || { fail "mkswap or swapon $dev failed"; exit 0; }
if ! echo platform > /sys/power/disk; then
	fail "platform mode not offered (ACPI S4): $(cat /sys/power/disk)"
	exit 0
fi
echo 1 > /sys/power/pm_debug_messages
# A token only this boot's memory knows: a second boot that did not
# restore the image starts init again and never gets here.
token=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d " \n")
cpus0=$(cat /sys/devices/system/cpu/online)
info "writing the image to $dev, token $token"
if ! echo disk > /sys/power/state; then
	fail "writing disk to /sys/power/state failed"
	dmesg | grep -iE "fail|error|abort" | tail -n 3
	exit 0
fi
info "back from the image, token $token"
dmesg | grep -q "PM: hibernation: Hibernation image restored successfully" ||
	fail "no 'Hibernation image restored successfully' in the log"
cpus1=$(cat /sys/devices/system/cpu/online)
[ "$cpus1" = "$cpus0" ] || fail "CPUs on-line: $cpus0 before, $cpus1 after the restore"
swapoff $dev || fail "swapoff $dev failed"
[ $FAILED -eq 0 ] && pass "image written in platform mode and restored by a second boot"
exit 0
