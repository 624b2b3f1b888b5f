#!/usr/bin/env bash
# The test suite: the workbench's own tests, then the series' boot tests.
# Each test prints "ok"/"not ok" with its log; the last line is
# "N passed, N failed".  Exit status 0 only if nothing failed.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() { echo "usage: ${0##*/} [TEST...]   (default: all; list: ${0##*/} --list; ci/references/ made again: ${0##*/} --references)"; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac

TLOG=$LOG_ROOT/tests
mkdir -p "$TLOG"
ALL_TESTS=()
. "$TOP/ci/tests/lib.sh"
. "$TOP/ci/tests/workbench.sh"
. "$TOP/ci/tests/abi.sh"
. "$TOP/ci/tests/gate.sh"
. "$TOP/ci/tests/reliability.sh"

if [ "${1:-}" = "--list" ]; then printf '%s\n' "${ALL_TESTS[@]}"; exit 0; fi
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${ALL_TESTS[@]}")

# The suite installs what it needs (as root) before the first test.
if [ "$(id -u)" -eq 0 ]; then
	bash "$TOP/scripts/install-deps.sh"
else
	bash "$TOP/scripts/install-deps.sh" --check || die "run as root to install the missing packages"
fi
if [ "${1:-}" = "--references" ]; then
	[ $# -eq 1 ] || { usage >&2; exit 2; }
	TLOG=$LOG_ROOT/references
	mkdir -p "$TLOG"
	write_references
	exit 0
fi
rm -f "$TLOG/suite.tsv"
TEST_PLAN=("${selected[@]}")
for t in "${selected[@]}"; do run_test "$t"; done
summary
