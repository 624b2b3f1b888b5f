# The user-ABI check (qemu/checks/abi.sh, qemu/abi-snapshot.py,
# qemu/abi-allowed.txt) and the CPU hotplug check (qemu/checks/
# cpu-hotplug.sh).  Sourced by ci/run-tests.sh.
#
#   abi_selftest  compare and extract on fabricated snapshots and console
#                 logs: each kind of difference fails and names the path; a
#                 kernel message inside a line is repaired; a corrupted
#                 line is refused (no boot)
#   abi_base      the unpatched kernel's snapshot is the same in two boots;
#                 the first boot also runs cpu-hotplug with its faults
#                 injected, which must fail naming the missing link/uevent
#   abi_head      the patched kernel against the unpatched one passes with
#                 the allow-list, and cpu-hotplug passes
#
# Boots are reused where they exist: a console log of boot_base or
# boot_head newer than the image and holding a snapshot (when those tests
# run the check abi), and the gate's cached base snapshot.  ABI_HEAD_IMAGE
# (an image to boot as is, without applying and building the series) is
# for trying the tests out without touching the tree.

ALL_TESTS+=(abi_selftest abi_base abi_head)

ABI_TOOL=$TOP/qemu/abi-snapshot.py
ABI_ALLOW=$TOP/qemu/abi-allowed.txt

# abi_snap_from LOG IMAGE OUT: extract LOG's snapshot into OUT if LOG is a
# boot of IMAGE (newer than it) that ran the check abi.
abi_snap_from() {
	[ -f "$1" ] && [ "$1" -nt "$2" ] && grep -aq '^SYSDEV-ABI-END' "$1" || return 1
	python3 "$ABI_TOOL" extract "$1" > "$3" && echo "reused the snapshot of $1"
}

# abi_expect_diff NAME REGEX BASE HEAD: compare must fail and print REGEX.
abi_expect_diff() {
	expect_fail "$1" "$2" python3 "$ABI_TOOL" compare "$3" "$4" --allow "$ABI_ALLOW"
}

