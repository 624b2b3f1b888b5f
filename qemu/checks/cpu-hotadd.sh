# CPU hot-add into a node without CPUs or memory, in QEMU's "hotadd"
# topology (scripts/lib.sh qemu_argv: node 2 empty, the CPU of socket 2
# pluggable into it).  The guest asks the host for the CPU by printing
# "SYSDEV-HOTADD cpu 2" on the console; qemu/qmp-hotadd.py plugs it
# through QMP, ACPI tells the kernel (acpi_processor_hotadd_init() ->
# register_cpu(): cpu2, a system device of the class cpu, off-line).
# Writing 1 to its online brings it up on node 2, which registers node2
# (cpu_up() -> try_online_node() -> __register_one_node(), with
# CONFIG_MEMORY_HOTPLUG) under the CPU's device lock.
#
# What each device has when user space hears of it is read by the uevent
# helper (the test kernel has no networking, so no netlink), which the
# kernel starts for each event without waiting for it, milliseconds
# later: a file made microseconds after the event, as unpatched 6.12
# makes all of these but hotplug/, is there by then too.  So a pass says
# "there when user space looked", and only a missing file fails; the
# order against the event is the construction's (sys_device_register()
# sends KOBJ_ADD after the drivers' add(), which the KUnit suite checks),
# and for hugepages/ of a hot-added node hotadd.sh's kobject order judge.
# The series adds, before the add event:
#   cpu2:  hotplug/ (a default group of the CPU devices; unpatched 6.12
#          never gives it to a hot-added CPU) and
#          power/pm_qos_resume_latency_us (the cpu class's driver);
#   node2: hugepages/ (hugetlb's node driver), compact (a default group
#          of the node devices) and the link cpu2 (the node class's
#          driver).
# cpu2 cannot have its link node2 at its own add event: node2 is not
# on-line then (register_cpu_dev_under_node() makes no link), and is
# registered only when cpu2 comes up; both links are checked then.
# Then cpu2 goes off-line and on-line again through its hotplug/target,
# whose state must read back as cpu0's.
#
# Host self-test of the judge: sh cpu-hotadd.sh --judge FILE (a record of
# the helper, lines "SEQNUM ACTION DEVPATH: FILE...").
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=cpu-hotadd
. "$CHECKS_DIR/lib.sh"
sys=/sys/devices/system
rec=/tmp/cpu-hotadd.uevents
helper=/sys/kernel/uevent_helper

# The files each add event must find, "DEVPATH FILE...".
want="/devices/system/cpu/cpu2 hotplug/state power/pm_qos_resume_latency_us
/devices/system/node/node2 hugepages compact cpu2"

# judge FILE: every add event of want's devices recorded once, with its
# files.
judge() {
	echo "$want" | while read -r dev files; do
		n=$(grep -c " add $dev:" "$1")
		[ "$n" -eq 1 ] || { echo "$n add events of $dev"; continue; }
		have=$(grep " add $dev:" "$1" | sed 's/^[^:]*://')
		for f in $files; do
			case " $have " in
			*" $f "*) ;;
			*) echo "$dev had no $f at its add event (had:$have)" ;;
			esac
		done
	done
}

if [ "${1:-}" = "--judge" ]; then
	out=$(judge "$2")
	if [ -z "$out" ]; then pass "every file there at its add event"; else fail "$(echo "$out" | tr '\n' ';')"; fi
	exit $FAILED
fi

# wait_for TEST SECONDS: sh test TEST holds within SECONDS, or fail.
wait_for() {
	i=0
	while [ $i -lt $(($2 * 5)) ]; do
		eval "$1" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	fail "not within $2 s: $1"
	return 1
}

[ -w $helper ] || { fail "no $helper (CONFIG_UEVENT_HELPER)"; exit 0; }
[ -e $sys/cpu/cpu2 ] && { fail "cpu2 registered at boot: not the hotadd topology"; exit 0; }
[ -e $sys/node/node2 ] && { fail "node2 registered at boot: not the hotadd topology"; exit 0; }
dmesg | grep -q "Hypervisor detected: VMware" ||
	{ fail "no VMware detected, so no pluggable CPU counted: $(dmesg | grep -i 'hotplug CPU\|hypervisor' | tr '\n' ';')"; exit 0; }

