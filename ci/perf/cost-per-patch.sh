#!/usr/bin/env bash
# What each patch adds to the cost of a system device registration.
#
# For every patch of the working branch from FIRST to LAST (numbers in
# the series, 1 = the first patch) whose tree has drivers/base/sysdev.c,
# runs ci/perf/run-perf.sh -I -K head at that commit (the perf kernel
# with the benchmark's exports, one boot, no suspend cycles), then judges
# each patch against the one before it with ci/perf/cost-compare.py: a
# patch that adds more than POINTS percent of the plain devices' floor to
# register + unregister or to register alone fails.  The first patch
# measured is compared with nothing (make perf's table judges its ratio
# against the unpatched kernel).  Under QEMU's -icount the same round of
# two runs of one kernel repeats within about 0.25%, so a budget of one
# point judges the patch, not the host.
# Raw data: $SYSDEV_CACHE/perf/per-patch/NNNN/ (kept: a second run
# boots only what changed; -f measures again).
# Exit status: 0 every patch within the budget, 1 a patch over it, 2 a
# patch not measured (build or boot failed).  Not part of make test:
# about 5 minutes a patch warm.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: ${0##*/} [-b POINTS] [-r REPS] [-N COUNT] [-f] FIRST LAST
  -b POINTS   percent of the floor a patch may add (default 1.0)
  -r REPS     rounds of each kind (default 3)
  -N COUNT    devices per round (default 10000)
  -f          measure again what an earlier run kept
USAGE
}
budget=1.0 reps=3 count=10000 force=0
while getopts "b:r:N:fh" opt; do
	case $opt in
	b) budget=$OPTARG ;;
	r) reps=$OPTARG ;;
	N) count=$OPTARG ;;
	f) force=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { usage >&2; exit 2; }
first=$1 last=$2
[[ $first =~ ^[1-9][0-9]*$ && $last =~ ^[1-9][0-9]*$ && $first -le $last ]] ||
	{ usage >&2; echo "FIRST and LAST: patch numbers, FIRST <= LAST" >&2; exit 2; }
require_tree
mapfile -t commits < <(kgit rev-list --reverse "$BASE_TAG..$WORK_BRANCH")
[ "$last" -le "${#commits[@]}" ] || die "$WORK_BRANCH has ${#commits[@]} patches, not $last"
out=$SYSDEV_CACHE/perf/per-patch
rc=0 prev=""
for ((i = first; i <= last; i++)); do
	c=${commits[i - 1]} d=$out/$(printf %04d "$i")
	subject=$(kgit log -1 --format=%s "$c")
	if ! kgit cat-file -e "$c:drivers/base/sysdev.c" 2>/dev/null; then
		note "patch $i ($subject): no drivers/base/sysdev.c yet, not measured"
		continue
	fi
	# a directory of another commit, or of other rounds, is measured again
	if [ "$force" = 1 ] || ! grep -qx "series-head $c" "$d/info.txt" 2>/dev/null ||
		! grep -qx "rounds $reps count $count" "$d/info.txt" 2>/dev/null; then
		rm -rf "$d"
	fi
	if [ ! -f "$d/boot-head-1.log.ok" ]; then
		note "patch $i ($subject): measuring"
		# run-perf.sh exits 2 here as the base's figures are missing
		# (-K head); whether the head was measured is its boot's .ok
		WORK_BRANCH=$c bash "$TOP/ci/perf/run-perf.sh" -I -K head -n 1 -c 0 \
			-r "$reps" -N "$count" -o "$d" >"$out.$i.log" 2>&1 || true
		[ -f "$d/boot-head-1.log.ok" ] || {
			echo "patch $i ($subject): NOT MEASURED (see $out.$i.log)"
			rc=2; prev=""; continue
		}
		echo "rounds $reps count $count" >>"$d/info.txt"
	fi
	if [ -n "$prev" ]; then
		r=0
		verdict=$(python3 "$TOP/ci/perf/cost-compare.py" --budget "$budget" "$prev" "$d" 2>&1) || r=$?
		echo "patch $i ($subject): $(paste -sd ';' <<<"$verdict")"
		case $r in 0) ;; 1) [ "$rc" = 2 ] || rc=1 ;; *) rc=2 ;; esac
	else
		echo "patch $i ($subject): first measured, $(python3 "$TOP/ci/perf/cost-compare.py" "$d" "$d" 2>&1 | sed 's/ ->.*//' | paste -sd ' ')"
	fi
	prev=$d
done
exit $rc
