# v9 system devices on Linux 6.12 (WIP check, not yet in the gate):
# 1. the classes of the series have their devices, each with a uevent
#    file and a subsystem link, and hugetlb's hugepages/ directory is on
#    node0 (it comes from a driver of the class node);
# 2. in a pm_test=core cycle of suspend-to-RAM, with pm_debug_messages,
#    the lapic and i8259 callbacks run once each, from their classes, at
#    the places of lapic_syscore and i8259_syscore in 6.12: down,
#    ioapic_suspend, the PIC, acpi_save_bm_rld, then the local APIC; up,
#    the local APIC, acpi_restore_bm_rld, irqrouter_resume (ACPI's _SRS),
#    the PIC, then ioapic_resume.
. /checks/lib.sh
sys=/sys/devices/system
for d in lapic/lapic0 i8259/i82590 cpu/cpu0 node/node0; do
	if [ -e "$sys/$d/uevent" ] && [ -L "$sys/$d/subsystem" ]; then
		info "$sys/$d -> $(readlink "$sys/$d/subsystem")"
	else
		fail "no system device $sys/$d"
	fi
done
[ -d "$sys/node/node0/hugepages" ] || fail "no $sys/node/node0/hugepages"

echo 1 > /sys/power/pm_debug_messages
echo 0 > /sys/module/suspend/parameters/pm_test_delay 2>/dev/null
echo core > /sys/power/pm_test
mark="v9-order-$$"
echo "$mark" > /dev/kmsg
echo mem > /sys/power/state || fail "pm_test=core suspend-to-RAM failed"
echo none > /sys/power/pm_test
log=/tmp/v9-order.log
dmesg | sed -n "/$mark/,\$p" > $log
# the callbacks in the order they ran: syscore's "Calling <fn>+0x.../..."
# and sysdev's "sysdev: suspend <dev> class <fn>+0x.../...", as function
# names (sysdev_syscore_* are the classes' own entries, left out)
sed -n -E 's/.*\] (Calling |sysdev: (suspend|resume) [^ ]+ (class|driver|global) )([A-Za-z0-9_.]+)\+.*/\4/p' $log |
	grep -v '^sysdev_syscore_' > $log.seq
info "callbacks: $(tr '\n' ' ' < $log.seq)"
order() { # WANT...: the names appear once each, in this order
	got=$(grep -x -E "$(echo "$@" | tr ' ' '|')" $log.seq | tr '\n' ' ')
	[ "$got" = "$* " ] || fail "order: want '$*', got '$got'"
}
order ioapic_suspend i8259A_dev_suspend acpi_save_bm_rld lapic_dev_suspend \
	lapic_dev_resume acpi_restore_bm_rld irqrouter_resume \
	i8259A_dev_resume ioapic_resume
for f in lapic_suspend lapic_resume i8259A_suspend i8259A_resume; do
	grep -qx "$f" $log.seq && fail "$f ran from syscore"
done
[ $FAILED -eq 0 ] && pass "classes and their order: $(wc -l < $log.seq) callbacks in the cycle"
