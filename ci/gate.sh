#!/usr/bin/env bash
# The per-patch gate (ci/gate.py): lint, build and boot every patch of the
# working branch; the report goes to $LOG_ROOT/gate/report.md.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
# What needs no kernel tree: the help, a merge of results, the pipeline
# of a plan.
case " $* " in
*" -h "*|*" --help "*|*" --merge "*|*" --pipeline "*) ;;
*)	require_tree
	# checkpatch, kernel-doc, coccinelle and the ABI baseline come from the
	# unpatched tree: make its worktree if this is the first gate run
	# (right after make run, say).
	[ -e "$BASE_KSRC/.git" ] || [ -e "$BASE_KSRC/scripts" ] || bash "$TOP/scripts/prepare-tree.sh" --base >&2 ;;
esac
export TOP KSRC BASE_KSRC BUILD_ROOT LOG_ROOT OUTGOING BASE_TAG WORK_BRANCH \
	KPKG SYSDEV_CACHE SERIES_NAME SERIES_EMAIL
export SYSDEV_GATE_ENV=1
exec python3 "$TOP/ci/gate.py" "$@"
