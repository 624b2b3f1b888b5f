# Memory leaks of the system device code: ask kmemleak for two scans (an
# object is only reported when it has looked unreferenced for 5 seconds)
# and fail on any report that mentions the series' code (sysdev, sys_device,
# the test classes, subsys_system_register(), drivers/base).  Every report
# is printed with a "kmemleak-report:" prefix; the kernel's own
# "kmemleak: N new suspected memory leaks" line makes the log judge fail on
# any leak, unless the boot allows it with -W.
# Run it last (after the power transitions), with CONFIG_DEBUG_KMEMLEAK
# (ci/configs/debug.config); SKIP without it.
#
# Host self-test of the judge: sh kmemleak.sh --judge REPORT-FILE
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=kmemleak
. "$CHECKS_DIR/lib.sh"
T=${TMPDIR:-/tmp}/kmemleak.$$
mkdir -p "$T"
ours='sysdev|sys_device|sdpm_|pmtest|subsys_system|drivers/base'

# One leak of 6.1 itself is counted, not blamed: bus_register() frees its
# subsys_private without the kobject name when kset_register() fails (6.1's
# kset_register() does not free it; upstream fixed that after 6.1), which
# allocation fault injection reaches through sysdev_class_register().  Its
# report has kobject_set_name() directly under bus_register().
known='kobject_set_name[+][^\n]*\n[^\n]*bus_register[+]'

# judge FILE: the content of /sys/kernel/debug/kmemleak.
judge() {
	total=$(grep -c '^unreferenced object' "$1")
	awk -v re="$ours" -v known="$known" '
		function one() {
			if (r != "" && r ~ re) {
				if (r ~ known) k++
				else { n++; if (!first) first = r }
			}
			r = ""
		}
		/^unreferenced object/ { one() }
		{ r = r $0 "\n" }
		END { one(); printf "%d %d\n%s", n, k, first }' "$1" > "$T/ours"
	read n k < "$T/ours"
	if [ "$n" -gt 0 ]; then
		fail "$n of $total leak reports name the system device code: $(sed -n 2p "$T/ours") $(grep -m 2 -E "$ours" "$T/ours" | tr -s ' ' | tr '\n' ' ')"
		return 1
	fi
	pass "no leak report names the system device code ($total reports in all, $k of them 6.1's bus_register() name leak)"
}

if [ "${1:-}" = "--judge" ]; then
	judge "$2"
	rm -rf "$T"
	exit $FAILED
fi

f=/sys/kernel/debug/kmemleak
[ -e $f ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ ! -e $f ]; then
	fail "no $f (CONFIG_DEBUG_KMEMLEAK)"
	exit 0
fi
echo scan > $f || { fail "echo scan > $f failed (kmemleak disabled?)"; exit 0; }
sleep 6
echo scan > $f
cat $f > "$T/report"
sed 's/^/kmemleak-report: /' "$T/report"
judge "$T/report"
rm -rf "$T"
exit 0