: > $rec
cat > /tmp/cpu-hotadd-helper.sh <<EOF
#!/bin/sh
case "\$ACTION \$DEVPATH" in
"add /devices/system/cpu/cpu2"|"add /devices/system/node/node2") ;;
*) exit 0 ;;
esac
have=
for f in hotplug/state power/pm_qos_resume_latency_us node2 hugepages compact cpu2; do
	[ -e "/sys\$DEVPATH/\$f" ] && have="\$have \$f"
done
echo "\$SEQNUM \$ACTION \$DEVPATH:\$have" >> $rec
EOF
chmod 755 /tmp/cpu-hotadd-helper.sh
echo /tmp/cpu-hotadd-helper.sh > $helper

echo "SYSDEV-HOTADD cpu 2"
if wait_for "[ -e $sys/cpu/cpu2/online ]" 60; then
	wait_for "dmesg | grep -q 'CPU2 has been hot-added'" 10
	wait_for "grep -q ' add /devices/system/cpu/cpu2:' $rec" 10
	[ "$(cat $sys/cpu/cpu2/online)" = 0 ] || fail "cpu2 on-line before it was brought up"
	if echo 1 > $sys/cpu/cpu2/online; then
		wait_for "grep -q ' add /devices/system/node/node2:' $rec" 10
		[ "$(cd $sys/cpu/cpu2/node2 2>/dev/null && pwd -P)" = $sys/node/node2 ] ||
			fail "cpu2 on-line: no link cpu2/node2 to node2"
		[ "$(cd $sys/node/node2/cpu2 2>/dev/null && pwd -P)" = $sys/cpu/cpu2 ] ||
			fail "cpu2 on-line: no link node2/cpu2 to cpu2"
		grep -qw 2 $sys/node/node2/cpulist || fail "node2's cpulist: $(cat $sys/node/node2/cpulist)"
		# hotplug/ works: off-line and on-line again through target
		up=$(cat $sys/cpu/cpu0/hotplug/state)
		[ "$(cat $sys/cpu/cpu2/hotplug/state 2>/dev/null)" = "$up" ] ||
			fail "cpu2's hotplug/state reads '$(cat $sys/cpu/cpu2/hotplug/state 2>&1)', cpu0's '$up'"
		# (target_store() does not update the device's online)
		if echo 0 > $sys/cpu/cpu2/hotplug/target 2>/dev/null; then
			[ "$(cat $sys/cpu/cpu2/hotplug/state)" = 0 ] ||
				fail "cpu2's hotplug/state reads $(cat $sys/cpu/cpu2/hotplug/state) after target 0"
			grep -q 2 $sys/cpu/online && fail "cpu2 on-line after target 0: $(cat $sys/cpu/online)"
			echo "$up" > $sys/cpu/cpu2/hotplug/target || fail "writing $up to cpu2's hotplug/target failed"
			[ "$(cat $sys/cpu/cpu2/hotplug/state)" = "$up" ] ||
				fail "cpu2's hotplug/state reads $(cat $sys/cpu/cpu2/hotplug/state) after target $up"
		else
			fail "writing 0 to cpu2's hotplug/target failed"
		fi
	else
		fail "writing 1 to $sys/cpu/cpu2/online failed"
	fi
fi
echo > $helper
info "uevent helper's record: $(tr '\n' ';' < $rec)"
out=$(judge $rec)
[ -z "$out" ] || fail "$(echo "$out" | tr '\n' ';')"
[ $FAILED -eq 0 ] && pass "cpu2 hot-added into node2 and on-line, node2 registered; when the uevent helper looked, cpu2 had hotplug/ and its latency limit, node2 hugepages/, compact and cpu2"
exit 0
