#!/usr/bin/env bash
# make perf: performance of the series head against the unpatched base.
#
# Builds the "perf" configuration (ci/configs/perf.config) of both trees
# and the benchmark module ci/perf/sysdev_perf.c against each, boots each
# kernel BOOTS times in QEMU (alternating base and head), loads the module
# and times suspend cycles in the first boot of each, and prints the table
# of ci/perf/perf-table.py.  Raw data: $SYSDEV_CACHE/perf/<date>/.
# Exit status: 0 when every figure was measured (the table says which
# targets are met and which missed), 2 a figure missing or a boot failed.  Not part of make test: it takes 15-30 minutes.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: ${0##*/} [-B] [-M] [-k CONFIG] [-b CONFIG] [-K KERNELS] [-n BOOTS] [-c CYCLES] [-r REPS] [-t SECONDS] [-o DIR]
  -B          do not build: measure the object directories as they are
  -M          no module: only suspend cycles and boots
  -k CONFIG   kernel configuration of both trees (default perf, built here);
              another one (x86_64) must be built already, and without
              CONFIG_MODULES the registration figures are missing
  -b CONFIG   configuration of the base only (default: as -k); a fallback
              when the base's perf build is missing, with a config difference
  -K KERNELS  build and boot only these ("base head", the default, or one);
              with -o DIR of an earlier run, boots that passed are kept
  -n BOOTS    boots of each kernel for the boot time (default 3)
  -c CYCLES   pm_test=core and suspend-to-RAM cycles of each kernel (default 20)
  -r REPS     rounds of 10,000 registrations of each kind (default 3)
  -t SECONDS  timeout of one boot (default 900)
  -o DIR      raw data directory (default \$SYSDEV_CACHE/perf/<date>)
USAGE
}
build=1 module=1 config=perf bconfig="" kernels="base head" boots=5 cycles=20 reps=3 timeout=900 out=""
while getopts "BMk:b:K:n:c:r:t:o:h" opt; do
	case $opt in
	B) build=0 ;;
	M) module=0 ;;
	k) config=$OPTARG ;;
	K) kernels=$OPTARG ;;
	b) bconfig=$OPTARG ;;
	n) boots=$OPTARG ;;
	c) cycles=$OPTARG ;;
	r) reps=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
# The registration benchmark is a module that calls the system device API;
# since v9 the series exports nothing, so the module cannot link against
# the head.  Say so instead of failing in the middle of a build.
if [ $module -eq 1 ] && ! grep -q "EXPORT_SYMBOL.*(sys_device_register)" "$KSRC/drivers/base/sysdev.c" 2>/dev/null; then
	die "the registration benchmark (ci/perf/sysdev_perf.c) needs the system device API exported, and the series exports nothing: not ported to v9 yet; -M measures the suspend cycles and boots only"
fi
[ $# -eq 0 ] || { usage >&2; exit 2; }
[ -n "$out" ] || out=$SYSDEV_CACHE/perf/$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out"
perf=$TOP/ci/perf
# The table's parser must reject incomplete data before we trust it.
python3 "$perf/test-perf-table.py" >"$out/parser-selftest.txt" ||
	{ cat "$out/parser-selftest.txt" >&2; die "perf-table.py self-test failed"; }

# 1. Kernels (incremental: quick when nothing changed).  Only the perf
# configuration is built here: the others belong to the test suite.
[ -n "$bconfig" ] || bconfig=$config
declare -A objdir=([base]=$BASE_BUILD_ROOT/$bconfig [head]=$BUILD_ROOT/$config)
want() { case " $kernels " in *" $1 "*) return 0 ;; esac; return 1; }
if [ "$build" = 1 ] && [ "$config" = perf ] && want head; then
	note "building the perf kernel of the series head ($KSRC)"
	nice "$TOP/scripts/build-kernel.sh" -q perf bzImage modules
fi
if [ "$build" = 1 ] && [ "$bconfig" = perf ] && want base; then
	note "building the perf kernel of the unpatched base ($BASE_KSRC)"
	KSRC=$BASE_KSRC BUILD_ROOT=$BASE_BUILD_ROOT nice "$TOP/scripts/build-kernel.sh" -q perf bzImage modules
fi
# Copies, so that a rebuild during the run cannot change what is measured.
for k in $kernels; do
	for f in arch/x86/boot/bzImage vmlinux .config drivers/base/sysdev.o; do
		[ -f "${objdir[$k]}/$f" ] || { [ "$k/$f" = base/drivers/base/sysdev.o ] && continue; die "${objdir[$k]}/$f missing"; }
		mkdir -p "$out/$k"
		cp "${objdir[$k]}/$f" "$out/$k/${f##*/}"
	done
