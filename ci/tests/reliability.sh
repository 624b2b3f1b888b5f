# Reliability of the series at its head: repeated power transitions,
# hibernation, reboot, halt, kexec, the callback order against the
# unpatched kernel, and boots of the debug kernel (KASAN, kmemleak,
# debugobjects, delayed kobject release, lockdep) and of the PREEMPT_RT
# kernel.  Sourced by run-tests.sh.
#
# Boots:
#   reliability_stress  the test kernel: checks stress (10 suspend-to-RAM +
#                       20 pm_test=core cycles) and hibernate, ending with a
#                       reboot instead of a power off (sysdev_end=reboot)
#   reliability_hibernate_disk  the test kernel with a virtio disk: a real
#                       hibernation in platform mode across two boots
#                       (qemu/checks/hibernate-disk.sh), then a
#                       suspend-to-RAM and a power off, judged as one log
#   reliability_halt    the test kernel ending with a halt (LINUX_REBOOT_CMD_HALT)
#                       instead of a power off
#   reliability_kexec_jump  the debug kernel: kexec with preserve_context
#                       there and back (qemu/checks/kexec-jump.sh), then a
#                       plain kexec reboot into the same kernel
#                       (qemu/checks/kexec-reboot.sh), judged as one log
#   reliability_order   the unpatched kernel and the head, each with a
#                       suspend-to-RAM and a power off: the order of their
#                       syscore and system device callbacks and of the
#                       device shutdowns (ci/tests/callback-order.py)
#                       differs only by ci/tests/fixtures/callback-order.diff
#   reliability_debug   ci/configs/debug.config: KUnit, x86-sysdev,
#                       suspend, hibernate with a real image (test_resume on
#                       a RAM disk), the suite run again with every
#                       allocation of a registration failed in turn
#                       (failslab) and kmemleak, ending with a power off
#   reliability_rt      ci/configs/rt.config (PREEMPT_RT, lockdep,
#                       DEBUG_ATOMIC_SLEEP): KUnit (the sysdev suite walks
#                       its classes in stop_machine() with interrupts off:
#                       a sleeping lock there is a splat), x86-sysdev,
#                       suspend and a few stress cycles, ending with a
#                       power off
#   reliability_nosysfs ci/configs/nosysfs.config (no sysfs, kernfs built
#                       for the cgroups, where v8 oopsed): boots, and the
#                       sysdev KUnit suite runs every case
#   reliability_hotadd  ci/configs/hotadd.config in QEMU's hotadd topology:
#                       memory plugged through QMP into a node without
#                       CPUs or memory while the guest runs (qemu/checks/
#                       hotadd.sh): the node system device registered at
#                       run time, hugepages/ before the node's uevent;
#                       then a CPU plugged into another such node and
#                       brought up (cpu-hotadd.sh): hotplug/ and its
#                       latency limit at the CPU's add event, compact
#                       and hugepages/ at its new node's
#   reliability_hotadd_base  the unpatched tree's hotadd kernel through
#                       the same CPU hot-add: cpu-hotadd.sh must fail,
#                       as 6.12 gives a hot-added CPU no hotplug/
#   reliability_fallback the test kernel with the names of the lapic,
#                       i8259 and clocksource classes taken first: all
#                       three fall back to their syscore at its place
#                       (suspend cycles, the power off)
# Each of them judges the end of its boots (shutdown_judge): the devices
# shut down, then the i8259's shutdown from its class, once, then the
# kernel's last step (power off, restart, halt, the next kernel).
#
# And reliability_judges, the cheap self-tests: every judge these tests
# rely on must pass the good log and reject a log with one defect.  The
# fixtures (ci/tests/fixtures/reliability/) come from real boots of the
# head on 6.12: consoles cut to the lines the judges read, and dmesg
# extracts of one transition (hib-image.dmesg: what the guest's dmesg
# holds after a test_resume, the console's lines up to the snapshot and
# those the restored image replayed).
#
# What is not tested any more (v8 tested it on 6.1): allocation failures in
# a registration (reliability_fault: a module's fault injection through the
# exported API; v9 exports nothing, so no module can register a class).

ALL_TESTS+=(reliability_judges reliability_stress reliability_hibernate_disk
	reliability_halt reliability_kexec_jump reliability_order reliability_debug
	reliability_rt reliability_nosysfs reliability_fallback reliability_hotadd
	reliability_hotadd_base)

REL_FIXTURES=$TOP/ci/tests/fixtures/reliability
DEBUG_IMAGE=$BUILD_ROOT/debug/arch/x86/boot/bzImage
RT_IMAGE=$BUILD_ROOT/rt/arch/x86/boot/bzImage
NOSYSFS_IMAGE=$BUILD_ROOT/nosysfs/arch/x86/boot/bzImage
HOTADD_IMAGE=$BUILD_ROOT/hotadd/arch/x86/boot/bzImage
# The x86 classes the head converts (patches 6 and 7): the host judges
# expect them as the guest's x86_converted finds them in /proc/kallsyms.
REL_CONVERTED="lapic i8259"

# The tree state these tests judge: the working branch made from outgoing/
# and checked out at its head (the gate leaves the tree where it found it,
# which need not be the head).
rel_head() {
	bash "$TOP/scripts/apply-series.sh" &&
		kgit checkout -q "$WORK_BRANCH" &&
		echo "testing $(kgit log -1 --format='%h %s' HEAD)"
}

# rel_build CONFIG: rel_head, then the head's kernel of CONFIG built
# (incrementally) and the time it took printed.  (Explicit returns: the
# caller's "|| return 1" switches errexit off in here.)
rel_build() {
	local s=$SECONDS
	rel_head || { fail "rel_head failed: the series does not apply or check out"; return 1; }
	bash "$TOP/scripts/build-kernel.sh" -q "$1" || { fail "the $1 kernel does not build"; return 1; }
	echo "$CURRENT_TEST: build of $1 (incremental) took $((SECONDS - s))s"
}

# Per-cycle times of a console log, for the record.
rel_times() {
	grep -a "^SYSDEV-INFO \(stress\|hibernate\|kexec-jump\) " "$1" | tr -d '\r' || true
	grep -a "^SYSDEV-CHECK \(stress\|hibernate\|kmemleak\|x86-sysdev\|kexec-[a-z]*\) " "$1" | tr -d '\r' || true
}

# x86lib FUNCTION ARGS...: a function of qemu/checks/lib.sh (x86_judge,
# x86_expected) run on the host for the head's converted classes.
x86lib() {
	(
		# shellcheck disable=SC2034 # read by lib.sh
		CHECKS_DIR=$TOP/qemu/checks CHECK=host X86_CONVERTED=$REL_CONVERTED
		. "$TOP/qemu/checks/lib.sh"
		"$@"
	)
}

# x86_seq HALF...: the x86 interrupts-off callbacks of syscore_suspend()
# ("down": those of x86_expected that suspend or save) and of
# syscore_resume() ("up": the others), in a row.
x86_seq() {
	local all h
	all=$(x86lib x86_expected)
	for h in "$@"; do
		case $h in
		down) grep -E '_suspend$|_save_' <<<"$all" ;;
		up) grep -vE '_suspend$|_save_' <<<"$all" ;;
		esac
	done
}

# x86_lines FILE: the x86 callbacks the kernel printed in FILE, read as
# x86_judge in qemu/checks/lib.sh reads them (syscore's "Calling FN+0x..",
# sysdev's "sysdev: OP DEV class FN+0x.."), but only from the kernel's own
# lines: a console also has the guest's echoes of them (SYSDEV-CYCLE).
x86_lines() {
	tr -d '\r' < "$1" | sed -n -E \
		-e 's/^\[ *[0-9.]+\] Calling ([A-Za-z0-9_.]+)\+0x.*/syscore:\1/p' \
		-e 's/^\[ *[0-9.]+\] sysdev: (suspend|resume|shutdown) [^ ]+ (class|driver|global) ([A-Za-z0-9_.]+)\+0x.*/class:\3/p' |
		grep -E '^[a-z]+:(ioapic_suspend|ioapic_resume|i8259A(_dev)?_(suspend|resume)|lapic(_dev)?_(suspend|resume)|acpi_(save|restore)_bm_rld|irqrouter_resume)$' || true
}

