# Reliability of the series at its head: repeated power transitions,
# hibernation, reboot, and a boot of the debug kernel (KASAN, kmemleak,
# debugobjects, delayed kobject release, lockdep).  Sourced by run-tests.sh.
#
# Boots:
#   reliability_stress  the test kernel: checks stress (10 suspend-to-RAM +
#                       20 pm_test=core cycles) and hibernate, ending with a
#                       reboot instead of a power off (sysdev_end=reboot)
#   reliability_debug   ci/configs/debug.config: KUnit, sysdev-pm, suspend,
#                       hibernate and kmemleak, ending with a power off
#   reliability_fallback two boots of the test kernel with
#                       sysdev_pm_test.occupy=: lapic (the lapic class cannot
#                       register; the lapic and the i8259, which must follow
#                       it, fall back to syscore_ops), then i8259 (only the
#                       i8259 falls back); check x86-sysdev: no device, each
#                       x86 callback once, in the relative order the commits
#                       require, in pm_test=core and real suspend-to-RAM
#   reliability_hibernate_disk  the test kernel with a virtio disk: a real
#                       hibernation in platform mode across two boots
#                       (qemu/checks/hibernate-disk.sh), then a
#                       suspend-to-RAM and a power off, judged as one log
#   reliability_halt    the test kernel ending with a halt (LINUX_REBOOT_CMD_HALT)
#                       instead of a power off: the shutdown order, as -S
#   reliability_kexec_jump  the test kernel: kexec with preserve_context
#                       (qemu/checks/kexec-jump.sh); only the way down can
#                       be judged, 6.1 does not come back (see the test)
#   reliability_order   the unpatched 6.1 and the head, each with a
#                       suspend-to-RAM and a power off: the order of their
#                       syscore_ops, system device and device shutdown
#                       callbacks (ci/tests/callback-order.py) differs only
#                       by ci/tests/fixtures/callback-order.diff
#   reliability_fault   the debug kernel: qemu/checks/fault.sh makes
#                       each slab allocation of a module's registrations
#                       fail in turn (ci/tests/sysdev_fault), then kmemleak;
#                       then a boot with the module's broken variant, which
#                       must fail; and make perf's module must compile
# and reliability_judges, the cheap self-tests: every judge these tests
# rely on must reject a log with one defect.

ALL_TESTS+=(reliability_judges reliability_stress reliability_fallback reliability_hibernate_disk
	reliability_halt reliability_kexec_jump reliability_order reliability_debug reliability_fault)

REL_FIXTURES=$TOP/ci/tests/fixtures/reliability
DEBUG_IMAGE=$BUILD_ROOT/debug/arch/x86/boot/bzImage

# The tree state these tests judge: the working branch made from outgoing/
# and checked out at its head (the gate leaves the tree where it found it,
# which need not be the head).
rel_head() {
	bash "$TOP/scripts/apply-series.sh"
	kgit checkout -q "$WORK_BRANCH"
	echo "testing $(kgit log -1 --format='%h %s' HEAD)"
}

# Per-cycle times of a console log, for the record.
rel_times() {
	grep -a "^SYSDEV-INFO \(stress\|hibernate\) " "$1" | tr -d '\r' || true
	grep -a "^SYSDEV-CHECK \(stress\|hibernate\|kmemleak\) " "$1" | tr -d '\r' || true
}

