# kexec with preserve_context (CONFIG_KEXEC_JUMP), the path of
# kernel_kexec() that suspends and resumes the machine around a jump and
# back (ci/tests/reliability.sh, reliability_kexec_jump; not in the gate,
# so no "# gate:" line).  The host appends Debian's kexec, its libraries
# and /kexec/ret.elf to the initramfs: a program of one instruction, ret,
# which relocate_kernel calls with the MMU on an identity map and which
# returns at once, the jump back.  The test classes' callbacks must run
# as for a hibernation snapshot: save and suspend with state=freeze, then
# resume and restore, 48 lines in order; the CPUs must all come back.
. /checks/lib.sh
[ -x /kexec/kexec ] || { fail "no /kexec/kexec in the initramfs"; exit 0; }
echo 1 > /sys/power/pm_debug_messages
if ! /kexec/kexec --load-preserve-context --mem-min=0x2000000 --mem-max=0x2ffffff \
	--args-none /kexec/ret.elf; then
	fail "kexec --load-preserve-context failed"
	exit 0
fi
cpus0=$(cat /sys/devices/system/cpu/online)
dmesg -c > /dev/null
/kexec/kexec -e
info "kexec -e returned $?"
dmesg > /tmp/kexec-jump.log
cpus1=$(cat /sys/devices/system/cpu/online)
[ "$cpus1" = "$cpus0" ] || fail "CPUs on-line: $cpus0 before, $cpus1 after the jump"
pmtest_judge "kexec jump" freeze /tmp/kexec-jump.log &&
	pass "kexec jump and back: 48 callbacks in order, state=freeze"
exit 0