# lines_judge WHAT WANT GOT: GOT is WANT, or say where they part.
lines_judge() {
	[ "$3" != "$2" ] || return 0
	echo "FAIL: $1: the x86 callbacks are not the $(grep -c . <<<"$2" || true) expected, in order ($(grep -c . <<<"$3" || true) lines):"
	diff <(echo "$2") <(echo "$3") | grep '^[<>]' | head -n 6 || true
	return 1
}

# section FROM TO FILE: the lines of FILE from the first matching the
# extended regular expression FROM to the first after it matching TO,
# both included (TO empty or matching none: to the end).
section() {
	awk -v from="$1" -v to="$2" 'on { print; if (to != "" && $0 ~ to) exit; next }
		$0 ~ from { on = 1; print }' "$3"
}

# shutdown_judge LABEL FILE END: FILE is the end of a boot on the console,
# from the guest's last check on.  The devices shut down (initcall_debug:
# "DEV: shutdown"), then the system devices' shutdown callbacks: the
# i8259's from its class and nothing else, once, then END (an extended
# regular expression: the kernel's last word, e.g. "reboot: Power down"),
# with no device after the i8259 and no shutdown from syscore_ops of the
# i8259 (a class that fell back).  With a fourth argument "syscore" (a
# kernel whose classes fell back), the other way round: the i8259's
# shutdown from syscore_ops, once, and none from a class.
I8259_SHUTDOWN='sysdev: shutdown i82590 class i8259A_dev_shutdown+'
I8259_SYSCORE_SHUTDOWN='Calling i8259A_shutdown+'
shutdown_judge() {
	local t n sd lastdev end want=$I8259_SHUTDOWN other=$I8259_SYSCORE_SHUTDOWN nwant=1
	if [ "${4:-}" = syscore ]; then
		want=$I8259_SYSCORE_SHUTDOWN other=$I8259_SHUTDOWN nwant=0
	fi
	t=$(tr -d '\r' < "$2" | sed 's/^\[ *[0-9.]*\] //')
	n=$(grep -c '^sysdev: shutdown ' <<<"$t" || true)
	sd=$(grep -nF "$want" <<<"$t" | cut -d: -f1 || true)
	if [ "$n" -ne "$nwant" ] || [ "$(wc -w <<<"$sd")" -ne 1 ]; then
		echo "FAIL: $1: want the i8259's shutdown once ('$want') and $nwant system device shutdowns, got $n: $(grep '^sysdev: shutdown ' <<<"$t" | tr '\n' ';')"
		return 1
	fi
	if grep -qF "$other" <<<"$t"; then
		echo "FAIL: $1: the i8259's shutdown ran as '$other' too"
		return 1
	fi
	lastdev=$(grep -n ': shutdown$' <<<"$t" | tail -n 1 | cut -d: -f1 || true)
	end=$(grep -nE "$3" <<<"$t" | head -n 1 | cut -d: -f1 || true)
	if [ -z "$lastdev" ]; then
		echo "FAIL: $1: no device shutdown line (initcall_debug?)"
		return 1
	elif [ "$lastdev" -gt "$sd" ]; then
		echo "FAIL: $1: a device shut down after the i8259: $(sed -n "${lastdev}p" <<<"$t")"
		return 1
	elif [ -z "$end" ] || [ "$end" -lt "$sd" ]; then
		echo "FAIL: $1: no '$3' after the i8259's shutdown"
		return 1
	fi
	echo "$1: $(grep -c ': shutdown$' <<<"$t") device shutdowns, then the i8259's ('$want'), then '$(sed -n "${end}p" <<<"$t")'"
}

# boot_end_judge LABEL LOG END: shutdown_judge of what follows the
# guest's last check (SYSDEV-DONE).
boot_end_judge() {
	shutdown_judge "$1" <(section '^SYSDEV-DONE' '' "$2") "$3" "${4:-}"
}

