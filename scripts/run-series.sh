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
"$TOP/qemu/boot.sh" -k -c boot,tree,suspend -o "$log" "$BUILD_ROOT/x86_64/arch/x86/boot/bzImage" || rc=$?

step "/sys/devices/system"
sed -n '/^SYSDEV-TREE-BEGIN/,/^SYSDEV-TREE-END/p' "$log" | tr -d '\r' | sed '1d;$d'
step "suspend-to-RAM"
grep -aE "PM: suspend (entry|exit)|ACPI: PM: (Preparing to enter|Low-level resume|Waking up)|^SYSDEV-(INFO|CHECK) suspend|sysdev: " "$log" | tr -d '\r' | sed 's/^/  /' | sed -n '1,60p'  # not head: SIGPIPE under pipefail
echo
if [ $rc -eq 0 ]; then
	echo "run-series: done in $(( $(date +%s) - t0 ))s; full console log: $log"
else
	die "the boot failed (see above); full console log: $log"
fi