test_reliability_judges() {
	local tmp cdir=$TOP/qemu/checks good
	tmp=$(mktemp -d)
	# Guest judges, run on the host by busybox: a good cycle, then defects.
	gj() { # SCRIPT ARGS...
		local s=$1; shift
		CHECKS_DIR=$cdir TMPDIR=$tmp busybox sh "$cdir/$s.sh" --judge "$@"
	}
	good=$REL_FIXTURES/s3-cycle.dmesg
	gj stress s3 s3 "$good" || fail "stress: a good suspend-to-RAM cycle was rejected"
	gj stress core core "$REL_FIXTURES/core-cycle.dmesg" || fail "stress: a good pm_test=core cycle was rejected"
	sed '/sysdev_pm_test: resume pmtest_b0 driver/d' "$good" > "$tmp/missing"
	expect_fail stress_missing "FAIL .*missing, repeated or out of order \(47 lines" gj stress s3 s3 "$tmp/missing"
	sed '/sysdev_pm_test: save pmtest_a1 class/p' "$good" > "$tmp/twice"
	expect_fail stress_twice "FAIL .*\(49 lines" gj stress s3 s3 "$tmp/twice"
	sed 's/sysdev_pm_test: suspend pmtest_a0 driver state=suspend/sysdev_pm_test: suspend pmtest_a0 driver state=freeze/' "$good" > "$tmp/state"
	expect_fail stress_state "FAIL .*wrong state, expected suspend: suspend pmtest_a0 driver state=freeze" gj stress s3 s3 "$tmp/state"
	sed 's/resume pmtest_a0 class/resume pmtest_a0 XX/; s/resume pmtest_a1 class/resume pmtest_a0 class/; s/resume pmtest_a0 XX/resume pmtest_a1 class/' "$good" > "$tmp/order"
	expect_fail stress_order "FAIL .*out of order" gj stress s3 s3 "$tmp/order"
	sed '/Low-level resume complete/d' "$good" > "$tmp/nosleep"
	expect_fail stress_no_sleep "FAIL .*did not sleep" gj stress s3 s3 "$tmp/nosleep"
	expect_fail stress_core_slept "FAIL .*Low-level resume complete' with pm_test=core" gj stress core core "$good"
	# hibernate: pm_test=processors must see no callback, core 48 with freeze
	gj hibernate none none "$REL_FIXTURES/hib-processors.dmesg" || fail "hibernate: a good pm_test=processors log was rejected"
	gj hibernate core core "$REL_FIXTURES/hib-core.dmesg" || fail "hibernate: a good pm_test=core log was rejected"
	expect_fail hib_none "FAIL .*48 test class callbacks ran, want none" gj hibernate none none "$REL_FIXTURES/hib-core.dmesg"
	expect_fail hib_state "FAIL .*wrong state, expected freeze: save pmtest_b1 global state=suspend" gj hibernate core core "$good"
	sed '/sysdev_pm_test: restore pmtest_b1 global/d' "$REL_FIXTURES/hib-core.dmesg" > "$tmp/hmissing"
	expect_fail hib_missing "FAIL .*\(47 lines" gj hibernate core core "$tmp/hmissing"
	# x86-sysdev: the x86 order is judged among the x86 callbacks, with the
	# test driver's (sdpm_*, also on lapic0, cpu0, node0...) left out
	# instead of skipping the judgement whenever a test class is there.
	good=$REL_FIXTURES/x86-core-cycle.dmesg
	gj x86-sysdev "pm_test=core mem" "$good" || fail "x86-sysdev: a good cycle of the head was rejected"
	sed '/suspend i82590 class i8259A_suspend/{h;d}; /suspend lapic0 class lapic_suspend/{p;x}' "$good" > "$tmp/x86late"
	expect_fail x86_lapic_not_last "FAIL .*lapic_suspend is not the last x86 suspend callback" gj x86-sysdev core "$tmp/x86late"
	sed '/resume lapic0 class lapic_resume/{h;d}; /resume i82590 class i8259A_resume/{p;x}' "$good" > "$tmp/x86first"
	expect_fail x86_lapic_not_first "FAIL .*lapic_resume (is not the first resume callback|ran after)" gj x86-sysdev core "$tmp/x86first"
	# kmemleak: a report naming the series' code fails, others do not
	gj kmemleak "$REL_FIXTURES/kmemleak-other.txt" || fail "kmemleak: a report outside the series was blamed on it"
	expect_fail kmemleak_ours "FAIL 1 of 2 leak reports name the system device code" gj kmemleak "$REL_FIXTURES/kmemleak-sysdev.txt"
	# 6.1's bus_register() name leak (reached by fault injection) is counted,
	# and only with kobject_set_name() directly under bus_register()
	[ "$(gj kmemleak "$REL_FIXTURES/kmemleak-bus-register.txt" | grep -c "1 of them 6.1's bus_register")" -gt 0 ] ||
		fail "kmemleak: 6.1's bus_register() name leak was not recognized"
	sed '/kobject_set_name+/d' "$REL_FIXTURES/kmemleak-bus-register.txt" > "$tmp/busreg"
	expect_fail kmemleak_busreg "FAIL 1 of 1 leak reports name the system device code" gj kmemleak "$tmp/busreg"
	# Reboot: the power off order judge on a log that restarts.
	good=$REL_FIXTURES/reboot.console
	bash "$TOP/qemu/check-log.sh" -S -c stress -x "reboot: Restarting system" "$good" ||
		fail "the good reboot log was rejected"
	sed '/reboot: Restarting system/d' "$good" > "$tmp/r1"
	expect_fail reboot_missing "expected log line missing: reboot: Restarting" \
		bash "$TOP/qemu/check-log.sh" -S -c stress -x "reboot: Restarting system" "$tmp/r1"
	sed '/sysdev_pm_test: shutdown pmtest_a1 driver/p' "$good" > "$tmp/r2"
	expect_fail reboot_twice "test classes shut down out of order" \
		bash "$TOP/qemu/check-log.sh" -S -c stress "$tmp/r2"
	sed '/^SYSDEV-CHECK stress PASS 10 suspend/d' "$good" > "$tmp/r3"
	sed -i 's/^SYSDEV-CHECK stress PASS 20 pm_test=core.*/SYSDEV-CHECK stress FAIL core cycle 7: test class callbacks missing/' "$tmp/r3"
	expect_fail stress_cycle_failed "check stress: core cycle 7" \
		bash "$TOP/qemu/check-log.sh" -S -c stress "$tmp/r3"
	# A splat of the debug options in the middle of a cycle.
	sed '/^SYSDEV-INFO stress core cycle 3/i [   50.0] BUG: KASAN: use-after-free in sysdev_walk_up+0x1/0x2' "$good" > "$tmp/r4"
	expect_fail kasan "kernel splat: .*KASAN: use-after-free" bash "$TOP/qemu/check-log.sh" -S -c stress "$tmp/r4"
	sed '/^SYSDEV-INFO stress core cycle 3/i [   50.0] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)' "$good" > "$tmp/r5"
	expect_fail kmemleak_log "kernel splat: .*kmemleak: 2 new suspected" bash "$TOP/qemu/check-log.sh" -S -c stress "$tmp/r5"
	# Halt: a power off instead, a missing test class shutdown line.
	good=$REL_FIXTURES/halt.console
	halt_judge "$good" > /dev/null || fail "the good halt log was rejected"
	sed 's/reboot: System halted/reboot: Power down/' "$good" > "$tmp/h1"
	expect_fail halt_power_down "powered off instead of halting" halt_judge "$tmp/h1"
	sed '/sysdev_pm_test: shutdown pmtest_b0 global/d' "$good" > "$tmp/h2"
	expect_fail halt_missing "shut down out of order: .*shutdown pmtest_b1 class;shutdown pmtest_b0 driver;" halt_judge "$tmp/h2"
	# Hibernation across two boots: init again in the second boot, the
	# S4 entry's lines lost (a suspended console), the boot kernel's
	# callbacks with the wrong state, no resume in the second boot, no
	# second boot at all, the check passing in the first boot only, the
	# token lost, and the S4 entry's lines in the second boot.
	good=$REL_FIXTURES/hibernate-disk.console
	hibdisk_judge "$good" > /dev/null || fail "the good hibernate-disk log was rejected"
	sed '/^SYSDEV-HOST second boot/a SYSDEV-INIT 6.1.192+ checks=hibernate-disk,suspend' "$good" > "$tmp/d1"
	expect_fail hibdisk_init_twice "init started again in the second boot" hibdisk_judge "$tmp/d1"
	sed '/state=hibernate$/d' "$good" > "$tmp/d2"
	expect_fail hibdisk_s4_lost "first boot: the test class callbacks are not the 72 expected, in order \(48 lines\)" hibdisk_judge "$tmp/d2"
	sed 's/state=quiesce$/state=freeze/' "$good" > "$tmp/d3"
	expect_fail hibdisk_state "< save pmtest_b1 global state=quiesce" hibdisk_judge "$tmp/d3"
	sed '/PM: hibernation: resume from hibernation/d' "$good" > "$tmp/d4"
	expect_fail hibdisk_no_resume "did not resume from hibernation" hibdisk_judge "$tmp/d4"
	sed '/^SYSDEV-HOST second boot/d' "$good" > "$tmp/d5"
	expect_fail hibdisk_one_boot "no second boot in the log" hibdisk_judge "$tmp/d5"
	awk '/^SYSDEV-HOST second boot/ { print "SYSDEV-CHECK hibernate-disk PASS image written"; h = 1 }
		h && /^SYSDEV-CHECK hibernate-disk PASS/ && !x { x = 1; next } { print }' "$good" > "$tmp/d6"
	expect_fail hibdisk_pass_first "the check did not pass in the second boot" hibdisk_judge "$tmp/d6"
	sed '/back from the image, token/s/token [0-9a-f]*/token 0123/' "$good" > "$tmp/d7"
	expect_fail hibdisk_token "token after the restore \('0123'\) is not the first boot's" hibdisk_judge "$tmp/d7"
	awk '/state=hibernate$/ { held = held $0 "\n"; next } { print } /^SYSDEV-HOST second boot/ { printf "%s", held }' "$good" > "$tmp/d8"
	expect_fail hibdisk_s4_late "first boot: the test class callbacks" hibdisk_judge "$tmp/d8"
	# kexec jump: the way down with the wrong state, one callback short,
	# a check that finished (the jump came back: judge the way up), no
	# triple fault, and a #GP elsewhere than restore_processor_state().
	good=$REL_FIXTURES/kexec-jump.console
	kj() { kexec_judge "$1" "${2:-$REL_FIXTURES/kexec-jump.int}" "$REL_FIXTURES/kexec-jump.map"; }
	kj "$good" > /dev/null || fail "the good kexec jump log was rejected"
	sed 's/state=freeze$/state=suspend/' "$good" > "$tmp/k1"
	expect_fail kexec_state "< save pmtest_b1 global state=freeze" kj "$tmp/k1"
	sed '/suspend pmtest_a0 class/d' "$good" > "$tmp/k2"
	expect_fail kexec_missing "\(23 lines\)" kj "$tmp/k2"
	{ cat "$good"; echo "SYSDEV-CHECK kexec-jump PASS kexec jump and back"; } > "$tmp/k3"
	expect_fail kexec_came_back "the jump came back" kj "$tmp/k3"
	grep -v 'check_exception old: 0x8 new 0xd' "$REL_FIXTURES/kexec-jump.int" > "$tmp/k4"
	expect_fail kexec_no_triple "no triple fault" kj "$good" "$tmp/k4"
	sed 's/ restore_processor_state$/ save_processor_state/' "$REL_FIXTURES/kexec-jump.map" > "$tmp/k5.map"
	expect_fail kexec_elsewhere "not in restore_processor_state" \
		kexec_judge "$good" "$REL_FIXTURES/kexec-jump.int" "$tmp/k5.map"
	# Callback order: the good pair, then a head with one more move, one
	# callback less, and 6.1's own order (the documented moves missing).
	good=$REL_FIXTURES/order-head.console
	order_judge "$REL_FIXTURES/order-base.console" "$good" > /dev/null ||
		fail "the good callback order was rejected"
	sed 's/Calling timekeeping_suspend/Calling XX/; s/sysdev: suspend lapic0 class lapic_suspend/Calling timekeeping_suspend/; s/Calling XX/sysdev: suspend lapic0 class lapic_suspend/' \
		"$good" > "$tmp/o1"
	expect_fail order_lapic_first "differs from 6.1's other than by" order_judge "$REL_FIXTURES/order-base.console" "$tmp/o1"
	sed '/i8259A_shutdown/d' "$good" > "$tmp/o2"
	expect_fail order_missing "> - shutdown i8259A_shutdown" order_judge "$REL_FIXTURES/order-base.console" "$tmp/o2"
	expect_fail order_unmoved "differs from 6.1's other than by" order_judge "$REL_FIXTURES/order-base.console" "$REL_FIXTURES/order-base.console"
	rm -rf "$tmp"
}

# The test kernel at the head: stress and hibernate, then a reboot whose
# shutdown callbacks must run once each, after the devices, in order.
test_reliability_stress() {
	local log=$TLOG/reliability_stress.console s=$SECONDS x=()
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q x86_64
	passed_before "$HEAD_IMAGE" && return 0
	for d in pmtest_b1 pmtest_b0 pmtest_a1 pmtest_a0; do
		for w in global driver class; do x+=(-x "sysdev_pm_test: shutdown $d $w"); done
	done
	bash "$TOP/qemu/boot.sh" -S -P -t 1200 -c stress,hibernate \
		-a "pm_debug_messages initcall_debug sysdev_end=reboot" \
		-x "reboot: Restarting system" "${x[@]}" -o "$log" "$HEAD_IMAGE"
	rel_times "$log"
	echo "reliability_stress: boot took $((SECONDS - s))s"
}

# The lapic and i8259 must not lose their power management when their
# class cannot be registered (register_syscore_ops() could not fail).
test_reliability_fallback() {
	local log s name rc=0
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q x86_64
	passed_before "$HEAD_IMAGE" && return 0
	for name in lapic i8259; do
		log=$TLOG/reliability_fallback_$name.console s=$SECONDS
		# log_buf_len: x86-sysdev looks for the fallback message of
		# the boot in dmesg; with initcall_debug and the KUnit suite,
		# 141 KB of messages precede the check, more than the test
		# config's 128 KiB buffer (CONFIG_LOG_BUF_SHIFT=17) keeps.
		if ! bash "$TOP/qemu/boot.sh" -S -P -t 900 -c boot,x86-sysdev \
			-a "pm_debug_messages initcall_debug log_buf_len=1M sysdev_pm_test.occupy=$name" \
			-o "$log" "$HEAD_IMAGE"; then
			echo "FAIL: occupy=$name"
			rc=1
		fi
		grep -a "SYSDEV-\(CHECK\|INFO\) x86-sysdev" "$log" | tr -d '\r' || true
		echo "reliability_fallback: occupy=$name, boot took $((SECONDS - s))s"
	done
	return $rc
}

# shim_bin DIR: DIR/bin/qemu-system-x86_64, a link to ci/tests/qemu-shim.sh,
# for PATH=DIR/bin:$PATH in front of qemu/boot.sh.
shim_bin() {
	mkdir -p "$1/bin"
	ln -sf "$TOP/ci/tests/qemu-shim.sh" "$1/bin/qemu-system-x86_64"
}

# pm_lines FILE: the test classes' save/suspend/resume/restore lines the
# kernel printed in FILE (not the guest's echoes of them), one per line.
pm_lines() {
	sed -n -E 's/^\[[ 0-9.]+\] sysdev_pm_test: ((save|suspend|resume|restore) .*)$/\1/p' "$1" |
		tr -d '\r' || true
}

# pm_cycles STATE...: the test classes' lines of transitions in a row:
# for a STATE, the 24 lines going down (save, suspend) with that state;
# for "up", the 24 coming up (resume, restore).
pm_cycles() {
	local all down up s
	all=$(CHECKS_DIR=$TOP/qemu/checks; . "$TOP/qemu/checks/lib.sh"; pmtest_expected)
	down=$(head -n 24 <<<"$all") up=$(tail -n 24 <<<"$all")
	for s in "$@"; do
		if [ "$s" = up ]; then echo "$up"; else sed "s/\$/ state=$s/" <<<"$down"; fi
	done
}

# lines_judge WHAT WANT GOT: GOT is WANT, or say where they part.
lines_judge() {
	[ "$3" != "$2" ] || return 0
	echo "FAIL: $1: the test class callbacks are not the $(grep -c . <<<"$2" || true) expected, in order ($(grep -c . <<<"$3" || true) lines):"
	diff <(echo "$2") <(echo "$3") | grep '^[<>]' | head -n 6 || true
	return 1
}

# hibdisk_judge LOG: the console of both boots (ci/tests/qemu-shim.sh
# appends the second after a "SYSDEV-HOST second boot" line).  The first
# boot: init started, the snapshot (freeze, then up in the same kernel)
# and the ACPI S4 entry (hibernate, down only: the power goes).  The
# second: no init, the resume from the image, its boot kernel's jump
# into it (quiesce, down only), the image kernel's way up, the check
# passing with the first boot's token, then its suspend-to-RAM.
hibdisk_judge() {
	local log=$1 host first second t1 t2
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
	lines_judge "first boot" "$(pm_cycles freeze up hibernate)" "$(pm_lines <(echo "$first"))" || return 1
	lines_judge "second boot" "$(pm_cycles quiesce up suspend up)" "$(pm_lines <(echo "$second"))" || return 1
	echo "hibernate-disk: init once, resumed by the second boot with the first boot's token, 168 test class callbacks in order (freeze, up, hibernate | quiesce, up, suspend, up)"
}

# A real hibernation in platform mode across two boots of the test
# kernel, then a suspend-to-RAM and a power off in the restored system.
# no_console_suspend: hibernation_platform_enter() suspends the console
# before the S4 entry's callbacks, whose lines would die with the power.
test_reliability_hibernate_disk() {
	local d=$TLOG/hibernate_disk s=$SECONDS
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q x86_64
	echo "reliability_hibernate_disk: build (incremental) took $((SECONDS - s))s"
	passed_before "$HEAD_IMAGE" && return 0
	s=$SECONDS
	rm -rf "$d" && shim_bin "$d"
	truncate -s 256M "$d/swap.img"
	SHIM_MODE=resume SHIM_DISK=$d/swap.img PATH=$d/bin:$PATH \
		bash "$TOP/qemu/boot.sh" -S -P -t 900 -c hibernate-disk,suspend \
		-a "pm_debug_messages initcall_debug no_console_suspend" -o "$d/console" "$HEAD_IMAGE" || return 1
	echo "reliability_hibernate_disk: two boots took $((SECONDS - s))s"
	grep -a "SYSDEV-\(CHECK\|INFO\) hibernate-disk\|PM: hibernation: \(Read\|Wrote\)" "$d/console" | tr -d '\r' || true
	hibdisk_judge "$d/console"
}

# The test kernel ending with a halt (busybox halt -f, LINUX_REBOOT_CMD_HALT:
# kernel_halt()) instead of a power off: qemu/init with "halt -f" for
# "poweroff -f" is appended to the initramfs (the later /init wins; busybox
# sh runs its applets without a PATH lookup, so a /sbin/poweroff would
# not), and the shim stops QEMU at "System halted".
# The shutdown callbacks must run once each, after the devices, in order.
test_reliability_halt() {
	local d=$TLOG/halt s=$SECONDS
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q x86_64
	passed_before "$HEAD_IMAGE" && return 0
	rm -rf "$d" && shim_bin "$d"
	mkdir -p "$d/root"
	sed 's/^poweroff -f$/halt -f/' "$TOP/qemu/init" > "$d/root/init"
	grep -qx "halt -f" "$d/root/init" || { fail "reliability_halt: no 'poweroff -f' line in qemu/init to replace"; return 1; }
	chmod 755 "$d/root/init"
	pack_cpio "$d/root" "$d/halt.cpio"
	SHIM_MODE=halt PATH=$d/bin:$PATH bash "$TOP/qemu/boot.sh" -S -P -t 300 -c boot \
		-i "$d/halt.cpio" -a "pm_debug_messages initcall_debug" \
		-o "$d/console" "$HEAD_IMAGE" || return 1
	halt_judge "$d/console" || return 1
	echo "reliability_halt: boot took $((SECONDS - s))s"
}

# halt_judge LOG: the kernel halted, did not power off, and the shutdown
# order is a power off's (check-log.sh -S -P: the devices first, then the
# system devices, the test classes' 12 lines all there and in order).
halt_judge() {
	if grep -aq "reboot: Power down" "$1"; then
		echo "FAIL: the guest powered off instead of halting"
		return 1
	fi
	bash "$TOP/qemu/check-log.sh" -S -P -c boot -x "reboot: System halted" "$1"
}

# kexec_cpio DIR: DIR/kexec.cpio, for boot.sh -i: Debian's kexec with the
# libraries ldd names, and /kexec/ret.elf, one "ret" at 32 MiB (the
# program qemu/checks/kexec-jump.sh jumps to and back from).
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
	printf '\t.text\n\t.globl _start\n_start:\n\tret\n' > "$d/ret.S"
	as --64 -o "$d/ret.o" "$d/ret.S" &&
		ld -m elf_x86_64 -static -nostdlib -N --no-warn-rwx-segments -Ttext=0x2000000 \
			-e _start -o "$d/root/kexec/ret.elf" "$d/ret.o" ||
		{ fail "kexec_cpio: cannot assemble and link ret.elf"; return 1; }
	pack_cpio "$d/root" "$d/kexec.cpio"
}