test_reliability_judges() {
	local tmp cdir=$TOP/qemu/checks good core
	tmp=$(mktemp -d)
	# Guest judges, run on the host by busybox for the head's classes.
	gj() { # SCRIPT ARGS...
		local s=$1; shift
		CHECKS_DIR=$cdir TMPDIR=$tmp X86_CONVERTED=$REL_CONVERTED busybox sh "$cdir/$s.sh" --judge "$@"
	}
	# stress: a good cycle of each kind, then one callback missing, one
	# twice, two swapped, the lapic's from syscore_ops (a class that fell
	# back), no sleep in a suspend-to-RAM, a sleep with pm_test=core.
	good=$REL_FIXTURES/s3-cycle.dmesg core=$REL_FIXTURES/x86-core-cycle.dmesg
	gj stress s3 s3 "$good" || fail "stress: a good suspend-to-RAM cycle was rejected"
	gj stress core core "$core" || fail "stress: a good pm_test=core cycle was rejected"
	sed '/sysdev: resume i82590 class i8259A_dev_resume/d' "$good" > "$tmp/missing"
	expect_fail stress_missing "FAIL s3: x86 callbacks missing, repeated or out of order: .* got '.*syscore:irqrouter_resume syscore:ioapic_resume '" \
		gj stress s3 s3 "$tmp/missing"
	sed '/sysdev: suspend lapic0 class lapic_dev_suspend/p' "$good" > "$tmp/twice"
	expect_fail stress_twice "got '.*class:lapic_dev_suspend class:lapic_dev_suspend " gj stress s3 s3 "$tmp/twice"
	sed 's/Calling acpi_restore_bm_rld+/Calling XX+/; s/Calling irqrouter_resume+/Calling acpi_restore_bm_rld+/; s/Calling XX+/Calling irqrouter_resume+/' "$good" > "$tmp/order"
	expect_fail stress_order "got '.*syscore:irqrouter_resume syscore:acpi_restore_bm_rld " gj stress s3 s3 "$tmp/order"
	sed 's/sysdev: suspend lapic0 class lapic_dev_suspend+/Calling lapic_suspend+/; s/sysdev: resume lapic0 class lapic_dev_resume+/Calling lapic_resume+/' "$good" > "$tmp/fallback"
	expect_fail stress_fallback "got '.*syscore:lapic_suspend syscore:lapic_resume " gj stress s3 s3 "$tmp/fallback"
	sed '/Low-level resume complete/d' "$good" > "$tmp/nosleep"
	expect_fail stress_no_sleep "FAIL s3: no 'Low-level resume complete': the machine did not sleep" gj stress s3 s3 "$tmp/nosleep"
	expect_fail stress_core_slept "FAIL core: 'Low-level resume complete' with pm_test=core" gj stress core core "$good"
	# x86-sysdev (the gate's check, the same judge): the good cycle, the
	# lapic going down first, a cycle where none may run.
	gj x86-sysdev "pm_test=core mem" cycle "$core" || fail "x86-sysdev: a good cycle of the head was rejected"
	sed '/Calling timekeeping_syscore_suspend/i [    3.872000] sysdev: suspend lapic0 class lapic_dev_suspend+0x0/0x7' "$core" |
		awk '/sysdev: suspend lapic0/ && n++ { next } { print }' > "$tmp/x86first"
	expect_fail x86_lapic_first "got 'class:lapic_dev_suspend syscore:ioapic_suspend " gj x86-sysdev core cycle "$tmp/x86first"
	expect_fail x86_none "FAIL none: 9 x86 callbacks ran, want none" gj x86-sysdev none none "$core"
	# hotadd: hugepages/ of the new node before its first uevent sent;
	# unpatched, the uevent comes first.  The fixture is the kobject
	# debug lines of a memory hot-add into node 3 at the head.
	gj hotadd node3 "$REL_FIXTURES/hotadd-order.dmesg" || fail "hotadd: a good hot-add log was rejected"
	grep -v 'uevent_suppress caused' "$REL_FIXTURES/hotadd-order.dmesg" > "$tmp/hotadd-base"
	expect_fail hotadd_uevent_first "hotadd FAIL node3 sent its first uevent \(line [0-9]+\) before hugepages/ was added" \
		gj hotadd node3 "$tmp/hotadd-base"
	grep -v "'hugepages'" "$REL_FIXTURES/hotadd-order.dmesg" > "$tmp/hotadd-nohp"
	expect_fail hotadd_no_hugepages "hotadd FAIL no kobject_add_internal of hugepages under node3" \
		gj hotadd node3 "$tmp/hotadd-nohp"
	# cpu-hotadd: what the uevent helper saw at the add events of a CPU
	# hot-added into an empty node and of that node.  Unpatched 6.12
	# gives the CPU no hotplug/ (the rest it adds right after the event,
	# before the helper looks); a node without compact or its CPU's link
	# fails too.
	printf '%s\n' "812 add /devices/system/cpu/cpu2: hotplug/state power/pm_qos_resume_latency_us" \
		"845 add /devices/system/node/node2: hugepages compact cpu2" > "$tmp/cpuadd-good"
	gj cpu-hotadd "$tmp/cpuadd-good" || fail "cpu-hotadd: a good record was rejected"
	sed 's/ hotplug\/state//' "$tmp/cpuadd-good" > "$tmp/cpuadd-base"
	expect_fail cpuadd_base "cpu-hotadd FAIL /devices/system/cpu/cpu2 had no hotplug/state at its add event \(had: power/pm_qos_resume_latency_us\);\$" \
		gj cpu-hotadd "$tmp/cpuadd-base"
	sed 's/ compact cpu2$//' "$tmp/cpuadd-good" > "$tmp/cpuadd-nodefiles"
	expect_fail cpuadd_node_files "cpu-hotadd FAIL /devices/system/node/node2 had no compact .*node2 had no cpu2" \
		gj cpu-hotadd "$tmp/cpuadd-nodefiles"
	sed -n 1p "$tmp/cpuadd-good" > "$tmp/cpuadd-nonode"
	expect_fail cpuadd_no_node "cpu-hotadd FAIL 0 add events of /devices/system/node/node2" \
		gj cpu-hotadd "$tmp/cpuadd-nonode"
	sed -n 1p "$tmp/cpuadd-good" >> "$tmp/cpuadd-good"
	expect_fail cpuadd_twice "cpu-hotadd FAIL 2 add events of /devices/system/cpu/cpu2" \
		gj cpu-hotadd "$tmp/cpuadd-good"
	# A class that fell back to syscore fails the device check, whatever
	# the kernel's symbols say is converted.
	CHECKS_DIR=$cdir TMPDIR=$tmp busybox sh "$cdir/x86-sysdev.sh" --fallback "$core" ||
		fail "x86-sysdev: a log without a fallback was rejected"
	sed '/Calling timekeeping_syscore_suspend/i [    0.310000] APIC: no lapic system device (-16), using syscore' "$core" > "$tmp/fellback"
	expect_fail x86_fallback "x86-sysdev FAIL lapic: fell back to syscore: .*no lapic system device" \
		env CHECKS_DIR="$cdir" TMPDIR="$tmp" busybox sh "$cdir/x86-sysdev.sh" --fallback "$tmp/fellback"
	# tree: a fake /sys whose on-line CPUs and node are devices passes;
	# without cpu1's uevent, or without node0, it fails.
	local sys=$tmp/sys d
	for d in cpu/cpu0 cpu/cpu1 node/node0; do
		mkdir -p "$sys/devices/system/$d"
		: > "$sys/devices/system/$d/uevent"
		ln -s "../../../bus/${d%%/*}" "$sys/devices/system/$d/subsystem"
	done
	echo 0-1 > "$sys/devices/system/cpu/online"
	echo 0 > "$sys/devices/system/node/online"
	tj() { # the tree check on $sys; fails if it said FAIL
		local out
		out=$(CHECK=tree CHECKS_DIR=$cdir SYSDEV_SYS=$sys busybox sh "$cdir/tree.sh")
		echo "$out"
		! grep -q "^SYSDEV-CHECK tree FAIL" <<<"$out"
	}
	tj | grep -q "^SYSDEV-CHECK tree PASS" || fail "tree: a good /sys was rejected"
	rm "$sys/devices/system/cpu/cpu1/uevent"
	expect_fail tree_no_uevent "SYSDEV-CHECK tree FAIL system devices missing or incomplete: cpu1$" tj
	: > "$sys/devices/system/cpu/cpu1/uevent"
	rm -r "$sys/devices/system/node/node0"
	expect_fail tree_no_node "SYSDEV-CHECK tree FAIL system devices missing or incomplete: node0$" tj
	# failslab: the suite's results with sdk_alloc_failures passed pass;
	# skipped, failed, missing, with no registration failed, or another
	# case failed, each fails.
	local r=$tmp/failslab
	mkdir -p "$r"
	printf '%s\n' 'KTAP version 1' '# Subtest: sysdev' '1..12' '    ok 1 sdk_class_errors' \
		'    # sdk_alloc_failures: 212 fault-injection points, 198 failed a registration' \
		'    ok 12 sdk_alloc_failures' '# sysdev: pass:12 fail:0 skip:0 total:12' 'ok 1 sysdev' > "$r/good"
	sed 's/ok 12 sdk_alloc_failures/& # SKIP no registration failed/; s/pass:12 fail:0 skip:0/pass:11 fail:0 skip:1/' "$r/good" > "$r/skip"
	sed 's/    ok 12 sdk_alloc_failures/    not ok 12 sdk_alloc_failures/; s/pass:12 fail:0/pass:11 fail:1/' "$r/good" > "$r/fail"
	sed 's/    ok 1 sdk_class_errors/    not ok 1 sdk_class_errors/; s/pass:12 fail:0/pass:11 fail:1/' "$r/good" > "$r/other"
	grep -v sdk_alloc "$r/good" > "$r/none"
	sed 's/212 fault-injection points, 198 failed/3 fault-injection points, 0 failed/' "$r/good" > "$r/nofail"
	fj() { CHECKS_DIR=$cdir busybox sh "$cdir/failslab.sh" --judge "$r/$1"; }
	fj good | grep -q "^SYSDEV-CHECK failslab PASS sdk_alloc_failures: 212 fault-injection points" ||
		fail "failslab: good results were rejected"
	expect_fail failslab_skip "failslab FAIL sdk_alloc_failures did not pass: ok 12 sdk_alloc_failures # SKIP" fj skip
	expect_fail failslab_fail "failslab FAIL sdk_alloc_failures did not pass: not ok 12" fj fail
	expect_fail failslab_other "failslab FAIL the suite's run: pass:11 fail:1 skip:0 total:12" fj other
	expect_fail failslab_none "failslab FAIL the suite's run has no case sdk_alloc_failures" fj none
	expect_fail failslab_nofail "failslab FAIL sdk_alloc_failures failed no registration: 3 fault-injection points, 0 failed" fj nofail
	# hibernate: none with pm_test=processors, a cycle with pm_test=core, a
	# cycle in the restored image's log; then each with the other's log,
	# and an image whose log is the first pass's or lacks the restore.
	gj hibernate processors none "$REL_FIXTURES/hib-processors.dmesg" || fail "hibernate: a good pm_test=processors log was rejected"
	gj hibernate core core "$REL_FIXTURES/hib-core.dmesg" || fail "hibernate: a good pm_test=core log was rejected"
	gj hibernate image image "$REL_FIXTURES/hib-image.dmesg" || fail "hibernate: a good test_resume log was rejected"
	expect_fail hib_none "FAIL none: 9 x86 callbacks ran, want none" gj hibernate none none "$REL_FIXTURES/hib-core.dmesg"
	expect_fail hib_core "FAIL core: x86 callbacks missing, .* got ''" gj hibernate core core "$REL_FIXTURES/hib-processors.dmesg"
	expect_fail hib_no_snapshot "FAIL image: no 'Creating image:'" gj hibernate image image "$REL_FIXTURES/hib-core.dmesg"
	sed '/Creating image:/a [   34.000000] PM: Image saving done' "$REL_FIXTURES/hib-image.dmesg" > "$tmp/firstpass"
	expect_fail hib_first_pass "FAIL image: 'Image saving done' in the log" gj hibernate image image "$tmp/firstpass"
	sed '/Hibernation image restored successfully/d' "$REL_FIXTURES/hib-image.dmesg" > "$tmp/norestore"
	expect_fail hib_no_restore "FAIL image: no 'PM: hibernation: Hibernation image restored successfully'" gj hibernate image image "$tmp/norestore"
	# kmemleak: a report naming the series' code fails, others do not.
	gj kmemleak "$REL_FIXTURES/kmemleak-other.txt" || fail "kmemleak: a report outside the series was blamed on it"
	expect_fail kmemleak_ours "FAIL 1 of 2 leak reports name the system device code" gj kmemleak "$REL_FIXTURES/kmemleak-sysdev.txt"
	# Reboot: the log judge and shutdown_judge on a log that restarts; no
	# restart, the i8259's shutdown twice, missing, also from syscore_ops,
	# a device after it; a failed cycle; the splats of the debug and RT
	# kernels in the middle of a cycle.
	good=$REL_FIXTURES/reboot.console
	bash "$TOP/qemu/check-log.sh" -S -c stress,hibernate -x "reboot: Restarting system" "$good" ||
		fail "the good reboot log was rejected"
	boot_end_judge reboot "$good" "reboot: Restarting system" || fail "the good reboot log's shutdown was rejected"
	sed '/reboot: Restarting system/d' "$good" > "$tmp/r1"
	expect_fail reboot_missing "expected log line missing: reboot: Restarting" \
		bash "$TOP/qemu/check-log.sh" -S -c stress -x "reboot: Restarting system" "$tmp/r1"
	expect_fail reboot_missing_end "FAIL: reboot: no 'reboot: Restarting system' after the i8259's shutdown" \
		boot_end_judge reboot "$tmp/r1" "reboot: Restarting system"
	sed '/sysdev: shutdown i82590 class/p' "$good" > "$tmp/r2"
	expect_fail shutdown_twice "FAIL: reboot: want the i8259's shutdown once .* and 1 system device shutdowns, got 2" \
		boot_end_judge reboot "$tmp/r2" "reboot: Restarting system"
	sed '/sysdev: shutdown i82590 class/d' "$good" > "$tmp/r3"
	expect_fail shutdown_missing "FAIL: reboot: want the i8259's shutdown once .* and 1 system device shutdowns, got 0" \
		boot_end_judge reboot "$tmp/r3" "reboot: Restarting system"
	sed '/sysdev: shutdown i82590 class/a [   87.329600] PM: Calling i8259A_shutdown+0x0/0x3b' "$good" > "$tmp/r4"
	expect_fail shutdown_syscore "FAIL: reboot: the i8259's shutdown ran as 'Calling i8259A_shutdown\+' too" \
		boot_end_judge reboot "$tmp/r4" "reboot: Restarting system"
	# A kernel whose i8259 class fell back (reliability_fallback): the
	# shutdown from syscore_ops, and none from a class.
	sed 's/sysdev: shutdown i82590 class i8259A_dev_shutdown+.*/PM: Calling i8259A_shutdown+0x0\/0x3b/' "$good" > "$tmp/r7"
	boot_end_judge reboot "$tmp/r7" "reboot: Restarting system" syscore ||
		fail "a good power off log of a fallen back i8259 was rejected"
	expect_fail shutdown_not_syscore "FAIL: reboot: want the i8259's shutdown once \('Calling i8259A_shutdown\+'\) and 0 system device shutdowns, got 1" \
		boot_end_judge reboot "$good" "reboot: Restarting system" syscore
	awk '/pci 0000:00:00.0: shutdown$/ { held = $0; next } { print } /sysdev: shutdown i82590/ { print held }' "$good" > "$tmp/r5"
	expect_fail shutdown_device_late "FAIL: reboot: a device shut down after the i8259: pci 0000:00:00.0: shutdown" \
		boot_end_judge reboot "$tmp/r5" "reboot: Restarting system"
	expect_fail shutdown_device_late_log "shutdown: a device shut down after the first system device" \
		bash "$TOP/qemu/check-log.sh" -S -c stress "$tmp/r5"
	sed 's/^SYSDEV-CHECK stress PASS 20 pm_test=core.*/SYSDEV-CHECK stress FAIL core cycle 7: x86 callbacks missing/' "$good" > "$tmp/r6"
	expect_fail stress_cycle_failed "check stress: core cycle 7" bash "$TOP/qemu/check-log.sh" -S -c stress "$tmp/r6"
	local splat n=0
	while IFS= read -r splat; do
		n=$((n + 1))
		sed "/^SYSDEV-INFO stress core cycle 3:/i [   50.0] $splat" "$good" > "$tmp/splat$n"
		expect_fail "splat$n" "kernel splat: .*$(sed 's/[^A-Za-z: ]/./g' <<<"${splat:0:24}")" \
			bash "$TOP/qemu/check-log.sh" -S -c stress "$tmp/splat$n"
	done <<-'EOF'
		BUG: KASAN: use-after-free in sysdev_resume_class+0x1/0x2
		kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
		BUG: sleeping function called from invalid context at kernel/locking/spinlock_rt.c:48
		[ BUG: Invalid wait context ]
		WARNING: possible circular locking dependency detected
		WARNING: CPU: 0 PID: 1 at drivers/base/sysdev.c:980 sysdev_syscore_suspend+0x5/0x20
	EOF
	# Halt: a power off instead, the i8259's shutdown missing.
	good=$REL_FIXTURES/halt.console
	halt_judge "$good" > /dev/null || fail "the good halt log was rejected"
	sed 's/reboot: System halted/reboot: Power down/' "$good" > "$tmp/h1"
	expect_fail halt_power_down "powered off instead of halting" halt_judge "$tmp/h1"
	sed '/sysdev: shutdown i82590 class/d' "$good" > "$tmp/h2"
	expect_fail halt_missing "shutdown: no 'sysdev: shutdown' line after the checks" halt_judge "$tmp/h2"
	# Hibernation across two boots: init again in the second boot, the S4
	# entry's lines lost (a suspended console), no resume in the second
	# boot, no second boot at all, the check passing in the first boot
	# only, the token lost, the S4 entry's lines in the second boot, the
	# boot kernel's jump missing, the i8259's shutdown missing at the end.
	good=$REL_FIXTURES/hibernate-disk.console
	hibdisk_judge "$good" > /dev/null || fail "the good hibernate-disk log was rejected"
	sed '/^SYSDEV-HOST second boot/a SYSDEV-INIT 6.12.118+ checks=hibernate-disk,suspend' "$good" > "$tmp/d1"
	expect_fail hibdisk_init_twice "init started again in the second boot" hibdisk_judge "$tmp/d1"
	awk '/PM: hibernation: Wrote / { s = 1 } /^SYSDEV-HOST/ { s = 0 } s && /\] (Calling|sysdev:) / { next } { print }' "$good" > "$tmp/d2"
	expect_fail hibdisk_s4_lost "first boot: the x86 callbacks are not the 13 expected, in order \(9 lines\)" hibdisk_judge "$tmp/d2"
	sed '/PM: hibernation: resume from hibernation/d' "$good" > "$tmp/d3"
	expect_fail hibdisk_no_resume "did not resume from hibernation" hibdisk_judge "$tmp/d3"
	sed '/^SYSDEV-HOST second boot/d' "$good" > "$tmp/d4"
	expect_fail hibdisk_one_boot "no second boot in the log" hibdisk_judge "$tmp/d4"
	awk '/^SYSDEV-HOST second boot/ { print "SYSDEV-CHECK hibernate-disk PASS image written"; h = 1 }
		h && /^SYSDEV-CHECK hibernate-disk PASS/ && !x { x = 1; next } { print }' "$good" > "$tmp/d5"
	expect_fail hibdisk_pass_first "the check did not pass in the second boot" hibdisk_judge "$tmp/d5"
	sed '/back from the image, token/s/token [0-9a-f]*/token 0123/' "$good" > "$tmp/d6"
	expect_fail hibdisk_token "token after the restore \('0123'\) is not the first boot's" hibdisk_judge "$tmp/d6"
	awk '/PM: hibernation: Wrote / { s = 1 } /^SYSDEV-HOST/ { s = 0 } s && /\] (Calling|sysdev:) / { held = held $0 "\n"; next }
		{ print } /^SYSDEV-HOST second boot/ { printf "%s", held }' "$good" > "$tmp/d7"
	expect_fail hibdisk_s4_late "first boot: the x86 callbacks" hibdisk_judge "$tmp/d7"
	awk '/PM: hibernation: Read / { s = 1 } /image restored successfully/ { s = 0 } s && /\] (Calling|sysdev:) .*(suspend|_save_)/ { next } { print }' "$good" > "$tmp/d8"
	expect_fail hibdisk_no_jump "second boot: the x86 callbacks are not the 18 expected, in order \(14 lines\)" hibdisk_judge "$tmp/d8"
	sed '/sysdev: shutdown i82590 class/d' "$good" > "$tmp/d9"
	expect_fail hibdisk_no_shutdown "second boot's power off: want the i8259's shutdown once" hibdisk_judge "$tmp/d9"
	# kexec: the jump's program silent, a callback missing on the way
	# back, the way down after the jump, no way back at all, the new
	# kernel's token not the first's, the i8259's shutdown missing before
	# "Starting new kernel", one boot only.
	good=$REL_FIXTURES/kexec-jump.console
	kexec_judge "$good" > /dev/null || fail "the good kexec log was rejected"
	sed '/^SYSDEV-JUMP /d' "$good" > "$tmp/k1"
	expect_fail kexec_no_program "the jump's program did not run" kexec_judge "$tmp/k1"
	awk '/^SYSDEV-JUMP / { j = 1 } j && /sysdev: resume lapic0/ && !x { x = 1; next } { print }' "$good" > "$tmp/k2"
	expect_fail kexec_back_missing "kexec jump, the way back: the x86 callbacks are not the 5 expected, in order \(4 lines\)" kexec_judge "$tmp/k2"
	awk '/^SYSDEV-INFO kexec-jump jumping/ { s = 1 } /^SYSDEV-JUMP / { s = 0; print; printf "%s", held; next }
		s && /\] (Calling|sysdev:) / { held = held $0 "\n"; next } { print }' "$good" > "$tmp/k3"
	expect_fail kexec_down_late "kexec jump, the way down: the x86 callbacks are not the 4 expected, in order \(0 lines\)" kexec_judge "$tmp/k3"
	sed '/^SYSDEV-JUMP /,$d' "$good" > "$tmp/k4"
	expect_fail kexec_not_back "the jump did not come back" kexec_judge "$tmp/k4"
	sed 's/booted by a kexec reboot, token [0-9a-f]*/booted by a kexec reboot, token 0123/' "$good" > "$tmp/k5"
	expect_fail kexec_token "the new kernel's token \('0123'\) is not the first kernel's" kexec_judge "$tmp/k5"
	awk '/^SYSDEV-INFO kexec-reboot rebooting/ { s = 1 } /Linux version/ { s = 0 } s && /sysdev: shutdown i82590/ { next } { print }' "$good" > "$tmp/k6"
	expect_fail kexec_no_shutdown "FAIL: kexec reboot: want the i8259's shutdown once .* and 1 system device shutdowns, got 0" kexec_judge "$tmp/k6"
	awk '/^SYSDEV-INIT/ && n++ { next } { print }' "$good" > "$tmp/k7"
	expect_fail kexec_init_once "init did not start twice" kexec_judge "$tmp/k7"
	# Callback order: the good pair, then a head with the lapic moved, the
	# i8259's shutdown missing, and the unpatched order (no rename).
	good=$REL_FIXTURES/order-head.console
	order_judge "$REL_FIXTURES/order-base.console" "$good" > /dev/null ||
		fail "the good callback order was rejected"
	sed 's/sysdev: suspend clocksource0 class clocksource_dev_suspend/XX/; s/sysdev: suspend lapic0 class lapic_dev_suspend/sysdev: suspend clocksource0 class clocksource_dev_suspend/; s/XX/sysdev: suspend lapic0 class lapic_dev_suspend/' \
		"$good" > "$tmp/o1"
	expect_fail order_lapic_first "differs from the unpatched kernel's other than by" order_judge "$REL_FIXTURES/order-base.console" "$tmp/o1"
	sed '/i8259A_dev_shutdown/d' "$good" > "$tmp/o2"
	expect_fail order_missing "< \\+ shutdown i8259A_dev_shutdown$" order_judge "$REL_FIXTURES/order-base.console" "$tmp/o2"
	expect_fail order_unrenamed "differs from the unpatched kernel's other than by" order_judge "$REL_FIXTURES/order-base.console" "$REL_FIXTURES/order-base.console"
	# timekeeping's callbacks from its syscore_ops, not from the class
	sed 's/sysdev: \(suspend\|resume\) clocksource0 class clocksource_dev_\(suspend\|resume\)/Calling timekeeping_syscore_\2/' "$good" > "$tmp/o3"
	expect_fail order_timekeeping_syscore "< \\+ suspend clocksource_dev_suspend$" order_judge "$REL_FIXTURES/order-base.console" "$tmp/o3"
	rm -rf "$tmp"
}

