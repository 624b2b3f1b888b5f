# Show /sys/devices/system two levels deep, as in the 2003 RFC, for the
# gate:
# reviewer; the host extracts the lines between the markers.
. /checks/lib.sh
echo "SYSDEV-TREE-BEGIN"
for c in /sys/devices/system/*; do
	echo "${c#/sys/devices/system/}"
	for d in "$c"/*; do
		[ -d "$d" ] && [ ! -L "$d" ] && [ -e "$d/uevent" ] && [ -L "$d/subsystem" ] &&
			echo "    ${d##*/}"
	done
done
echo "SYSDEV-TREE-END"
pass "$(ls /sys/devices/system | wc -l) system subsystems"
