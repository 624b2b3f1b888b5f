# kexec with preserve_context (CONFIG_KEXEC_JUMP), the path of
# kernel_kexec() that suspends and resumes the machine around a jump and
# back (ci/tests/reliability.sh, reliability_kexec_jump; not in the gate,
# so no "# gate:" line).  The host appends Debian's kexec, its libraries
# and /kexec/ret.elf to the initramfs: a program that relocate_kernel
# calls with the MMU on an identity map, which writes the line
# "SYSDEV-JUMP ..." to the first serial port and returns, the jump back.
# 6.12 comes back (6.1 did not: its machine_kexec() left the GDT invalid,
# fixed upstream by "x86/kexec: Restore GDT on return from
# ::preserve_context kexec").  The x86 interrupts-off callbacks must run
# as in any syscore_suspend() and syscore_resume(): once each, in 6.12's
# syscore order (x86_judge); the local timer interrupts must advance
# after it and the CPUs come back.
# 6.12 prints the pm_debug_messages lines (syscore's "Calling", sysdev's)
# only while a suspend or a hibernation is in progress
# (pm_debug_messages_should_print()), which a kexec jump is not; holding
# the hibernation snapshot device open (/dev/snapshot, as uswsusp does)
# counts as one, so the check holds it open across the jump: it needs
# CONFIG_HIBERNATION_SNAPSHOT_DEV (the debug kernel; tinyconfig leaves it
# out of the test kernel) and fails without it.
# kexec -e exits 255 even when the jump came back (kexec-tools' my_exec()
# returns -1 whenever reboot() returns): the host sees the jump in the
# console, the program's line between the way down and the way up.
. /checks/lib.sh
[ -x /kexec/kexec ] || { fail "no /kexec/kexec in the initramfs"; exit 0; }
echo 1 > /sys/power/pm_debug_messages
if [ ! -c /dev/snapshot ] || ! command exec 3< /dev/snapshot; then
	fail "cannot open /dev/snapshot (CONFIG_HIBERNATION_SNAPSHOT_DEV?): the jump's callbacks would print nothing"
	exit 0
fi
if ! /kexec/kexec --load-preserve-context --mem-min=0x2000000 --mem-max=0x2ffffff \
	--args-none /kexec/ret.elf; then
	fail "kexec --load-preserve-context failed"
	exit 0
fi
cpus0=$(cat /sys/devices/system/cpu/online)
dmesg -c > /dev/null
info "jumping"
/kexec/kexec -e
rc=$?
exec 3<&-
info "kexec -e returned $rc"
loc0=$(irq_count LOC)
sleep 0.2
loc1=$(irq_count LOC)
dmesg > /tmp/kexec-jump.log
cpus1=$(cat /sys/devices/system/cpu/online)
[ "$cpus1" = "$cpus0" ] || fail "CPUs on-line: $cpus0 before, $cpus1 after the jump"
[ "$loc1" -gt "$loc0" ] || fail "no local timer interrupt after the jump ($loc0 -> $loc1 in 0.2s)"
x86_judge "kexec jump" cycle /tmp/kexec-jump.log &&
	[ $FAILED -eq 0 ] && pass "kexec jump and back: $(x86_expected | wc -l) x86 callbacks in order"
exit 0