# The test kernel at the head: stress and hibernate, then a reboot.
test_reliability_stress() {
	local log=$TLOG/reliability_stress.console s
	head_passed_before && return 0
	rel_build x86_64 || return 1
	s=$SECONDS
	bash "$TOP/qemu/boot.sh" -S -t 1200 -c stress,hibernate \
		-a "pm_debug_messages initcall_debug sysdev_end=reboot" \
		-x "reboot: Restarting system" -o "$log" "$HEAD_IMAGE"
	rel_times "$log"
	echo "reliability_stress: boot took $((SECONDS - s))s"
	boot_end_judge reboot "$log" "reboot: Restarting system"
}

# shim_bin DIR: DIR/bin/qemu-system-x86_64, a link to ci/tests/qemu-shim.sh,
# for PATH=DIR/bin:$PATH in front of qemu/boot.sh.
shim_bin() {
	mkdir -p "$1/bin"
	ln -sf "$TOP/ci/tests/qemu-shim.sh" "$1/bin/qemu-system-x86_64"
}

# hibdisk_judge LOG: the console of both boots (ci/tests/qemu-shim.sh
# appends the second after a "SYSDEV-HOST second boot" line).  The first
# boot: init started, the snapshot (syscore down and up in the same
# kernel) and the ACPI S4 entry (down only: the power goes).  The second:
# no init, the resume from the image, its boot kernel's jump into it
# (down only), the image kernel's way up, the check passing with the
# first boot's token, then its suspend-to-RAM (down, up) and a power off.
hibdisk_judge() {
	local log=$1 host first second t1 t2 out
	host=$(grep -an '^SYSDEV-HOST second boot' "$log" | cut -d: -f1 || true)
	[ -n "$host" ] || { echo "FAIL: no second boot in the log"; return 1; }
	first=$(head -n "$host" "$log") second=$(tail -n +"$host" "$log")
	[ "$(grep -ac '^SYSDEV-INIT' <<<"$first" || true)" -eq 1 ] ||
		{ echo "FAIL: init did not start once in the first boot"; return 1; }
	[ "$(grep -ac '^SYSDEV-INIT' <<<"$second" || true)" -eq 0 ] ||
		{ echo "FAIL: init started again in the second boot: the image was not restored"; return 1; }
	[ "$(grep -ac 'PM: hibernation: resume from hibernation' <<<"$second" || true)" -gt 0 ] ||
		{ echo "FAIL: the second boot did not resume from hibernation"; return 1; }
	[ "$(grep -ac '^SYSDEV-CHECK hibernate-disk PASS' <<<"$second" || true)" -gt 0 ] ||
		{ echo "FAIL: the check did not pass in the second boot"; return 1; }
	t1=$(sed -n 's/^SYSDEV-INFO hibernate-disk writing the image .*, token \([0-9a-f]*\).*/\1/p' <<<"$first" | tr -d '\r')
	t2=$(sed -n 's/^SYSDEV-INFO hibernate-disk back from the image, token \([0-9a-f]*\).*/\1/p' <<<"$second" | tr -d '\r')
	[ -n "$t1" ] && [ "$t1" = "$t2" ] ||
		{ echo "FAIL: the token after the restore ('$t2') is not the first boot's ('$t1')"; return 1; }
	lines_judge "first boot" "$(x86_seq down up down)" "$(x86_lines <(echo "$first"))" || return 1
	lines_judge "second boot" "$(x86_seq down up down up)" "$(x86_lines <(echo "$second"))" || return 1
	out=$(boot_end_judge "second boot's power off" <(echo "$second") "reboot: Power down") ||
		{ echo "$out"; return 1; }
	echo "hibernate-disk: init once, resumed by the second boot with the first boot's token, the x86 callbacks in order (down, up, S4 down | down, up, suspend down, up), then the shutdown"
}

