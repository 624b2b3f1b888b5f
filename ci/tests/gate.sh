# The per-patch gate over the series, and the gate's own tests (it must fail
# for the right reason).  Sourced by ci/run-tests.sh.

ALL_TESTS+=(gate gate_catches_checkpatch_error gate_catches_kerneldoc
	gate_catches_cocci gate_catches_cocci_unparsed gate_catches_rst gate_catches_i386_break gate_catches_clang_break
	gate_catches_new_warnings
	gate_catches_boot_break gate_catches_cross_break maintainers_notes
	gate_catches_tools_not_running gate_catches_swapped_warning gate_key_covers_untracked
	gate_pipeline documented_commands gate_cocci_moved_report gate_catches_inline
	gate_message_non_ascii)

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

# The self-tests' verdicts depend on the gate, the series and the tools:
# each starts with head_passed_before (ci/tests/lib.sh).

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

# A static function in a header fails inline; a static __always_inline
# one beside it is not named.
test_gate_catches_inline() {
	head_passed_before && return 0
	selftest_series inline include/linux/sysdev.h "driver core: sysdev: add static helpers to a header" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s.replace("#endif /* _LINUX_SYSDEV_H */", "static __always_inline int sysdev_selftest_a(void)\n{\n\treturn 0;\n}\n\nstatic int sysdev_selftest_b(void)\n{\n\treturn 1;\n}\n\n#endif /* _LINUX_SYSDEV_H */"))'
	run_selftest inline "inline: .*static non-inline function in a header: static int sysdev_selftest_b" --checks inline
	local log
	log=$(ls "$TLOG/inline.gate/0"*.inline.log) || { fail "no log of the inline cell"; return 1; }
	grep -q "static int sysdev_selftest_b" "$log" || { fail "$log does not name sysdev_selftest_b"; return 1; }
	if grep -q sysdev_selftest_a "$log"; then
		fail "inline named the static __always_inline function"
		return 1
	fi
}

# A sender with a non-ASCII name and a dot in it, as after re-signing
# (README, "Mailing the series"): format-patch writes an RFC 2047 From:,
# and a mail parser quotes a name with a dot, which message must still
# read as the name of the Signed-off-by; a Signed-off-by of another
# spelling must fail.
test_gate_message_non_ascii() {
	local out
	head_passed_before && return 0
	SERIES_NAME="Jöhn Q. Dœ" selftest_series message drivers/base/syscore.c "driver core: syscore: add a comment" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n/* a comment */\n")'
	grep -q '^From: =?UTF-8?' "$TLOG/message.outgoing/$SELFTEST_PATCH" ||
		{ fail "no RFC 2047 From: in $SELFTEST_PATCH"; return 1; }
	out=$(env WORK_BRANCH=gate-selftest-message OUTGOING="$TLOG/message.outgoing" \
		GATE_LOGS="$TLOG/message.gate" SERIES_NAME="Jöhn Q. Dœ" \
		bash "$TOP/ci/gate.sh" --no-cache --only "$SELFTEST_N" --checks message) ||
		{ echo "$out"; fail "message rejected a patch signed by its non-ASCII author"; return 1; }
	echo "$out"
	grep -Eq "^gate: ok +0*$SELFTEST_N +message " <<<"$out" ||
		{ fail "no passing message cell of patch $SELFTEST_N"; return 1; }
	kgit branch -D -q gate-selftest-message
	SERIES_NAME="Jöhn Q. Dœ" selftest_series message drivers/base/syscore.c "driver core: syscore: add a comment" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n/* a comment */\n")'
	kgit branch -f gate-selftest-message "$(kgit log -1 --format=%B gate-selftest-message |
		sed 's/^Signed-off-by: .*/Signed-off-by: John Doe <sysdev@example.org>/' |
		GIT_AUTHOR_NAME="Jöhn Q. Dœ" GIT_AUTHOR_EMAIL="$SERIES_EMAIL" \
		GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		kgit commit-tree "gate-selftest-message^{tree}" -p "gate-selftest-message~1" -F -)"
	SERIES_NAME="Jöhn Q. Dœ" WORK_BRANCH=gate-selftest-message OUTGOING="$TLOG/message.outgoing" \
		bash "$TOP/scripts/regen-series.sh"
	grep -q '^Signed-off-by: John Doe' "$TLOG/message.outgoing/$SELFTEST_PATCH" ||
		{ fail "the rewritten $SELFTEST_PATCH has no other Signed-off-by"; return 1; }
	SERIES_NAME="Jöhn Q. Dœ" run_selftest message "message: no Signed-off-by matches the author 'Jöhn Q. Dœ <sysdev@example.org>'" \
		--checks message
}

