# Tests of the workbench itself (issue: series workbench).  Sourced.

HEAD_IMAGE=$BUILD_ROOT/x86_64/arch/x86/boot/bzImage
BASE_IMAGE=$BASE_BUILD_ROOT/x86_64/arch/x86/boot/bzImage

ALL_TESTS+=(main_job main_job_warm deps_noop tree_outside_repo base_commit
	apply_series regen_idempotent regen_refuses_dirty broken_patch_named
	boot_base boot_head harness_panic harness_no_init harness_hang
	harness_failed_check harness_no_kunit verdict_cache)

# The README's main job from whatever state the machine is in.
test_main_job() {
	local out
	out=$(bash "$TOP/scripts/run-series.sh" 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	# The suspend-to-RAM section shows the cycle: timekeeping's, the
	# local APIC's and the PIC's callbacks from their system devices, in
	# the order they ran (down in reverse order of registration:
	# clocksource's class is registered last, at device_initcall after
	# the PIC's, so it goes down first and comes up last), the time, the
	# timers; and nothing of the KUnit run at boot.
	out=$(sed -n '/^== suspend-to-RAM/,$p' <<<"$out")
	for l in "kernel time from suspend entry to exit" "PASS suspend-to-RAM and resume: LOC"; do
		grep -qF "$l" <<<"$out" || { fail "make run's suspend-to-RAM section lacks '$l'"; return 1; }
	done
	local want have
	want="sysdev: suspend clocksource0 class clocksource_dev_suspend
sysdev: suspend i82590 class i8259A_dev_suspend
sysdev: suspend lapic0 class lapic_dev_suspend
sysdev: resume lapic0 class lapic_dev_resume
sysdev: resume i82590 class i8259A_dev_resume
sysdev: resume clocksource0 class clocksource_dev_resume"
	have=$(grep -o 'sysdev: [a-z]* [a-z0-9]* [a-z]* [A-Za-z0-9_]*' <<<"$out" || true)
	[ "$have" = "$want" ] ||
		{ fail "make run's suspend-to-RAM section shows the callbacks: '$(echo $have)', want '$(echo $want)'"; return 1; }
	! grep -q "sdk_\|name in use" <<<"$out" || { fail "make run's suspend-to-RAM section shows KUnit messages"; return 1; }
}

# Its second run, with nothing changed, is fast.
test_main_job_warm() {
	local s=$SECONDS
	bash "$TOP/scripts/run-series.sh"
	echo "second run: $((SECONDS - s))s"
	[ $((SECONDS - s)) -lt 120 ] || fail "second run of the main job took $((SECONDS - s))s (limit 120s)"
}

test_deps_noop() {
	local s=$SECONDS
	bash "$TOP/scripts/install-deps.sh" --check
	[ $((SECONDS - s)) -lt 10 ] || fail "the no-op dependency check took $((SECONDS - s))s"
}

test_tree_outside_repo() {
	local k r
	k=$(cd "$KSRC" && pwd -P); r=$(cd "$TOP" && pwd -P)
	case "$k/" in "$r"/*) fail "kernel tree $k is inside the repository" ;; esac
	# A kernel tree or its build products (an out-of-tree module's Kbuild,
	# as in ci/perf/, is ours, not the kernel's).
	local found
	found=$(git -C "$TOP" ls-files | grep -E '(^|/)(vmlinux|bzImage|Kconfig|MAINTAINERS)$|^(arch|drivers|include|kernel|mm)/' || true)
	[ -z "$found" ] || fail "kernel files are committed to the repository: $(echo $found | head -c 200)"
	echo "kernel tree: $k"
}

# The base commit is the same on every machine: it must be the one the
# cover letter in outgoing/ names.
test_base_commit() {
	local cover want have
	cover=$(find "$OUTGOING" -maxdepth 1 -name '*0000-cover-letter.patch' | head -n1)
	[ -n "$cover" ] || { fail "outgoing/ has no cover letter"; return 1; }
	want=$(sed -n 's/^base-commit: //p' "$cover")
	have=$(kgit rev-parse "$BASE_TAG^{commit}")
	echo "cover letter: $want; this machine: $have ($(cat "$KSRC/.git/sysdev-debian-version" 2>/dev/null))"
	[ "$want" = "$have" ] || fail "base commit differs from outgoing/'s base-commit: (another $KPKG version?)"
}

test_apply_series() {
	local n want
	bash "$TOP/scripts/apply-series.sh"
	n=$(kgit rev-list --count "$BASE_TAG..$WORK_BRANCH")
	want=$(series_patches | wc -l)
	[ "$n" -eq "$want" ] || fail "$WORK_BRANCH has $n commits, outgoing/ $want patches"
	[ "$(kgit rev-parse --abbrev-ref HEAD)" = "$WORK_BRANCH" ] || fail "$WORK_BRANCH is not checked out"
}

# Applying outgoing/ and regenerating with no change gives the same bytes
# (with outgoing/'s reroll count, which an empty directory cannot tell).
test_regen_idempotent() {
	local tmp v f
	bash "$TOP/scripts/apply-series.sh"
	tmp=$(mktemp -d)
	v=()
	for f in "$OUTGOING"/v[0-9]*-0000-cover-letter.patch; do
		[ -e "$f" ] || continue
		f=${f##*/}
		f=${f%%-*}
		v=(-v "${f#v}")
	done
	OUTGOING=$tmp bash "$TOP/scripts/regen-series.sh" "${v[@]}"
	diff -ru "$OUTGOING" "$tmp" || { rm -rf "$tmp"; fail "regeneration changed outgoing/"; }
	rm -rf "$tmp"
	echo "outgoing/ regenerates byte for byte ($(ls "$OUTGOING" | wc -l) files)"
}