# sym_at SYSTEM_MAP ADDR: the text symbol of System.map holding ADDR (hex).
sym_at() {
	python3 - "$1" "$2" <<'PY'
import sys
addr, best = int(sys.argv[2], 16), (0, "?")
for line in open(sys.argv[1]):
    a, t, name = line.split()[:3]
    if t in "tT" and best[0] <= int(a, 16) <= addr:
        best = (int(a, 16), name)
print(best[1])
PY
}

# kexec_judge LOG QEMU_INT_LOG SYSTEM_MAP: a kexec jump that did not come
# back: the test classes' 24 callbacks going down in order with
# state=freeze, none coming up, the check unfinished, and the guest gone
# the way 6.1 goes: QEMU's interrupt log (-d int) ends in a triple fault
# whose first fault is a #GP on selector 0x18 in restore_processor_state().
kexec_judge() {
	local ip fn
	lines_judge "kexec jump" "$(pm_cycles freeze)" "$(pm_lines "$1")" || return 1
	if grep -aq '^SYSDEV-CHECK kexec-jump ' "$1"; then
		echo "FAIL: the check kexec-jump finished: the jump came back; judge the way up and update the cover letter"
		return 1
	fi
	[ "$(grep -c 'check_exception old: 0x8 new 0xd' "$2" || true)" -gt 0 ] ||
		{ echo "FAIL: no triple fault in $2"; return 1; }
	ip=$(grep -o 'v=0d e=0018 .* IP=0010:[0-9a-f]*' "$2" | tail -n 1 | sed 's/.*IP=0010://' || true)
	fn=$([ -z "$ip" ] || sym_at "$3" "$ip")
	[ "$fn" = restore_processor_state ] ||
		{ echo "FAIL: the last #GP on selector 0x18 is at '${ip:-none}' (${fn:-unknown}), not in restore_processor_state()"; return 1; }
	echo "kexec jump: the 24 test class callbacks going down, in order, state=freeze; then 6.1's #GP in restore_processor_state() and a triple fault"
}

