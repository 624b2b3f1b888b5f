# Common settings for the workbench scripts; sourced, never run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The base of the series: the Debian package of the long-term kernel it is
# against.  This is the only place that names it; the tarball, the cache
# directory and the version the tests print follow from it.
KPKG=linux-source-6.12
BASE_VERSION=${KPKG#linux-source-}
# Everything large lives outside the repository, one directory per base.
SYSDEV_CACHE=${SYSDEV_CACHE:-$HOME/.cache/sysdev-series/$BASE_VERSION}
KSRC=${KSRC:-$SYSDEV_CACHE/linux}
BUILD_ROOT=${BUILD_ROOT:-$SYSDEV_CACHE/build}
# The unpatched tree (a worktree detached at the base) and its builds, laid
# out like KSRC and BUILD_ROOT so that ccache hits across the two.
BASE_KSRC=${BASE_KSRC:-$SYSDEV_CACHE/base/linux}
BASE_BUILD_ROOT=$SYSDEV_CACHE/base/build
LOG_ROOT=${LOG_ROOT:-$SYSDEV_CACHE/logs}
export CCACHE_DIR=${CCACHE_DIR:-$SYSDEV_CACHE/ccache}
# ccache's default 5 GB holds fewer than the ~20 tree states a run compiles
# (five configurations at the base and at several patches, debug, the
# cross defconfigs): evictions would make every warm run a cold one.
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-25G}
KTARBALL=${KTARBALL:-/usr/src/$KPKG.tar.xz}
OUTGOING=${OUTGOING:-$TOP/outgoing}
COVER=${COVER:-$TOP/cover-letter.txt}

# Branch and tag names inside the kernel tree.
BASE_TAG=sysdev-base
WORK_BRANCH=${WORK_BRANCH:-sysdev}

# Fixed identity and date of the base commit, so that its id (and the
# base-commit: trailer of the cover letter) is the same on every machine.
BASE_IDENT_NAME="sysdev workbench"
BASE_IDENT_EMAIL="sysdev-workbench@localhost"
BASE_DATE="2003-06-06T18:18:30-0700"

JOBS=${JOBS:-$(nproc)}

die() { echo "${0##*/}: error: $*" >&2; exit 1; }
note() { echo "${0##*/}: $*" >&2; }

# apt_install PACKAGE...: install from Debian's archive (as root; dies
# otherwise), without recommends.
apt_install() {
	[ "$(id -u)" -eq 0 ] || die "$* missing: run as root to install it"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# kpkg_installed: "linux-source-6.12 6.12.118-1~deb12u1", the base's
# package as installed (nothing when it is not): what a pipeline's jobs
# must share (ci/gatelib/plan.py kpkg_version() is the same for Python).
kpkg_installed() {
	dpkg-query -W -f '${Package} ${Version}' "$KPKG" 2>/dev/null || true
}

# git in the kernel tree, with a stable identity for commits we make.
kgit() {
	git -C "$KSRC" -c user.name="$BASE_IDENT_NAME" \
		-c user.email="$BASE_IDENT_EMAIL" "$@"
}

# The sysdev KUnit suite of $KSRC's checkout, as check-log.sh -K wants it:
# "sysdev:N[:CASE,...]", N the count ci/expected-kunit-cases.txt pins for
# the last of its patches listed there and the cases it lets skip, or
# nothing before the patch that adds the suite.  Dies when no line pins
# the checkout's suite or its KUNIT_CASE lines are another number: the
# count a boot must run is never read only from the code under test.
sysdev_kunit_expect() {
	local f=$KSRC/drivers/base/test/sysdev_kunit.c
	local pins=${KUNIT_PINS:-$TOP/ci/expected-kunit-cases.txt}
	local n subjects cnt subj may pinned="" at="" skips=""
	[ -f "$f" ] || return 0
	n=$(grep -cE '^[[:space:]]*KUNIT_CASE(_SLOW)?\(' "$f") ||
		die "$f: no KUNIT_CASE"
	subjects=$(git -C "$KSRC" log -n 64 --format=%s HEAD) ||
		die "$KSRC: no commit checked out"
	while IFS=$'\t' read -r cnt subj may; do
		case $cnt in ''|'#'*) continue ;; esac
		if grep -qxF -- "$subj" <<<"$subjects"; then
			pinned=$cnt at=$subj skips=$may
		fi
	done < "$pins"
	[ -n "$pinned" ] ||
		die "$f exists, but no line of ${pins#"$TOP"/} names a commit of this checkout"
	[ "$n" = "$pinned" ] ||
		die "$f has $n KUNIT_CASE lines; ${pins#"$TOP"/} pins $pinned after \"$at\""
	echo "sysdev:$n${skips:+:$skips}"
}