test_regen_refuses_dirty() {
	local f=README tmp
	tmp=$(mktemp -d)
	echo "dirt" >> "$KSRC/$f"
	expect_fail regen "uncommitted changes" env OUTGOING="$tmp" bash "$TOP/scripts/regen-series.sh" || { kgit checkout -q -- "$f"; return 1; }
	expect_fail apply "uncommitted changes" bash "$TOP/scripts/apply-series.sh" || { kgit checkout -q -- "$f"; return 1; }
	kgit checkout -q -- "$f"
	[ -z "$(ls "$tmp")" ] || fail "regen wrote files although it refused"
	rm -rf "$tmp"
}

# A series whose second patch does not apply: the error names that patch
# and git's reason, and nothing changes.
test_broken_patch_named() {
	local tmp head_before branch=sysdev-selftest
	tmp=$(mktemp -d)
	kgit show "$BASE_TAG:README" > "$tmp/README"
	python3 - "$tmp" <<'PY'
import difflib, sys
d = sys.argv[1]
old = open(d + "/README").read().splitlines(True)
def mail(n, subject, a, b):
    diff = "".join(difflib.unified_diff(a, b, "a/README", "b/README"))
    return ("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
            "From: Test <test@example.org>\nDate: Thu, 1 Jan 2026 00:00:00 +0000\n"
            "Subject: [PATCH %d/2] %s\n\nTest patch.\n\nSigned-off-by: Test <test@example.org>\n"
            "---\ndiff --git a/README b/README\n%s-- \n" % (n, subject, diff))
new = old[:3] + ["A line added by a good patch.\n"] + old[3:]
open(d + "/0001-good.patch", "w").write(mail(1, "docs: add a line", old, new))
# The second patch expects context that is not there.
bad_old = new[:10] + ["This line is not in README.\n"] + new[10:]
bad_new = bad_old[:11] + ["Another line.\n"] + bad_old[11:]
open(d + "/0002-broken.patch", "w").write(mail(2, "docs: add another line", bad_old, bad_new))
PY
	rm "$tmp/README"
	head_before=$(kgit rev-parse HEAD)
	expect_fail apply "0002-broken.patch does not apply.*" \
		env OUTGOING="$tmp" WORK_BRANCH=$branch bash "$TOP/scripts/apply-series.sh"
	expect_fail apply "patch failed: README" \
		env OUTGOING="$tmp" WORK_BRANCH=$branch bash "$TOP/scripts/apply-series.sh"
	rm -rf "$tmp"
	! kgit rev-parse -q --verify "refs/heads/$branch" >/dev/null || fail "branch $branch was created"
	[ "$(kgit rev-parse HEAD)" = "$head_before" ] || fail "the checked-out commit changed"
	tree_clean || fail "the kernel tree was left changed"
	[ "$(kgit rev-parse "$BASE_TAG^{commit}")" = "$(kgit rev-parse base)" ] || fail "the base moved"
}