# kexec with preserve_context on the test kernel (CONFIG_KEXEC_JUMP).
# kernel_kexec() saves and suspends the system devices (PMSG_FREEZE) and
# the program called returns, but 6.1 cannot take the way back on x86_64:
# machine_kexec() invalidated the GDT and relocate_kernel does not reload
# one, so restore_processor_state() faults on the kernel data selector and
# the guest triple-faults (upstream fixed it later: "x86/kexec: Restore
# GDT on return from ::preserve_context kexec").  So the way down is
# judged, on a console kept on (no_console_suspend), and the way the guest
# dies, from QEMU's interrupt log (the shim's trace mode): the boot must
# fail only because the check never finished, not for a splat or a hang.
test_reliability_kexec_jump() {
	local d=$TLOG/kexec_jump s=$SECONDS out why
	test_pkgs kexec-tools
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q x86_64
	passed_before "$HEAD_IMAGE" && return 0
	kexec_cpio "$d" || return 1
	shim_bin "$d"
	out=$(SHIM_MODE=trace PATH=$d/bin:$PATH bash "$TOP/qemu/boot.sh" -t 300 -c kexec-jump \
		-i "$d/kexec.cpio" -a "pm_debug_messages initcall_debug no_console_suspend" \
		-o "$d/console" "$HEAD_IMAGE" 2>&1 || true)
	echo "$out" | grep -v '^  |' || true
	echo "reliability_kexec_jump: boot took $((SECONDS - s))s"
	why=$(grep '^boot: FAIL: ' <<<"$out" | sed 's/^boot: FAIL: //' | sort || true)
	if [ "$why" != "$(printf '%s\n' "check kexec-jump: no result" "missing result: the guest did not finish its checks")" ]; then
		fail "reliability_kexec_jump: the boot should fail only for the unfinished check, not: $(tr '\n' ';' <<<"$why")"
		return 1
	fi
	kexec_judge "$d/console" "$d/console.int" "$BUILD_ROOT/x86_64/System.map"
}

