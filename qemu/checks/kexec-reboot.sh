# A plain kexec reboot (kernel_kexec() without preserve_context), which
# on 6.12 runs syscore_shutdown() before the new kernel (6.1 did not):
# the i8259's shutdown() must run there (ci/tests/reliability.sh,
# reliability_kexec_jump, judges the order from the console; not in the
# gate, so no "# gate:" line).  The host appends Debian's kexec with its
# libraries, the kernel it boots as /kexec/bzImage and the test initramfs
# as /kexec/initrd.  The first kernel loads them with its own command line,
# sysdev_checks=kexec-reboot and a token only it knows, and reboots into
# them; in the new kernel this check finds the token and passes.  If the
# reboot returns or the new kernel does not run the check, there is no
# PASS.
. /checks/lib.sh
if [ -n "${sysdev_kexec_token:-}" ]; then
	pass "booted by a kexec reboot, token $sysdev_kexec_token"
	exit 0
fi
for f in /kexec/kexec /kexec/bzImage /kexec/initrd; do
	[ -e $f ] || { fail "no $f in the initramfs"; exit 0; }
done
token=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d " \n")
cmdline="$(sed 's/sysdev_checks=[^ ]*/sysdev_checks=kexec-reboot/' /proc/cmdline) sysdev_kexec_token=$token"
if ! /kexec/kexec -l /kexec/bzImage --initrd=/kexec/initrd --command-line="$cmdline"; then
	fail "kexec -l /kexec/bzImage failed"
	exit 0
fi
sync
info "rebooting with kexec, token $token"
/kexec/kexec -e
fail "kexec -e returned $?"
exit 0
