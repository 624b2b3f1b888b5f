# Allocation failures in the registration of system devices: load
# /fault/sysdev_fault.ko (ci/tests/sysdev_fault, added to the initramfs by
# the reliability_fault test) with /proc/self/fail-nth = 1, 2, 3, ... so
# that each slab allocation of the loading task fails in turn (failslab,
# ignore-gfp-wait off, silent).  The count starts in execve() of busybox:
# "exec insmod" of the applet would fork first, and a child starts with
# fail-nth 0.  After every load:
#  - a failed load leaves nothing: no /sys/bus/sdfault, no
#    /sys/devices/system/sdfault, no module, and the module's own line
#    says its driver got as many remove() as add() calls;
#  - a successful load has the three devices, and unloads cleanly.
# The loop ends when each registration step that allocates (class, device
# 0, device 1, device 2; sysdev_driver_register() only links the driver
# and calls add()) has failed at least once and 20 loads in a row have
# succeeded (n then lies beyond the last allocation of the load); it fails
# if that has not happened at n = 3000.  Leaks are the job of the check
# kmemleak, to run after this one ("fault,kmemleak").  Needs
# CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS and the module
# (the debug kernel, ci/configs/debug.config); FAIL without them.
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

steps=""
n=0 ok_run=0 loads=0 bad=0
all_steps() {
	for s in class "device 0" "device 1" "device 2"; do
		case "$steps" in *"$s"*) ;; *) return 1 ;; esac
	done
}
while { [ $ok_run -lt 20 ] || ! all_steps; } && [ $n -lt 3000 ]; do
	n=$((n + 1))
	dmesg -c > /dev/null
	sh -c "echo $n > /proc/self/fail-nth && exec /bin/busybox insmod $ko" 2>/dev/null
	rc=$?
	# busybox insmod tries init_module() after a failed finit_module(), so
	# one load can run the init twice: judge every line of the module.
	dmesg | grep -o 'sysdev_fault: .*' > $T.lines
	grep ' failed: ' $T.lines > $T.failed
	while read -r l; do
		case "$l" in
		*" failed: "*", adds 0, released after "[0-9]*" ms")
			s=${l#sysdev_fault: }
			s=${s%% failed:*}
			case " $steps " in *" $s "*) ;; *) steps="$steps $s" ;; esac ;;
		*) fail "n=$n: the init failed and left driver calls: '$l'"; bad=1 ;;
		esac
	done < $T.failed
	line=$(tail -n 1 $T.lines)
	if [ $rc -eq 0 ]; then
		loads=$((loads + 1))
		if [ -s $T.failed ]; then ok_run=0; else ok_run=$((ok_run + 1)); fi
		for i in 0 1 2; do
			[ -d /sys/devices/system/sdfault/sdfault$i ] ||
				{ fail "n=$n: loaded, but no sdfault$i"; bad=1; }
		done
		case "$line" in
		*"registered, adds 3") ;;
		*) fail "n=$n: loaded, module says '$line'"; bad=1 ;;
		esac
		rmmod sysdev_fault || { fail "n=$n: rmmod failed"; bad=1; }
		line=$(dmesg | grep -o 'sysdev_fault: .*' | tail -n 1)
		case "$line" in
		*"unregistered, adds 0, released after "[0-9]*" ms") ;;
		*) fail "n=$n: unloaded, module says '$line'"; bad=1 ;;
		esac
	else
		ok_run=0
		case "$line" in
		""|*" failed: "*) ;;
		*) fail "n=$n: the load failed (exit $rc), module says '$line'"; bad=1 ;;
		esac
	fi
	for d in /sys/bus/sdfault /sys/devices/system/sdfault; do
		[ -e $d ] && { fail "n=$n: $d left behind (load exit $rc)"; bad=1; }
	done
	grep -q '^sysdev_fault ' /proc/modules &&
		{ fail "n=$n: module still loaded"; bad=1; rmmod sysdev_fault; }
	[ $bad -eq 0 ] || break
done
echo 0 > /proc/self/fail-nth
rm -f $T.lines $T.failed
info "$n loads with fail-nth, $loads succeeded; failed steps:$steps"
if [ $bad -eq 0 ]; then
	[ $ok_run -ge 20 ] || fail "no end: a load still failed at fail-nth $n"
	for s in class "device 0" "device 1" "device 2"; do
		case "$steps" in
		*"$s"*) ;;
		*) fail "no injected failure reached the step '$s'" ;;
		esac
	done
	case "$steps" in
	*driver*) fail "sysdev_driver_register() failed, but allocates nothing" ;;
	esac
	[ $FAILED -eq 0 ] && pass "every allocating registration step failed at least once, nothing left behind ($n loads)"
fi