# base_build: the unpatched tree's worktree and its x86_64 test kernel,
# $BASE_IMAGE.
base_build() {
	bash "$TOP/scripts/prepare-tree.sh" --base
	KSRC=$BASE_KSRC BUILD_ROOT=$BASE_BUILD_ROOT bash "$TOP/scripts/build-kernel.sh" -q x86_64
}

test_boot_base() {
	base_build
	# abi as well: its snapshot is abi_base's second one (one boot less)
	bash "$TOP/qemu/boot.sh" -k -c boot,tree,abi -a "pm_debug_messages initcall_debug" \
		-o "$TLOG/boot_base.console" "$BASE_IMAGE"
}

test_boot_head() {
	bash "$TOP/scripts/apply-series.sh"
	bash "$TOP/scripts/build-kernel.sh" -q x86_64
	# abi and cpu-hotplug as well: abi_head judges this boot's snapshot.
	# At the head both x86 conversions are in: x86-sysdev must have
	# checked each device, not taken it for one of an earlier patch.
	bash "$TOP/qemu/boot.sh" -k -K "$(sysdev_kunit_expect)" -S -t 400 -c boot,tree,x86-sysdev,suspend,abi,cpu-hotplug \
		-x '^SYSDEV-CHECK x86-sysdev PASS lapic: ' -x '^SYSDEV-CHECK x86-sysdev PASS i8259: ' \
		-a "pm_debug_messages initcall_debug" -o "$TLOG/boot_head.console" "$HEAD_IMAGE"
}

# The harness must fail, and say why, for each way a boot can go wrong.
test_harness_panic() {
	local s=$SECONDS
	expect_fail boot "FAIL: panic: .*Kernel panic" \
		bash "$TOP/qemu/boot.sh" -t 120 -c panic -o "$TLOG/harness_panic.console" "$HEAD_IMAGE"
	[ $((SECONDS - s)) -lt 120 ] || fail "a panic was only noticed at the timeout"
}

test_harness_no_init() {
	expect_fail boot "FAIL: (panic|the guest never reached init)" \
		bash "$TOP/qemu/boot.sh" -t 120 -a rdinit=/nonexistent -o "$TLOG/harness_no_init.console" "$HEAD_IMAGE"
}

test_harness_hang() {
	local s=$SECONDS
	expect_fail boot "FAIL: timeout: QEMU killed after 30s" \
		bash "$TOP/qemu/boot.sh" -t 30 -c boot,hang -o "$TLOG/harness_hang.console" "$HEAD_IMAGE"
	[ $((SECONDS - s)) -lt 60 ] || fail "the hang was not stopped by the 30s timeout"
}

test_harness_failed_check() {
	expect_fail boot "FAIL: check fail: failing on purpose" \
		bash "$TOP/qemu/boot.sh" -c boot,fail -o "$TLOG/harness_failed_check.console" "$HEAD_IMAGE"
	expect_fail boot "FAIL: check nosuch: no such guest check" \
		bash "$TOP/qemu/boot.sh" -c nosuch -o "$TLOG/harness_failed_check2.console" "$HEAD_IMAGE"
}

test_harness_no_kunit() {
	expect_fail boot "FAIL: kunit: .*(no test case ran|could not find)" \
		bash "$TOP/qemu/boot.sh" -k -a kunit.enable=0 -c boot -o "$TLOG/harness_no_kunit.console" "$HEAD_IMAGE"
}

