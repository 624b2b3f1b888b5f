# CPU hotplug through sysfs: offline and online CPU1 by writing 0 and 1 to
# /sys/devices/system/cpu/cpu1/online.  Before, while offline and after:
# the node links /sys/devices/system/node/nodeN/cpu1 and
# /sys/devices/system/cpu/cpu1/nodeN exist and point at each other's
# directories (CPU1 is on node 1 in qemu/boot.sh's topology; node 0 when
# the machine has one node); "online" reads 1, 0, 1; and the kernel emits
# the uevents ACTION=offline and ACTION=online with
# DEVPATH=/devices/system/cpu/cpu1, captured by a logging script installed
# as /sys/kernel/uevent_helper (the test kernel has no networking, so no
# netlink).  Without CONFIG_UEVENT_HELPER the uevent part fails.
#
# Self-test (kernel command line, for ci/tests/abi.sh): sysdev_hotplug_fault=
# node,uevent: "node" expects CPU1 on a node it is not on, "uevent" makes
# the logging script drop the events; the check must then fail naming what
# is missing.
# gate: CONFIG_HOTPLUG_CPU
. /checks/lib.sh
sys=/sys/devices/system
cpu=$sys/cpu/cpu1
helper=/sys/kernel/uevent_helper
log=/tmp/cpu-hotplug.uevents
fault=${sysdev_hotplug_fault:-}

[ -e $cpu ] || { fail "no $cpu (one CPU)"; exit 0; }
[ -e $cpu/online ] || { fail "$cpu/online missing: CPU1 cannot be hot-unplugged"; exit 0; }

# The node CPU1 must be linked with.
node=""
if [ -d $sys/node ]; then
	node=0
	[ -d $sys/node/node1 ] && node=1
	case ",$fault," in *,node,*) node=$((1 - node)) ;; esac
fi

# links WHEN: CPU1 and its node link to each other.
links() {
	[ -n "$node" ] || return 0
	local a=$sys/node/node$node/cpu1 b=$cpu/node$node
	[ -L $a ] || { fail "$1: no link $a"; return; }
	[ -L $b ] || { fail "$1: no link $b"; return; }
	[ "$(cd $a && pwd -P)" = $cpu ] || fail "$1: $a -> $(readlink $a), not $cpu"
	[ "$(cd $b && pwd -P)" = $sys/node/node$node ] || fail "$1: $b -> $(readlink $b)"
}

# online_is WHEN VALUE
online_is() {
	local v
	v=$(cat $cpu/online)
	[ "$v" = "$2" ] || fail "$1: $cpu/online reads '$v', not $2"
}

# uevent ACTION: the logging script saw ACTION for CPU1 (it runs
# asynchronously: wait up to 10 s).
uevent() {
	[ -n "$uev" ] || return 0
	local i=0
	while [ $i -lt 20 ]; do
		grep -qx "$1 /devices/system/cpu/cpu1 cpu" $log 2>/dev/null && return 0
		sleep 0.5
		i=$((i + 1))
	done
	fail "no uevent ACTION=$1 DEVPATH=/devices/system/cpu/cpu1 SUBSYSTEM=cpu; seen: $(grep cpu1 $log 2>/dev/null | tr '\n' ';')"
}

uev=""
if [ -w $helper ]; then
	uev=1
	: > $log
	cat > /tmp/uevent-log.sh <<EOF
#!/bin/sh
case ",$fault," in *,uevent,*) exit 0 ;; esac
echo "\$ACTION \$DEVPATH \$SUBSYSTEM" >> $log
EOF
	chmod 755 /tmp/uevent-log.sh
	echo /tmp/uevent-log.sh > $helper
else
	fail "uevents not checked: no $helper (add CONFIG_UEVENT_HELPER=y to the test kernel)"
fi

links before
online_is before 1
if echo 0 > $cpu/online; then
	online_is offline 0
	grep -qx 0 $sys/cpu/online || fail "$sys/cpu/online reads '$(cat $sys/cpu/online)' with CPU1 offline"
	links offline
	uevent offline
	if echo 1 > $cpu/online; then
		online_is online 1
		links online
		uevent online
	else
		fail "writing 1 to $cpu/online failed"
	fi
else
	fail "writing 0 to $cpu/online failed"
fi
[ -z "$uev" ] || echo > $helper
[ "$(cat $sys/cpu/online)" = "$(cat $sys/cpu/possible)" ] ||
	fail "CPUs online: $(cat $sys/cpu/online), possible: $(cat $sys/cpu/possible)"
[ $FAILED -eq 0 ] && pass "CPU1 offline and online${node:+, node$node links kept}${uev:+, uevents offline and online}"
exit 0
