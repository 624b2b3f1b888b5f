#!/usr/bin/env bash
# Unpack Debian's linux-source package (KPKG in lib.sh) into the cache (outside this repository)
# and make it a git repository with a deterministic base commit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [--base]   (env: SYSDEV_CACHE, KSRC, KTARBALL)"
	echo "  --base  also check out the unpatched base as a worktree ($BASE_KSRC)"
}
want_base=0
case "${1:-}" in
"") ;;
--base) want_base=1 ;;
-h|--help) usage; exit 0 ;;
*) usage >&2; exit 2 ;;
esac

base_worktree() {
	[ $want_base -eq 1 ] || return 0
	if [ -e "$BASE_KSRC/.git" ]; then
		git -C "$BASE_KSRC" checkout -q --detach "$BASE_TAG"
	else
		kgit worktree prune
		mkdir -p "$(dirname "$BASE_KSRC")"
		kgit worktree add -q --detach "$BASE_KSRC" "$BASE_TAG"
	fi
	echo "prepare-tree: base worktree $BASE_KSRC at $BASE_TAG"
}

[ -r "$KTARBALL" ] || die "$KTARBALL missing; run scripts/install-deps.sh"
pkgver=$(dpkg-query -W -f='${Version}' "$KPKG" 2>/dev/null || echo unknown)

if [ -d "$KSRC/.git" ] && kgit rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null; then
	have=$(cat "$KSRC/.git/sysdev-debian-version" 2>/dev/null || echo unknown)
	[ "$have" = "$pkgver" ] ||
		note "warning: tree made from $KPKG $have, installed is $pkgver (remove $KSRC to remake it)"
	echo "prepare-tree: $KSRC ready at $BASE_TAG $(kgit rev-parse --short=12 "$BASE_TAG") ($KPKG $have)"
	base_worktree
	exit 0
fi

[ ! -e "$KSRC" ] || die "$KSRC exists but is not a prepared tree; remove it first"
mkdir -p "$(dirname "$KSRC")"
tmp=$(mktemp -d "$(dirname "$KSRC")/.unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

note "unpacking $KTARBALL ($KPKG $pkgver)"
tar -C "$tmp" -xf "$KTARBALL"
src="$tmp/$(basename "$KTARBALL" .tar.xz)"
[ -f "$src/Makefile" ] || die "unexpected layout in $KTARBALL"
kver=$(make -s -C "$src" kernelversion)

git -C "$src" init -q -b "$WORK_BRANCH"
# Take every file of the tarball, even those a .gitignore would skip, so
# the base tree is exactly the package's content.
git -C "$src" add -f -A .
export GIT_AUTHOR_NAME="$BASE_IDENT_NAME" GIT_AUTHOR_EMAIL="$BASE_IDENT_EMAIL"
export GIT_COMMITTER_NAME="$BASE_IDENT_NAME" GIT_COMMITTER_EMAIL="$BASE_IDENT_EMAIL"
export GIT_AUTHOR_DATE="$BASE_DATE" GIT_COMMITTER_DATE="$BASE_DATE"
git -C "$src" commit -q --no-verify --no-gpg-sign \
	-m "Linux $kver" -m "Imported from Debian's $KPKG package, version $pkgver."
git -C "$src" tag "$BASE_TAG"
git -C "$src" branch -q base
echo "$pkgver" > "$src/.git/sysdev-debian-version"
echo "$kver" > "$src/.git/sysdev-kernel-version"
mv "$src" "$KSRC"
echo "prepare-tree: $KSRC ready at $BASE_TAG $(kgit rev-parse --short=12 "$BASE_TAG") (Linux $kver, $KPKG $pkgver)"
base_worktree