# The KUnit count a boot must run is the one ci/expected-kunit-cases.txt
# pins, never only what the tree under test says (scripts/lib.sh
# sysdev_kunit_expect): on a fake tree, a file that lost a case, a suite
# no line pins, and a pin that agrees.
ALL_TESTS+=(kunit_pins)
test_kunit_pins() {
	local t=$TLOG/kunit-pins f
	rm -rf "$t"
	mkdir -p "$t/linux/drivers/base/test"
	f=$t/linux/drivers/base/test/sysdev_kunit.c
	printf '\tKUNIT_CASE(a),\n\tKUNIT_CASE(b),\n' > "$f"
	git -C "$t/linux" init -q
	git -C "$t/linux" add -A
	git -C "$t/linux" -c user.name=t -c user.email=t@localhost commit -q \
		-m "driver core: sysdev: add KUnit tests"
	kp() { (KSRC=$t/linux; . "$TOP/scripts/lib.sh"; sysdev_kunit_expect); }
	expect_fail kunit_pin_lost "has 2 KUNIT_CASE lines; ci/expected-kunit-cases.txt pins 12 after \"driver core: sysdev: add KUnit tests\"" kp
	git -C "$t/linux" -c user.name=t -c user.email=t@localhost commit -q \
		--amend -m "driver core: sysdev: a suite nobody pinned"
	expect_fail kunit_pin_none "no line of ci/expected-kunit-cases.txt names a commit" kp
	printf '2\tdriver core: sysdev: a suite nobody pinned\n' > "$t/pins"
	[ "$(KUNIT_PINS=$t/pins kp)" = sysdev:2 ] || fail "kunit_pins: an agreeing pin was not sysdev:2"
	rm "$f"
	[ -z "$(kp)" ] || fail "kunit_pins: a tree without the suite expected one"
}

# Every command README.md and Documentation/ give a reader works (the
# commands of the gate run after the gate test, from its cache; ci/gate.sh
# makes the base worktree itself when run right after make run):
# ci/tests/doc-commands.py lists
# them with what to do about each; "run" ones are run here and must exit
# 0, the others are covered by the named test or say why not; a command
# without a rule fails this test.
test_documented_commands() {
	local f cmd action rc=0
	python3 "$TOP/ci/tests/doc-commands.py" "$TOP" > "$TLOG/doc-commands.tsv" || rc=$?
	cat "$TLOG/doc-commands.tsv"
	[ $rc -eq 0 ] || { fail "documented commands without a rule in ci/tests/doc-commands.py: $(grep -c UNKNOWN "$TLOG/doc-commands.tsv")"; return 1; }
	cut -f3 "$TLOG/doc-commands.tsv" | sed -n 's/^run //p' | sort -u | while IFS= read -r cmd; do
		echo "== $cmd"
		(cd "$TOP" && bash -c "$cmd") || { fail "documented command failed: $cmd"; exit 1; }
	done
}

# make perf's table on fabricated data: a missed target is reported and
# exits 0, a figure it could not measure exits 2 (ci/perf/test-perf-table.py).
ALL_TESTS+=(perf_table)
test_perf_table() {
	python3 "$TOP/ci/perf/test-perf-table.py"
}

# The per-patch cost judge (ci/perf/cost-compare.py) on fabricated runs:
# within and over the budget, and each run it must refuse to judge.
ALL_TESTS+=(cost_compare)
test_cost_compare() {
	python3 "$TOP/ci/perf/test-cost-compare.py"
}