# A style error, and a typo that only --codespell finds.
test_gate_catches_checkpatch_error() {
	head_passed_before && return 0
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
	head_passed_before && return 0
	selftest_series kerneldoc drivers/base/syscore.c "driver core: add a badly documented function" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n/**\n * gate_selftest_doc - nothing\n */\nint gate_selftest_doc(int a);\nint gate_selftest_doc(int a)\n{\n\treturn a;\n}\n")'
	run_selftest kerneldoc "kerneldoc: kernel-doc warnings [0-9]+ -> [0-9]+" --checks kerneldoc
}

# A section title whose underline is too short.
test_gate_catches_rst() {
	head_passed_before && return 0
	selftest_series rst Documentation/driver-api/index.rst "docs: break a title" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nA new section title\n=====\n\nText.\n")'
	run_selftest rst "rst: .*Title underline too short" --checks rst
}

# A sizeof division that scripts/coccinelle/misc/array_size.cocci reports.
test_gate_catches_cocci() {
	head_passed_before && return 0
	selftest_series cocci drivers/base/syscore.c "driver core: count an array by hand" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nstatic int gate_selftest_arr[4];\nint gate_selftest_count(void);\nint gate_selftest_count(void)\n{\n\treturn sizeof(gate_selftest_arr) / sizeof(gate_selftest_arr[0]);\n}\n")'
	run_selftest cocci "cocci: coccinelle reports [0-9]+ -> [0-9]+: .*array_size" --checks cocci
}

# A function that spatch cannot parse (its opening brace comes from a
# macro): no semantic patch checks it, so the cocci column must fail it
# rather than pass it unseen.
test_gate_catches_cocci_unparsed() {
	head_passed_before && return 0
	selftest_series cocciparse drivers/base/syscore.c "driver core: hide a brace in a macro" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#define GATE_SELFTEST_OPEN {\nint gate_selftest_unparsable(int x);\nint gate_selftest_unparsable(int x)\nGATE_SELFTEST_OPEN\n\treturn x;\n}\n")'
	run_selftest cocciparse "cocci: not checked: drivers/base/syscore.c: 0 -> [1-9][0-9]* lines spatch cannot parse" --checks cocci
}

test_gate_catches_i386_break() {
	head_passed_before && return 0
	selftest_series i386 arch/x86/kernel/i8259.c "x86/i8259: break the 32-bit build" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#ifdef CONFIG_X86_32\n#error \"gate selftest: i386 is broken\"\n#endif\n")'
	run_selftest i386 "build:i386: build failed: .*gate selftest: i386 is broken" --checks build --configs i386
}

# A file that only clang cannot compile: the clang column, an objects-only
# build of the touched files at every patch, must fail it.
test_gate_catches_clang_break() {
	head_passed_before && return 0
	selftest_series clang drivers/base/syscore.c "driver core: break the clang build" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#ifdef __clang__\n#error \"gate selftest: clang is broken\"\n#endif\n")'
	run_selftest clang "build:clang: build failed: .*gate selftest: clang is broken" --checks build --configs clang
}

# A compiler warning (unused variable) and a sparse warning (a global that
# should be static) in a touched file.
test_gate_catches_new_warnings() {
	head_passed_before && return 0
	selftest_series warnings drivers/base/syscore.c "driver core: add warnings" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nint gate_selftest_global;\n\nvoid gate_selftest(void);\nvoid gate_selftest(void)\n{\n\tint unused;\n}\n")'
	run_selftest warnings "build:x86_64: 2 new warnings: drivers/base/syscore.c: warning: (unused variable|no previous declaration|symbol 'gate_selftest_global')" --checks build --configs x86_64
}

