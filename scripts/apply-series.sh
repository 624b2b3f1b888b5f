#!/usr/bin/env bash
# Make the working branch of the kernel tree: the base commit plus a
# `git am` of every patch of outgoing/, in order.
#
# The patches are applied in a scratch worktree, so a patch that does not
# apply leaves the base, the working branch and the checked-out files as
# they were.  When the branch already holds exactly outgoing/, nothing is
# done (and no file is touched, so builds stay incremental).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [--force]"
	echo "  --force  replace the working branch even if it has commits that"
	echo "           were never regenerated into outgoing/"
}
force=0
case "${1:-}" in
"") ;;
--force) force=1 ;;
-h|--help) usage; exit 0 ;;
*) usage >&2; exit 2 ;;
esac
require_tree
tree_clean || die "the kernel tree $KSRC has uncommitted changes; commit or stash them first"

mapfile -t patches < <(series_patches)
base=$(kgit rev-parse --verify "$BASE_TAG^{commit}")
fingerprint=$(series_fingerprint)

cur=$(kgit rev-parse -q --verify "refs/heads/$WORK_BRANCH" || true)
applied_tip=$(kgit config --get "branch.$WORK_BRANCH.sysdevtip" || true)
if [ -n "$cur" ] && [ "$(kgit config --get "branch.$WORK_BRANCH.sysdevapplied" || true)" = "$fingerprint" ] &&
   [ "$cur" = "$applied_tip" ]; then
	kgit checkout -q "$WORK_BRANCH"
	echo "apply-series: $WORK_BRANCH already holds outgoing/ (${#patches[@]} patches), $(kgit rev-parse --short=12 HEAD)"
	exit 0
fi
if [ -n "$cur" ] && [ "$cur" != "$base" ] && [ "$cur" != "$applied_tip" ] && [ $force -eq 0 ]; then
	die "$WORK_BRANCH ($(kgit rev-parse --short=12 "$cur")) has commits that are not in outgoing/; run scripts/regen-series.sh to keep them, or --force to drop them"
fi

wt=$SYSDEV_CACHE/apply-worktree
kgit worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
kgit worktree prune
cleanup() { kgit worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"; kgit worktree prune; }
trap cleanup EXIT
# A sparse worktree holding only the files the patches touch: much faster
# than checking out the whole tree.
kgit worktree add -q --no-checkout --detach "$wt" "$base"
sed -n 's|^diff --git a/\(.*\) b/\(.*\)$|/\1\n/\2|p' "${patches[@]}" /dev/null | sort -u > "$wt.paths"
git -C "$wt" sparse-checkout set --no-cone --stdin < "$wt.paths"
git -C "$wt" read-tree -mu HEAD
rm -f "$wt.paths"

for p in "${patches[@]}"; do
	# Committer = author, at the author's date: the same patches give the
	# same commit ids on every machine.
	if ! out=$(GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null \
		   GIT_COMMITTER_NAME="$SERIES_NAME" GIT_COMMITTER_EMAIL="$SERIES_EMAIL" \
		   git -C "$wt" am --quiet --committer-date-is-author-date "$p" 2>&1); then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		echo "apply-series: error: ${p#"$TOP"/} does not apply on $BASE_TAG + the patches before it:" >&2
		echo "$out" | grep -Ev "^hint:|When you have resolved|If you prefer to skip|To restore the original branch" | sed "s/^/  /" >&2
		echo "apply-series: nothing changed: $WORK_BRANCH and the base are as they were" >&2
		exit 1
	fi
done
tip=$(git -C "$wt" rev-parse HEAD)
cleanup
trap - EXIT

# Only files that differ between the old and the new tip are rewritten.
kgit checkout -q -B "$WORK_BRANCH" "$tip"
kgit config "branch.$WORK_BRANCH.sysdevapplied" "$fingerprint"
kgit config "branch.$WORK_BRANCH.sysdevtip" "$tip"
[ -n "$cur" ] && [ "$cur" != "$tip" ] && note "previous $WORK_BRANCH was $(kgit rev-parse --short=12 "$cur")"
echo "apply-series: $WORK_BRANCH = $BASE_TAG + ${#patches[@]} patches, $(kgit rev-parse --short=12 "$tip")"