# The log judge on a good console log and on copies with one defect each:
# it must accept the first and name the defect of every other.  The good
# logs are cut, unchanged but for the CRs, from the console of a boot of
# the series head (qemu/boot.sh -k -S -t 600 -c boot,tree,x86-sysdev,
# suspend,cpu-hotplug,abi -a "pm_debug_messages initcall_debug"):
# good.console is its KTAP, from the first "KTAP version 1" to
# "ok N sysdev", then the guest's lines from SYSDEV-INIT to SYSDEV-DONE
# (neither kernel messages nor the ABI snapshot); shutdown.console is
# good.console and everything after SYSDEV-DONE, the power off.
ALL_TESTS+=(log_judge)
test_log_judge() {
	local good=$TOP/ci/tests/fixtures/good.console tmp
	tmp=$(mktemp -d)
	bash "$TOP/qemu/check-log.sh" -k -c boot,tree "$good" || fail "the good log was rejected"
	judge_bad() { # NAME REGEX SED-EXPRESSION [check-log options]
		local name=$1 re=$2 ed=$3
		shift 3
		sed -e "$ed" "$good" > "$tmp/$name.console"
		expect_fail "$name" "$re" bash "$TOP/qemu/check-log.sh" -k -c boot "$@" "$tmp/$name.console"
	}
	judge_bad kunit_fail "kunit: .*failed: 1" 's/    ok 10 sdk_power_order/    not ok 10 sdk_power_order/'
	judge_bad kunit_missing "kunit: no test case ran" '/KTAP\|ok \|1\.\.\|# /d'
	# a line of another context (the async initramfs unpack, seen on the
	# no-sysfs kernel) between a suite's KTAP header and its "# Subtest"
	# breaks kunit.py's parse, and is named; after the top-level header
	# it does not
	judge_bad kunit_interleaved "between a suite's \"KTAP version\" and its \"# Subtest\", which kunit.py cannot parse: \[    1.947300\] Freeing initrd memory" \
		'0,/^\[[^]]*\]     KTAP version/{//a [    1.947300] Freeing initrd memory: 1980K'$'\n''}'
	sed -e '1a [    1.946500] Freeing initrd memory: 1980K' "$good" > "$tmp/toplevel.console"
	bash "$TOP/qemu/check-log.sh" -k -c boot "$tmp/toplevel.console" ||
		fail "a line after the top-level KTAP header was rejected"
	# -K: the sysdev suite must have run every case of the tree, none
	# skipped; without -K a log without the suite passes -k.
	bash "$TOP/qemu/check-log.sh" -k -K sysdev:10 -c boot "$good" ||
		fail "the good log was rejected with -K sysdev:10"
	sed -e '/# Subtest: sysdev/,/ok [0-9]* sysdev/d' "$good" > "$tmp/nosuite.console"
	bash "$TOP/qemu/check-log.sh" -k -c boot "$tmp/nosuite.console" ||
		fail "the log without the sysdev suite was rejected without -K"
	judge_bad kunit_no_suite "suite sysdev: want pass:10 fail:0 skip:0 total:10, got no result line" \
		'/# Subtest: sysdev/,/ok [0-9]* sysdev/d' -K sysdev:10
	judge_bad kunit_case_lost "suite sysdev: want pass:10 fail:0 skip:0 total:10, got pass:9 fail:0 skip:0 total:9" \
		'/ok 10 sdk_power_order/d; s/# sysdev: pass:10 fail:0 skip:0 total:10/# sysdev: pass:9 fail:0 skip:0 total:9/' -K sysdev:10
	# sdk_power_order skipped: the case's line, and the summary with one
	# skip (skip1) or with two, a count no single skip can give (skip2)
	skip_case='s/ok 10 sdk_power_order/ok 10 sdk_power_order # SKIP no walk/'
	skip1="$skip_case; s/# sysdev: pass:10 fail:0 skip:0 total:10/# sysdev: pass:9 fail:0 skip:1 total:10/"
	skip2="$skip_case; s/# sysdev: pass:10 fail:0 skip:0 total:10/# sysdev: pass:8 fail:0 skip:2 total:10/"
	judge_bad kunit_case_skipped "suite sysdev: want .*, got pass:9 fail:0 skip:1 total:10" \
		"$skip1" -K sysdev:10
	judge_bad kunit_new_case "suite sysdev: want pass:11 .*, got pass:10" '' -K sysdev:11
	# -K SUITE:N:CASE,...: only the cases named may skip, and a run's
	# summary may count no more skips than there are such cases
	sed -e "$skip1" \
		"$good" > "$tmp/mayskip.console"
	bash "$TOP/qemu/check-log.sh" -k -K sysdev:10:sdk_x,sdk_power_order -c boot "$tmp/mayskip.console" ||
		fail "a skip of a case that may skip was rejected"
	judge_bad kunit_other_skipped "suite sysdev: case sdk_power_order skipped \\(only sdk_x may\\)" \
		"$skip1" -K sysdev:10:sdk_x
	judge_bad kunit_skips_counted "suite sysdev: want .*, got pass:8 fail:0 skip:2 total:10" \
		"$skip2" -K sysdev:10:sdk_power_order
	judge_bad warn "kernel splat: .*WARNING: CPU: 0 PID: 1 at drivers/base/sysdev.c:10" \
		'/^SYSDEV-INIT/i [    1.0] WARNING: CPU: 0 PID: 1 at drivers/base/sysdev.c:10 f+0x1/0x2'
	judge_bad lockdep "kernel splat: .*possible circular locking" \
		'/^SYSDEV-INIT/i [    1.0] WARNING: possible circular locking dependency detected'
	judge_bad atomic "kernel splat: .*scheduling while atomic" \
		'/^SYSDEV-INIT/i [    1.0] BUG: scheduling while atomic: swapper/0/0x00000002'
	judge_bad sleep "kernel splat: .*sleeping function called" \
		'/^SYSDEV-INIT/i [    1.0] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283'
	judge_bad release "kernel splat: .*does not have a release" \
		"/^SYSDEV-INIT/i [    1.0] Device 'x' does not have a release() function, it is broken and must be fixed."
	judge_bad panic "panic: .*Kernel panic - not syncing: test" \
		'/^SYSDEV-INIT/i [    1.0] Kernel panic - not syncing: test'
	judge_bad unfinished "missing result" '/^SYSDEV-DONE/d'
	judge_bad noinit "never reached init" '/^SYSDEV-INIT/d'
	judge_bad check_failed "check tree: broken" 's/^SYSDEV-CHECK tree PASS.*/SYSDEV-CHECK tree FAIL broken/' -c boot,tree
	judge_bad check_missing "check tree: no result" '/^SYSDEV-CHECK tree/d' -c boot,tree
	# A check the run asked for never skips (a missing class must not
	# pass as "not configured"), and says PASS at least once.
	judge_bad check_skipped "check tree: skipped, but this run asked for it: no system devices" \
		's/^SYSDEV-CHECK tree PASS.*/SYSDEV-CHECK tree SKIP no system devices/' -c boot,tree
	judge_bad check_no_pass "check tree: no PASS line" \
		's/^SYSDEV-CHECK tree PASS.*/SYSDEV-CHECK tree INFO nothing/' -c boot,tree
	# -x: a line the log has is found, one it has not (the local APIC has
	# no shutdown callback) is missing.
	bash "$TOP/qemu/check-log.sh" -c boot -x 'sysdev: resume i82590 class' "$good" ||
		fail "an expected line (-x) the log has was not found"
	judge_bad expect_missing "expected log line missing: sysdev: shutdown lapic0" '' -x 'sysdev: shutdown lapic0'
	# Power off: devices first, then the system devices (of the series,
	# only the PIC has a shutdown callback).  The KUnit suite's own
	# "sysdev: shutdown" lines come before SYSDEV-DONE and do not count.
	good=$TOP/ci/tests/fixtures/shutdown.console
	bash "$TOP/qemu/check-log.sh" -S -k -c boot "$good" || fail "the good power off log was rejected"
	judge_bad shutdown_late_device "a device shut down after the first system device" \
		'/reboot: Power down/i [   26.0] serial8250 serial8250: shutdown' -S
	judge_bad shutdown_missing "no 'sysdev: shutdown' line after the checks" \
		'/^SYSDEV-DONE/,$ { /sysdev: shutdown/d }' -S
	judge_bad shutdown_no_devices "no device shutdown line after the checks" \
		'/^SYSDEV-DONE/,$ { /: shutdown$/d }' -S
	grep -q "^.*sysdev: shutdown i82590 class i8259A_dev_shutdown" "$good" ||
		fail "the fixture has no shutdown line of the PIC's system device"
	good=$TOP/ci/tests/fixtures/good.console
	# A deliberate WARN named with -W is accepted, any other is not.
	sed -e '/^SYSDEV-INIT/i [    1.0] WARNING: CPU: 0 PID: 1 at drivers/base/sysdev.c:10 f+0x1/0x2' "$good" > "$tmp/allowed.console"
	bash "$TOP/qemu/check-log.sh" -k -c boot -W 'at drivers/base/sysdev\.c:' "$tmp/allowed.console" ||
		fail "an expected WARN (-W) was rejected"
	rm -rf "$tmp"
}

