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

# pmtest_judge LABEL STATE FILE: the test classes' callbacks of one power
# transition, from FILE (the kernel log of that transition): the 48 lines
# of pmtest_expected, once each and in that order, every save and suspend
# with state=STATE, and the core's own debug line (pm_debug_messages).
# STATE "none": no test class callback at all.  Says FAIL and returns 1
# otherwise.  The one judge of sysdev-pm.sh, stress.sh and hibernate.sh.
pmtest_judge() {
	local t=${TMPDIR:-/tmp}/pmjudge.$$ bad
	pmtest_expected > "$t.expected"
	sed -n -E 's/.*sysdev_pm_test: ((save|suspend|resume|restore) .*)/\1/p' "$3" |
		tr -d '\r' > "$t.raw"
	sed 's/ state=.*//' "$t.raw" > "$t.got"
	if [ "$2" = none ]; then
		bad=$(head -n 1 "$t.raw")
		[ -z "$bad" ] || fail "$1: $(wc -l < "$t.got") test class callbacks ran, want none: $bad"
	elif ! cmp -s "$t.expected" "$t.got"; then
		bad=1
		fail "$1: test class callbacks missing, repeated or out of order ($(wc -l < "$t.got") lines, want 48): $(diff "$t.expected" "$t.got" | grep '^[-+][a-z]' | head -n 3 | tr '\n' ' ')"
	else
		bad=$(grep ' state=' "$t.raw" | grep -v " state=$2\$" | head -n 1)
		if [ -n "$bad" ]; then
			fail "$1: wrong state, expected $2: $bad"
		elif ! grep -q "sysdev: suspend pmtest_b1 class " "$3"; then
			bad=1
			fail "$1: no 'sysdev: suspend pmtest_b1 class' debug message (pm_debug_messages?)"
		fi
	fi
	rm -f "$t.expected" "$t.raw" "$t.got"
	[ -z "$bad" ]
}