done
echo "config $config base-config $bconfig" >>"$out/info.txt"
for k in $kernels; do
	echo "$k $(cat "${objdir[$k]}/include/config/kernel.release" 2>/dev/null) $(git -C "$([ "$k" = base ] && echo "$BASE_KSRC" || echo "$KSRC")" rev-parse HEAD)" >>"$out/info.txt"
done

# 2. The module, built outside the repository, and one initramfs per
# kernel: the test initramfs with the module and the guest script appended
# as a second cpio archive (the kernel unpacks both).
common=$out/initramfs-common.cpio
"$TOP/qemu/mkinitramfs.sh" "$common" >/dev/null
for k in $kernels; do
	root=$out/extra-$k
	rm -rf "$root" && mkdir -p "$root/perf" "$root/checks"
	cp "$perf/guest-perf.sh" "$root/checks/perf.sh"
	if [ "$module" = 0 ]; then
		note "$k: -M: no module"
	elif grep -qx CONFIG_MODULES=y "${objdir[$k]}/.config"; then
		m=$out/module-$k
		rm -rf "$m" && mkdir -p "$m"
		cp "$perf/Kbuild" "$perf/sysdev_perf.c" "$m/"
		nice make -C "${objdir[$k]}" M="$m" W=1 modules >"$m/build.log" 2>&1 ||
			{ cat "$m/build.log" >&2; die "$k: module build failed"; }
		cp "$m/sysdev_perf.ko" "$root/perf/"
	else
		note "$k: no CONFIG_MODULES in ${objdir[$k]}: no registration figures"
	fi
	pack_cpio "$root" "$out/extra-$k.cpio"
	cat "$common" "$out/extra-$k.cpio" >"$out/initramfs-$k.cpio"
	rm -rf "$root"
done

# 3. Static sizes.
if [ -f "$out/base/vmlinux" ] && [ -f "$out/head/vmlinux" ]; then
{
	echo "sysdev.o $(size "$out/head/sysdev.o" | awk 'NR == 2 { print $1, $2, $3 }')"
	echo "vmlinux-base $(size "$out/base/vmlinux" | awk 'NR == 2 { print $1, $2, $3 }')"
	echo "vmlinux-head $(size "$out/head/vmlinux" | awk 'NR == 2 { print $1, $2, $3 }')"
} >"$out/sizes.txt"
"$KSRC/scripts/bloat-o-meter" "$out/base/vmlinux" "$out/head/vmlinux" >"$out/bloat-o-meter.txt"
fi

# 4. Boots.  The first boot of each kernel does the module and the suspend
# cycles; the others only boot.  Base and head alternate (the order swaps
# every boot) so that a change of the host's load hits both.
boot_one() { # KERNEL INDEX FULL
	local k=$1 i=$2 full=$3 log=$out/boot-$1-$2.log extra
	[ -f "$log.ok" ] && { note "boot $i of $k: kept from an earlier run"; return 0; }
	extra="perf_module=0 perf_cycles=0"
	if [ "$full" = 1 ]; then
		extra="perf_module=0 perf_cycles=$cycles"
		[ -f "$out/module-$k/sysdev_perf.ko" ] &&
			extra="perf_module=1 perf_module_args=reps=$reps perf_cycles=$cycles"
	fi
	echo "$k $i $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
	note "boot $i of $k: $extra"
	qemu_argv numa2 "$out/$k/bzImage" "$out/initramfs-$k.cpio" \
		"console=ttyS0,115200 panic=-1 quiet log_buf_len=4M kunit.enable=0 sysdev_checks=perf $extra" "$log"
	set +e
	timeout -k 5 "$timeout" "${QEMU_ARGV[@]}" </dev/null >"$log.qemu" 2>&1
	local rc=$?
	set -e
	echo "$k $i end $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg) qemu_rc $rc" >>"$out/load.txt"
	"$TOP/qemu/check-log.sh" -c perf "$log" >"$log.judge" 2>&1 ||
		{ cat "$log.judge" >&2; note "boot $i of $k failed (qemu exit $rc): $log"; return 1; }
	touch "$log.ok"
}
failed=0
for i in $(seq 1 "$boots"); do
	order="base head"
	[ $((i % 2)) -eq 0 ] && order="head base"
	for k in $order; do
		want "$k" || continue
		boot_one "$k" "$i" "$([ "$i" = 1 ] && echo 1 || echo 0)" || failed=1
	done
done
nproc >"$out/nproc.txt"

# 5. The table.
set +e
python3 "$perf/perf-table.py" "$out" | tee "$out/table.md"
rc=${PIPESTATUS[0]}
set -e
echo "raw data: $out"
[ $failed -eq 0 ] || { echo "perf: a boot failed, see above" >&2; exit 2; }
exit "$rc"
