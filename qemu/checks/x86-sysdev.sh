# x86 system devices of the series: lapic, i8259, timer, lapic_nmi, cmos_rtc.
#
# 1. Each converted class has its device, /sys/devices/system/<class>/
#    <class>0, with a uevent file and a subsystem link to /sys/bus/<class>
#    (the SUBSYSTEM of its uevents), exactly when the hardware condition
#    of its commit holds; /sys/class/rtc/rtc0 is still the RTC class
#    device and there is no bus rtc (a lookup of "rtc0" in the subsystem
#    rtc, which tries /sys/bus/rtc/devices/ first, must still find it).
#    lapic_nmi0 exists exactly when the NMI watchdog is available, which
#    is when /proc/sys/kernel/nmi_watchdog can be written.
#    A class named in sysdev_pm_test.occupy= (a plain subsystem took its
#    name) has no device: its code must say so and fall back to the
#    syscore_ops, whose callbacks then run in the same order; when the
#    lapic falls back, the i8259 must follow it (lapic_resume() masks
#    the PIC, which must resume after it).
#    A class whose conversion is not in this kernel is not expected (an
#    info line says so), so the check runs at every patch of the series:
#    a function only the conversion adds (its init function;
#    i8259A_syscore_resume() for the i8259) is not in /proc/kallsyms, or,
#    for lapic, whose init_lapic_sysfs() is older than the series,
#    lapic_suspend() ran from a syscore_ops in the first cycle below.
#    The devices are checked after that cycle.
# 2. pm_test=core cycles of suspend-to-RAM and hibernation, and a real
#    suspend-to-RAM (SeaBIOS S3, woken by the CMOS RTC alarm), with
#    pm_debug_messages: every lapic/i8259 callback runs once, from the
#    system device when converted (never from a syscore_ops as well), in
#    the order of the commit messages, and afterwards the local timer
#    interrupts and date advance.
#
# Host self-test of the cycle judge: sh x86-sysdev.sh --judge LABEL DMESG-FILE
# gate: CONFIG_SUSPEND file:include/linux/sysdev.h
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=x86-sysdev
. "$CHECKS_DIR/lib.sh"
rtc=/sys/class/rtc/rtc0
sys=/sys/devices/system

# converted INITFN: the conversion is in this kernel
converted() {
	if [ "$1" = init_lapic_sysfs ]; then
		! grep -qx "syscore lapic_suspend" /tmp/x86cb.first 2>/dev/null
	else
		grep -q " $1\$" /proc/kallsyms
	fi
}

# occupied CLASS: sysdev_pm_test.occupy= took the name of CLASS
occupied() {
	sed -n 's/.*sysdev_pm_test\.occupy=\([^ ]*\).*/,\1,/p' /proc/cmdline | grep -q ",$1,"
}

# check_fallback CLASS MESSAGE: the class must use syscore_ops (its name
# was taken, or it follows the lapic), its code said so, and it has no
# device (the cycles check the callbacks)
check_fallback() {
	local cls=$1
	if [ -e "$sys/$cls/${cls}0" ]; then
		fail "$cls: ${cls}0 exists, but it should have fallen back to syscore_ops"
	elif ! grep -q "$2" /tmp/x86boot.dmesg; then
		fail "$cls: no fallback to syscore_ops ('$2' not in the boot log)"
	else
		pass "$cls: no device, fell back to syscore_ops: $2"
	fi
}

