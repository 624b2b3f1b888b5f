# The per-patch gate over the series, and the gate's own tests (it must fail
# for the right reason).  Sourced by ci/run-tests.sh.

ALL_TESTS+=(gate gate_catches_checkpatch_error gate_catches_kerneldoc
	gate_catches_cocci gate_catches_rst gate_catches_i386_break gate_catches_new_warnings
	gate_catches_boot_break gate_catches_cross_break maintainers_notes
	gate_catches_tools_not_running gate_catches_swapped_warning gate_key_covers_untracked
	gate_cells_merge documented_commands gate_cocci_moved_report)

# Every cell of the gate's table counts as one test of the suite.
# This test itself passes when the gate ran to its end (its report and its
# closing count exist); the verdicts are the cells.
test_gate() {
	local out
	bash "$TOP/scripts/apply-series.sh"
	rm -f "$LOG_ROOT/gate/results.tsv" "$TLOG/gate.results.tsv"
	# the gate's progress lines ("gate: [elapsed, ...] patch 0005 (5 of
	# 8) ...") also go to the terminal
	out=$(bash "$TOP/ci/gate.sh" 2> >(tee "$TLOG/gate.stderr" |
		grep --line-buffered '^gate: \[' | sed -u 's/^/      /' >&3)) || true
	sleep 1	# the tee of the process substitution
	cat "$TLOG/gate.stderr"
	echo "$out"
	[ -s "$LOG_ROOT/gate/results.tsv" ] || { fail "the gate wrote no results"; return 1; }
	tail -n1 <<<"$out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$' || { fail "the gate did not finish"; return 1; }
	cp "$LOG_ROOT/gate/results.tsv" "$TLOG/gate.results.tsv"
}

# The self-tests' verdicts depend on the gate, the series and the tools,
# all in passed_before's key once the series head is checked out.
selftest_passed_before() {
	bash "$TOP/scripts/apply-series.sh" >/dev/null
	passed_before
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
	selftest_passed_before && return 0
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
	selftest_passed_before && return 0
	selftest_series kerneldoc drivers/base/syscore.c "driver core: add a badly documented function" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n/**\n * gate_selftest_doc - nothing\n */\nint gate_selftest_doc(int a);\nint gate_selftest_doc(int a)\n{\n\treturn a;\n}\n")'
	run_selftest kerneldoc "kerneldoc: kernel-doc warnings [0-9]+ -> [0-9]+" --checks kerneldoc
}

# A section title whose underline is too short.
test_gate_catches_rst() {
	selftest_passed_before && return 0
	selftest_series rst Documentation/driver-api/index.rst "docs: break a title" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nA new section title\n=====\n\nText.\n")'
	run_selftest rst "rst: .*Title underline too short" --checks rst
}

# A sizeof division that scripts/coccinelle/misc/array_size.cocci reports.
test_gate_catches_cocci() {
	selftest_passed_before && return 0
	selftest_series cocci drivers/base/syscore.c "driver core: count an array by hand" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nstatic int gate_selftest_arr[4];\nint gate_selftest_count(void);\nint gate_selftest_count(void)\n{\n\treturn sizeof(gate_selftest_arr) / sizeof(gate_selftest_arr[0]);\n}\n")'
	run_selftest cocci "cocci: coccinelle reports [0-9]+ -> [0-9]+: .*array_size" --checks cocci
}

test_gate_catches_i386_break() {
	selftest_passed_before && return 0
	selftest_series i386 arch/x86/kernel/i8259.c "x86/i8259: break the 32-bit build" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#ifdef CONFIG_X86_32\n#error \"gate selftest: i386 is broken\"\n#endif\n")'
	run_selftest i386 "build:i386: build failed: .*gate selftest: i386 is broken" --checks build --configs i386
}

# A compiler warning (unused variable) and a sparse warning (a global that
# should be static) in a touched file.
test_gate_catches_new_warnings() {
	selftest_passed_before && return 0
	selftest_series warnings drivers/base/syscore.c "driver core: add warnings" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nint gate_selftest_global;\n\nvoid gate_selftest(void);\nvoid gate_selftest(void)\n{\n\tint unused;\n}\n")'
	run_selftest warnings "build:x86_64: 2 new warnings: drivers/base/syscore.c: warning: (unused variable|no previous declaration|symbol 'gate_selftest_global')" --checks build --configs x86_64
}

