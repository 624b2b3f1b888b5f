# The kernel booted to init and the basic system directories exist.
# gate:
. /checks/lib.sh
for d in /sys/devices/system /sys/devices/system/cpu/cpu0 /sys/bus/cpu; do
	[ -e "$d" ] || fail "$d missing"
done
[ $FAILED -eq 0 ] && pass "booted $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