test_gate_catches_boot_break() {
	head_passed_before && return 0
	selftest_series boot drivers/base/syscore.c "driver core: panic at boot" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\nstatic int __init gate_selftest_panic(void)\n{\n\tpanic(\"gate selftest: boot is broken\");\n}\nlate_initcall(gate_selftest_panic);\n")'
	run_selftest boot "boot: panic: .*gate selftest: boot is broken" --checks boot
}

# A file of another architecture that no longer compiles: only the
# cross-compile check sees it.
test_gate_catches_cross_break() {
	head_passed_before && return 0
	selftest_series cross arch/powerpc/kernel/sysfs.c "powerpc: break the build" \
		'import sys; s = sys.stdin.read(); sys.stdout.write(s + "\n#error \"gate selftest: powerpc is broken\"\n")'
	# no native configuration builds the file: empty native lists, rather
	# than each configuration built at the bad head for its list
	echo '{}' > "$TLOG/cross.native.json"
	run_selftest cross "cross: FAILED powerpc .*arch/powerpc/kernel/sysfs.o" --checks cross \
		--native-from "$TLOG/cross.native.json"
}

# Tools that cannot run must fail their column, never pass it empty: a
# base tree whose checkpatch exits 1 without a finding, whose kernel-doc
# dies and which has no coccinelle script.
test_gate_catches_tools_not_running() {
	head_passed_before && return 0
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
	head_passed_before && return 0
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
	# a cross cell's key holds what decides which files it cross-builds:
	# the head (where the native lists are read) and the native
	# configurations; no other column's key does
	v=$(gate_py "' '.join(cache.VerdictCache.key(type('G', (cache.VerdictCache,), {'tool': 't', 'cross_basis': b})(),
		type('P', (), {'parent': 'p', 'commit': 'c'})(), col)[:12]
		for col in ('cross', 'message') for b in ('h1 x86_64', 'h2 x86_64', 'h1 nopm,x86_64'))")
	echo "cross, message keys: $v"
	read -r -a v <<<"$v"
	[ "${v[0]}" != "${v[1]}" ] && [ "${v[0]}" != "${v[2]}" ] && [ "${v[1]}" != "${v[2]}" ] ||
		{ fail "a cross cell's key does not change with the head or the native configurations"; return 1; }
	[ "${v[3]}" = "${v[4]}" ] && [ "${v[3]}" = "${v[5]}" ] ||
		{ fail "a message cell's key changes with the cross column's basis"; return 1; }
}

# The slice of gate_pipeline and pipeline_schema: patches 1 and 8, one
# configuration of each kind (full, objects-only, secondary), two tests.
# It starts at the base, whose build x86_64 needs anyway for the
# unpatched kernel's ABI snapshot (a slice that starts later builds the
# base once more, 5.7 minutes cold).  Chosen when the series had eight
# patches, it no longer ends at the head: its native lists are those the
# whole gate kept for the head, or, on a runner without them, a build of
# each full configuration at the head once more (5.5 minutes cold).
# Both patches touch C files.
PIPELINE_SLICE=(--only 1,8 --configs x86_64,clang,nopm)
PIPELINE_SLICE_ROWS='000[18]'
PIPELINE_SLICE_TESTS=perf_table,log_judge

# The pipeline (ci/gitlab-ci.yml): a slice of make test, patches 1 and 8, one
# configuration of each kind (x86_64 built in full at every patch, clang
# objects-only in its object directory, nopm in full at the head only)
# and two of the suite's tests, run job by job through ci/pipeline-job.sh
# as the child pipeline's jobs run (one of every kind: lint, each build
# job and cross on an empty object root as a fresh runner has it, boot, a
# suite job), then merged and held to the plan.  Every merged cell must
# equal the serial gate's over the same slice (run here: in make test
# its cells are the test "gate"'s, from the cache; in the pipeline's job
# suite-gate-pipeline, which has no test "gate", they are judged here), every
# test the suite's verdict, and the count that of the same slice of the
# serial run.  Then the merge must fail on each way a job can lose
# results (pipeline_merge_fails), and a job must refuse another
# linux-source version than the plan's.  (GitLab's schema:
# pipeline_schema.)  In the pipeline this test runs inside a job, which
# has its own job-logs/ in the repository: it is kept aside meanwhile and
# put back when the test's shell exits, however it ends (a trap: "|| rc=$?"
# would switch errexit off in the test); what the slice's jobs left there
# goes to job-logs.left in the test's log directory.
test_gate_pipeline() {
	local d=$TLOG/pipeline outer=$TLOG/pipeline.outer-job-logs
	head_passed_before && return 0
	rm -rf "$d" "$outer"
	[ ! -e "$TOP/job-logs" ] || mv "$TOP/job-logs" "$outer"
	# shellcheck disable=SC2064	# the paths now, not at exit
	trap "rm -rf '$d/job-logs.left'; [ ! -e '$TOP/job-logs' ] || mv '$TOP/job-logs' '$d/job-logs.left'
		[ ! -e '$outer' ] || mv '$outer' '$TOP/job-logs'" EXIT
	gate_pipeline_slice "$d"
}

