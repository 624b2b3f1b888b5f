# Allocation failures inside a registration: clear failslab's
# ignore-gfp-wait, so that the task's fail_nth fails allocations that may
# sleep too, and run the sysdev KUnit suite again from its debugfs file
# "run".  Its case sdk_alloc_failures fails each fault-injection point of
# a class's, a driver's and a device's registration in turn and checks that
# nothing is left; it must pass, with some registrations failed (at boot,
# with ignore-gfp-wait Y, none may), and every other case with it.
# Needs CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS and
# CONFIG_KUNIT_DEBUGFS (ci/configs/debug.config); FAIL without them.  Run
# it before kmemleak, which then looks for what the failures leaked.
#
# Host self-test of the judge: sh failslab.sh --judge RESULTS-FILE
CHECKS_DIR=${CHECKS_DIR:-/checks}
CHECK=failslab
. "$CHECKS_DIR/lib.sh"

# judge FILE: the suite's KTAP results (/sys/kernel/debug/kunit/sysdev/results).
judge() {
	sum=$(sed -n 's/^[[:space:]]*# sysdev: \(pass:.*\)/\1/p' "$1" | tail -n 1)
	case=$(grep -E '^[[:space:]]*(not )?ok [0-9]+ sdk_alloc_failures( |$)' "$1")
	info=$(sed -n 's/^[[:space:]]*# sdk_alloc_failures: \(.*fault-injection points.*\)/\1/p' "$1" | tail -n 1)
	if [ -z "$case" ]; then
		fail "the suite's run has no case sdk_alloc_failures (${sum:-no result line})"
	elif ! echo "$case" | grep -qE '^[[:space:]]*ok [0-9]+ sdk_alloc_failures$'; then
		fail "sdk_alloc_failures did not pass: $(echo "$case" | sed 's/^[[:space:]]*//')"
	elif n=${sum##*total:}; [ "$sum" != "pass:$n fail:0 skip:0 total:$n" ]; then
		fail "the suite's run: ${sum:-no result line}"
	elif ! echo "$info" | grep -qE '^[0-9]+ fault-injection points, [1-9][0-9]* failed a registration$'; then
		fail "sdk_alloc_failures failed no registration: ${info:-no count}"
	else
		pass "sdk_alloc_failures: $info; the suite: $sum"
	fi
}

if [ "${1:-}" = "--judge" ]; then
	judge "$2"
	exit $FAILED
fi

d=/sys/kernel/debug
[ -e $d/failslab ] || mount -t debugfs debugfs $d 2>/dev/null
if [ ! -e $d/failslab/ignore-gfp-wait ]; then
	fail "no $d/failslab (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	exit 0
fi
if [ ! -e $d/kunit/sysdev/run ]; then
	fail "no $d/kunit/sysdev/run (the sysdev suite with CONFIG_KUNIT_DEBUGFS)"
	exit 0
fi
# no stack dump for each of the failures the case injects
echo 0 > $d/failslab/verbose
echo N > $d/failslab/ignore-gfp-wait
echo run > $d/kunit/sysdev/run
echo Y > $d/failslab/ignore-gfp-wait
judge $d/kunit/sysdev/results
exit 0
