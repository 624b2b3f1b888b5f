#!/usr/bin/env bash
# Read the passes that a pipeline's gate jobs hand on into a gate cache:
# each gate job (ci/pipeline-job.sh gate) leaves what its run kept or read
# of the cache in JOB-LOGS/JOB/gate-cache; the passes are keyed
# (ci/gatelib/cache.py), so they hold whichever runner reads them.  Every
# JOB named must have handed its directory on (it may be empty).
set -euo pipefail
usage() { echo "usage: ${0##*/} GATE-CACHE JOB-LOGS JOB[,JOB...]"; }
[ $# -eq 3 ] || { usage >&2; exit 2; }
cache=$1 logs=$2
IFS=, read -r -a jobs <<<"$3"
[ ${#jobs[@]} -gt 0 ] || { usage >&2; exit 2; }
missing=()
for j in "${jobs[@]}"; do
	[ -d "$logs/$j/gate-cache" ] || missing+=("$j")
done
[ ${#missing[@]} -eq 0 ] ||
	{ echo "${0##*/}: error: no $logs/JOB/gate-cache of the gate jobs ${missing[*]}: did they run, are their artifacts here?" >&2; exit 1; }
mkdir -p "$cache"
for j in "${jobs[@]}"; do
	cp -rp "$logs/$j/gate-cache/." "$cache/"
done
echo "${0##*/}: the passes of the gate jobs ${jobs[*]} read into $cache ($(find "$cache" -maxdepth 1 -type f | wc -l) files)"
