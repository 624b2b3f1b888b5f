# Memory leaks of the system device code: ask kmemleak for two scans (an
# object is only reported when it has looked unreferenced for 5 seconds)
# and fail on any report that mentions the series' code (sysdev_*,
# sys_device_*, subsys_system_register(), hugetlb's node driver,
# drivers/base).  Every report
# is printed with a "kmemleak-report:" prefix; the kernel's own
# "kmemleak: N new suspected memory leaks" line makes the log judge fail on
# any leak, unless the boot allows it with -W.
# Run it last (after the power transitions), with CONFIG_DEBUG_KMEMLEAK
# (ci/configs/debug.config); FAIL without it.
#
# Host self-test of the judge: sh kmemleak.sh --judge REPORT-FILE
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=kmemleak
. "$CHECKS_DIR/lib.sh"
T=${TMPDIR:-/tmp}/kmemleak.$$
mkdir -p "$T"
ours='sysdev|sys_device|subsys_system|hugetlb_node_|drivers/base'

# judge FILE: the content of /sys/kernel/debug/kmemleak.
judge() {
	total=$(grep -c '^unreferenced object' "$1")
	awk -v re="$ours" '
		function one() {
			if (r != "" && r ~ re) { n++; if (!first) first = r }
			r = ""
		}
		/^unreferenced object/ { one() }
		{ r = r $0 "\n" }
		END { one(); printf "%d\n%s", n, first }' "$1" > "$T/ours"
	read n < "$T/ours"
	if [ "$n" -gt 0 ]; then
		fail "$n of $total leak reports name the system device code: $(sed -n 2p "$T/ours") $(grep -m 2 -E "$ours" "$T/ours" | tr -s ' ' | tr '\n' ' ')"
		return 1
	fi
	pass "no leak report names the system device code ($total reports in all)"
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