# A real hibernation in platform mode across two boots of the test
# kernel, then a suspend-to-RAM and a power off in the restored system.
# no_console_suspend: hibernation_platform_enter() suspends the console
# before the S4 entry's callbacks, whose lines would die with the power.
test_reliability_hibernate_disk() {
	local d=$TLOG/hibernate_disk s
	head_passed_before && return 0
	rel_build x86_64 || return 1
	s=$SECONDS
	rm -rf "$d" && shim_bin "$d"
	truncate -s 256M "$d/swap.img"
	SHIM_MODE=resume SHIM_DISK=$d/swap.img PATH=$d/bin:$PATH \
		bash "$TOP/qemu/boot.sh" -S -t 900 -c hibernate-disk,suspend \
		-a "pm_debug_messages initcall_debug no_console_suspend" -o "$d/console" "$HEAD_IMAGE" || return 1
	echo "reliability_hibernate_disk: two boots took $((SECONDS - s))s"
	grep -a "SYSDEV-\(CHECK\|INFO\) hibernate-disk\|PM: hibernation: \(Read\|Wrote\)\|PM: Image \(saving\|loading\) done" "$d/console" | tr -d '\r' || true
	hibdisk_judge "$d/console"
}

# The test kernel ending with a halt (busybox halt -f, LINUX_REBOOT_CMD_HALT:
# kernel_halt()) instead of a power off: qemu/init with "halt -f" for
# "poweroff -f" is appended to the initramfs (the later /init wins; busybox
# sh runs its applets without a PATH lookup, so a /sbin/poweroff would
# not), and the shim stops QEMU at "System halted".
test_reliability_halt() {
	local d=$TLOG/halt s
	head_passed_before && return 0
	rel_build x86_64 || return 1
	s=$SECONDS
	rm -rf "$d" && shim_bin "$d"
	mkdir -p "$d/root"
	sed 's/^poweroff -f$/halt -f/' "$TOP/qemu/init" > "$d/root/init"
	grep -qx "halt -f" "$d/root/init" || { fail "reliability_halt: no 'poweroff -f' line in qemu/init to replace"; return 1; }
	chmod 755 "$d/root/init"
	pack_cpio "$d/root" "$d/halt.cpio"
	SHIM_MODE=halt PATH=$d/bin:$PATH bash "$TOP/qemu/boot.sh" -S -t 300 -c boot \
		-i "$d/halt.cpio" -a "pm_debug_messages initcall_debug" \
		-o "$d/console" "$HEAD_IMAGE" || return 1
	halt_judge "$d/console" || return 1
	echo "reliability_halt: boot took $((SECONDS - s))s"
}