# check_dev CLASS INITFN EXPECTED(1/0) WHY
check_dev() {
	local cls=$1 fn=$2 want=$3 why=$4 d=$sys/$1/${1}0 link
	if ! converted "$fn"; then
		if [ "$fn" = init_lapic_sysfs ]; then
			info "$cls: not a system device in this kernel (lapic_suspend is a syscore_ops)"
		else
			info "$cls: not a system device in this kernel (no $fn)"
		fi
		return
	fi
	if [ "$want" = 0 ]; then
		if [ -e "$d" ]; then
			fail "$cls: $d exists but $why"
		else
			pass "$cls: no device, as expected: $why"
		fi
		return
	fi
	[ -d "$d" ] || { fail "$cls: $d missing ($why)"; return; }
	# The uevent file lists the device's own keys; SUBSYSTEM, which the
	# emitted uevents carry, is the name of the bus: the subsystem link.
	[ -r "$d/uevent" ] || { fail "$cls: no $d/uevent"; return; }
	if grep -q "^SUBSYSTEM=" "$d/uevent" && ! grep -qx "SUBSYSTEM=$cls" "$d/uevent"; then
		fail "$cls: $d/uevent: $(grep '^SUBSYSTEM=' "$d/uevent")"; return
	fi
	link=$(readlink "$d/subsystem")
	case "$link" in
	*/bus/$cls) ;;
	*) fail "$cls: $d/subsystem -> '$link', not .../bus/$cls"; return ;;
	esac
	[ -e /sys/bus/$cls/devices/${cls}0 ] ||
		{ fail "$cls: /sys/bus/$cls/devices/${cls}0 missing"; return; }
	pass "$cls: ${cls}0 present ($why)"
}

# 1. devices (called after the first power transition)
check_devices() {
	if occupied lapic; then
		check_fallback lapic "APIC: no lapic system device (-17), using syscore_ops"
	elif grep -qw apic /proc/cpuinfo; then
		check_dev lapic init_lapic_sysfs 1 "the CPU has a local APIC"
	else
		check_dev lapic init_lapic_sysfs 0 "the CPU has no local APIC"
	fi
	if occupied lapic; then
		check_fallback i8259 "i8259: the local APIC uses syscore_ops, so does the PIC"
	elif occupied i8259; then
		check_fallback i8259 "i8259: no system device (-17), using syscore_ops"
	elif grep -q "Using NULL legacy PIC" /tmp/x86boot.dmesg; then
		check_dev i8259 i8259A_syscore_resume 0 "no legacy PIC (NULL legacy PIC)"
	else
		check_dev i8259 i8259A_syscore_resume 1 "the legacy 8259 PIC is in use"
	fi
	if awk '$1 == "0:" && $NF == "timer" { f = 1 } END { exit !f }' /proc/interrupts; then
		check_dev timer timer_sysdev_init 1 "PIT or HPET drives IRQ 0"
	else
		check_dev timer timer_sysdev_init 0 "no PIT/HPET timer on IRQ 0"
	fi
	# The sysctl refuses a write (-ENOTSUPP) when the watchdog is not
	# available; writing its own value back changes nothing otherwise.
	if cat /proc/sys/kernel/nmi_watchdog 2>/dev/null > /tmp/nmiwd &&
	   cat /tmp/nmiwd > /proc/sys/kernel/nmi_watchdog 2>/dev/null; then
		check_dev lapic_nmi lapic_nmi_sysdev_init 1 "the NMI watchdog is available (nmi_watchdog=$(cat /tmp/nmiwd))"
	else
		check_dev lapic_nmi lapic_nmi_sysdev_init 0 "no NMI watchdog available: $(grep -m1 -o 'NMI watchdog.*\|PMU not available[^.]*' /tmp/x86boot.dmesg | tr -d '\r')"
	fi
	if grep -q "^rtc_cmos" $rtc/name 2>/dev/null; then
		check_dev cmos_rtc rtc_sysdev_init 1 "the CMOS RTC is $rtc"
	else
		fail "rtc: $rtc is not the CMOS RTC, no expectation"
	fi
	# The RTC class device must not change.
	if [ -e $rtc ]; then
		case "$(readlink $rtc/subsystem)" in
		*/class/rtc) [ -e $rtc/since_epoch ] && [ -e $rtc/wakealarm ] &&
			pass "rtc: $rtc is still the RTC class device ($(cat $rtc/name))" ||
			fail "rtc: $rtc lost its RTC class attributes" ;;
		*) fail "rtc: $rtc/subsystem -> $(readlink $rtc/subsystem)" ;;
		esac
	fi
	if [ -e /sys/bus/rtc ]; then
		fail "rtc: /sys/bus/rtc exists: (rtc, rtc0) would name $(ls /sys/bus/rtc/devices | tr '\n' ' ')before $rtc"
	else
		pass "rtc: no bus rtc next to the RTC class"
	fi
}

