#!/usr/bin/env bash
# The main job: install what is missing, prepare the kernel tree, apply
# outgoing/, build the test kernel and boot it in QEMU; show the reviewer
# the /sys/devices/system tree and one real suspend-to-RAM cycle.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: ${0##*/}   (env: SYSDEV_CACHE, JOBS)"; }
case "${1:-}" in "") ;; -h|--help) usage; exit 0 ;; *) usage >&2; exit 2 ;; esac

t0=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$*" "$(( $(date +%s) - t0 ))"; }

step "dependencies"
if [ "$(id -u)" -eq 0 ]; then
	"$TOP/scripts/install-deps.sh"
else
	"$TOP/scripts/install-deps.sh" --check || die "run as root to install the missing packages"
fi
step "kernel tree"
"$TOP/scripts/prepare-tree.sh"
step "working branch"
"$TOP/scripts/apply-series.sh"
kgit log --oneline "$BASE_TAG..$WORK_BRANCH" | sed 's/^/  /'
step "build (x86_64 test config)"
"$TOP/scripts/build-kernel.sh" -q x86_64
step "boot in QEMU (2 CPUs, 2 NUMA nodes)"
mkdir -p "$LOG_ROOT"
log=$LOG_ROOT/run.log
rc=0
kunit=$(sysdev_kunit_expect)
"$TOP/qemu/boot.sh" -k ${kunit:+-K "$kunit"} -c boot,tree,suspend -a pm_debug_messages -o "$log" "$BUILD_ROOT/x86_64/arch/x86/boot/bzImage" || rc=$?

step "/sys/devices/system"
sed -n '/^SYSDEV-TREE-BEGIN/,/^SYSDEV-TREE-END/p' "$log" | tr -d '\r' | sed '1d;$d'
step "suspend-to-RAM"
# The cycle the guest's check "suspend" ran, as the kernel logged it: the
# system device callbacks in the order they ran, how long the machine was
# down, and the timers.
cycle=$(grep -a "^SYSDEV-CYCLE " "$log" | tr -d '\r' | cut -d' ' -f2- || true)
if [ -n "$cycle" ]; then
	sed 's/^/  /' <<<"$cycle"
	awk 'match($0, /^\[ *[0-9.]+\]/) { t = substr($0, RSTART + 1, RLENGTH - 2) + 0 }
	     /PM: suspend entry/ { t0 = t } /PM: suspend exit/ { t1 = t }
	     END { if (t0 != "" && t1 != "") printf "  kernel time from suspend entry to exit: %.2f s (the clock stops while asleep)\n", t1 - t0 }' <<<"$cycle"
	echo "  system device callbacks: $(grep -c 'sysdev: ' <<<"$cycle")"
fi
grep -a "^SYSDEV-\(INFO\|CHECK\) suspend" "$log" | tr -d '\r' | sed 's/^SYSDEV-\(INFO\|CHECK\) suspend /  /'
echo
if [ $rc -eq 0 ]; then
	echo "run-series: done in $(( $(date +%s) - t0 ))s; full console log: $log"
else
	die "the boot failed (see above); full console log: $log"
fi