# halt_judge LOG: the kernel halted, did not power off, and its shutdown
# is a power off's (check-log.sh -S and shutdown_judge).
halt_judge() {
	if grep -aq "reboot: Power down" "$1"; then
		echo "FAIL: the guest powered off instead of halting"
		return 1
	fi
	bash "$TOP/qemu/check-log.sh" -S -c boot -x "reboot: System halted" "$1" || return 1
	boot_end_judge halt "$1" "reboot: System halted"
}

# kexec_cpio DIR IMAGE: DIR/kexec.cpio, for boot.sh -i: Debian's kexec with
# the libraries ldd names; /kexec/ret.elf at 32 MiB, the program
# qemu/checks/kexec-jump.sh jumps to and back from, which writes
# "SYSDEV-JUMP ..." to the first serial port (the console) and returns;
# and the kernel IMAGE
# and the test initramfs as /kexec/bzImage and /kexec/initrd, for the
# kexec reboot of qemu/checks/kexec-reboot.sh.
kexec_cpio() {
	local d=$1 l k
	k=$(command -v kexec || echo /usr/sbin/kexec)
	[ -x "$k" ] || { fail "kexec_cpio: no kexec binary (kexec-tools)"; return 1; }
	rm -rf "$d" && mkdir -p "$d/root/kexec"
	cp "$k" "$d/root/kexec/kexec" || { fail "kexec_cpio: cannot copy $k"; return 1; }
	for l in $(ldd "$k" | grep -o '/lib[^ ]*'); do
		mkdir -p "$d/root$(dirname "$l")"
		cp -L "$l" "$d/root$l" || { fail "kexec_cpio: cannot copy $l"; return 1; }
	done
	cat > "$d/ret.S" <<-'EOF'
		.text
		.globl _start
	_start:
		lea	msg(%rip), %rsi
		mov	$len, %ecx
		mov	$0x3f8, %dx
	1:	movb	(%rsi), %al
		outb	%al, %dx
		inc	%rsi
		dec	%ecx
		jnz	1b
		ret
	msg:	.ascii	"\r\nSYSDEV-JUMP in the program of the kexec jump\r\n"
		len = . - msg
	EOF
	as --64 -o "$d/ret.o" "$d/ret.S" &&
		ld -m elf_x86_64 -static -nostdlib -N --no-warn-rwx-segments -Ttext=0x2000000 \
			-e _start -o "$d/root/kexec/ret.elf" "$d/ret.o" ||
		{ fail "kexec_cpio: cannot assemble and link ret.elf"; return 1; }
	cp "$2" "$d/root/kexec/bzImage"
	cp "$("$TOP/qemu/mkinitramfs.sh")" "$d/root/kexec/initrd"
	pack_cpio "$d/root" "$d/kexec.cpio"
}

