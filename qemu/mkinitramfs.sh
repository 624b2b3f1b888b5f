#!/usr/bin/env bash
# Build the test initramfs (busybox-static, qemu/init, qemu/checks/) as an
# uncompressed newc cpio; rebuilt only when one of its inputs changed.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() { echo "usage: ${0##*/} [OUTPUT.cpio]   (default \$BUILD_ROOT/initramfs.cpio)"; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
out=${1:-$BUILD_ROOT/initramfs.cpio}
bb=${BUSYBOX:-/bin/busybox}
[ -x "$bb" ] || die "$bb missing; run scripts/install-deps.sh (busybox-static)"
file -L "$bb" 2>/dev/null | grep -q 'statically linked' || [ ! -x /usr/bin/file ] ||
	die "$bb is not statically linked (install busybox-static)"

inputs=("$bb" "$TOP/qemu/init" "$TOP"/qemu/checks/*)
if [ -f "$out" ]; then
	newer=0
	for f in "${inputs[@]}"; do [ "$f" -nt "$out" ] && newer=1; done
	[ $newer -eq 0 ] && { echo "$out"; exit 0; }
fi

mkdir -p "$(dirname "$out")"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/checks" "$root/dev" "$root/proc" "$root/sys"
cp "$bb" "$root/bin/busybox"
install -m 0755 "$TOP/qemu/init" "$root/init"
cp "$TOP"/qemu/checks/* "$root/checks/"
pack_cpio "$root" "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