# passed_before (ci/tests/lib.sh): the key changes with a file the test
# names, with the test, with an untracked file of the workbench; a failed
# test is run again, a passed one is not.
test_verdict_cache() {
	local d=$TLOG/verdict k1 k2 k3 k4 k5 f=$TOP/qemu/checks/zz-verdict-selftest.sh
	rm -rf "$d" && mkdir -p "$d"
	echo a > "$d/img"; k1=$(verdict_key t "$d/img")
	echo b > "$d/img"; k2=$(verdict_key t "$d/img")
	echo a > "$d/img"; k3=$(verdict_key t "$d/img")
	k4=$(verdict_key u "$d/img")
	echo "# nothing" > "$f"; k5=$(verdict_key t "$d/img"); rm -f "$f"
	echo "keys: $k1 $k2 $k3 $k4 $k5"
	[ "$k1" = "$k3" ] || { fail "the same inputs give two keys"; return 1; }
	[ "$k1" != "$k2" ] || { fail "a changed image does not change the key"; return 1; }
	[ "$k1" != "$k4" ] || { fail "another test has the same key"; return 1; }
	[ "$k1" != "$k5" ] || { fail "an untracked guest check does not change the key"; return 1; }
	(
		TLOG=$d VERDICTS=$d/verdicts TEST_PLAN=() PASSED=0 FAILED=0
		test_zz_fail() { passed_before "$d/img" && return 0; echo ran >> "$d/fail.ran"; false; }
		test_zz_pass() { passed_before "$d/img" && return 0; echo ran >> "$d/pass.ran"; }
		run_test zz_fail; run_test zz_fail
		run_test zz_pass; run_test zz_pass
		echo b > "$d/img"; run_test zz_pass
		echo "$PASSED passed, $FAILED failed"
	) > "$d/out" 2>&1 || true
	cat "$d/out"
	[ "$(wc -l < "$d/fail.ran")" -eq 2 ] || { fail "a failed test was not run again"; return 1; }
	[ "$(wc -l < "$d/pass.ran")" -eq 2 ] || { fail "a passed test ran again with the same inputs, or not with new ones"; return 1; }
	grep -q "^ok .*zz_pass .*(passed before)" "$d/out" || { fail "the kept verdict is not said"; return 1; }
	grep -qx "3 passed, 2 failed" "$d/out" || { fail "wrong counts"; return 1; }
}