# kexec_judge LOG: the console of the kexec boot (a console kept on by
# no_console_suspend).  The jump: between the check's "jumping" and "kexec
# -e returned" lines, the x86 callbacks of syscore_suspend() before the
# jump's program wrote its SYSDEV-JUMP line, those of syscore_resume()
# after it, in order, and the check passed.  The kexec reboot: from the
# check's "rebooting" line to the next kernel's first line, the shutdown
# of a power off ending in "Starting new kernel"; then init started again
# and the new kernel ran the check kexec-reboot with the first kernel's
# token.
kexec_judge() {
	local jump t1 t2
	jump=$(section '^SYSDEV-INFO kexec-jump jumping' '^SYSDEV-INFO kexec-jump kexec -e returned' "$1")
	grep -aq '^SYSDEV-INFO kexec-jump kexec -e returned' <<<"$jump" ||
		{ echo "FAIL: kexec jump: the jump did not come back"; return 1; }
	grep -aq '^SYSDEV-JUMP ' <<<"$jump" ||
		{ echo "FAIL: kexec jump: the jump's program did not run (no SYSDEV-JUMP line)"; return 1; }
	lines_judge "kexec jump, the way down" "$(x86_seq down)" \
		"$(x86_lines <(sed '/^SYSDEV-JUMP /,$d' <<<"$jump"))" || return 1
	lines_judge "kexec jump, the way back" "$(x86_seq up)" \
		"$(x86_lines <(sed '1,/^SYSDEV-JUMP /d' <<<"$jump"))" || return 1
	grep -aq '^SYSDEV-CHECK kexec-jump PASS' "$1" ||
		{ echo "FAIL: kexec jump: the check did not pass"; return 1; }
	t1=$(sed -n 's/^SYSDEV-INFO kexec-reboot rebooting with kexec, token \([0-9a-f]*\).*/\1/p' "$1" | tr -d '\r')
	[ -n "$t1" ] || { echo "FAIL: kexec reboot: the first kernel did not reboot"; return 1; }
	shutdown_judge "kexec reboot" \
		<(section '^SYSDEV-INFO kexec-reboot rebooting' 'Linux version' "$1") \
		'kexec_core: Starting new kernel' || return 1
	[ "$(grep -ac '^SYSDEV-INIT' "$1" || true)" -eq 2 ] ||
		{ echo "FAIL: kexec reboot: init did not start twice"; return 1; }
	t2=$(sed -n 's/^SYSDEV-CHECK kexec-reboot PASS booted by a kexec reboot, token \([0-9a-f]*\).*/\1/p' "$1" | tr -d '\r')
	[ "$t2" = "$t1" ] ||
		{ echo "FAIL: kexec reboot: the new kernel's token ('$t2') is not the first kernel's ('$t1')"; return 1; }
	echo "kexec: the x86 callbacks down before the jump's program and up after it, in order; the kexec reboot's shutdown in order; the new kernel ran with the first one's token"
}

# kexec with preserve_context there and back, then a kexec reboot into
# the same kernel, which powers off at the end of its checks.  On the
# debug kernel: the check needs /dev/snapshot (see
# qemu/checks/kexec-jump.sh), which the test kernel does not have, and the
# kexec paths get KASAN and lockdep.
test_reliability_kexec_jump() {
	local d=$TLOG/kexec_jump s
	test_pkgs kexec-tools
	# The archive follows from what the key holds (what makes the image,
	# the initramfs's files in qemu/, the kexec-tools and binutils
	# packages); itself it differs in its files' times from run to run.
	head_passed_before && return 0
	rel_build debug || return 1
	s=$SECONDS
	kexec_cpio "$d" "$DEBUG_IMAGE" || return 1
	bash "$TOP/qemu/boot.sh" -S -t 1800 -c kexec-jump,kexec-reboot -i "$d/kexec.cpio" \
		-a "pm_debug_messages initcall_debug no_console_suspend" \
		-o "$d/console" "$DEBUG_IMAGE" || return 1
	rel_times "$d/console"
	echo "reliability_kexec_jump: boot took $((SECONDS - s))s"
	kexec_judge "$d/console" || return 1
	boot_end_judge "the new kernel's power off" "$d/console" "reboot: Power down"
}

