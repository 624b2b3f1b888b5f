# CPU and memory hot-add, in QEMU's "hotadd" topology (scripts/lib.sh
# qemu_argv): CPU2 of node 2 possible but not present at boot, and node 3
# with neither a CPU nor memory.  The guest asks the host for a device by
# printing "SYSDEV-HOTADD cpu" or "SYSDEV-HOTADD memory 3" on the console;
# qemu/qmp-hotadd.py plugs it through QMP, ACPI tells the kernel.
#
# 1. CPU2: /sys/devices/system/cpu/cpu2 appears (register_cpu(): a system
#    device of the class cpu) and node2 does not yet: x86 leaves the node
#    of a CPU that is not present at boot off-line (init_cpu_to_node()
#    finds no APIC id for it).  Writing 1 to cpu2/online brings it up and
#    registers node2 from cpu_up() -> try_online_node() with cpu2's device
#    lock held (the v8 review's N4 order: device_lock(cpu2), then
#    sysdev_mutex), with the links between cpu2 and node2.
# 2. Memory on node 3: node3 is registered at run time (add_memory() ->
#    register_one_node(): a system device of the class node), and its
#    memory goes on-line (CONFIG_MHP_DEFAULT_ONLINE_TYPE_ONLINE_AUTO).
# For both nodes, hugetlb's node driver adds hugepages/ before the node's
# KOBJ_ADD uevent is sent (patch 7; unpatched, hugetlb adds it after).
# The order is read from the kernel's own debug messages of
# kobject_add_internal() and kobject_uevent_env(), switched on through
# dynamic debug around each step: an event of the node not followed by
# "uevent_suppress caused the event to drop" was sent.
#
# Host self-test of the order judge: sh hotadd.sh --judge NODE FILE (a
# kernel log): PASS if hugepages/ of NODE was added before its first
# uevent.
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=hotadd
. "$CHECKS_DIR/lib.sh"
sys=/sys/devices/system

# judge NODE FILE: hugepages/ of NODE added before NODE's first uevent sent.
judge() {
	awk -v n="$1" '
	index($0, "\047hugepages\047 (") && index($0, "): kobject_add_internal: parent: \047" n "\047") { if (!hp) hp = NR }
	index($0, "kobject: \047" n "\047 (") && /\): kobject_uevent_env$/ { if (pend && !sent) sent = pend; pend = NR; next }
	index($0, "kobject: \047" n "\047 (") && /: kobject_uevent_env: uevent_suppress caused the event to drop/ { pend = 0 }
	END {
		if (pend && !sent) sent = pend
		if (!hp) { print "no kobject_add_internal of hugepages under " n; exit 1 }
		if (!sent) { print "no uevent of " n " sent"; exit 1 }
		if (sent < hp) { printf "%s sent its first uevent (line %d) before hugepages/ was added (line %d)\n", n, sent, hp; exit 1 }
		printf "%s: hugepages/ (line %d) before its first uevent (line %d)\n", n, hp, sent
	}' "$2"
}

if [ "${1:-}" = "--judge" ]; then
	if out=$(judge "$2" "$3"); then pass "$out"; else fail "$out"; fi
	exit $FAILED
fi

# kobject_debug on|off: the debug messages the judge reads.
kobject_debug() {
	local f=+p
	[ "$1" = on ] || f=-p
	echo "func kobject_add_internal $f" > $ctl
	echo "func kobject_uevent_env $f" > $ctl
}

# judge_log NODE MARK: judge the kernel log since MARK.
judge_log() {
	dmesg | sed -n "/$2/,\$p" > /tmp/hotadd-$1.dmesg
	if out=$(judge "$1" /tmp/hotadd-$1.dmesg); then info "$out"; else fail "$out"; fi
}

# wait_for PATH SECONDS: PATH exists within SECONDS, or fail.
wait_for() {
	i=0
	while [ $i -lt $(($2 * 5)) ]; do
		[ -e "$1" ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	fail "$1 did not appear within $2 s"
	return 1
}

ctl=/proc/dynamic_debug/control
[ -w $ctl ] || { fail "no $ctl (CONFIG_DYNAMIC_DEBUG)"; exit 0; }
[ -e $sys/cpu/cpu2 ] && { fail "cpu2 present at boot: not the hotadd topology"; exit 0; }
[ -e $sys/node/node3 ] && { fail "node3 registered at boot: not the hotadd topology"; exit 0; }

# 1. CPU2, then node2 when CPU2 comes up
echo "SYSDEV-HOTADD cpu"
if wait_for $sys/cpu/cpu2/online 60; then
	[ -e $sys/node/node2 ] && fail "node2 registered before cpu2 went on-line: not the path this check tests"
	mark="hotadd-cpu-$$"
	echo "$mark" > /dev/kmsg
	kobject_debug on
	if echo 1 > $sys/cpu/cpu2/online; then
		kobject_debug off
		[ "$(cat $sys/cpu/cpu2/online)" = 1 ] || fail "cpu2/online reads $(cat $sys/cpu/cpu2/online) after 1 was written"
		[ -e $sys/node/node2 ] || fail "node2 not registered when cpu2 went on-line"
		[ -L $sys/node/node2/cpu2 ] || fail "no link node2/cpu2"
		[ -L $sys/cpu/cpu2/node2 ] || fail "no link cpu2/node2"
		judge_log node2 "$mark"
	else
		kobject_debug off
		fail "writing 1 to cpu2/online failed"
	fi
fi

# 2. Memory on node 3
mark="hotadd-memory-$$"
echo "$mark" > /dev/kmsg
kobject_debug on
echo "SYSDEV-HOTADD memory 3"
if wait_for $sys/node/node3 60; then
	wait_for $sys/node/node3/hugepages/hugepages-2048kB/nr_hugepages 10
	i=0
	while [ $i -lt 50 ] && ! grep -q "Node 3 MemTotal: *[1-9]" $sys/node/node3/meminfo 2>/dev/null; do
		sleep 0.2
		i=$((i + 1))
	done
	grep -q "Node 3 MemTotal: *[1-9]" $sys/node/node3/meminfo 2>/dev/null ||
		fail "node3 has no memory on-line: $(grep MemTotal $sys/node/node3/meminfo 2>/dev/null)"
fi
kobject_debug off
judge_log node3 "$mark"
[ $FAILED -eq 0 ] && pass "cpu2 hot-added and on-line, registering node2; node3 registered by memory hot-add, its memory on-line; both nodes' hugepages/ before their uevent"
exit 0