gate_pipeline_slice() {
	local d=$1 serial=$1/serial/results.tsv j kpkg script n want got built
	local slice=("${PIPELINE_SLICE[@]}")
	mkdir -p "$d"
	bash "$TOP/scripts/apply-series.sh"
	GATE_LOGS="$d/serial" bash "$TOP/ci/gate.sh" "${slice[@]}" > "$d/serial.out" 2>&1 ||
		{ tail -n 20 "$d/serial.out"; fail "the serial gate of the slice failed"; return 1; }
	bash "$TOP/ci/gate.sh" "${slice[@]}" --tests "$PIPELINE_SLICE_TESTS" --write-plan "$d/plan.json"
	bash "$TOP/ci/gate.sh" --plan "$d/plan.json" --pipeline > "$d/pipeline.yml"
	# each job's script line and linux-source version as the child
	# pipeline has them
	python3 -c 'import json, sys
for name, job in json.load(open(sys.argv[1])).items():
    if name != "stages":
        print("\t".join([name, job.get("variables", {}).get("SYSDEV_KPKG", ""), job["script"][-1]]))' \
		"$d/pipeline.yml" > "$d/jobs"
	cut -f1 "$d/jobs" | tr '\n' ' '
	echo
	for j in lint build-x86_64 build-nopm boot cross suite-workbench merge; do
		grep -q "^$j"$'\t' "$d/jobs" || { fail "the pipeline has no job $j"; return 1; }
	done
	[ "$(wc -l < "$d/jobs")" -eq 7 ] || { fail "the slice's pipeline has $(wc -l < "$d/jobs") jobs, not 7"; return 1; }
	# Run them here, in the repository as a runner checks it out (a job
	# writes job-logs/, the merge plan.json and make-test-report/ there;
	# moved aside at the end), each with a log root of its own (the nested
	# run-tests.sh must not touch this one's).  The build and cross jobs
	# get an empty object root of their own, as a fresh runner has it with
	# the pipeline's cache of verdicts: the build jobs must judge every
	# cell and give the cross job the serial gate's native lists
	# (native.json) from that cache, building nothing.  The merge job runs
	# its script, the plan it carries included, as the pipeline has it.
	rm -rf "$TOP/plan.json" "$TOP/make-test-report"
	while IFS=$'\t' read -r j kpkg script; do
		[ "$j" != merge ] || continue
		echo "== job $j ($kpkg): $script"
		[ -n "$kpkg" ] || { fail "job $j has no SYSDEV_KPKG"; return 1; }
		(cd "$TOP" && env LOG_ROOT="$d/logs-$j" SYSDEV_KPKG="$kpkg" \
			BUILD_ROOT="$(case $j in build-*|cross) echo "$d/empty-build-$j" ;;
				*) echo "$BUILD_ROOT" ;; esac)" \
			bash -c "$script") > "$d/$j.out" 2>&1 ||
			{ tail -n 20 "$d/$j.out"; fail "job $j failed"; return 1; }
	done < "$d/jobs"
	nothing_built "the build jobs, on a re-run of cached cells" "$d"/build-*.out "$d"/empty-build-* || return 1
	# every full-build configuration, x86_64 building the core
	python3 -c 'import json, sys
jobs = {}
for f in sys.argv[3:]:
    jobs.update(json.load(open(f)))
serial = json.load(open(sys.argv[1]))
want = sys.argv[2].split()
if sorted(jobs) != sorted(want) or "drivers/base/sysdev.c" not in jobs["x86_64"]:
    sys.exit("the build jobs native lists: %s, not every one of %s" % (jobs, want))
