#!/usr/bin/env bash
# Regenerate (or with --check, verify) the generated part of
# MAINTAINERS-notes.md from the working branch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in ""|--check) ;; *) echo "usage: ${0##*/} [--check]" >&2; exit 2 ;; esac
require_tree
export TOP KSRC BASE_TAG WORK_BRANCH
exec python3 "$TOP/scripts/maintainers-notes.py" "$@"