test_gate_catches_boot_break() {
	selftest_passed_before && return 0
	selftest_series boot drivers/base/syscore.c "driver core: panic at boot" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nstatic int __init gate_selftest_panic(void)\n{\n\tpanic(\"gate selftest: boot is broken\");\n}\nlate_initcall(gate_selftest_panic);\n")'
	run_selftest boot "boot: panic: .*gate selftest: boot is broken" --checks boot
}

# A file of another architecture that no longer compiles: only the
# cross-compile check sees it.
test_gate_catches_cross_break() {
	selftest_passed_before && return 0
	selftest_series cross arch/powerpc/kernel/sysfs.c "powerpc: break the build" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#error \"gate selftest: powerpc is broken\"\n")'
	run_selftest cross "cross: FAILED powerpc .*arch/powerpc/kernel/sysfs.o" --checks cross
}

# Tools that cannot run must fail their column, never pass it empty: a
# base tree whose checkpatch exits 1 without a finding, whose kernel-doc
# dies and which has no coccinelle script.
test_gate_catches_tools_not_running() {
	selftest_passed_before && return 0
	local fake=$TLOG/fake-base out
	rm -rf "$fake"; mkdir -p "$fake/scripts/coccinelle"
	printf 'exit 1;\n' > "$fake/scripts/checkpatch.pl"
	printf 'die "cannot run\\n";\n' > "$fake/scripts/kernel-doc"
	selftest_series tools drivers/base/syscore.c "driver core: add a comment" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n/* nothing */\n")'
	out=$(BASE_KSRC=$fake WORK_BRANCH=gate-selftest-tools OUTGOING="$TLOG/tools.outgoing" \
		GATE_LOGS="$TLOG/tools.gate" bash "$TOP/ci/gate.sh" --no-cache --only "$SELFTEST_N" \
		--checks checkpatch,kerneldoc,cocci 2>&1) && { echo "$out"; fail "the gate passed"; return 1; }
	echo "$out"
	kgit branch -D -q gate-selftest-tools
	grep -q "FAILED $SELFTEST_PATCH checkpatch: checkpatch exited 1 with 0 findings" <<<"$out" ||
		{ fail "checkpatch's silent exit 1 was not a failure"; return 1; }
	grep -q "FAILED $SELFTEST_PATCH kerneldoc: kernel-doc did not run" <<<"$out" ||
		{ fail "a kernel-doc that cannot run was not a failure"; return 1; }
	grep -q "FAILED $SELFTEST_PATCH cocci: no coccinelle script" <<<"$out" ||
		{ fail "no coccinelle script was not a failure"; return 1; }
}

# One warning fixed and another added in the same file is a new warning:
# the warnings are compared, not counted.  Two commits on the head: the
# first adds an unused variable, the second renames it (the gate judges
# the second only).
test_gate_catches_swapped_warning() {
	selftest_passed_before && return 0
	local branch=gate-selftest-swap out=$TLOG/swap.outgoing tip blob f=drivers/base/syscore.c
	bash "$TOP/scripts/apply-series.sh"
	tip=$(kgit rev-parse "$WORK_BRANCH")
	for v in a b; do
		local idx tree
		idx=$(mktemp)
		GIT_INDEX_FILE=$idx kgit read-tree "$tip"
		blob=$(kgit show "$WORK_BRANCH:$f" | python3 -c "import sys; s = sys.stdin.read(); sys.stdout.write(s + '\nvoid gate_selftest(void);\nvoid gate_selftest(void)\n{\n\tint unused_$v;\n}\n')" |
			kgit hash-object -w --stdin)
		GIT_INDEX_FILE=$idx kgit update-index --cacheinfo "100644,$blob,$f"
		tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
		rm -f "$idx"
		tip=$(GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
			pgit -c user.name="$SERIES_NAME" -c user.email="$SERIES_EMAIL" commit-tree "$tree" -p "$tip" \
			-m "driver core: selftest variable $v" -m "A deliberately bad patch: the gate must reject it." \
			-m "Signed-off-by: $SERIES_NAME <$SERIES_EMAIL>")
	done
	kgit branch -f "$branch" "$tip"
	rm -rf "$out"; mkdir -p "$out"
	WORK_BRANCH=$branch OUTGOING=$out bash "$TOP/scripts/regen-series.sh"
	SELFTEST_N=$(kgit rev-list --count "$BASE_TAG..$branch")
	SELFTEST_PATCH=$(basename "$(ls "$out"/*.patch | tail -n1)")
	expect_fail gate "FAILED $SELFTEST_PATCH build:x86_64: 1 new warning: $f: warning: unused variable .unused_b." \
		env WORK_BRANCH=$branch OUTGOING="$out" GATE_LOGS="$TLOG/swap.gate" \
		bash "$TOP/ci/gate.sh" --no-cache --only "$SELFTEST_N" --checks build --configs x86_64 || return 1
	kgit branch -D -q "$branch"
}

# gate_py EXPR: print a Python expression over the gate's modules
# (ci/gatelib: cache, findings, plan, report).
gate_py() {
	env TOP="$TOP" KSRC="$KSRC" BASE_KSRC="$BASE_KSRC" BUILD_ROOT="$BUILD_ROOT" \
		OUTGOING="$OUTGOING" BASE_TAG="$BASE_TAG" WORK_BRANCH="$WORK_BRANCH" \
		SYSDEV_CACHE="$SYSDEV_CACHE" LOG_ROOT="$LOG_ROOT" \
		python3 -c "import sys; sys.path.insert(0, '$TOP/ci'); from gatelib import cache, findings, plan, report; print($1)"
}

# A coccinelle report that only moved (its position and the line its
# message names both shift, as itnull.cocci's "bound on line N" does when a
# patch adds lines above it) is not new; a report with another message is.
test_gate_cocci_moved_report() {
	local a='drivers/base/node.c:563:9-10: ERROR: iterator variable bound on line 561 cannot be NULL  [itnull.cocci]'
	local b='drivers/base/node.c:540:9-10: ERROR: iterator variable bound on line 538 cannot be NULL  [itnull.cocci]'
	local c='drivers/base/node.c:540:9-10: ERROR: iterator variable bound on line 538 cannot be zero  [itnull.cocci]'
	local r
	r=$(gate_py "findings.cocci_key('$a') == findings.cocci_key('$b'), findings.cocci_key('$b') == findings.cocci_key('$c')")
	echo "moved report matches, other message matches: $r"
	[ "$r" = "True False" ] || { fail "moved: $r, expected True False"; return 1; }
	# Findings count as multisets: a second report equal to one the
	# parent has (after a moved one) is new, a moved one alone is not.
	r=$(gate_py "len(findings.new_findings(['$a'], ['$b', '$b'], findings.cocci_key)), len(findings.new_findings(['$a'], ['$b'], findings.cocci_key)), findings.new_findings(['w', 'w'], ['w', 'x', 'w', 'w'])")
	echo "a report twice where the parent had it once, once, warnings: $r"
	[ "$r" = "1 0 ['x', 'w']" ] || { fail "multiset: $r, expected 1 0 ['x', 'w']"; return 1; }
	# A compiler warning at two lines of a file is two; a header's at one
	# line, printed once per object that includes it, is one.
	r=$(gate_py "len(findings.compiler_warnings('$KSRC/a.c:3:1: warning: unused x\n$KSRC/a.c:9:1: warning: unused x\n$KSRC/a.h:2:5: warning: y\n$KSRC/a.h:2:5: warning: y', '$KSRC', ['a.c', 'a.h']))")
	echo "warnings of a.c twice at two lines and a.h twice at one: $r"
	[ "$r" = 3 ] || { fail "compiler_warnings: $r, expected 3"; return 1; }
}

# The cache key covers a file the gate uses that git does not track yet,
# and the host tools' versions.
test_gate_key_covers_untracked() {
	local f=$TOP/qemu/checks/zz-untracked-selftest.sh h0 h1 v
	h0=$(gate_py "cache.tooling_hash()")
	printf '# gate:\n. /checks/lib.sh\npass selftest\n' > "$f"
	h1=$(gate_py "cache.tooling_hash()") || true
	rm -f "$f"
	echo "key: $h0 (clean), $h1 (with an untracked check)"
	[ -n "$h0" ] && [ "$h0" != "$h1" ] || { fail "an untracked guest check does not change the key"; return 1; }
	v=$(gate_py "cache.tool_versions()")
	echo "$v"
	for p in gcc-12 sparse coccinelle qemu-system-x86 seabios busybox-static python3-docutils codespell; do
		grep -q "^$p " <<<"$v" || { fail "the key lacks the version of $p"; return 1; }
	done
}

# The CI fan-out (ci/gitlab-ci.yml): the cells of --list-cells run one by
# one, each in its own log directory, then --merge, give the results of a
# serial run, cell for cell (status and detail); on the cheap cells of
# patches 1 and 2 and the series checks.  The generated GitLab pipeline
# has a job per cell and the merge job.
test_gate_cells_merge() {
	selftest_passed_before && return 0
	local d=$TLOG/cells cells c
	bash "$TOP/scripts/apply-series.sh"
	rm -rf "$d"; mkdir -p "$d/cell"
	cells=$(bash "$TOP/ci/gate.sh" --list-cells --checks message,checkpatch,inline,rst,series |
		python3 -c 'import json, sys; print(" ".join(c for c in json.load(sys.stdin) if c[:5] in ("0001:", "0002:") or c == "series"))')
	echo "cells: $cells"
	[ "$(wc -w <<<"$cells")" -eq 9 ] || { fail "expected 9 cells, got: $cells"; return 1; }
	GATE_LOGS=$d/serial bash "$TOP/ci/gate.sh" --no-cache --only 1,2 \
		--checks message,checkpatch,inline,rst,series > "$d/serial.out" 2>&1 || { cat "$d/serial.out"; fail "the serial run failed"; return 1; }
	for c in $cells; do
		GATE_LOGS=$d/cell/${c//:/_} bash "$TOP/ci/gate.sh" --no-cache --cell "$c" > "$d/cell-${c//:/_}.out" 2>&1 ||
			{ cat "$d/cell-${c//:/_}.out"; fail "cell $c failed"; return 1; }
	done
	bash "$TOP/ci/gate.sh" --merge "$d/merged" "$d"/cell/* | tee "$d/merge.out"
	[ "$(tail -n 1 "$d/merge.out")" = "$(tail -n 1 "$d/serial.out")" ] ||
		{ fail "merge counted '$(tail -n 1 "$d/merge.out")', the serial run '$(tail -n 1 "$d/serial.out")'"; return 1; }
	grep -qx "14 passed, 0 failed" "$d/merge.out" || { fail "expected 14 passing results (8 cells, 6 series checks)"; return 1; }
	diff <(cut -f1-4 "$d/serial/results.tsv" | sort) <(cut -f1-4 "$d/merged/results.tsv" | sort) ||
		{ fail "the merged results differ from the serial run's"; return 1; }
	# a cell missing from the merge is named, not silently dropped
	expect_fail merge "has no results.tsv" bash "$TOP/ci/gate.sh" --merge "$d/merged2" "$d"/cell/* "$d/nonexistent" || return 1
	bash "$TOP/ci/gate.sh" --list-cells --format gitlab > "$d/pipeline.json"
	python3 - "$d/pipeline.json" "$(bash "$TOP/ci/gate.sh" --list-cells | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" <<'PY' || { fail "the GitLab pipeline is not one job per cell plus merge"; return 1; }
import json, sys
p = json.load(open(sys.argv[1]))
cells = [k for k in p if k.startswith("cell ")]
assert len(cells) == int(sys.argv[2]), (len(cells), sys.argv[2])
assert p["merge"]["stage"] == "merge" and "--merge" in p["merge"]["script"][0]
assert all("--cell " + k[5:] in p[k]["script"][-1] for k in cells)
print("pipeline: %d cell jobs and a merge job" % len(cells))
PY
}

test_maintainers_notes() {
	bash "$TOP/scripts/apply-series.sh"
	bash "$TOP/scripts/maintainers-notes.sh" --check
}
