# Show /sys/devices/system two levels deep, as in the 2003 RFC, for the
# reviewer; the host extracts the lines between the markers.  The gate
# runs it at every patch (the "gate:" line, which needs nothing).
# gate:
# SYSDEV_SYS (a fake /sys) and CHECKS_DIR for the host's self-test
# (ci/tests/reliability.sh test_reliability_judges).
CHECKS_DIR=${CHECKS_DIR:-/checks}
SYS=${SYSDEV_SYS:-/sys}
. "$CHECKS_DIR/lib.sh"
echo "SYSDEV-TREE-BEGIN"
for c in $SYS/devices/system/*; do
	echo "${c#$SYS/devices/system/}"
	for d in "$c"/*; do
		[ -d "$d" ] && [ ! -L "$d" ] && [ -e "$d/uevent" ] && [ -L "$d/subsystem" ] &&
			echo "    ${d##*/}"
	done
done
echo "SYSDEV-TREE-END"
# What the tree must hold: a device for every CPU and node that is on-line
# (cpuN, nodeN), each with its uevent and subsystem.  It passed whatever
# it printed before.
ids() { # LIST ("0-1,3"): its numbers, one per line
	echo "$1" | tr ',' '\n' | while IFS=- read -r a b; do
		[ -n "$a" ] && seq "$a" "${b:-$a}"
	done
}
missing=
for kind in cpu node; do
	# no node/ in a kernel without NUMA
	[ "$kind" = node ] && [ ! -d $SYS/devices/system/node ] && continue
	[ -r $SYS/devices/system/$kind/online ] || { missing="$missing $kind/online"; continue; }
	for n in $(ids "$(cat $SYS/devices/system/$kind/online)"); do
		d=$SYS/devices/system/$kind/$kind$n
		[ -e "$d/uevent" ] && [ -L "$d/subsystem" ] || missing="$missing $kind$n"
	done
done
if [ -n "$missing" ]; then
	fail "system devices missing or incomplete:$missing"
else
	pass "$(ls $SYS/devices/system | wc -l) system subsystems, every on-line CPU and node a device"
fi
