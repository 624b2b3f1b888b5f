#!/usr/bin/env bash
# One job of the GitLab pipeline (the child pipeline that ci/gitlab-ci.yml
# makes with ci/gate.sh --pipeline): the job's setup, then its part of
# make test, its logs in job-logs/NAME.
#   gate NAME GATE-ARGS...   a serial gate run (ci/gate.sh GATE-ARGS); its
#                            passes go to job-logs/NAME/gate-cache too
#   suite NAME [--gate-passes] TEST...
#                            tests of the suite (ci/run-tests.sh TEST...);
#                            with --gate-passes, on the passes of the gate
#                            jobs before it (job-logs/*/gate-cache)
#   merge NAME DIR...        the merge of the jobs' DIRs, held to ./plan.json
set -euo pipefail
usage() { echo "usage: ${0##*/} gate NAME GATE-ARGS... | suite NAME [--gate-passes] TEST... | merge NAME DIR..."; }
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
passes=
if [ "$kind" = suite ] && [ "${1:-}" = --gate-passes ]; then
	shift
	passes=$(find "$TOP/job-logs" -mindepth 2 -maxdepth 2 -name gate-cache -type d 2>/dev/null | sort || true)
	[ -n "$passes" ] || die "job $name: no gate job's passes in job-logs/*/gate-cache (it needs the gate jobs' artifacts)"
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
	exit $rc ;;
suite)	if [ -n "$passes" ]; then
		mkdir -p "$cache"
		while read -r d; do
			cp -r "$d/." "$cache/"
		done <<<"$passes"
		echo "job $name: on the passes of $(wc -l <<<"$passes") gate jobs ($(ls "$cache" | wc -l) in the cache)"
	fi
	bash "$TOP/ci/run-tests.sh" "$@" || rc=$?
	cp -r "$LOG_ROOT/tests/." "$out/"
	exit $rc ;;
esac
