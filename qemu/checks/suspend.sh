# One real suspend-to-RAM cycle: SeaBIOS S3, woken by the CMOS RTC alarm.
# gate: CONFIG_SUSPEND
. /checks/lib.sh
rtc=/sys/class/rtc/rtc0
grep -qw mem /sys/power/state || { fail "mem not in /sys/power/state: $(cat /sys/power/state)"; exit 0; }
[ -e $rtc/wakealarm ] || { fail "no $rtc/wakealarm"; exit 0; }
echo 1 > /sys/power/pm_debug_messages 2>/dev/null
loc0=$(irq_count LOC); t0=$(irq_count 0); d0=$(date +%s)
echo 0 > $rtc/wakealarm
echo +3 > $rtc/wakealarm
if ! echo mem > /sys/power/state; then
	fail "writing mem to /sys/power/state failed"
	exit 0
fi
sleep 1
loc1=$(irq_count LOC); t1=$(irq_count 0); d1=$(date +%s)
info "LOC $loc0 -> $loc1, IRQ0 $t0 -> $t1, date $d0 -> $d1"
# The cycle as the kernel logged it, for the reader of make run: from the
# last "PM: suspend entry", the transition's own lines and the system
# device callbacks (pm_debug_messages), each as "SYSDEV-CYCLE <line>".
from=$(dmesg | grep -n 'PM: suspend entry' | tail -n 1 | cut -d: -f1)
[ -n "$from" ] || fail "no 'PM: suspend entry' in dmesg"
dmesg | sed -n "${from:-1},\$p" |
	grep -E 'PM: suspend (entry|exit)|ACPI: PM: (Preparing to enter|Low-level resume|Waking up)|sysdev: |sysdev_pm_test: |Enabling non-boot|Disabling non-boot|CPU[0-9]+ is up|Restarting tasks' |
	sed 's/^/SYSDEV-CYCLE /'
# this cycle's, not an earlier transition's: from its suspend entry on
dmesg | sed -n "${from:-1},\$p" | grep -q "ACPI: PM: Low-level resume complete" ||
	fail "no 'Low-level resume complete' after the last 'PM: suspend entry'"
[ "$loc1" -gt "$loc0" ] || fail "local timer interrupts did not advance ($loc0 -> $loc1)"
[ "$d1" -gt "$d0" ] || fail "date did not advance ($d0 -> $d1)"
# Every CPU is back online (suspend offlines the non-boot CPUs).
cpus=/sys/devices/system/cpu
[ "$(cat $cpus/online)" = "$(cat $cpus/possible)" ] ||
	fail "CPUs online after resume: '$(cat $cpus/online)', possible: '$(cat $cpus/possible)'"
[ $FAILED -eq 0 ] && pass "suspend-to-RAM and resume: LOC $loc0 -> $loc1, date +$((d1 - d0))s, CPUs $(cat $cpus/online) online"
