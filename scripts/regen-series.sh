#!/usr/bin/env bash
# Turn the working branch of the kernel tree back into outgoing/: numbered
# patches plus a cover letter made from cover-letter.txt.  Deterministic:
# the same commits give byte-identical files on every machine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [-v N]"
	echo "  -v N  reroll count: [PATCH vN ...] and vN- file names; cover-letter.txt"
	echo "        must then have a 'Changes in vN' section.  Default: the version"
	echo "        outgoing/ already has (1 for a new series)."
}
version=""
while getopts "v:h" opt; do
	case $opt in
	v) version=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
require_tree
tree_clean || die "the kernel tree $KSRC has uncommitted changes; commit them on $WORK_BRANCH first"
[ -f "$COVER" ] || die "${COVER#"$TOP"/} missing"

if [ -z "$version" ]; then
	version=1
	for f in "$OUTGOING"/v[0-9]*-0000-cover-letter.patch; do
		[ -e "$f" ] || continue
		f=${f##*/}; version=${f%%-*}; version=${version#v}
	done
fi
[[ "$version" =~ ^[1-9][0-9]*$ ]] || die "-v wants a positive number, not '$version'"

n=$(kgit rev-list --count "$BASE_TAG..$WORK_BRANCH")
[ "$n" -gt 0 ] || die "$WORK_BRANCH has no commits on top of $BASE_TAG"
[ "$(kgit rev-list --count --merges "$BASE_TAG..$WORK_BRANCH")" -eq 0 ] ||
	die "$WORK_BRANCH has merge commits; a patch series must be linear"

subject=$(sed -n '1p' "$COVER" | sed -E 's/^\[PATCH[^]]*\] *//')
[ -n "$subject" ] || die "${COVER#"$TOP"/}: the first line (the subject) is empty"
[ -z "$(sed -n '2p' "$COVER")" ] || die "${COVER#"$TOP"/}: line 2 must be empty (subject, blank line, body)"
if [ "$version" -gt 1 ] && ! grep -Eq "^Changes (in|since) v$((version - 1))|^Changes in v$version" "$COVER"; then
	die "${COVER#"$TOP"/}: a v$version series needs a 'Changes in v$version' (or 'Changes since v$((version - 1))') section"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vopt=()
[ "$version" -gt 1 ] && vopt=(--reroll-count="$version")
GIT_AUTHOR_NAME="$SERIES_NAME" GIT_AUTHOR_EMAIL="$SERIES_EMAIL" \
pgit -c core.abbrev=12 -c diff.renames=true -c diff.algorithm=myers \
	format-patch -q --numbered --cover-letter --zero-commit \
	--subject-prefix=PATCH "${vopt[@]}" --base="$BASE_TAG" --no-signature \
	--no-thread --no-attach --no-notes --encode-email-headers \
	-o "$tmp" "$BASE_TAG..$WORK_BRANCH"

cover=$(ls "$tmp"/*0000-cover-letter.patch)
lastdate=$(kgit log -1 --format=%aD "$WORK_BRANCH")
# Fill in the placeholders git leaves, and give the cover letter the date of
# the newest patch instead of "now".
python3 - "$cover" "$COVER" "$subject" "$lastdate" <<'PY'
import sys
path, coverfile, subject, date = sys.argv[1:]
body = open(coverfile, encoding="utf-8").read().split("\n", 2)[2].strip("\n")
text = open(path, encoding="utf-8").read()
for old, new in (("*** SUBJECT HERE ***", subject), ("*** BLURB HERE ***", body)):
    if text.count(old) != 1:
        sys.exit("regen-series: git's cover letter has no '%s' placeholder" % old)
    text = text.replace(old, new)
lines = text.split("\n")
for i, line in enumerate(lines):
    if line.startswith("Date: "):
        lines[i] = "Date: " + date
        break
    if line == "":
        sys.exit("regen-series: git's cover letter has no Date: header")
open(path, "w", encoding="utf-8").write("\n".join(lines))
PY

mkdir -p "$OUTGOING"
rm -f "$OUTGOING"/*.patch
mv "$tmp"/*.patch "$OUTGOING"/
kgit config "branch.$WORK_BRANCH.sysdevapplied" "$(series_fingerprint)"
kgit config "branch.$WORK_BRANCH.sysdevtip" "$(kgit rev-parse "$WORK_BRANCH")"
echo "regen-series: ${OUTGOING#"$TOP"/}/: cover letter + $n patches (v$version) from $WORK_BRANCH"