sys.exit(jobs != serial and "the build jobs: %s\nthe serial gate: %s" % (jobs, serial))' \
		"$d/serial/native.json" "x86_64 nopm" \
		"$TOP"/job-logs/build-*/native.json ||
		{ fail "the build jobs' native lists are not the serial gate's"; return 1; }
	# The hand-off to the jobs that run on the gate's passes (--gate-passes):
	# what the slice's gate jobs hand on in job-logs/*/gate-cache is enough
	# for a serial run of the slice in a cache that holds nothing else:
	# every cell as the serial run's, every lint, build, boot and abi cell
	# from those passes, nothing built.
	local alt=$d/handed-on
	mkdir -p "$alt/empty-build"
	bash "$TOP/ci/import-gate-passes.sh" "$alt/gate-cache" "$TOP/job-logs" "$(python3 -c 'import json, sys
print(",".join(j["name"] for j in json.load(open(sys.argv[1]))["gate_jobs"]))' "$d/plan.json")"
	echo "== the gate on the passes the gate jobs hand on"
	env SYSDEV_CACHE="$alt" KSRC="$KSRC" BASE_KSRC="$BASE_KSRC" BUILD_ROOT="$alt/empty-build" \
		LOG_ROOT="$alt/logs" CCACHE_DIR="$alt/ccache" GATE_LOGS="$alt/gate" \
		bash "$TOP/ci/gate.sh" "${slice[@]}" > "$d/handed-on.out" 2>&1 ||
		{ tail -n 20 "$d/handed-on.out"; fail "the gate failed on the passes the gate jobs hand on"; return 1; }
	nothing_built "the gate on the passes the gate jobs hand on" "$d/handed-on.out" "$alt/empty-build" || return 1
	# (but the series row and the cross column)
	built=$(awk -F'\t' '$1 != "series" && $2 != "cross" && $4 !~ / \(cached\)$/' "$alt/gate/results.tsv")
	[ -z "$built" ] || { fail "cells judged again on the passes the gate jobs hand on: $built"; return 1; }
	diff <(cut -f1-4 "$serial" | sed 's/ (cached)$//' | sort) \
	     <(cut -f1-4 "$alt/gate/results.tsv" | sed 's/ (cached)$//' | sort) ||
		{ fail "the gate on the passes handed on differs from the serial slice"; return 1; }
	echo "== job merge"
	python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["merge"]["script"]))' \
		"$d/pipeline.yml" > "$d/merge.sh"
	(cd "$TOP" && bash -e "$d/merge.sh") > "$d/merge.out" 2>&1 || true
	cat "$d/merge.out"
	mv "$TOP/job-logs" "$TOP/plan.json" "$d/"
	mv "$TOP/make-test-report" "$d/merged"
	mv "$d/plan.json" "$d/plan-of-merge.json"
	bash "$TOP/ci/gate.sh" "${slice[@]}" --tests "$PIPELINE_SLICE_TESTS" --write-plan "$d/plan.json"
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
		"$d/plan.json" "$d/plan-of-merge.json" || { fail "the merge job's plan is not the plan job's"; return 1; }
	# cells: as the serial run's (status and detail, "(cached)" aside)
	diff <(grep -E "^(v[0-9]+-)?$PIPELINE_SLICE_ROWS-|^series" "$serial" | cut -f1-4 | sed 's/ (cached)$//' | sort) \
	     <(cut -f1-4 "$d/merged/results.tsv" | sed 's/ (cached)$//' | sort) ||
		{ fail "the pipeline's cells differ from the serial gate's"; return 1; }
	# the count: the slice's cells and tests in the serial run, and "gate"
	n=$(grep -E "^(v[0-9]+-)?$PIPELINE_SLICE_ROWS-|^series" "$serial" | grep -c $'\tpass\t')
	n=$((n + $(grep -c $'\tpass\t' "$d/job-logs/suite-workbench/suite.tsv")))
	want="$((n + 1)) passed, 0 failed"	# and the test "gate"
	got=$(tail -n 1 "$d/merge.out")
	echo "count: $got (serial slice: $want)"
	[ "$got" = "$want" ] || { fail "the merge counted '$got', the serial run's slice '$want'"; return 1; }
	pipeline_merge_fails "$d" || return 1
	expect_fail kpkg "the plan is for 'linux-source-6.12 0-bogus'" env SYSDEV_KPKG="linux-source-6.12 0-bogus" \
		LOG_ROOT="$d/logs-kpkg" bash "$TOP/ci/pipeline-job.sh" gate lint --only 1 --checks message || return 1
}

