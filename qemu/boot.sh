#!/usr/bin/env bash
# Boot a kernel in QEMU (TCG, -M pc) with the test initramfs, run guest
# checks, capture the serial console to a log and judge it.
#
# Exit 0 only if QEMU ended before the timeout and qemu/check-log.sh finds
# the log good: the guest finished its checks, each requested check said
# PASS (never SKIP), no panic, WARN, BUG, lockdep or sleeping-in-atomic splat,
# and with -k every KUnit case passed.  Otherwise print the reasons and the
# log's tail and exit 1.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: ${0##*/} [-c CHECKS] [-o LOG] [-t SECONDS] [-a CMDLINE] [-i CPIO] [-k] [-K SUITE:N] [-1] [-H] BZIMAGE
  -c CHECKS   comma-separated guest checks, qemu/checks/NAME.sh (default: boot)
  -o LOG      serial console log (default: \$LOG_ROOT/boot-<time>.log)
  -t SECONDS  hard timeout for the whole boot (default: 240)
  -a CMDLINE  extra kernel command line
  -i CPIO     a newc cpio archive appended to the test initramfs (the kernel
              unpacks both), e.g. a module for a check (repeatable)
  -k          parse the KUnit KTAP in the log; fail unless every case passed
  -K SUITE:N  the KUnit suite SUITE ran N cases, all passed (repeatable)
  -1          one CPU and one NUMA node instead of 2 CPUs on 2 nodes
  -H          the hotadd topology (scripts/lib.sh qemu_argv), with
              qemu/qmp-hotadd.py plugging what the guest asks for
  -x REGEX    a log line that must appear (repeatable)
  -W REGEX    expected WARNING lines (see qemu/check-log.sh)
  -S          check the power off order (see qemu/check-log.sh)
USAGE
}
checks=boot log="" timeout=240 append="" kunit=0 suites=() topo=numa2 expects=() warn="" shutdown=0 extra=()
while getopts "c:o:t:a:i:kK:1Hx:W:Sh" opt; do
	case $opt in
	c) checks=$OPTARG ;;
	o) log=$OPTARG ;;
	t) timeout=$OPTARG ;;
	a) append=$OPTARG ;;
	i) [ -f "$OPTARG" ] || die "-i $OPTARG: no such archive"; extra+=("$OPTARG") ;;
	k) kunit=1 ;;
	K) suites+=("$OPTARG") ;;
	1) topo=up ;;
	H) topo=hotadd ;;
	x) expects+=("$OPTARG") ;;
	W) warn=$OPTARG ;;
	S) shutdown=1 ;;
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
if [ ${#extra[@]} -gt 0 ]; then
	cat "$initrd" "${extra[@]}" >"$log.initrd"
	initrd=$log.initrd
fi
# initramfs_async=0: the initramfs is unpacked before the built-in KUnit
# suites run (init/initramfs.c populate_rootfs() waits for it at
# rootfs_initcall time; by default the init thread waits for it in
# kernel_init_freeable(), after kunit_run_all_tests()); else its "Freeing
# initrd memory" line can land inside the KTAP output, which kunit.py
# cannot parse.
qemu_argv "$topo" "$kernel" "$initrd" \
	"console=ttyS0,115200 panic=-1 ignore_loglevel initramfs_async=0 sysdev_checks=$checks $append" "$log"

start=$(date +%s.%N)
hotadd=""
if [ "$topo" = hotadd ]; then
	rm -f "$log.qmp"
	python3 "$TOP/qemu/qmp-hotadd.py" "$log.qmp" "$log" "$timeout" >"$log.hotadd" 2>&1 &
	hotadd=$!
fi
set +e
timeout -k 5 "$timeout" "${QEMU_ARGV[@]}" </dev/null >"$log.qemu" 2>&1
rc=$?
set -e
if [ -n "$hotadd" ]; then
	wait "$hotadd" || echo "boot: qmp-hotadd.py: exit $?" >>"$log.hotadd"
	cat "$log.hotadd"
fi
secs=$(echo "$(date +%s.%N) - $start" | bc)
secs=$(printf '%.1f' "$secs")

problems=()
[ $rc -eq 124 ] || [ $rc -eq 137 ] && problems+=("timeout: QEMU killed after ${timeout}s")
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] && problems+=("QEMU exited with $rc: $(head -c 300 "$log.qemu")")
for p in "${problems[@]}"; do echo "boot: FAIL: $p" >&2; done

judge=("$TOP/qemu/check-log.sh" -c "$checks")
[ $kunit -eq 1 ] && judge+=(-k)
for s in "${suites[@]}"; do judge+=(-K "$s"); done
for x in "${expects[@]}"; do judge+=(-x "$x"); done
[ -z "$warn" ] || judge+=(-W "$warn")
[ $shutdown -eq 0 ] || judge+=(-S)
if [ ${#problems[@]} -gt 0 ] || ! "${judge[@]}" "$log"; then
	echo "boot: last lines of $log:" >&2
	tail -n 25 "$log" | tr -d '\r' | sed 's/^/  | /' >&2
	exit 1
fi
echo "boot: PASS in ${secs}s ($checks): $log"
