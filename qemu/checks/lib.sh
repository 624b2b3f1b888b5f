# Helpers for guest checks (busybox sh); sourced by each check.
# A check prints one or more lines "SYSDEV-CHECK <name> PASS|FAIL|SKIP <text>".
CHECK=${CHECK:-$(basename "$0" .sh)}
pass() { echo "SYSDEV-CHECK $CHECK PASS $*"; }
fail() { echo "SYSDEV-CHECK $CHECK FAIL $*"; FAILED=1; }
skip() { echo "SYSDEV-CHECK $CHECK SKIP $*"; }
info() { echo "SYSDEV-INFO $CHECK $*"; }
FAILED=0

# Local timer interrupts summed over CPUs, and the legacy timer's (IRQ 0).
irq_count() {
	awk -v k="$1:" '$1 == k { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts
}

# The 48 lines the test classes of CONFIG_SYSDEV_PM_TEST print in one
# transition.  Down: classes b, a (reverse registration); devices 1, 0;
# global driver, class driver, class.  Up: the exact reverse.
pmtest_expected() {
	for op in save suspend; do
		for d in pmtest_b1 pmtest_b0 pmtest_a1 pmtest_a0; do
			for w in global driver class; do echo "$op $d $w"; done
		done
	done
	for op in resume restore; do
		for d in pmtest_a0 pmtest_a1 pmtest_b0 pmtest_b1; do
			for w in class driver global; do echo "$op $d $w"; done
		done
	done
}
