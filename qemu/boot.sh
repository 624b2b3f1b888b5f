#!/usr/bin/env bash
# Boot a kernel in QEMU (TCG, -M pc) with the test initramfs, run guest
# checks, capture the serial console to a log and judge it.
#
# Exit 0 only if the guest reached the end of its checks, every requested
# check reported PASS (or SKIP) and none FAIL, the log shows no panic, WARN,
# BUG, lockdep report or sleeping-in-atomic splat and, with -k, every KUnit
# case passed.  Otherwise print the reason and the log's tail and exit 1.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: ${0##*/} [-c CHECKS] [-o LOG] [-t SECONDS] [-a CMDLINE] [-k] [-1] BZIMAGE
  -c CHECKS   comma-separated guest checks, qemu/checks/NAME.sh (default: boot)
  -o LOG      serial console log (default: \$LOG_ROOT/boot-<time>.log)
  -t SECONDS  hard timeout for the whole boot (default: 240)
  -a CMDLINE  extra kernel command line
  -k          parse the KUnit KTAP in the log; fail unless every case passed
  -1          one CPU and one NUMA node instead of 2 CPUs on 2 nodes
  -x PATTERN  extra log pattern (extended regexp) that must appear (repeatable)
USAGE
}
checks=boot log="" timeout=240 append="" kunit=0 topo=numa2 expects=()
while getopts "c:o:t:a:k1x:h" opt; do
	case $opt in
	c) checks=$OPTARG ;;
	o) log=$OPTARG ;;
	t) timeout=$OPTARG ;;
	a) append=$OPTARG ;;
	k) kunit=1 ;;
	1) topo=up ;;
	x) expects+=("$OPTARG") ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { usage >&2; exit 2; }
kernel=$1
[ -f "$kernel" ] || die "kernel image $kernel not found"
[ -n "$log" ] || { mkdir -p "$LOG_ROOT"; log=$LOG_ROOT/boot-$(date +%Y%m%d-%H%M%S).log; }
mkdir -p "$(dirname "$log")"

initrd=$("$TOP/qemu/mkinitramfs.sh")
case $topo in
numa2)
	topology=(-smp 2,sockets=2,cores=1,threads=1 -m 1024
		-object memory-backend-ram,id=m0,size=512M
		-object memory-backend-ram,id=m1,size=512M
		-numa node,nodeid=0,cpus=0,memdev=m0
		-numa node,nodeid=1,cpus=1,memdev=m1) ;;
up)	topology=(-smp 1 -m 512) ;;
esac
cmdline="console=ttyS0,115200 panic=-1 ignore_loglevel sysdev_checks=$checks $append"

start=$(date +%s.%N)
set +e
timeout -k 5 "$timeout" qemu-system-x86_64 -M pc -accel tcg -no-reboot \
	-display none -monitor none -serial "file:$log" -nic none \
	"${topology[@]}" -kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	</dev/null >"$log.qemu" 2>&1
rc=$?
set -e
secs=$(echo "$(date +%s.%N) - $start" | bc)
secs=$(printf '%.1f' "$secs")

problems=()
[ $rc -eq 124 ] || [ $rc -eq 137 ] && problems+=("timeout: QEMU killed after ${timeout}s")
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] && problems+=("QEMU exited with $rc: $(head -c 300 "$log.qemu")")
[ -s "$log" ] || problems+=("empty serial log")

if grep -q "Kernel panic" "$log"; then
	problems+=("panic: $(grep -m1 'Kernel panic' "$log" | tr -d '\r')")
fi
# Splats that must never appear (the kernel's own wording).
bad='(WARNING: .* at |------------\[ cut here \]|BUG: |general protection fault|Oops:|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|scheduling while atomic|sleeping function called from invalid context|DEBUG_LOCKS_WARN_ON|does not have a release\(\) function|kmemleak: [0-9]+ new suspected)'
if grep -Eq "$bad" "$log"; then
	problems+=("kernel splat: $(grep -Em1 "$bad" "$log" | tr -d '\r')")
fi
grep -q "^SYSDEV-INIT" "$log" || problems+=("the guest never reached init")
grep -q "^SYSDEV-DONE" "$log" || problems+=("missing result: the guest did not finish its checks")

IFS=, read -ra want <<<"$checks"
for c in "${want[@]}"; do
	lines=$(grep -a "^SYSDEV-CHECK $c " "$log" | tr -d '\r' || true)
	if [ -z "$lines" ]; then
		problems+=("check $c: no result")
	elif grep -q " FAIL" <<<"$lines"; then
		problems+=("check $c: $(grep -m1 ' FAIL' <<<"$lines" | cut -d' ' -f3-)")
	fi
done
for x in "${expects[@]}"; do
	grep -Eq "$x" "$log" || problems+=("expected log line missing: $x")
done

if [ $kunit -eq 1 ]; then
	ktap=$(python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$log" 2>&1) && krc=0 || krc=$?
	echo "$ktap" > "$log.kunit"
	summary=$(grep -E "Testing complete\." "$log.kunit" | tail -n1 | sed 's/\x1b\[[0-9;]*m//g; s/^\[[^]]*\] *//')
	if [ $krc -ne 0 ]; then
		problems+=("kunit: ${summary:-kunit.py parse failed}")
	elif ! grep -Eq "Ran [1-9][0-9]* tests" <<<"$summary"; then
		problems+=("kunit: no test case ran (${summary:-no KTAP in the log})")
	fi
	[ ${#problems[@]} -gt 0 ] || echo "boot: kunit: $summary"
fi

grep -a "^SYSDEV-CHECK " "$log" | tr -d '\r' | sed 's/^SYSDEV-CHECK /boot: check /' || true
if [ ${#problems[@]} -gt 0 ]; then
	for p in "${problems[@]}"; do echo "boot: FAIL: $p" >&2; done
	echo "boot: last lines of $log:" >&2
	tail -n 25 "$log" | tr -d '\r' | sed 's/^/  | /' >&2
	exit 1
fi
echo "boot: PASS in ${secs}s ($checks): $log"