test_abi_selftest() {
	local d=$TLOG/abi_selftest.d
	rm -rf "$d"; mkdir -p "$d"
	cat > "$d/base" <<'EOF'
# fabricated
/sys/bus/cpu d 755 - -
/sys/bus/cpu/devices/cpu1 l 777 ../../../devices/system/cpu/cpu1 -
/sys/bus/cpu/uevent f 200 - !r
/sys/devices/system/cpu/cpu1/online f 644 - =1
/sys/devices/system/cpu/cpu1/node1 l 777 ../../node/node1 -
/sys/devices/system/node/node1/distance f 444 - =20 10
/sys/devices/system/node/node1/meminfo f 444 - !v
/sys/devices/system/cpu/hotplug/states f 444 - =  0: offline\n236: online
EOF
	python3 "$ABI_TOOL" compare "$d/base" "$d/base" --allow "$ABI_ALLOW"
	# Allowed additions (the series' two classes) and a volatile file's
	# content pass.
	{ cat "$d/base"; echo "/sys/devices/system/lapic/lapic0/uevent f 644 - ="
	  echo "/sys/bus/i8259 d 755 - -"; } |
		sed 's#meminfo f 444 - !v#meminfo f 444 - =Node 1 MemFree: 5 kB#' > "$d/ok"
	python3 "$ABI_TOOL" compare "$d/base" "$d/ok" --allow "$ABI_ALLOW" | tee "$d/ok.out"
	grep -q "2 additions allowed; no difference" "$d/ok.out" || { fail "allowed additions not counted"; return 1; }

	grep -v '/online ' "$d/base" > "$d/removed"
	abi_expect_diff removed "^removed: /sys/devices/system/cpu/cpu1/online \(f\)" "$d/base" "$d/removed"
	sed 's#online f 644#online f 444#' "$d/base" > "$d/mode"
	abi_expect_diff mode "changed: /sys/devices/system/cpu/cpu1/online: mode 644 -> 444" "$d/base" "$d/mode"
	sed 's#distance f 444 - =20 10#distance f 444 - =20 20#' "$d/base" > "$d/content"
	abi_expect_diff content "changed: /sys/devices/system/node/node1/distance: content '20 10' -> '20 20'" "$d/base" "$d/content"
	sed 's#236: online#237: online#' "$d/base" > "$d/lines"
	abi_expect_diff lines "states: content line 2: '236: online' -> '237: online'" "$d/base" "$d/lines"
	sed 's#../../node/node1 -#../../node/node0 -#' "$d/base" > "$d/target"
	abi_expect_diff target "cpu1/node1: link target /sys/devices/system/node/node1 -> /sys/devices/system/node/node0" "$d/base" "$d/target"
	sed 's#cpu1/online f 644 - =1#cpu1/online d 755 - -#' "$d/base" > "$d/type"
	abi_expect_diff type "cpu1/online: type f -> d" "$d/base" "$d/type"
	{ cat "$d/base"; echo "/sys/devices/system/cpu/cpu1/sysdev f 444 - =1"; } > "$d/added"
	abi_expect_diff added "added: /sys/devices/system/cpu/cpu1/sysdev \(f\), not in the allow-list" "$d/base" "$d/added"
	{ cat "$d/base"; echo "/sys/bus/lapicx d 755 - -"; } > "$d/added2"
	abi_expect_diff added-near-allowed "added: /sys/bus/lapicx " "$d/base" "$d/added2"
	# A class of an earlier version of the series (v8's timer) is no
	# longer allowed.
	{ cat "$d/base"; echo "/sys/devices/system/timer/timer0 d 755 - -"; } > "$d/added3"
	abi_expect_diff added-old-class "added: /sys/devices/system/timer/timer0 \\(d\\), not in the allow-list" "$d/base" "$d/added3"
	# The summary (the gate's detail) names the first difference.
	abi_expect_diff summary "differences, first: removed: /sys/devices/system/cpu/cpu1/online" "$d/base" "$d/removed"
	# The allow-list may never cover the cpu or node subsystems.
	{ cat "$ABI_ALLOW"; echo "/sys/devices/system/* | too broad"; } > "$d/allow-broad"
	expect_fail allow-broad "may match under /sys/devices/system/cpu" \
		python3 "$ABI_TOOL" compare "$d/base" "$d/base" --allow "$d/allow-broad"
	{ cat "$ABI_ALLOW"; echo "/sys/bus/node/devices/node2 | new node"; } > "$d/allow-node"
	expect_fail allow-node "may match under /sys/bus/node" \
		python3 "$ABI_TOOL" compare "$d/base" "$d/base" --allow "$d/allow-node"

	# extract: a console log as the guest prints it, with kernel messages
	# between the lines and one inside a line.
	local recs n sum
	recs=$(grep -v '^#' "$d/base")
	n=$(wc -l <<<"$recs"); sum=$(printf '%s\n' "$recs" | sha256sum | cut -d' ' -f1)
	{
		printf '[    1.000000] booting\r\nSYSDEV-ABI-BEGIN\r\n'
		printf '%s\n' "$recs" | sed 's/^/SYSDEV-ABI /; s/$/\r/' |
			sed '3s#^\(SYSDEV-ABI /sys/bus/cpu/ue\)#\1[    2.345678] random: crng init done\r\n[    2.400000] second message\r\n#'
		printf '[    3.000000] between lines\r\nSYSDEV-ABI-END %s %s\r\n' "$n" "$sum"
	} > "$d/console"
	grep -q 'SYSDEV-ABI /sys/bus/cpu/ue\[' "$d/console" || { fail "fixture: no split line"; return 1; }
	python3 "$ABI_TOOL" extract "$d/console" > "$d/extracted"
	diff <(grep -v '^#' "$d/extracted") <(printf '%s\n' "$recs") || { fail "extract did not repair the split line"; return 1; }
	sed 's#=20 10#=20 1O#' "$d/console" > "$d/console-bad"
	expect_fail corrupted "does not verify" python3 "$ABI_TOOL" extract "$d/console-bad"
	grep -v 'SYSDEV-ABI-END' "$d/console" > "$d/console-cut"
	expect_fail truncated "no SYSDEV-ABI-END line" python3 "$ABI_TOOL" extract "$d/console-cut"
	expect_fail missing "no SYSDEV-ABI-BEGIN line" python3 "$ABI_TOOL" extract "$TOP/ci/tests/lib.sh"
}

