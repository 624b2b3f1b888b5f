# CPU and memory hot-add, in QEMU's "hotadd" topology (scripts/lib.sh
# qemu_argv): CPU2 of node 2 possible but not present at boot, and node 3
# with neither a CPU nor memory.  The guest asks the host for a device by
# printing "SYSDEV-HOTADD cpu" or "SYSDEV-HOTADD memory 3" on the console;
# qemu/qmp-hotadd.py plugs it through QMP, ACPI tells the kernel.
#
# 1. CPU2: /sys/devices/system/cpu/cpu2 appears (register_cpu(): a system
#    device of the class cpu); writing 1 to its online brings it up
#    (cpu_up() -> try_online_node(), whose node x86 has on-line since boot:
#    init_cpu_to_node()), with the links between cpu2 and node2.
# 2. Memory on node 3: node3 is registered at run time (add_memory() ->
#    register_one_node(): a system device of the class node), its memory
#    goes on-line (CONFIG_MHP_DEFAULT_ONLINE_TYPE_ONLINE_AUTO), and hugetlb's
#    node driver adds hugepages/ before the node's KOBJ_ADD uevent is sent
#    (patch 7; unpatched, hugetlb adds it after).  The order is read from
#    the kernel's own debug messages of kobject_add_internal() and
#    kobject_uevent_env(), switched on through dynamic debug around the
#    hot-add: an event of node3 not followed by "uevent_suppress caused the
#    event to drop" was sent.
#
# Host self-test of the order judge: sh hotadd.sh --judge FILE (a kernel
# log): PASS if hugepages/ of node3 was added before node3's first uevent.
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=hotadd
. "$CHECKS_DIR/lib.sh"
sys=/sys/devices/system

# judge FILE: hugepages/ of node3 added before node3's first uevent sent.
judge() {
	awk '
	/\047hugepages\047 \(.*\): kobject_add_internal: parent: \047node3\047/ { if (!hp) hp = NR }
	/kobject: \047node3\047 \(.*\): kobject_uevent_env$/ { if (pend && !sent) sent = pend; pend = NR; next }
	/kobject: \047node3\047 \(.*\): kobject_uevent_env: uevent_suppress caused the event to drop/ { pend = 0 }
	END {
		if (pend && !sent) sent = pend
		if (!hp) { print "no kobject_add_internal of hugepages under node3"; exit 1 }
		if (!sent) { print "no uevent of node3 sent"; exit 1 }
		if (sent < hp) { printf "node3 sent its first uevent (line %d) before hugepages/ was added (line %d)\n", sent, hp; exit 1 }
		printf "hugepages/ (line %d) before the first uevent of node3 (line %d)\n", hp, sent
	}' "$1"
}

if [ "${1:-}" = "--judge" ]; then
	if out=$(judge "$2"); then pass "$out"; else fail "$out"; fi
	exit $FAILED
fi

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

# 1. CPU2
echo "SYSDEV-HOTADD cpu"
if wait_for $sys/cpu/cpu2/online 60; then
	if echo 1 > $sys/cpu/cpu2/online; then
		[ "$(cat $sys/cpu/cpu2/online)" = 1 ] || fail "cpu2/online reads $(cat $sys/cpu/cpu2/online) after 1 was written"
		[ -L $sys/node/node2/cpu2 ] || fail "no link node2/cpu2"
		[ -L $sys/cpu/cpu2/node2 ] || fail "no link cpu2/node2"
	else
		fail "writing 1 to cpu2/online failed"
	fi
fi

# 2. Memory on node 3, with the kobject debug messages on meanwhile.
mark="hotadd-memory-$$"
echo "$mark" > /dev/kmsg
echo "func kobject_add_internal +p" > $ctl
echo "func kobject_uevent_env +p" > $ctl
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
echo "func kobject_add_internal -p" > $ctl
echo "func kobject_uevent_env -p" > $ctl
dmesg | sed -n "/$mark/,\$p" > /tmp/hotadd.dmesg
if out=$(judge /tmp/hotadd.dmesg); then info "$out"; else fail "$out"; fi
[ $FAILED -eq 0 ] && pass "cpu2 hot-added and on-line; node3 registered, its memory on-line, hugepages/ before its uevent"
exit 0
