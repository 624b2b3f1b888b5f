#!/usr/bin/env bash
# make perf: performance of the series head against the unpatched base.
#
# Builds the production-like "perf" configuration (ci/configs/perf.config)
# of the unpatched base and of the series head, the head also as
# "perf-lockdep", and the benchmark module ci/perf/sysdev_perf.c against
# each; boots base and head BOOTS times in QEMU (alternating), loads the
# module and times suspend cycles in the first boot of each, loads the
# module once in the lockdep kernel, and prints the table of
# ci/perf/perf-table.py.  Raw data: $SYSDEV_CACHE/perf/<date>/.
# With -I, QEMU counts time by instructions (-icount shift=0,sleep=off:
# one nanosecond of the guest's clock per instruction executed), so that
# the figures do not depend on the host's load or speed: an instruction
# count, not a time.  The same round repeats within 0.05% from run to
# run, but the rounds of one boot differ by up to 10%, so compare the
# medians of the same rounds, never single ones.
# Exit status: 0 when every figure was measured (the table says which
# targets are met and which missed), 2 a figure missing or a boot failed.
# Not part of make test: it takes 15-60 minutes.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: ${0##*/} [-b|-B] [-I] [-M] [-L] [-K KERNELS] [-n BOOTS] [-c CYCLES] [-r REPS] [-N COUNT] [-t SECONDS] [-o DIR]
  -b          build the kernels, then stop (to boot them later with -B)
  -B          do not build: measure the object directories as they are
  -I          QEMU's clock counts instructions (-icount shift=0,sleep=off)
  -M          no module: only suspend cycles and boots
  -L          no lockdep kernel (its registration figures are then missing)
  -K KERNELS  build and boot only these (default "base head lockdep");
              with -o DIR of an earlier run, boots that passed are kept
  -n BOOTS    boots of base and head for the boot time (default 5)
  -c CYCLES   pm_test=core and suspend-to-RAM cycles of each kernel (default 20)
  -r REPS     rounds of registrations of each kind (default 3)
  -N COUNT    devices registered per round (default 10000)
  -t SECONDS  timeout of one boot (default 900)
  -o DIR      raw data directory (default \$SYSDEV_CACHE/perf/<date>)
USAGE
}
build=1 build_only=0 icount=0 module=1 kernels="base head lockdep" boots=5 cycles=20 reps=3 count=10000 timeout=900 out=""
while getopts "bBIMLK:n:c:r:N:t:o:h" opt; do
	case $opt in
	b) build_only=1 ;;
	B) build=0 ;;
	I) icount=1 ;;
	M) module=0 ;;
	L) kernels=${kernels/lockdep/} ;;
	K) kernels=$OPTARG ;;
	n) boots=$OPTARG ;;
	c) cycles=$OPTARG ;;
	r) reps=$OPTARG ;;
	N) count=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
for o in "n $boots" "r $reps" "N $count" "t $timeout"; do
	[[ ${o#* } =~ ^[1-9][0-9]*$ ]] || { usage >&2; echo "-${o%% *}: '${o#* }' is not a positive number" >&2; exit 2; }
done
[[ $cycles =~ ^[0-9]+$ ]] || { usage >&2; echo "-c: '$cycles' is not a number" >&2; exit 2; }
for k in $kernels; do
	case $k in base|head|lockdep) ;; *) usage >&2; die "-K: no kernel '$k' (base, head, lockdep)" ;; esac
done
[ -n "$out" ] || out=$SYSDEV_CACHE/perf/$(date -u +%Y%m%d-%H%M%S)
clock=wall
[ "$icount" = 0 ] || clock="icount shift=0,sleep=off"
# the boots an earlier run into DIR kept must have been timed the same way
if [ -f "$out/info.txt" ] && grep -q '^clock ' "$out/info.txt" &&
	! grep -qx "clock $clock" "$out/info.txt"; then
	die "$out: measured with '$(grep -m1 '^clock ' "$out/info.txt")', not 'clock $clock': use another -o"
fi
perf=$TOP/ci/perf
if [ "$build_only" = 0 ]; then
	mkdir -p "$out"
	# The table's parser must reject incomplete data before we trust it.
	python3 "$perf/test-perf-table.py" >"$out/parser-selftest.txt" ||
		{ cat "$out/parser-selftest.txt" >&2; die "perf-table.py self-test failed"; }
fi

# 1. The trees.  The series exports nothing, so the head kernels are built
# from a tree of their own (scripts/lib.sh side_tree): the series head
# plus one commit, made here at every run, that exports the API to the
# benchmark module.
PERF_KSRC=$SYSDEV_CACHE/perf/linux
PERF_BUILD_ROOT=$SYSDEV_CACHE/perf/build
want() { case " $kernels " in *" $1 "*) return 0 ;; esac; return 1; }
perf_tree() {
	side_tree "$SYSDEV_CACHE/perf" drivers/base/sysdev.c \
		"perf: export the system device API to ci/perf's module" <<'EXPORTS'

/* ci/perf/run-perf.sh only, for its benchmark module: not in the series */
EXPORT_SYMBOL_GPL(sysdev_class_register);
EXPORT_SYMBOL_GPL(sysdev_class_unregister);
EXPORT_SYMBOL_GPL(sys_device_register);
EXPORT_SYMBOL_GPL(sys_device_unregister);
const size_t sysdev_perf_node_size = sizeof(struct sysdev_node);
EXPORT_SYMBOL_GPL(sysdev_perf_node_size);
EXPORTS
}
declare -A objdir=([base]=$BASE_BUILD_ROOT/perf [head]=$PERF_BUILD_ROOT/perf
	[lockdep]=$PERF_BUILD_ROOT/perf-lockdep)
