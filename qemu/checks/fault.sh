# Allocation failures in the registration of system devices: load
# /fault/sysdev_fault.ko (ci/tests/sysdev_fault, added to the initramfs by
# the reliability_fault test) once.  Its init registers a class, a driver
# and three devices again and again with the n-th slab allocation of that
# registration failing, n = 1, 2, 3, ... (current->fail_nth; failslab with
# ignore-gfp-wait off, silent), checks after each run that a failed
# registration left nothing (no /sys/bus/sdfault, no
# /sys/devices/system/sdfault, no add() without its remove()) and that a
# successful one has its three devices and unregisters cleanly, until each
# step that allocates has failed and 20 runs in a row have succeeded; then
# it waits for the driver core's delayed releases and prints
# "sysdev_fault: done: ..., N errors", each error on a line of its own.
# Leaks are the job of the check kmemleak, to run after this one
# ("fault,kmemleak").  Needs CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS
# and the module (the debug kernel, ci/configs/debug.config); FAIL without
# them.
. /checks/lib.sh
ko=/fault/sysdev_fault.ko
fs=/sys/kernel/debug/failslab
[ -e $fs ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
for f in $ko $fs /proc/self/fail-nth; do
	[ -e $f ] || { fail "no $f"; exit 0; }
done
echo N > $fs/ignore-gfp-wait
echo 0 > $fs/verbose
T=/tmp/fault.$$

dmesg -c > /dev/null
insmod $ko || fail "insmod $ko failed"
dmesg | grep -o 'sysdev_fault: .*' > $T.lines
grep 'sysdev_fault: error: ' $T.lines > $T.errors
while read -r l; do fail "${l#sysdev_fault: error: }"; done < $T.errors
done_line=$(grep 'sysdev_fault: done: ' $T.lines | tail -n 1)
steps=$(grep -o ': [a-z0-9 ]* failed: ' $T.lines | sed 's/^: //; s/ failed: $//' | sort | uniq -c | tr -s ' \n' ' ')
info "${done_line#sysdev_fault: }; failures per step:$steps"
rmmod sysdev_fault || fail "rmmod sysdev_fault failed"
rm -f $T.lines $T.errors
case "$done_line" in
"") fail "the module printed no 'done' line" ;;
*", 0 errors") [ $FAILED -eq 0 ] && pass "every allocating registration step failed, nothing left behind (${done_line#sysdev_fault: done: })" ;;
*) fail "${done_line#sysdev_fault: }" ;;
esac
