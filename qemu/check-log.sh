#!/usr/bin/env bash
# Judge a serial console log of a test boot.  Prints one "FAIL: reason" line
# per problem and exits 1 if there is any; prints the check results.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: ${0##*/} [-c CHECKS] [-k] [-K SUITE:N]... [-x REGEX]... [-W REGEX] LOG
  -c CHECKS  comma-separated guest checks that must each report PASS (and
             no FAIL or SKIP: a check the caller asked for must run)
  -k         the KUnit KTAP in the log must show every case passed, and some ran
  -K SUITE:N[:CASE,...]
             the KUnit suite SUITE must have run, its N cases all passed,
             none skipped but the CASEs named (each run of the suite in
             the log; repeatable; scripts/lib.sh sysdev_kunit_expect)
  -x REGEX   a line matching REGEX must appear (repeatable)
  -W REGEX   "WARNING: ... at FILE:LINE" lines matching REGEX are expected
             (deliberate WARNs of a test); any other splat fails
  -S         power off order (boot with "pm_debug_messages initcall_debug"):
             after the checks, every device's shutdown line comes before the
             first system device shutdown ("sysdev: shutdown DEV ...")
USAGE
}
checks="" kunit=0 suites=() expects=() allowed_warn='^$' shutdown=0
while getopts "c:kK:x:W:Sh" opt; do
	case $opt in
	c) checks=$OPTARG ;;
	k) kunit=1 ;;
	K) [[ $OPTARG =~ ^[a-z0-9_]+:[1-9][0-9]*(:[a-z0-9_]+(,[a-z0-9_]+)*)?$ ]] || { usage >&2; die "-K $OPTARG: want SUITE:N[:CASE,...]"; }
	   suites+=("$OPTARG") ;;
	x) expects+=("$OPTARG") ;;
	W) allowed_warn=$OPTARG ;;
	S) shutdown=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { usage >&2; exit 2; }
log=$1
[ -f "$log" ] || die "no log $log"
log=$(realpath "$log")

problems=()
[ -s "$log" ] || problems+=("empty serial log")
if grep -aq "Kernel panic" "$log"; then
	problems+=("panic: $(grep -am1 'Kernel panic' "$log" | tr -d '\r')")
fi
# Splats that must never appear (the kernel's own wording).
bad='(WARNING: .* at |BUG: |general protection fault|Oops:|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|scheduling while atomic|sleeping function called from invalid context|DEBUG_LOCKS_WARN_ON|does not have a release\(\) function|kmemleak: [0-9]+ new suspected|UBSAN:|KASAN:)'
splat=$(grep -aE "$bad" "$log" | grep -avE "$allowed_warn" | head -n1 | tr -d '\r' || true)
[ -z "$splat" ] || problems+=("kernel splat: $splat")
grep -aq "^SYSDEV-INIT" "$log" || problems+=("the guest never reached init")
grep -aq "^SYSDEV-DONE" "$log" || problems+=("missing result: the guest did not finish its checks")

if [ -n "$checks" ]; then
	IFS=, read -ra want <<<"$checks"
	for c in "${want[@]}"; do
		lines=$(grep -a "^SYSDEV-CHECK $c " "$log" | tr -d '\r' || true)
		if [ -z "$lines" ]; then
			problems+=("check $c: no result")
		elif grep -q " FAIL" <<<"$lines"; then
			problems+=("check $c: $(grep -m1 ' FAIL' <<<"$lines" | cut -d' ' -f4-)")
		elif grep -q " SKIP" <<<"$lines"; then
			problems+=("check $c: skipped, but this run asked for it: $(grep -m1 ' SKIP' <<<"$lines" | cut -d' ' -f4-)")
		elif ! grep -q " PASS" <<<"$lines"; then
			problems+=("check $c: no PASS line")
		fi
	done
fi
for x in "${expects[@]}"; do
	grep -aEq -- "$x" "$log" || problems+=("expected log line missing: $x")
done

