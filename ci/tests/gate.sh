# The per-patch gate over the series, and the gate's own tests (it must fail
# for the right reason).  Sourced by ci/run-tests.sh.

ALL_TESTS+=(gate gate_catches_checkpatch_error gate_catches_kerneldoc
	gate_catches_cocci gate_catches_rst gate_catches_i386_break gate_catches_new_warnings
	gate_catches_boot_break gate_catches_cross_break maintainers_notes)

# Every cell of the gate's table counts as one test of the suite.
# This test itself passes when the gate ran to its end (its report and its
# closing count exist); the verdicts are the cells.
test_gate() {
	local out
	bash "$TOP/scripts/apply-series.sh"
	rm -f "$LOG_ROOT/gate/results.tsv" "$TLOG/gate.results.tsv"
	out=$(bash "$TOP/ci/gate.sh" 2>&1) || true
	echo "$out"
	[ -s "$LOG_ROOT/gate/results.tsv" ] || { fail "the gate wrote no results"; return 1; }
	tail -n1 <<<"$out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$' || { fail "the gate did not finish"; return 1; }
	cp "$LOG_ROOT/gate/results.tsv" "$TLOG/gate.results.tsv"
}

# selftest_series NAME FILE SUBJECT PYTHON-EDIT: outgoing/ plus one bad
# patch on top of the series head, in $TLOG/NAME.outgoing, on branch
# gate-selftest-NAME.  The commit is made without touching any work tree.
selftest_series() {
	local name=$1 file=$2 subject=$3 edit=$4 branch=gate-selftest-$1
	local idx blob tree commit out=$TLOG/$1.outgoing
	bash "$TOP/scripts/apply-series.sh"
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx kgit read-tree "$WORK_BRANCH"
	blob=$(kgit show "$WORK_BRANCH:$file" | python3 -c "$edit" | kgit hash-object -w --stdin)
	GIT_INDEX_FILE=$idx kgit update-index --cacheinfo "100644,$blob,$file"
	tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
	rm -f "$idx"
	commit=$(GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		pgit -c user.name="$SERIES_NAME" -c user.email="$SERIES_EMAIL" commit-tree "$tree" -p "$WORK_BRANCH" \
		-m "$subject" -m "A deliberately bad patch: the gate must reject it." \
		-m "Signed-off-by: $SERIES_NAME <$SERIES_EMAIL>")
	kgit branch -f "$branch" "$commit"
	rm -rf "$out"; mkdir -p "$out"
	WORK_BRANCH=$branch OUTGOING=$out bash "$TOP/scripts/regen-series.sh"
	SELFTEST_N=$(( $(kgit rev-list --count "$BASE_TAG..$WORK_BRANCH") + 1 ))
	SELFTEST_PATCH=$(basename "$(ls "$out"/*.patch | tail -n1)")
}

# run_selftest NAME GATE-ARGS...: the gate on the bad patch only; it must
# fail naming the patch and the check.
run_selftest() {
	local name=$1 check=$2
	shift 2
	expect_fail gate "FAILED $SELFTEST_PATCH $check" env WORK_BRANCH="gate-selftest-$name" \
		OUTGOING="$TLOG/$name.outgoing" GATE_LOGS="$TLOG/$name.gate" \
		bash "$TOP/ci/gate.sh" --no-cache --only "$SELFTEST_N" "$@" || return 1
	kgit branch -D -q "gate-selftest-$name"
}

# A style error, and a typo that only --codespell finds.
test_gate_catches_checkpatch_error() {
	selftest_series checkpatch drivers/base/syscore.c "driver core: add a badly formatted line" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s.replace("#include <linux/module.h>\n", "#include <linux/module.h>\n/* We recieve nothing here. */\nstatic int selftest_unused ;  \n", 1))'
	run_selftest checkpatch "checkpatch: .*(ERROR|WARNING)" --checks checkpatch
	grep -q "ERROR: trailing whitespace" "$TLOG/checkpatch.gate/0"*.checkpatch.log ||
		{ fail "checkpatch did not report the style error"; return 1; }
	grep -q "'recieve' may be misspelled" "$TLOG/checkpatch.gate/0"*.checkpatch.log ||
		{ fail "checkpatch --codespell did not report the typo"; return 1; }
}

# A function whose kernel-doc misses a parameter and its return value.
test_gate_catches_kerneldoc() {
	selftest_series kerneldoc drivers/base/syscore.c "driver core: add a badly documented function" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n/**\n * gate_selftest_doc - nothing\n */\nint gate_selftest_doc(int a);\nint gate_selftest_doc(int a)\n{\n\treturn a;\n}\n")'
	run_selftest kerneldoc "kerneldoc: kernel-doc warnings [0-9]+ -> [0-9]+" --checks kerneldoc
}

# A section title whose underline is too short.
test_gate_catches_rst() {
	selftest_series rst Documentation/driver-api/index.rst "docs: break a title" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nA new section title\n=====\n\nText.\n")'
	run_selftest rst "rst: .*Title underline too short" --checks rst
}

# A sizeof division that scripts/coccinelle/misc/array_size.cocci reports.
test_gate_catches_cocci() {
	selftest_series cocci drivers/base/syscore.c "driver core: count an array by hand" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nstatic int gate_selftest_arr[4];\nint gate_selftest_count(void);\nint gate_selftest_count(void)\n{\n\treturn sizeof(gate_selftest_arr) / sizeof(gate_selftest_arr[0]);\n}\n")'
	run_selftest cocci "cocci: coccinelle reports [0-9]+ -> [0-9]+: .*array_size" --checks cocci
}

test_gate_catches_i386_break() {
	selftest_series i386 arch/x86/kernel/i8259.c "x86/i8259: break the 32-bit build" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#ifdef CONFIG_X86_32\n#error \"gate selftest: i386 is broken\"\n#endif\n")'
	run_selftest i386 "build:i386: build failed: .*gate selftest: i386 is broken" --checks build --configs i386
}

# A compiler warning (unused variable) and a sparse warning (a global that
# should be static) in a touched file.
test_gate_catches_new_warnings() {
	selftest_series warnings drivers/base/syscore.c "driver core: add warnings" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nint gate_selftest_global;\n\nvoid gate_selftest(void);\nvoid gate_selftest(void)\n{\n\tint unused;\n}\n")'
	run_selftest warnings "build:x86_64: warnings 0 -> 2" --checks build --configs x86_64
}

test_gate_catches_boot_break() {
	selftest_series boot drivers/base/syscore.c "driver core: panic at boot" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nstatic int __init gate_selftest_panic(void)\n{\n\tpanic(\"gate selftest: boot is broken\");\n}\nlate_initcall(gate_selftest_panic);\n")'
	run_selftest boot "boot: panic: .*gate selftest: boot is broken" --checks boot
}

# A file of another architecture that no longer compiles: only the
# cross-compile check sees it.
test_gate_catches_cross_break() {
	selftest_series cross arch/powerpc/kernel/sysfs.c "powerpc: break the build" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#error \"gate selftest: powerpc is broken\"\n")'
	run_selftest cross "cross: FAILED powerpc .*arch/powerpc/kernel/sysfs.o" --checks cross
}

test_maintainers_notes() {
	bash "$TOP/scripts/apply-series.sh"
	bash "$TOP/scripts/maintainers-notes.sh" --check
}