# order_judge BASE_LOG HEAD_LOG: the callback orders of unpatched 6.1 and
# of the head differ exactly by ci/tests/fixtures/callback-order.diff.
ORDER_DIFF=$TOP/ci/tests/fixtures/callback-order.diff
order_judge() {
	local got
	got=$(python3 "$TOP/ci/tests/callback-order.py" --diff "$1" "$2") || return 1
	if [ "$got" != "$(grep -v "^#" "$ORDER_DIFF" || true)" ]; then
		echo "FAIL: the callback order of the head differs from 6.1's other than by $ORDER_DIFF:"
		diff <(grep -v "^#" "$ORDER_DIFF" || true) <(echo "$got") | head -n 20 || true
		return 1
	fi
	echo "callback order: $(python3 "$TOP/ci/tests/callback-order.py" "$2" | wc -l) callbacks at the head, 6.1's order but for $(grep -c '^+ ' <<<"$got" || true) moved or added"
}

# Unpatched 6.1 and the head, the test configuration, one suspend-to-RAM
# and a power off each, with pm_debug_messages and initcall_debug.
test_reliability_order() {
	local d=$TLOG/order
	rm -rf "$d" && mkdir -p "$d"
	base_build
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q x86_64
	passed_before "$BASE_IMAGE" "$HEAD_IMAGE" && return 0
	bash "$TOP/qemu/boot.sh" -t 400 -c suspend -a "pm_debug_messages initcall_debug" \
		-o "$d/base.console" "$BASE_IMAGE" || return 1
	bash "$TOP/qemu/boot.sh" -S -P -t 400 -c suspend -a "pm_debug_messages initcall_debug" \
		-o "$d/head.console" "$HEAD_IMAGE" || return 1
	order_judge "$d/base.console" "$d/head.console"
}

# The debug kernel: KUnit, the power transitions and kmemleak; any KASAN,
# kmemleak, debugobjects, kobject or lockdep report fails the log judge.
test_reliability_debug() {
	local log=$TLOG/reliability_debug.console s=$SECONDS
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q debug bzImage modules
	echo "reliability_debug: build (incremental) took $((SECONDS - s))s"
	passed_before "$DEBUG_IMAGE" && return 0
	s=$SECONDS
	bash "$TOP/qemu/boot.sh" -k -S -P -t 2400 -c boot,sysdev-pm,suspend,hibernate,kmemleak \
		-a "pm_debug_messages initcall_debug" -o "$log" "$DEBUG_IMAGE"
	rel_times "$log"
	echo "reliability_debug: boot took $((SECONDS - s))s"
}

# fault_cpio VARIANT [MAKE VARIABLES]: build ci/tests/sysdev_fault against
# the debug kernel into $TLOG/fault-VARIANT/ and pack it as /fault/ in a cpio
# archive for boot.sh -i.  No compiler warning is allowed (W=1).
fault_cpio() {
	local d=$TLOG/fault-$1
	shift
	rm -rf "$d" && mkdir -p "$d/root/fault"
	module_build "$d/src" "sysdev_fault ($*)" "$TOP"/ci/tests/sysdev_fault/{Kbuild,sysdev_fault.c} -- "$@" || return 1
	cp "$d/src/sysdev_fault.ko" "$d/root/fault/"
	pack_cpio "$d/root" "$d/fault.cpio"
}

# module_build DIR WHAT FILE... [-- MAKE VARIABLES]: copy the FILEs (a
# Kbuild and its sources) to DIR and build them there as an external
# module of the debug kernel, W=1; a build error or any compiler warning
# fails, naming WHAT.
module_build() {
	local d=$1 what=$2 files=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do files+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	rm -rf "$d" && mkdir -p "$d"
	cp "${files[@]}" "$d/"
	make -C "$BUILD_ROOT/debug" M="$d" W=1 "$@" modules >"$d/build.log" 2>&1 ||
		{ cat "$d/build.log"; fail "$what: build failed"; return 1; }
	if grep -q "warning:" "$d/build.log"; then
		cat "$d/build.log"; fail "$what: compiler warnings"; return 1
	fi
}

# perf_module_builds: the benchmark module of make perf (ci/perf), which
# make test does not run, compiled against the debug kernel (modules and the
# system device API): it once stopped compiling unnoticed when
# set_sysdev_class_name() was kept out of modules.  W=1, no warning, and the
# system device half must be in the module.
perf_module_builds() {
	local d=$TLOG/perf-module
	module_build "$d" ci/perf/sysdev_perf.c "$TOP"/ci/perf/{Kbuild,sysdev_perf.c} || return 1
	grep -aq "sys_device_register" "$d/sysdev_perf.ko" ||
		{ fail "ci/perf/sysdev_perf.c: built without its system device half"; return 1; }
	echo "reliability_fault: ci/perf/sysdev_perf.c builds (W=1, no warning, system devices included)"
}

# Allocation failures at every step of a registration (qemu/checks/fault.sh
# says what is checked), and the proof that the checks can fail: the module
# built with SYSDEV_FAULT_BUG=1 forgets put_device() after a failed
# sys_device_register(), and kmemleak must report the device's name; built
# with SYSDEV_FAULT_BUG=2 it forgets to unregister its class after a failed
# device registration, and the check fault must name what is left.
# The kernel's "kmemleak: N new suspected memory leaks" line is allowed in
# these boots: the check kmemleak sorts the reports (fault injection also
# reaches a leak of 6.1's bus_register()) and fails on the series' own.
FAULT_LEAKS='kmemleak: [0-9]+ new suspected memory leaks'
test_reliability_fault() {
	local s=$SECONDS img=$DEBUG_IMAGE
	rel_head
	bash "$TOP/scripts/build-kernel.sh" -q debug bzImage modules
	echo "reliability_fault: build (incremental) took $((SECONDS - s))s"
	passed_before "$DEBUG_IMAGE" && return 0
	perf_module_builds
	fault_cpio good
	fault_cpio bug SYSDEV_FAULT_BUG=1
	fault_cpio leftover SYSDEV_FAULT_BUG=2
	s=$SECONDS
	bash "$TOP/qemu/boot.sh" -t 1200 -c boot,fault,kmemleak -i "$TLOG/fault-good/fault.cpio" \
		-W "$FAULT_LEAKS" -o "$TLOG/reliability_fault.console" "$img"
	grep -a "SYSDEV-INFO fault" "$TLOG/reliability_fault.console" | tr -d '\r'
	echo "reliability_fault: boot took $((SECONDS - s))s"
	s=$SECONDS
	expect_fail boot "check kmemleak: [0-9]+ of [0-9]+ leak reports name the system device code" \
		bash "$TOP/qemu/boot.sh" -t 1200 -c boot,fault,kmemleak -i "$TLOG/fault-bug/fault.cpio" \
		-W "$FAULT_LEAKS" -o "$TLOG/reliability_fault_bug.console" "$img"
	echo "reliability_fault: the leaking module was caught, boot took $((SECONDS - s))s"
	s=$SECONDS
	expect_fail boot "check fault: n=[0-9]+: after a failed registration, /sys/bus/sdfault left behind" \
		bash "$TOP/qemu/boot.sh" -t 1200 -c boot,fault -i "$TLOG/fault-leftover/fault.cpio" \
		-o "$TLOG/reliability_fault_leftover.console" "$img"
	echo "reliability_fault: the module leaving its class behind was caught, boot took $((SECONDS - s))s"
}

# The documentation build of the series head (ci/tests/docs.sh), sourced
# here rather than by ci/run-tests.sh, which is in the gate's key.
. "$TOP/ci/tests/docs.sh"