if [ $shutdown -eq 1 ]; then
	# What the kernel printed after the guest's last check, in order.
	tailf=$(mktemp)
	sed -n '/^SYSDEV-DONE/,$p' "$log" | tr -d '\r' | sed 's/^\[ *[0-9.]*\] //' > "$tailf"
	first=$(grep -n '^sysdev: shutdown ' "$tailf" | head -n1 | cut -d: -f1 || true)
	lastdev=$(grep -n ': shutdown$' "$tailf" | tail -n1 | cut -d: -f1 || true)
	if [ -z "$first" ]; then
		problems+=("shutdown: no 'sysdev: shutdown' line after the checks (pm_debug_messages?)")
	elif [ -z "$lastdev" ]; then
		problems+=("shutdown: no device shutdown line after the checks (initcall_debug?)")
	elif [ "$lastdev" -gt "$first" ]; then
		problems+=("shutdown: a device shut down after the first system device: $(sed -n "${lastdev}p" "$tailf")")
	fi
	[ -n "$first" ] && [ ${#problems[@]} -eq 0 ] &&
		echo "boot: shutdown: devices, then $(grep -c '^sysdev: shutdown ' "$tailf") system device callbacks, in order"
	rm -f "$tailf"
fi

if [ $kunit -eq 1 ]; then
	krc=0
	mkdir -p "$LOG_ROOT"
	kout=$LOG_ROOT/kunit-${log##*/}.txt
	python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$log" >"$kout" 2>&1 || krc=$?
	summary=$(grep -E "Testing complete\." "$kout" | tail -n1 | sed 's/\x1b\[[0-9;]*m//g; s/^\[[^]]*\] *//')
	if ! grep -Eq "Ran [1-9][0-9]* tests" <<<"$summary"; then
		problems+=("kunit: no test case ran (${summary:-no KTAP in the log})")
	elif [ $krc -ne 0 ]; then
		problems+=("kunit: ${summary:-kunit.py parse failed} (details: $kout)")
		# kunit.py cannot parse a line of another context between a
		# suite's "KTAP version" and its "# Subtest" (seen: the async
		# initramfs unpack's "Freeing initrd memory", which boot.sh's
		# initramfs_async=0 moves before KUnit): name it
		intruder=$(awk '{ sub(/\r$/, "") }
			after && !/^(\[[^]]*\])?[[:space:]]*# Subtest:/ { print; exit }
			{ after = /^(\[[^]]*\] )?[[:space:]]+KTAP version/ }' "$log")
		[ -z "$intruder" ] ||
			problems+=("kunit: a line between a suite's \"KTAP version\" and its \"# Subtest\", which kunit.py cannot parse: $intruder")
	else
		echo "boot: kunit: $summary"
	fi
fi

# KUnit prints "# SUITE: pass:P fail:F skip:S total:T" at the end of a
# suite: a suite that did not run, lost a case or skipped one it may not
# skip fails.  Each run of the suite in the log is judged (a hibernation
# image's boot runs it again, so may a guest check).
for s in "${suites[@]}"; do
	IFS=: read -r name n may <<<"$s"
	runs=$(tr -d '\r' <"$log" | sed -n "s/^\(\[[^]]*\] *\)\?# $name: \(pass:.*\)/\2/p")
	[ -n "$runs" ] || { problems+=("kunit: suite $name: want pass:$n fail:0 skip:0 total:$n, got no result line"); continue; }
	# the cases of the suite that reported "# SKIP"
	skipped=$(tr -d '\r' <"$log" | sed 's/^\[[^]]*\] *//' | awk -v s="$name" '
		/^[[:space:]]*# Subtest: / { in_s = ($NF == s); next }
		in_s && $0 ~ "^[[:space:]]*# " s ": pass:" { in_s = 0 }
		in_s && /^[[:space:]]*ok [0-9]+ [^ ]+ # SKIP/ { print $3 }')
	bad=$(grep -vxF -e "${may//,/$'\n'}" <<<"$skipped" | grep . || true)
	[ -z "$bad" ] || problems+=("kunit: suite $name: case $(head -n1 <<<"$bad") skipped${may:+ (only $may may)}")
	# each run: no failure, and no more skips than cases that may skip
	nmay=$(tr , '\n' <<<"$may" | grep -c . || true)
	while read -r got; do
		k=$(sed -n 's/.* skip:\([0-9]*\) .*/\1/p' <<<"$got")
		[ "$got" = "pass:$((n - ${k:-0})) fail:0 skip:${k:-0} total:$n" ] && [ "${k:-0}" -le "$nmay" ] ||
			problems+=("kunit: suite $name: want pass:$n fail:0 skip:0 total:$n${may:+ (or $may skipped)}, got $got")
	done <<<"$runs"
done

grep -a "^SYSDEV-CHECK " "$log" | tr -d '\r' | sed 's/^SYSDEV-CHECK /boot: check /' || true
[ ${#problems[@]} -eq 0 ] && exit 0
for p in "${problems[@]}"; do echo "boot: FAIL: $p" >&2; done
exit 1