# 2. power transitions
# cb_lines: the syscore and system device callbacks of the last cycle, one
# per line: "syscore FN", "sysdev FN DEV", or "MARK" between down and up.
# The callbacks of CONFIG_SYSDEV_PM_TEST (sdpm_*: the test classes' own,
# and their global driver's on every system device) are left out: the
# x86 order is judged among the x86 callbacks.
klog() { if [ -n "${X86_DMESG:-}" ]; then cat "$X86_DMESG"; else dmesg; fi; }
cb_lines() {
	klog | tr -d '\r' | sed -n -E \
		-e '/sysdev: (suspend|resume) .* sdpm_[a-z_]+/d' \
		-e 's/.*\] Calling (lapic|i8259A)_syscore_([a-z]+)\+.*/syscore \1_\2/p' \
		-e 's/.*\] Calling ([A-Za-z0-9_]+)\+.*/syscore \1/p' \
		-e 's/.*sysdev: (suspend|resume) ([a-z0-9_]+) (class|driver) ([A-Za-z0-9_]+).*/sysdev \4 \2/p' \
		-e 's/.*(debug: Waiting for|ACPI: PM: Low-level resume complete).*/MARK/p'
}

# pos FN: line number of the callback FN in /tmp/x86cb, or nothing
pos() { awk -v f="$1" '$2 == f { print NR; exit }' /tmp/x86cb; }

# before NAME A B: callback A ran before B (both must have run)
before() {
	local a b
	a=$(pos "$2"); b=$(pos "$3")
	[ -n "$a" ] || { fail "$1: $2 not called"; return 1; }
	[ -n "$b" ] || { fail "$1: $3 not called"; return 1; }
	[ "$a" -lt "$b" ] || { fail "$1: $2 ran after $3"; return 1; }
}

check_cycle() {
	local name=$1 m n f dup
	cb_lines > /tmp/x86cb
	m=$(grep -n -m1 '^MARK$' /tmp/x86cb | cut -d: -f1)
	[ -n "$m" ] || { fail "$name: no suspend/resume marker in dmesg"; return; }
	n=$(grep -c -v MARK /tmp/x86cb)
	info "$name: $(grep -v MARK /tmp/x86cb | awk '{ printf "%s%s ", $2, ($1 == "sysdev" ? "[" $3 "]" : "") }')"
	# every callback once for each device, and never from both a
	# syscore_ops and a system device
	dup=$(grep -v MARK /tmp/x86cb | awk '{ print $2 ($3 ? "[" $3 "]" : "") }' | sort | uniq -d | head -n 3 | tr '\n' ' ')
	[ -z "$dup" ] || fail "$name: callbacks run twice: $dup"
	for f in lapic_suspend lapic_resume i8259A_suspend i8259A_resume; do
		if grep -q "^sysdev $f " /tmp/x86cb && grep -q "^syscore $f\$" /tmp/x86cb; then
			fail "$name: $f runs from a syscore_ops and a system device"
		fi
	done
	# down: system devices after every syscore_ops; up: before them
	awk -v m="$m" 'NR < m && $1 == "syscore" { s = NR } NR < m && $1 == "sysdev" && !d { d = NR }
		NR > m && $1 == "sysdev" { u = NR } NR > m && $1 == "syscore" && !r { r = NR }
		END { exit !((!d || !s || s < d) && (!u || !r || u < r)) }' /tmp/x86cb ||
		fail "$name: system devices not after the syscore_ops on suspend / before them on resume"
	# the x86 order of the commit messages (holds before and after each
	# conversion): down ... ioapic, i8259, lapic; up lapic, i8259, ioapic ...
	[ -n "${X86_DMESG:-}" ] || grep -qw apic /proc/cpuinfo ||
		{ pass "$name: $n callbacks (no local APIC)"; return; }
	before "$name" save_ioapic_entries lapic_suspend &&
	before "$name" timekeeping_suspend lapic_suspend &&
	before "$name" lapic_resume ioapic_resume &&
	before "$name" lapic_resume timekeeping_resume || return
	[ "$(awk -v m="$m" 'NR < m && ($1 == "syscore" || $1 == "sysdev") { l = $2 } END { print l }' /tmp/x86cb)" = lapic_suspend ] ||
		{ fail "$name: lapic_suspend is not the last x86 suspend callback"; return; }
	[ "$(awk -v m="$m" 'NR > m { print $2; exit }' /tmp/x86cb)" = lapic_resume ] ||
		{ fail "$name: lapic_resume is not the first resume callback"; return; }
	if [ -n "$(pos i8259A_suspend)" ]; then
		before "$name" i8259A_suspend lapic_suspend &&
		before "$name" lapic_resume i8259A_resume &&
		before "$name" i8259A_resume ioapic_resume || return
	fi
	pass "$name: $n callbacks in order"
}

