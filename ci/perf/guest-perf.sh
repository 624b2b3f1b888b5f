# Guest side of ci/perf/run-perf.sh (busybox sh), installed as
# /checks/perf.sh in the perf initramfs.  Kernel command line:
#   perf_module=1     load /perf/sysdev_perf.ko (registration timings)
#   perf_module_args=reps=R,count=N   its parameters, joined by commas
#   perf_cycles=N     N pm_test=core suspend cycles, then N real
#                     suspend-to-RAM cycles woken by the RTC (0: none)
# The markers go to /dev/kmsg, so that they carry the kernel timestamp and
# sit in order with the "PM: suspend entry"/"PM: suspend exit" lines that
# the host times.  The kernel runs with "quiet" (no console output in the
# timed paths); at the end the whole kernel log is dumped to the console
# for the host's parser and for qemu/check-log.sh.
. /checks/lib.sh
mark() { echo "SYSDEV-PERF $*" > /dev/kmsg; }
rtc=/sys/class/rtc/rtc0

if [ "${perf_module:-0}" = 1 ]; then
	# the kernel command line carries the module's parameters joined by
	# commas (perf_module_args=reps=3,count=10000)
	if insmod /perf/sysdev_perf.ko $(echo "${perf_module_args:-}" | tr , " "); then
		mark "module loaded"
	else
		fail "insmod sysdev_perf.ko failed"
	fi
fi

cycles=${perf_cycles:-0}
if [ "$cycles" -gt 0 ]; then
	# pm_test=core: everything up to and including the syscore and system
	# device callbacks, without the firmware; no test delay.
	delay=/sys/module/suspend/parameters/pm_test_delay
	[ -w $delay ] && echo 0 > $delay
	mark "pm_test_delay $(cat $delay 2>/dev/null || echo missing)"
	echo core > /sys/power/pm_test || fail "cannot set pm_test core"
	mark "phase core"
	i=0
	while [ $i -lt "$cycles" ]; do
		echo mem > /sys/power/state || fail "pm_test core cycle $i failed"
		i=$((i + 1))
	done
	echo none > /sys/power/pm_test
	mark "phase mem"
	i=0
	while [ $i -lt "$cycles" ]; do
		echo 0 > $rtc/wakealarm
		echo +3 > $rtc/wakealarm
		echo mem > /sys/power/state || fail "suspend-to-RAM cycle $i failed"
		i=$((i + 1))
	done
	mark "phase end"
fi
echo "SYSDEV-PERF-DMESG-BEGIN"
dmesg
echo "SYSDEV-PERF-DMESG-END"
[ $FAILED -eq 0 ] && pass "module=${perf_module:-0} cycles=$cycles"
