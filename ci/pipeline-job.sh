#!/usr/bin/env bash
# One job of the GitLab pipeline (the child pipeline that ci/gitlab-ci.yml
# makes with ci/gate.sh --pipeline): the job's setup, then its part of
# make test, its logs in job-logs/NAME.
#   gate NAME GATE-ARGS...   a serial gate run (ci/gate.sh GATE-ARGS); its
#                            passes go to job-logs/NAME/gate-cache too
#   suite NAME [--gate-passes JOB,...] TEST...
#                            tests of the suite (ci/run-tests.sh TEST...);
#                            with --gate-passes, on the passes the gate
#                            jobs JOB,... hand on (ci/import-gate-passes.sh)
#   merge NAME DIR...        the merge of the jobs' DIRs, held to ./plan.json
# A gate or suite job that wrote its whole table exits 0 even when a cell
# or a test of it failed, so that every later job runs and the merge,
# which alone decides, sees every verdict; a job that did not finish
# (no table) fails itself.
set -euo pipefail
usage() { echo "usage: ${0##*/} gate NAME GATE-ARGS... | suite NAME [--gate-passes JOB,...] TEST... | merge NAME DIR..."; }
[ $# -ge 2 ] || { usage >&2; exit 2; }
kind=$1 name=$2
shift 2
. "$(dirname "$0")/../scripts/lib.sh"
case $kind in
merge)
	# python3 and git are all a merge needs
	command -v python3 >/dev/null && command -v git >/dev/null || apt_install python3 git
	[ -f plan.json ] || die "merge: no plan.json here"
	exec bash "$TOP/ci/gate.sh" --plan plan.json --merge "$TOP/make-test-report" "$@" ;;
gate|suite) ;;
*)	usage >&2; exit 2 ;;
esac
if [ "$kind" = suite ] && [ "${1:-}" = --gate-passes ]; then
	[ $# -ge 2 ] || { usage >&2; exit 2; }
	# before the setup: a job without its gate jobs' passes fails at once
	bash "$TOP/ci/import-gate-passes.sh" "$SYSDEV_CACHE/gate-cache" "$TOP/job-logs" "$2"
	shift 2
fi
bash "$TOP/scripts/install-deps.sh"
# Every job of one pipeline judges the same base: the plan job wrote the
# package version it installed into SYSDEV_KPKG.
have=$(kpkg_installed)
[ -z "${SYSDEV_KPKG:-}" ] || [ "$have" = "$SYSDEV_KPKG" ] ||
	die "job $name: the plan is for '$SYSDEV_KPKG', this runner has '${have:-no $KPKG}'"
bash "$TOP/scripts/prepare-tree.sh"
bash "$TOP/scripts/apply-series.sh"
out=$TOP/job-logs/$name
rm -rf "$out"
mkdir -p "$out"
cache=$SYSDEV_CACHE/gate-cache
rc=0
case $kind in
gate)	start=$(mktemp)
	GATE_LOGS=$out bash "$TOP/ci/gate.sh" "$@" || rc=$?
	# for the jobs that run the gate's commands on its passes: what this
	# run kept or read (the gate touches what it reads); the passes are
	# keyed (ci/gatelib/cache.py), whichever runner reads them
	mkdir -p "$out/gate-cache"
	[ ! -d "$cache" ] || find "$cache" -maxdepth 1 -type f -newer "$start" \
		-exec cp -p -t "$out/gate-cache" {} +
	rm -f "$start"
	if [ $rc -ne 0 ] && [ -s "$out/results.tsv" ] && [ -f "$out/report.md" ]; then
		echo "job $name: its table is complete, with failures: the merge decides"
		rc=0
	fi
	exit $rc ;;
suite)	bash "$TOP/ci/run-tests.sh" "$@" || rc=$?
	cp -r "$LOG_ROOT/tests/." "$out/"
	# one line per test asked for: the whole table
	if [ $rc -ne 0 ] && [ -f "$out/suite.tsv" ] &&
		[ "$(wc -l < "$out/suite.tsv")" -ge $# ]; then
		echo "job $name: its table is complete, with failures: the merge decides"
		rc=0
	fi
	exit $rc ;;
esac