# after_cycle NAME LOC0 DATE0: timers run after the cycle
after_cycle() {
	local loc1 d1
	sleep 1
	loc1=$(irq_count LOC); d1=$(date +%s)
	[ "$loc1" -gt "$2" ] || fail "$1: local timer interrupts did not advance ($2 -> $loc1)"
	[ "$d1" -gt "$3" ] || fail "$1: date did not advance ($3 -> $d1)"
	[ "$loc1" -gt "$2" ] && [ "$d1" -gt "$3" ] &&
		pass "$1: LOC $2 -> $loc1, date +$((d1 - $3))s"
}

if [ "${1:-}" = "--judge" ]; then
	X86_DMESG=$3 check_cycle "$2" > "${TMPDIR:-/tmp}/x86judge.$$"
	cat "${TMPDIR:-/tmp}/x86judge.$$"
	! grep -q " FAIL " "${TMPDIR:-/tmp}/x86judge.$$"
	rc=$?
	rm -f "${TMPDIR:-/tmp}/x86judge.$$"
	exit $rc
fi

dmesg > /tmp/x86boot.dmesg	# the boot messages, before dmesg -c
echo 1 > /sys/power/pm_debug_messages 2>/dev/null
echo 0 > /sys/module/suspend/parameters/pm_test_delay 2>/dev/null

if grep -qw mem /sys/power/state && grep -qw core /sys/power/pm_test 2>/dev/null; then
	dmesg -c > /dev/null
	loc0=$(irq_count LOC); d0=$(date +%s)
	echo core > /sys/power/pm_test
	if echo mem > /sys/power/state; then
		echo none > /sys/power/pm_test
		check_cycle "pm_test=core mem"
		after_cycle "pm_test=core mem" "$loc0" "$d0"
		cp /tmp/x86cb /tmp/x86cb.first
	else
		echo none > /sys/power/pm_test
		fail "pm_test=core: writing mem to /sys/power/state failed"
	fi
else
	fail "pm_test=core mem: not available"
fi

check_devices

if grep -qw disk /sys/power/state && grep -qw core /sys/power/pm_test 2>/dev/null; then
	dmesg -c > /dev/null
	loc0=$(irq_count LOC); d0=$(date +%s)
	echo core > /sys/power/pm_test
	if echo disk > /sys/power/state; then
		echo none > /sys/power/pm_test
		check_cycle "pm_test=core disk"
		after_cycle "pm_test=core disk" "$loc0" "$d0"
	else
		echo none > /sys/power/pm_test
		fail "pm_test=core: writing disk to /sys/power/state failed"
	fi
else
	fail "pm_test=core disk: not available"
fi

if grep -qw mem /sys/power/state && [ -e $rtc/wakealarm ]; then
	dmesg -c > /dev/null
	loc0=$(irq_count LOC); d0=$(date +%s)
	echo 0 > $rtc/wakealarm
	echo +3 > $rtc/wakealarm
	if echo mem > /sys/power/state; then
		check_cycle "suspend-to-RAM"
		after_cycle "suspend-to-RAM" "$loc0" "$d0"
	else
		fail "suspend-to-RAM: writing mem to /sys/power/state failed"
	fi
else
	fail "suspend-to-RAM: no mem state or RTC wakealarm"
fi
exit 0
