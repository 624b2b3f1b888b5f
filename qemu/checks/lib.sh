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