# GitLab's schema, as gitlab-ci-local holds a file to it: the project's
# pipeline, make test's child pipeline and a slice's pass; a trigger that
# includes its child by a name not ending in .yml or .yaml (v9's
# pipeline.json) fails.  (Apart from gate_pipeline: the tool is installed
# with npm, minutes on a fresh runner.)  And in make test's pipeline,
# documented_commands must start after every gate job, on their passes.
ALL_TESTS+=(pipeline_schema)
test_pipeline_schema() {
	local d=$TLOG/pipeline-schema
	head_passed_before && return 0
	rm -rf "$d"
	mkdir -p "$d"
	bash "$TOP/scripts/apply-series.sh"
	bash "$TOP/ci/gate.sh" --write-plan "$d/plan.json"
	bash "$TOP/ci/gate.sh" --plan "$d/plan.json" --pipeline > "$d/pipeline.yml"
	bash "$TOP/ci/gate.sh" "${PIPELINE_SLICE[@]}" --tests "$PIPELINE_SLICE_TESTS" \
		--write-plan "$d/slice-plan.json"
	bash "$TOP/ci/gate.sh" --plan "$d/slice-plan.json" --pipeline > "$d/slice-pipeline.yml"
	bash "$TOP/ci/gitlab-local.sh" --check "$TOP/ci/gitlab-ci.yml" "$d/pipeline.yml" "$d/slice-pipeline.yml" ||
		{ fail "GitLab's schema does not take the pipeline"; return 1; }
	# an objects-only configuration without the one it mirrors has a job
	# of its own, as the serial run builds it (make_plan() fails on a cell
	# in no job or in two); the cross job is given the serial run's
	# configurations, none, which are in its cells' keys
	bash "$TOP/ci/gate.sh" --configs clang --only 1 --tests perf_table \
		--write-plan "$d/clang-plan.json" && grep -q '"build-clang"' "$d/clang-plan.json" ||
		{ fail "the plan of --configs clang has no job for clang"; return 1; }
	bash "$TOP/ci/gate.sh" --plan "$d/clang-plan.json" --pipeline > "$d/clang-pipeline.yml"
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cross"]["script"][-1])' \
		"$d/clang-pipeline.yml" | grep -q -- "--checks cross --configs , " ||
		{ fail "the cross job of --configs clang is not given its configurations"; return 1; }
	sed 's/artifact: pipeline\.yml/artifact: pipeline.json/' "$TOP/ci/gitlab-ci.yml" > "$d/json-name.yml"
	expect_fail schema "'artifact' property is not expected" \
		bash "$TOP/ci/gitlab-local.sh" --check "$d/json-name.yml" || return 1
	# make test's own pipeline: the job of documented_commands (it runs
	# the README's gate commands, on the passes of the test gate in make
	# test) starts after every gate job, on their passes
	python3 -c 'import json, sys
plan, jobs = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = sorted(j["name"] for j in plan["gate_jobs"])
j = next((n for n, j in jobs.items() if n != "stages" and
          "documented_commands" in j["script"][-1].split()), None)
if j is None:
    sys.exit("no job runs documented_commands")
needs = sorted(x["job"] for x in jobs[j]["needs"] if x.get("artifacts"))
args = jobs[j]["script"][-1].split()
passes = args[args.index("--gate-passes") + 1].split(",") if "--gate-passes" in args else []
if needs != want or sorted(passes) != want:
    sys.exit("job %s: needs %s, script %s; not on the passes of the gate jobs %s"
             % (j, needs, jobs[j]["script"][-1], want))
# its gate cache is the one the gate jobs hand on, not a cache of its own
if any(p.endswith("/gate-cache") for p in jobs[j]["cache"]["paths"]):
    sys.exit("job %s carries a gate cache of its own: %s" % (j, jobs[j]["cache"]["paths"]))' "$d/plan.json" "$d/pipeline.yml" ||
		{ fail "documented_commands does not run on the gate jobs' passes"; return 1; }
}

