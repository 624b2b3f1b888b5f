# Test runner helpers; sourced by ci/run-tests.sh.
# A test is a shell function test_NAME; it fails by returning non-zero
# (use `expect` and `fail` to say why).  Its output goes to $TLOG/NAME.log.
PASSED=0
FAILED=0
TEST_PLAN=()
FAILED_NAMES=()
SUITE_T0=$(date +%s)
# The terminal, for progress lines of long tests (their output goes to
# their log): fd 3.
exec 3>&2

fail() { echo "FAIL: $*"; return 1; }

# pkg_version PKG: PKG's installed version, or "not installed".
pkg_version() {
	if [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]; then
		dpkg-query -W -f='${Version}\n' "$1"
	else
		echo "not installed"
	fi
}

# test_pkgs PKG...: Debian packages that only a test needs (not the gate,
# so not in scripts/install-deps.sh, whose package list is in the gate's
# key): install the missing ones.  kexec-tools is told not to take over
# the host's reboots.
test_pkgs() {
	local p missing=()
	for p in "$@"; do
		[ "$(pkg_version "$p")" != "not installed" ] || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	[ "$(id -u)" -eq 0 ] || { fail "test_pkgs: missing ${missing[*]}: run as root to install them"; return 1; }
	echo "test_pkgs: installing ${missing[*]}"
	echo "kexec-tools kexec-tools/load_kexec boolean false" | debconf-set-selections
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# References of the unpatched tree (ci/references/): what a test would
# otherwise compute from the base on every cold run (its documentation
# build's warnings).  A reference NAME registers in ALL_REFERENCES and has
# three functions: ref_pkgs_NAME names the Debian packages that compute
# it (installed before its key is read: their versions are part of it),
# ref_inputs_NAME prints what decides it (the base's commit, the versions
# of the tools, the command), ref_write_NAME computes it from the base.
# ci/references/NAME.key holds the inputs it was made with, after the
# base package's version; `make references` makes every one again; the
# test references_current fails when one no longer matches the installed
# package and tools.  A test uses a reference only while it matches
# (ref_current) and computes it otherwise.
REFS=$TOP/ci/references
ALL_REFERENCES=()

# ref_pkgs NAME: install what NAME's key and computation use.
ref_pkgs() {
	local pkgs
	read -r -a pkgs <<<"$("ref_pkgs_$1")"
	test_pkgs "${pkgs[@]}"
}

# ref_inputs NAME: NAME's key as this machine makes it.
ref_inputs() {
	printf '%s\n' "$(kpkg_installed)"	# which ends in no newline
	"ref_inputs_$1"
}

# ref_current NAME: whether $REFS/NAME is of this machine's base and tools.
ref_current() {
	[ -f "$REFS/$1" ] && [ -f "$REFS/$1.key" ] &&
		[ "$(ref_inputs "$1")" = "$(cat "$REFS/$1.key")" ]
}

# write_references: make every reference again from the base (make
# references): all of them or none, no temporary file left.
write_references() {
	local r tree have
	bash "$TOP/scripts/prepare-tree.sh" --base
	tree="$KPKG $(cat "$KSRC/.git/sysdev-debian-version")"
	have=$(kpkg_installed)
	[ "$tree" = "$have" ] || die "the kernel tree is of $tree, installed is $have: make regen" \
		"(the working branch is in the tree), remove $KSRC and $(dirname "$BASE_KSRC")," \
		"then run make references again"
	mkdir -p "$REFS"
	# shellcheck disable=SC2064	# the directory now
	trap "rm -f '$REFS'/.*.tmp" EXIT
	for r in "${ALL_REFERENCES[@]}"; do
		ref_pkgs "$r"
		"ref_write_$r" > "$REFS/.$r.tmp" || die "reference $r: not made, ci/references/ unchanged"
		ref_inputs "$r" > "$REFS/.$r.key.tmp"
	done
	for r in "${ALL_REFERENCES[@]}"; do
		mv "$REFS/.$r.tmp" "$REFS/$r"
		mv "$REFS/.$r.key.tmp" "$REFS/$r.key"
		echo "references: ci/references/$r ($(wc -l < "$REFS/$r") lines), of $(head -n 1 "$REFS/$r.key")"
	done
}

# expect_fail NAME REGEX CMD...: CMD must fail and print REGEX.
# (Explicit returns: errexit does not apply when a caller tests the result.)
expect_fail() {
	local name=$1 re=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	echo "$out" | tail -n 30
	if [ $rc -eq 0 ]; then fail "$name: expected a failure, got exit 0"; return 1; fi
	if ! grep -Eq -- "$re" <<<"$out"; then fail "$name: output does not match /$re/"; return 1; fi
	return 0
}

# Progress on the terminal (stderr, so that a captured stdout keeps only
# the verdicts): test i of n, time elapsed, and an estimate of what is left
# from the durations of the previous run ($TLOG/times.tsv).
TEST_I=0
progress() { # NAME
	local left=0 known=0 t secs
	TEST_I=$((TEST_I + 1))
	if [ -f "$TLOG/times.tsv" ]; then
		for t in "${TEST_PLAN[@]:$((TEST_I - 1))}"; do
			secs=$(awk -v n="$t" '$1 == n { s = $2 } END { print s + 0 }' "$TLOG/times.tsv")
			left=$((left + secs)); [ "$secs" -gt 0 ] && known=$((known + 1))
		done
	fi
	local rest=$(( ${#TEST_PLAN[@]} - TEST_I + 1 )) est=""
	if [ $known -eq $rest ]; then
		est=$(printf ', about %d min left by the last run' $(( (left + 59) / 60 )))
	elif [ $known -gt 0 ]; then
		est=$(printf ', at least %d min left (%d of the %d tests left have a time)' \
			$(( (left + 59) / 60 )) $known $rest)
	fi
	printf '[%d/%d, %dm%02ds elapsed%s] %s ...\n' "$TEST_I" "${#TEST_PLAN[@]}" \
		$(( ($(date +%s) - SUITE_T0) / 60 )) $(( ($(date +%s) - SUITE_T0) % 60 )) "$est" "$1" >&2
}

# record_time NAME SECONDS: keep the last duration of each test.
record_time() {
	{ [ -f "$TLOG/times.tsv" ] && awk -v n="$1" '$1 != n' "$TLOG/times.tsv"; echo "$1 $2"; } > "$TLOG/times.tsv.new"
	mv "$TLOG/times.tsv.new" "$TLOG/times.tsv"
}

# Verdicts of the long tests, kept so that a run with nothing changed does
# not boot the same kernels again.  A test calls `passed_before FILE...`
# (or head_passed_before, below, before it builds): the key is the test's
# name, every file of the workbench (ci/, qemu/, scripts/, tracked or
# not: the tests, the configurations, the build script, the guest checks,
# the judges, their fixtures), the FILEs if any, the kernel tree's HEAD
# and the version of every installed Debian package (QEMU, busybox, the
# compilers...).  If this test passed with that key, it says so and the
# test returns 0; when the test passes, run_test stores the key.  A
# failure is never kept.
# SYSDEV_NO_VERDICT_CACHE=1 runs everything.
VERDICTS=$SYSDEV_CACHE/verdicts
verdict_key() { # NAME FILE...
	local name=$1
	shift
	{
		echo "$name"
		(cd "$TOP" && git ls-files -z -co --exclude-standard -- ci qemu scripts |
			sort -z | xargs -0 sha256sum)
		[ $# -eq 0 ] || sha256sum -- "$@"
		kgit rev-parse HEAD
		dpkg-query -W -f='${Package} ${Version}\n'
	} | sha256sum | cut -c1-40
}
passed_before() { # FILE...
	local key
	key=$(verdict_key "$CURRENT_TEST" "$@") || return 1
	echo "$key" > "$TLOG/$CURRENT_TEST.verdict-key"
	[ "${SYSDEV_NO_VERDICT_CACHE:-0}" != 1 ] && [ -f "$VERDICTS/$key" ] || return 1
	echo "passed before with the same inputs ($(cat "$VERDICTS/$key"), key $key): not run again"
	touch "$TLOG/$CURRENT_TEST.verdict-cached"
}

# head_passed_before: the series applied and checked out (a test that
# calls this fails, exit 1, when it does not apply); then passed_before
# with no file.  For the tests that build their kernels from the series:
# called before the builds, as their key already holds what makes the
# images (the tree's commit, the configurations, scripts/build-kernel.sh,
# which fixes the version strings, the compilers' packages), so that a re-run
# with the suite's verdicts, on a runner whose object directories are
# gone, builds nothing.
head_passed_before() {
	bash "$TOP/scripts/apply-series.sh" >/dev/null || { fail "the series does not apply"; exit 1; }
	passed_before
}

run_test() {
	local t=$1 log=$TLOG/$1.log s rc=0 how=""
	declare -F "test_$t" >/dev/null || { echo "no such test: $t" >&2; FAILED=$((FAILED + 1)); FAILED_NAMES+=("$t"); return; }
	[ ${#TEST_PLAN[@]} -gt 0 ] && progress "$t"
	s=$(date +%s)
	rm -f "$TLOG/$t.verdict-key" "$TLOG/$t.verdict-cached"
	# Not "|| rc=$?": that would switch errexit off inside the test.
	set +e
	( set -eEuo pipefail
	  trap 'echo "FAIL: exit status $? of: $BASH_COMMAND"' ERR
	  CURRENT_TEST=$t
	  "test_$t" ) >"$log" 2>&1
	rc=$?
	set -e
	if [ -f "$TLOG/$t.verdict-cached" ]; then
		how=" (passed before)"
	elif [ $rc -eq 0 ] && [ -f "$TLOG/$t.verdict-key" ]; then
		mkdir -p "$VERDICTS"
		date -u '+%Y-%m-%d %H:%M UTC' > "$VERDICTS/$(cat "$TLOG/$t.verdict-key")"
	fi
	record_time "$t" $(( $(date +%s) - s ))
	# one line per test run, for a merge of suites run apart (the
	# pipeline's suite jobs): name, verdict, seconds
	printf '%s\t%s\t%s\n' "$t" "$([ $rc -eq 0 ] && echo pass || echo fail)" \
		"$(( $(date +%s) - s ))" >> "$TLOG/suite.tsv"
	if [ "$t" = gate ]; then
		import_gate_results "$TLOG/gate.results.tsv"
	fi
	if [ $rc -eq 0 ]; then
		PASSED=$((PASSED + 1))
		printf 'ok     %-28s %4ss%s\n' "$t" "$(( $(date +%s) - s ))" "$how"
	else
		FAILED=$((FAILED + 1))
		FAILED_NAMES+=("$t")
		printf 'not ok %-28s %4ss  (log: %s)\n' "$t" "$(( $(date +%s) - s ))" "$log"
		{ grep -E "^FAIL|error" "$log" || true; } | tail -n 5 | sed 's/^/         /'
	fi
}

# The gate's table: one result per cell, counted like the suite's tests.
import_gate_results() {
	local f=$1 patch check status detail log
	[ -f "$f" ] || return 0
	while IFS=$'\t' read -r patch check status detail log; do
		if [ "$status" = pass ]; then
			PASSED=$((PASSED + 1))
		elif [ "$status" = n/a ]; then
			:	# not applicable to this patch, with its reason: no test
		else
			FAILED=$((FAILED + 1)); FAILED_NAMES+=("gate:${patch:0:4}:$check")
			printf 'not ok   gate %s %s: %s (log: %s)\n' "${patch:0:4}" "$check" "$detail" "$log"
		fi
	done < "$f"
	echo "         gate: $(grep -c $'\tpass\t' "$f" || true) cells passed," \
		"$(grep -c $'\tn/a\t' "$f" || true) not applicable, report: $LOG_ROOT/gate/report.md"
}

summary() {
	echo
	echo "suite time: $(( $(date +%s) - SUITE_T0 ))s; logs: $TLOG"
	[ $FAILED -eq 0 ] || echo "failed: ${FAILED_NAMES[*]}"
	echo "$PASSED passed, $FAILED failed"
	[ $FAILED -eq 0 ]
}