declare -A config=([base]=perf [head]=perf [lockdep]=perf-lockdep)
if [ "$build" = 1 ]; then
	if want head || want lockdep; then
		perf_tree
		for k in head lockdep; do
			want "$k" || continue
			note "building the ${config[$k]} kernel of the series head with exports ($PERF_KSRC)"
			KSRC=$PERF_KSRC BUILD_ROOT=$PERF_BUILD_ROOT nice "$TOP/scripts/build-kernel.sh" -q "${config[$k]}" bzImage modules
		done
	fi
	if want base; then
		note "building the perf kernel of the unpatched base ($BASE_KSRC)"
		KSRC=$BASE_KSRC BUILD_ROOT=$BASE_BUILD_ROOT nice "$TOP/scripts/build-kernel.sh" -q perf bzImage modules
	fi
fi
if [ "$build_only" = 1 ]; then
	note "built: ${kernels}; boot them with -B"
	exit 0
fi
# Copies, so that a rebuild during the run cannot change what is measured.
for k in $kernels; do
	for f in arch/x86/boot/bzImage vmlinux .config drivers/base/sysdev.o; do
		[ -f "${objdir[$k]}/$f" ] || { [ "$k/$f" = base/drivers/base/sysdev.o ] && continue; die "${objdir[$k]}/$f missing: build it (without -B)"; }
		mkdir -p "$out/$k"
		cp "${objdir[$k]}/$f" "$out/$k/${f##*/}"
	done
done
for k in $kernels; do
	src=$PERF_KSRC
	[ "$k" = base ] && src=$BASE_KSRC
	echo "$k ${config[$k]} $(cat "${objdir[$k]}/include/config/kernel.release" 2>/dev/null) $(git -C "$src" rev-parse HEAD)" >>"$out/info.txt"
done
echo "series-head $(kgit rev-parse "$WORK_BRANCH")" >>"$out/info.txt"
echo "clock $clock" >>"$out/info.txt"

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

# 3. Static sizes (the head with run-perf.sh's exports: a few dozen bytes
# of __ksymtab entries more than the series has).
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
		# the lockdep kernel is there for the registration figures only
		local c=$cycles
		[ "$k" = lockdep ] && c=0
		extra="perf_module=0 perf_cycles=$c"
		[ -f "$out/module-$k/sysdev_perf.ko" ] &&
			extra="perf_module=1 perf_module_args=reps=$reps,count=$count perf_cycles=$c"
	fi
	echo "$k $i $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
	note "boot $i of $k: $extra"
	qemu_argv numa2 "$out/$k/bzImage" "$out/initramfs-$k.cpio" \
		"console=ttyS0,115200 panic=-1 quiet log_buf_len=4M kunit.enable=0 sysdev_checks=perf $extra" "$log"
	[ "$icount" = 0 ] || QEMU_ARGV+=(-icount shift=0,sleep=off)
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
# One boot of the lockdep kernel, for its registration figures.
if want lockdep; then
	boot_one lockdep 1 1 || failed=1
fi
nproc >"$out/nproc.txt"

# 5. The table.
set +e
python3 "$perf/perf-table.py" "$out" | tee "$out/table.md"
rc=${PIPESTATUS[0]}
set -e
echo "raw data: $out"
[ $failed -eq 0 ] || { echo "perf: a boot failed, see above" >&2; exit 2; }
exit "$rc"