# order_judge BASE_LOG HEAD_LOG: the callback orders of the unpatched
# kernel and of the head differ exactly by ci/tests/fixtures/callback-order.diff.
ORDER_DIFF=$TOP/ci/tests/fixtures/callback-order.diff
order_judge() {
	local got
	got=$(python3 "$TOP/ci/tests/callback-order.py" --diff "$1" "$2") || return 1
	if [ "$got" != "$(grep -v "^#" "$ORDER_DIFF" || true)" ]; then
		echo "FAIL: the callback order of the head differs from the unpatched kernel's other than by $ORDER_DIFF:"
		diff <(grep -v "^#" "$ORDER_DIFF" || true) <(echo "$got") | head -n 20 || true
		return 1
	fi
	echo "callback order: $(python3 "$TOP/ci/tests/callback-order.py" "$2" | wc -l) callbacks at the head, the unpatched kernel's order but for $(grep -c '^+ ' <<<"$got" || true) renamed in place"
}

# The unpatched kernel and the head, the test configuration, one
# suspend-to-RAM and a power off each, with pm_debug_messages and
# initcall_debug.
test_reliability_order() {
	local d=$TLOG/order
	rm -rf "$d" && mkdir -p "$d"
	head_passed_before && return 0
	base_build
	rel_build x86_64 || return 1
	bash "$TOP/qemu/boot.sh" -t 400 -c suspend -a "pm_debug_messages initcall_debug" \
		-o "$d/base.console" "$BASE_IMAGE" || return 1
	bash "$TOP/qemu/boot.sh" -S -t 400 -c suspend -a "pm_debug_messages initcall_debug" \
		-o "$d/head.console" "$HEAD_IMAGE" || return 1
	order_judge "$d/base.console" "$d/head.console"
}

# The debug kernel: KUnit, the power transitions, a real hibernation image
# (test_resume on the RAM disk of debug.config) and kmemleak; any KASAN,
# kmemleak, debugobjects, kobject or lockdep report fails the log judge.
test_reliability_debug() {
	local log=$TLOG/reliability_debug.console s
	head_passed_before && return 0
	rel_build debug || return 1
	s=$SECONDS
	bash "$TOP/qemu/boot.sh" -k -K "$(sysdev_kunit_expect)" -S -t 2400 -c boot,x86-sysdev,suspend,hibernate,failslab,kmemleak \
		-a "pm_debug_messages initcall_debug hibernate_swap=/dev/ram0" -o "$log" "$DEBUG_IMAGE"
	rel_times "$log"
	echo "reliability_debug: boot took $((SECONDS - s))s"
	boot_end_judge "power off" "$log" "reboot: Power down"
}

# The test kernel on PREEMPT_RT (ci/configs/rt.config): spinlock_t sleeps
# there, and DEBUG_ATOMIC_SLEEP and lockdep report a sleeping lock taken
# with interrupts off, which the log judge fails on.  The KUnit suite
# sysdev runs its suspend and resume walks in stop_machine() with
# interrupts off, as syscore_suspend() does; the suspend-to-RAM and
# pm_test=core cycles run the lapic and i8259 classes' walks for real.
test_reliability_rt() {
	local log=$TLOG/reliability_rt.console s
	head_passed_before && return 0
	rel_build rt || return 1
	s=$SECONDS
	bash "$TOP/qemu/boot.sh" -k -K "$(sysdev_kunit_expect)" -S -t 1500 -c boot,x86-sysdev,suspend,stress \
		-a "pm_debug_messages initcall_debug stress_s3=3 stress_core=5" -x "SMP PREEMPT_RT" \
		-o "$log" "$RT_IMAGE"
	rel_times "$log"
	echo "reliability_rt: boot took $((SECONDS - s))s"
	boot_end_judge "power off" "$log" "reboot: Power down"
}

# The lapic, i8259 and clocksource classes failing to register: each must
# fall back to the struct syscore it had, at the same place.  The kernel
# is the series head plus an initcall that takes the names "lapic",
# "i8259" and "clocksource" before them (scripts/lib.sh side_tree; its
# objdir shares ccache with the test kernel's).  Its log must say that
# all three fell back, and timekeeping's syscore callbacks must run in its
# suspend cycles; its suspend
# cycles must run the x86 callbacks from syscore_ops, in 6.12's order
# (X86_CONVERTED= on the command line reaches the guest's environment:
# nothing converted); KUnit must pass; and at the power off the i8259
# shuts down from syscore_ops, after the devices.
test_reliability_fallback() {
	local d=$SYSDEV_CACHE/fallback log=$TLOG/reliability_fallback.console s img
	head_passed_before && return 0
	s=$SECONDS
	rel_head
	side_tree "$d" drivers/base/sysdev.c "test: take the names of the x86 classes first" <<'INITCALL'

/* reliability_fallback only: the x86 classes find their names taken */
static const struct bus_type sysdev_test_lapic = { .name = "lapic" };
static const struct bus_type sysdev_test_i8259 = { .name = "i8259" };
static const struct bus_type sysdev_test_clocksource = { .name = "clocksource" };

static int __init sysdev_test_take_names(void)
{
	WARN_ON(subsys_system_register(&sysdev_test_lapic, NULL));
	WARN_ON(subsys_system_register(&sysdev_test_i8259, NULL));
	WARN_ON(subsys_system_register(&sysdev_test_clocksource, NULL));
	return 0;
}
pure_initcall(sysdev_test_take_names);
INITCALL
	KSRC=$d/linux BUILD_ROOT=$d/build bash "$TOP/scripts/build-kernel.sh" -q x86_64
	img=$d/build/x86_64/arch/x86/boot/bzImage
	echo "reliability_fallback: tree and build (incremental) took $((SECONDS - s))s"
	s=$SECONDS
	# no -S: its judge wants a system device's shutdown; boot_end_judge's
	# syscore mode below wants the i8259's from syscore_ops instead
	bash "$TOP/qemu/boot.sh" -k -K "$(sysdev_kunit_expect)" -t 900 -c boot,stress \
		-a "pm_debug_messages initcall_debug stress_s3=2 stress_core=3 X86_CONVERTED=" \
		-x "APIC: no lapic system device \((-EEXIST|-17)\), using syscore" \
		-x "i8259: no i8259 system device \((-EEXIST|-17)\), using syscore" \
		-x "clocksource: no system device \((-EEXIST|-17)\), using syscore" \
		-x "Calling timekeeping_syscore_suspend\+" -x "Calling timekeeping_syscore_resume\+" \
		-o "$log" "$img"
	echo "reliability_fallback: boot took $((SECONDS - s))s"
	boot_end_judge "power off" "$log" "reboot: Power down" syscore
}

# Memory hot-add into an empty node (qemu/checks/hotadd.sh): the node
# class's registration at run time, from ACPI under the device hotplug
# lock and mem_hotplug_lock, with lockdep, and hugetlb's node driver
# before the uevent of the new node.  Then a CPU hot-added into another
# empty node and brought up (qemu/checks/cpu-hotadd.sh): the cpu class's
# registration under cpus_write_lock(), the node's under the CPU's
# device lock, and the files of both at their add events.
test_reliability_hotadd() {
	local log=$TLOG/reliability_hotadd.console s
	head_passed_before && return 0
	rel_build hotadd || return 1
	s=$SECONDS
	bash "$TOP/qemu/boot.sh" -H -k -K "$(sysdev_kunit_expect)" -t 900 -c boot,hotadd,cpu-hotadd \
		-a "pm_debug_messages initcall_debug" -o "$log" "$HOTADD_IMAGE"
	echo "reliability_hotadd: boot took $((SECONDS - s))s"
}

# The same CPU hot-add on the unpatched tree (qemu/checks/cpu-hotadd.sh
# only): 6.12's cpuhp_sysfs_init() gives hotplug/ to the CPUs registered
# at boot and never to a hot-added one, so the check must fail, and for
# that reason.  It shows both the bug patch 2 fixes (hotplug/ a default
# group of the CPU devices) and the check failing on a real bad kernel.
test_reliability_hotadd_base() {
	local log=$TLOG/reliability_hotadd_base.console s out
	passed_before && return 0
	bash "$TOP/scripts/prepare-tree.sh" --base
	KSRC=$BASE_KSRC BUILD_ROOT=$BASE_BUILD_ROOT bash "$TOP/scripts/build-kernel.sh" -q hotadd ||
		{ fail "the unpatched hotadd kernel does not build"; return 1; }
	s=$SECONDS
	expect_fail hotadd_base "cpu-hotadd FAIL .*/devices/system/cpu/cpu2 had no hotplug/state at its add event" \
		bash "$TOP/qemu/boot.sh" -H -t 900 -c boot,cpu-hotadd -o "$log" \
		"$BASE_BUILD_ROOT/hotadd/arch/x86/boot/bzImage"
	echo "reliability_hotadd_base: boot took $((SECONDS - s))s"
	grep -aq "CPU2 has been hot-added" "$log" || fail "unpatched: no 'CPU2 has been hot-added' in $log"
	grep -aq "^SYSDEV-CHECK boot PASS" "$log" || fail "unpatched: the boot check did not pass"
	grep -a "^SYSDEV-INFO cpu-hotadd uevent" "$log" | tr -d '\r'
	# Every failure is the missing hotplug/ (the judge's, reading and
	# writing cpu2's hotplug/ files), or, should the helper have run
	# before 6.12 made them, another file missing at an add event; none
	# is the hot-add or the on-lining going wrong.  (The same check
	# passes on the head, so its paths are right.)
	out=$(grep -a "^SYSDEV-CHECK cpu-hotadd FAIL" "$log" | tr -d '\r' |
		sed 's/^SYSDEV-CHECK cpu-hotadd FAIL //' | tr ';' '\n' | grep -v '^$' |
		grep -v "hotplug/" | grep -v " at its add event (had:") || true
	[ -z "$out" ] || fail "unpatched: cpu-hotadd failed for another reason than hotplug/: $out"
}

# CONFIG_SYSFS=n with kernfs built: v8's duplicate-id check looked names
# up in sysfs and oopsed in cpu_dev_init() on such a kernel.  The head
# must boot (the cpu and node classes register their devices) and pass
# every case of the sysdev suite, the duplicate ids included.
test_reliability_nosysfs() {
	local log=$TLOG/reliability_nosysfs.console s
	head_passed_before && return 0
	rel_build nosysfs || return 1
	s=$SECONDS
	bash "$TOP/qemu/boot.sh" -k -K "$(sysdev_kunit_expect)" -t 600 -c nosysfs -o "$log" "$NOSYSFS_IMAGE"
	echo "reliability_nosysfs: boot took $((SECONDS - s))s"
}

# The documentation build of the series head (ci/tests/docs.sh), sourced
# here rather than by ci/run-tests.sh, which is in the gate's key.
. "$TOP/ci/tests/docs.sh"
