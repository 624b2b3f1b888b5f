#!/usr/bin/env bash
# Install the Debian 12 packages the workbench needs; a fast no-op when all
# of them are present.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0 [--check]   (install missing packages; --check only lists them)"; }

PKGS=(
	"$KPKG" gcc make flex bison bc libelf-dev libssl-dev cpio
	qemu-system-x86 busybox-static sparse coccinelle perl git git-email
	# coccinelle's scripts with OCaml rules (badzero.cocci,
	# check_bq27xxx_data.cocci) need the OCaml compiler at run time
	ocaml-nox
	ccache codespell python3 python3-docutils python3-ply python3-git libmailtools-perl xz-utils
	# the gate's clang build (LLVM=1), as the kernel's robots do
	clang lld llvm
	# cross compilers for the gate's "cross" check (ci/cross-build.py)
	gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu gcc-s390x-linux-gnu gcc-sparc64-linux-gnu
)

check_only=0
case "${1:-}" in
	"") ;;
	--check) check_only=1 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
esac

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	exit 0
fi
echo "install-deps: missing: ${missing[*]}"
[ $check_only -eq 1 ] && exit 1

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: must run as root to install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: installed ${missing[*]}"