test_abi_base() {
	local img=$BASE_IMAGE snap=$TLOG/abi_base.snap second=$TLOG/abi_base.2.snap out rc=0 key cached
	[ -f "$img" ] || { fail "no base image $img (run test boot_base)"; return 1; }
	# First boot: the snapshot, and cpu-hotplug with its faults injected.
	out=$(bash "$TOP/qemu/boot.sh" -t 400 -c abi,cpu-hotplug -o "$TLOG/abi_base.console" \
		-a "pm_debug_messages initcall_debug sysdev_hotplug_fault=node,uevent" "$img" 2>&1) || rc=$?
	echo "$out"
	[ $rc -ne 0 ] || { fail "cpu-hotplug passed with its faults injected"; return 1; }
	grep -q "check cpu-hotplug: before: no link /sys/devices/system/node/node0/cpu1" <<<"$out" ||
		{ fail "cpu-hotplug did not name the missing node link"; return 1; }
	if grep -q "uevents not checked" "$TLOG/abi_base.console"; then
		echo "this kernel has no CONFIG_UEVENT_HELPER: the uevent fault is not tested"
	else
		grep -aq "SYSDEV-CHECK cpu-hotplug FAIL no uevent ACTION=offline DEVPATH=/devices/system/cpu/cpu1" \
			"$TLOG/abi_base.console" || { fail "cpu-hotplug did not notice the missing uevent"; return 1; }
	fi
	grep -aq "SYSDEV-CHECK abi PASS" "$TLOG/abi_base.console" || { fail "check abi did not pass"; return 1; }
	python3 "$ABI_TOOL" extract "$TLOG/abi_base.console" > "$snap"
	# Second snapshot: boot_base's, or a boot.
	if abi_snap_from "$TLOG/boot_base.console" "$img" "$second"; then :
	else
		bash "$TOP/qemu/boot.sh" -t 400 -c abi -a "pm_debug_messages initcall_debug" \
			-o "$TLOG/abi_base.2.console" "$img"
		python3 "$ABI_TOOL" extract "$TLOG/abi_base.2.console" > "$second"
	fi
	python3 "$ABI_TOOL" compare "$second" "$snap"
}

test_abi_head() {
	local img=${ABI_HEAD_IMAGE:-$HEAD_IMAGE} base=$TLOG/abi_base.snap snap=$TLOG/abi_head.snap out
	# boot_head booted this image with the checks abi and cpu-hotplug: its
	# snapshot (a log newer than the image, where cpu-hotplug passed) is
	# judged here without a boot of its own.
	if [ -z "${ABI_HEAD_IMAGE:-}" ] && [ -s "$base" ] &&
		grep -aq "^SYSDEV-CHECK cpu-hotplug PASS" "$TLOG/boot_head.console" 2>/dev/null &&
		abi_snap_from "$TLOG/boot_head.console" "$img" "$snap"; then
		:
	else
		if [ -z "${ABI_HEAD_IMAGE:-}" ]; then
			# The gate's self-tests leave a broken kernel in the object
			# directory: build the series' head, as boot_head does.
			bash "$TOP/scripts/apply-series.sh"
			bash "$TOP/scripts/build-kernel.sh" -q x86_64
		fi
		if [ ! -s "$base" ]; then
			bash "$TOP/qemu/boot.sh" -t 400 -c abi -a "pm_debug_messages initcall_debug" \
				-o "$TLOG/abi_head.base.console" "$BASE_IMAGE"
			python3 "$ABI_TOOL" extract "$TLOG/abi_head.base.console" > "$base"
		fi
		bash "$TOP/qemu/boot.sh" -k -K "$(sysdev_kunit_expect)" -t 400 -c abi,cpu-hotplug \
			-a "pm_debug_messages initcall_debug" -o "$TLOG/abi_head.console" "$img"
		python3 "$ABI_TOOL" extract "$TLOG/abi_head.console" > "$snap"
	fi
	out=$(python3 "$ABI_TOOL" compare "$base" "$snap" --allow "$ABI_ALLOW")
	echo "$out"
	# The series' classes are there (else the allow-list is not exercised):
	# the local APIC's and the PIC's, the only ones qemu/abi-allowed.txt
	# lets the series add.
	for c in lapic i8259; do
		grep -q "^/sys/devices/system/$c/${c}0 d " "$snap" || { fail "no /sys/devices/system/$c/${c}0 in the head snapshot"; return 1; }
	done
}
