# Memory hot-add into a node without CPUs or memory, in QEMU's "hotadd"
# topology (scripts/lib.sh qemu_argv: node 3 empty, room for a DIMM).  The
# guest asks the host for the DIMM by printing "SYSDEV-HOTADD memory 3" on
# the console; qemu/qmp-hotadd.py plugs it through QMP, ACPI tells the
# kernel.  node3 is then registered at run time (add_memory() ->
# register_one_node(): a system device of the class node, under
# mem_hotplug_lock and the device hotplug lock), its memory goes on-line
# (CONFIG_MHP_DEFAULT_ONLINE_TYPE_ONLINE_AUTO), and hugetlb's node driver
# adds hugepages/ before the node's KOBJ_ADD uevent is sent (patch 9;
# unpatched, hugetlb adds it after).  The order is read from the
# kernel's own debug messages of kobject_add_internal() and
# kobject_uevent_env(), switched on through dynamic debug around the
# hot-add: an event of the node not followed by "uevent_suppress caused
# the event to drop" was sent.
#
# The CPU hot-add of the same topology is cpu-hotadd.sh's.
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

# kobject_debug +p|-p: the debug messages the judge reads.
ctl=/proc/dynamic_debug/control
kobject_debug() {
	echo "func kobject_add_internal $1" > $ctl
	echo "func kobject_uevent_env $1" > $ctl
}

[ -w $ctl ] || { fail "no $ctl (CONFIG_DYNAMIC_DEBUG)"; exit 0; }
[ -e $sys/node/node3 ] && { fail "node3 registered at boot: not the hotadd topology"; exit 0; }
mark="hotadd-memory-$$"
echo "$mark" > /dev/kmsg
kobject_debug +p
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
kobject_debug -p
dmesg | sed -n "/$mark/,\$p" > /tmp/hotadd.dmesg
if out=$(judge node3 /tmp/hotadd.dmesg); then info "$out"; else fail "$out"; fi
[ $FAILED -eq 0 ] && pass "node3 registered by memory hot-add, its memory on-line, hugepages/ before its uevent"
exit 0