# side_tree DIR FILE MESSAGE: DIR/linux, a tree of its own at the series
# head (branch $WORK_BRANCH of $KSRC, whatever $KSRC has checked out) plus
# one commit that appends stdin to FILE, for a kernel that needs code the
# series does not have (make perf's exports, reliability_fallback's
# initcall).  Build it with KSRC=DIR/linux BUILD_ROOT=DIR/build: laid out
# as $KSRC and $BUILD_ROOT are, so that ccache hits across them.
side_tree() {
	local dir=$1 file=$2 msg=$3 head
	require_tree
	head=$(kgit rev-parse --verify -q "$WORK_BRANCH^{commit}") ||
		die "no branch $WORK_BRANCH in $KSRC: run scripts/apply-series.sh"
	kgit cat-file -e "$head:$file" 2>/dev/null ||
		die "$file is not in the series head $head: nothing to add to"
	mkdir -p "$dir"
	[ -e "$dir/linux/.git" ] || git clone -q --shared --no-checkout "$KSRC" "$dir/linux"
	git -C "$dir/linux" fetch -q "$KSRC" "$head"
	git -C "$dir/linux" checkout -q -f -B side "$head"
	cat >>"$dir/linux/$file"
	git -C "$dir/linux" -c user.name="$BASE_IDENT_NAME" -c user.email="$BASE_IDENT_EMAIL" \
		commit -q -a -m "$msg"
}

require_tree() {
	[ -e "$KSRC/.git" ] || die "no kernel tree at $KSRC; run scripts/prepare-tree.sh"
}

tree_clean() {
	[ -z "$(kgit status --porcelain --untracked-files=normal)" ]
}

series_patches() {
	# The numbered patches of outgoing/, in order, without the cover letter.
	local f
	for f in "$OUTGOING"/*.patch; do
		[ -e "$f" ] || continue
		case "${f##*/}" in
		0000-*|v[0-9]*-0000-*) ;;
		*) echo "$f" ;;
		esac
	done
}

# Identity of the series' author (From:, Signed-off-by:).  Whoever mails the
# series re-signs it with their own name (README, "Mailing the series").
SERIES_NAME=${SERIES_NAME:-Sysdev Team}
SERIES_EMAIL=${SERIES_EMAIL:-sysdev@example.org}

# git with no user or system configuration, so that the same commits give
# the same files on every machine; identity is the series author.
pgit() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null \
	GIT_COMMITTER_NAME="$SERIES_NAME" GIT_COMMITTER_EMAIL="$SERIES_EMAIL" \
		git -C "$KSRC" "$@"
}

# Identifies "base + these patches": recorded when the working branch is
# made from outgoing/ or outgoing/ from it.
series_fingerprint() {
	local p
	{
		kgit rev-parse "$BASE_TAG^{commit}"
		series_patches | while read -r p; do cat "$p"; done
	} | sha256sum | cut -c1-64
}

# pack_cpio DIR OUT: DIR's files as a reproducible newc archive (sorted,
# owner root, fixed times), the format the kernel unpacks as initramfs.
pack_cpio() {
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --reproducible --quiet) > "$2"
}

# qemu_argv TOPOLOGY KERNEL INITRD CMDLINE LOG: the QEMU command of every
# test boot, in the array QEMU_ARGV: PC machine, TCG, no reboot, serial
# console to LOG; TOPOLOGY numa2 (2 CPUs on 2 NUMA nodes, 1 GiB) or up.
qemu_argv() {
	QEMU_ARGV=(qemu-system-x86_64 -M pc -accel tcg -no-reboot
		-display none -monitor none -serial "file:$5" -nic none)
	case $1 in
	numa2) QEMU_ARGV+=(-smp 2,sockets=2,cores=1,threads=1 -m 1024
		-object memory-backend-ram,id=m0,size=512M
		-object memory-backend-ram,id=m1,size=512M
		-numa node,nodeid=0,cpus=0,memdev=m0
		-numa node,nodeid=1,cpus=1,memdev=m1) ;;
	up) QEMU_ARGV+=(-smp 1 -m 512) ;;
	# numa2 plus node 2 with neither CPU nor memory but a CPU that can
	# be plugged (socket 2), node 3 with neither, room for a DIMM (QEMU
	# gives the range of pluggable memory to the last node), and a QMP
	# socket LOG.qmp for qemu/qmp-hotadd.py (qemu/checks/hotadd.sh,
	# cpu-hotadd.sh).  Linux numbers nodes in the order of the SRAT,
	# which lists the CPUs first: QEMU's nodes 2 and 3 are Linux's.
	# Linux takes the pluggable CPU only
	# under a hypervisor it knows (acpi_is_processor_usable()): the
	# SMBIOS serial and QEMU's VMware port make it detect VMware
	# (vmware_platform(), with ci/configs/hotadd.config); that path is
	# taken only without the CPUID hypervisor bit (with it, Linux asks
	# CPUID for VMware's signature, which TCG does not give).
	hotadd) QEMU_ARGV+=(-cpu qemu64,-hypervisor
		-smbios type=1,serial=VMware-sysdev
		-smp 2,maxcpus=3,sockets=3,cores=1,threads=1
		-m 1024,slots=2,maxmem=2048M
		-object memory-backend-ram,id=m0,size=512M
		-object memory-backend-ram,id=m1,size=512M
		-numa node,nodeid=0,cpus=0,memdev=m0
		-numa node,nodeid=1,cpus=1,memdev=m1
		-numa node,nodeid=2
		-numa node,nodeid=3
		-numa cpu,node-id=2,socket-id=2
		-qmp "unix:$5.qmp,server=on,wait=off") ;;
	*) die "qemu_argv: unknown topology $1" ;;
	esac
	QEMU_ARGV+=(-kernel "$2" -initrd "$3" -append "$4")
}
