#!/usr/bin/env bash
# The per-patch gate (ci/gate.py): lint, build and boot every patch of the
# working branch; the report goes to $LOG_ROOT/gate/report.md.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
case "${1:-}" in -h|--help) ;; *) require_tree ;; esac
export TOP KSRC BASE_KSRC BUILD_ROOT LOG_ROOT OUTGOING BASE_TAG WORK_BRANCH \
	SYSDEV_CACHE SERIES_NAME SERIES_EMAIL
exec python3 "$TOP/ci/gate.py" "$@"