# Every reference of the unpatched tree (ci/references/, ci/tests/lib.sh)
# is of the installed base package and tools, or `make references` is due.
# Shown failing first on copies: one whose package version is not the
# installed one, one whose last input is not this machine's, one without
# its key, one without its content.
ALL_TESTS+=(references_current)
test_references_current() {
	local d=$TLOG/references r bad=()
	rm -rf "$d" && mkdir -p "$d"
	[ ${#ALL_REFERENCES[@]} -gt 0 ] || { fail "no reference is registered"; return 1; }
	bash "$TOP/scripts/prepare-tree.sh"
	for r in "${ALL_REFERENCES[@]}"; do
		ref_pkgs "$r"
		ref_inputs "$r" > "$d/$r.key"
		cp "$REFS/$r" "$d/" 2>/dev/null || echo x > "$d/$r"
		REFS=$d ref_current "$r" || { fail "$r: this machine's own key was not taken"; return 1; }
		sed -i '1s/.*/linux-source-0 0-bogus/' "$d/$r.key"
		! REFS=$d ref_current "$r" || { fail "$r: a key of another package was taken"; return 1; }
		ref_inputs "$r" > "$d/$r.key"
		sed -i '$s/$/ (another)/' "$d/$r.key"
		! REFS=$d ref_current "$r" || { fail "$r: a key with another last input was taken"; return 1; }
		rm -f "$d/$r.key"
		! REFS=$d ref_current "$r" || { fail "$r: a reference without its key was taken"; return 1; }
		ref_inputs "$r" > "$d/$r.key"
		rm -f "$d/$r"
		! REFS=$d ref_current "$r" || { fail "$r: a key without its reference was taken"; return 1; }
	done
	for r in "${ALL_REFERENCES[@]}"; do
		if ref_current "$r"; then
			echo "ci/references/$r: of $(head -n 1 "$REFS/$r.key")"
		else
			echo "ci/references/$r: not of this base and these tools (< kept, > here):"
			diff <(cat "$REFS/$r.key" 2>/dev/null) <(ref_inputs "$r") || true
			bad+=("$r")
		fi
	done
	[ ${#bad[@]} -eq 0 ] || { fail "references not of the installed package and tools: ${bad[*]}: run make references"; return 1; }
}