# nothing_built WHAT OUT... DIR...: the gate's output files OUT... say it
# built no kernel (no first build, none for a native list), and each
# object root DIR is empty (or was never made).
nothing_built() {
	local what=$1 f built=
	shift
	for f in "$@"; do
		if [ -d "$f" ]; then
			built+=$(find "$f" -type f | head -n 3)
		elif [ -e "$f" ]; then
			built+=$(grep -h 'first build of\|for its native list' "$f" || true)
		fi
	done
	[ -z "$built" ] || { fail "$what built: $built"; return 1; }
}

# pipeline_merge_fails DIR: the merge of DIR/job-logs, held to
# DIR/plan.json, fails naming the reason on each defect put into a copy.
pipeline_merge_fails() {
	local d=$1
	merge_broken "$d" "job boot: no results" 'rm -r boot' &&
	merge_broken "$d" "job lint: no results.tsv" 'rm lint/results.tsv' &&
	merge_broken "$d" "job build-nopm: no verdict on cell 0008 build:nopm" \
		'grep -v -P "^\S*0008\S*\tbuild:nopm\t" build-nopm/results.tsv > x; mv x build-nopm/results.tsv' &&
	merge_broken "$d" "cell 0001 message given twice" \
		'grep -P "^\S*0001\S*\tmessage\t" lint/results.tsv > x; cat x >> lint/results.tsv' &&
	merge_broken "$d" "job boot: cell 0006 message is not in its plan" \
		'printf "0006-x.patch\tmessage\tpass\tx\tx.log\n" >> boot/results.tsv' &&
	merge_broken "$d" "cell 0001 message given by lint and cross" \
		'grep -P "^\S*0001\S*\tmessage\t" lint/results.tsv >> cross/results.tsv' &&
	merge_broken "$d" "job suite-workbench: test log_judge did not run" \
		'grep -v "^log_judge" suite-workbench/suite.tsv > x; mv x suite-workbench/suite.tsv' &&
	merge_broken "$d" "no job build-arm in the plan" 'cp -r lint build-arm' || return 1
	# A job that needs every gate job (plan.AFTER_GATE; here the slice's
	# suite job made one) is skipped by GitLab when one of them fails: its
	# tests count as failed, each named as not run.  Without a failed gate
	# job, its absence is a hole in the plan.
	python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
for j in p["suite_jobs"]:
    j["after_gate"] = j["name"] == "suite-workbench"
json.dump(p, open(sys.argv[2], "w"))' "$d/plan.json" "$d/plan-after-gate.json"
	# (The count, from the merge of the unbroken jobs' N passed: a cell
	# and both tests fail, the test "gate" passes; then the job is one
	# failure, and "gate" passes.)
	local n edit='rm -r suite-workbench; sed -i "0,/\tpass\t/s//\tfail\t/" lint/results.tsv'
	n=$(tail -n 1 "$d/merge.out" | cut -d' ' -f1)
	merge_broken "$d" "not ok +log_judge .*suite-workbench: not run, a gate job it needs failed" \
		"$edit" "$d/plan-after-gate.json" &&
	merge_broken "$d" "^$((n - 3)) passed, 3 failed$" "$edit" "$d/plan-after-gate.json" &&
	merge_broken "$d" "job suite-workbench: no results" 'rm -r suite-workbench' "$d/plan-after-gate.json" &&
	merge_broken "$d" "^$((n - 2)) passed, 1 failed$" 'rm -r suite-workbench' "$d/plan-after-gate.json"
}

# merge_broken DIR REGEX EDIT [PLAN]: a copy of DIR/job-logs changed by the
# shell command EDIT (run in the copy) must fail the merge, held to PLAN
# (default DIR/plan.json), with REGEX.  An EDIT that changes nothing (a
# row the slice does not have) is a defect of the test.
merge_broken() {
	local d=$1 re=$2 edit=$3 plan=${4:-$1/plan.json} c=$1/broken
	rm -rf "$c"
	cp -r "$d/job-logs" "$c"
	(cd "$c" && eval "$edit" && rm -f x)
	! diff -rq "$d/job-logs" "$c" > /dev/null ||
		{ fail "merge_broken: '$edit' changed nothing in the jobs' results"; return 1; }
	expect_fail "merge after: $edit" "$re" bash "$TOP/ci/gate.sh" --plan "$plan" \
		--merge "$d/merged-broken" "$c"/* || return 1
}

test_maintainers_notes() {
	bash "$TOP/scripts/apply-series.sh"
	bash "$TOP/scripts/maintainers-notes.sh" --check
}
