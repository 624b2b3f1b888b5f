# The kernel's own documentation build of Documentation/driver-api
# (Sphinx, "make SPHINXDIRS=driver-api htmldocs"), where the last patch
# adds sysdev.rst and its kernel-doc directives: unpatched 6.12 and the
# series head, compared warning by warning.  Sourced by run-tests.sh.
#
#   docs_judges    the judge on fixtures: a new warning, a warning moved
#                  to another line (not new), a warning the base has once
#                  given twice, an API reference missing
#   docs_htmldocs  both builds, then the judge: no warning the base does
#                  not have (file and message; line numbers left out, as
#                  the series moves lines of files it touches), and the
#                  rendered sysdev.html holds the reference of every
#                  function and structure its kernel-doc directives name
#
# A Sphinx build hides the warnings of what it does not rebuild, so each
# build starts from an empty output directory (4-5 minutes on 2 cores);
# the lines of its log that DOCS_RAW matches and the references it
# rendered are kept in the cache under a key of everything that can
# change them (docs_key_inputs): the tree's commit, the versions of the
# packages the build runs, the make command (its locale pinned), DOCS_RAW,
# the page read and how a log's warnings are read (docs_warnings).  The
# judging is done on every run.  The unpatched tree's warnings are a
# reference (ci/references/docs_base, `make references`): while its key
# is this machine's, the base is not built.

ALL_TESTS+=(docs_judges docs_htmldocs)
ALL_REFERENCES+=(docs_base)

# 6.12's htmldocs first writes the netlink specs' pages with
# tools/net/ynl/ynl-gen-rst.py, which imports yaml, whatever SPHINXDIRS
# selects.
DOCS_PKGS=(python3-sphinx python3-sphinx-rtd-theme python3-yaml)
# and what else the build runs (kernel-doc is Perl; without graphviz a
# warning says dot(1) is missing), in the key
DOCS_KEY_PKGS=(python3 python3-docutils python3-jinja2 python3-pygments perl graphviz)
# (Sphinx's messages are translated after the locale)
DOCS_MAKE="env -u LANGUAGE LC_ALL=C.UTF-8 make SPHINXDIRS=driver-api htmldocs"
DOCS_RAW='warning|error|critical|severe'
DOCS_FIXTURES=$TOP/ci/tests/fixtures/docs
DOCS_CACHE=$SYSDEV_CACHE/docs-cache
# Where the build writes sysdev.rst's page (it sits with the driver model).
DOCS_HTML=Documentation/output/driver-api/driver-model/sysdev.html
# The references sysdev.rst must render, as Sphinx's C domain names them:
# the two structures of include/linux/sysdev.h (all of its kernel-doc) and
# the functions its directive on drivers/base/sysdev.c names.
DOCS_IDS="c.sysdev_class c.sysdev_driver
c.sysdev_class_register c.sysdev_class_unregister c.sysdev_class_register_single
c.sysdev_driver_register c.sysdev_driver_unregister
c.sys_device_register c.sys_device_unregister"

# docs_warnings LOG TREE: the warnings of a build log, "FILE: MESSAGE",
# paths relative to TREE, every ":LINE" left out (the series moves lines
# of the files it touches), sorted, each as often as it occurs: a second
# warning of a kind the base has once is a new one.
docs_warnings() {
	grep -aiE "$DOCS_RAW" "$1" | sed -E "s|$2/||g; s/:[0-9]+//g" | LC_ALL=C sort || true
}

# docs_key_inputs COMMIT: what decides the build of a tree at COMMIT and
# the warnings read from it.
docs_key_inputs() {
	local p
	echo "$1"
	for p in "${DOCS_PKGS[@]}" "${DOCS_KEY_PKGS[@]}"; do
		printf '%s\t%s\n' "$p" "$(pkg_version "$p")"
	done
	echo "$DOCS_MAKE"
	echo "$DOCS_RAW"
	echo "$DOCS_HTML"
	declare -f docs_warnings
}

# docs_key TREE: the cache key of TREE's build.
docs_key() {
	docs_key_inputs "$(git -C "$1" rev-parse HEAD)" | sha256sum | cut -c1-16
}

# The reference docs_base (ci/tests/lib.sh): the base's warnings.
ref_pkgs_docs_base() { echo "${DOCS_PKGS[@]}"; }
ref_inputs_docs_base() {
	docs_key_inputs "$(kgit rev-parse "$BASE_TAG^{commit}")"
}
ref_write_docs_base() {
	local key
	key=$(docs_run base "$BASE_KSRC" "$BASE_BUILD_ROOT/docs") || return 1
	[ -f "$DOCS_CACHE/$key.log" ] || { echo "docs: no log $DOCS_CACHE/$key.log" >&2; return 1; }
	docs_warnings "$DOCS_CACHE/$key.log" "$BASE_KSRC"
}

# docs_run NAME TREE OBJDIR: a fresh build of TREE unless cached: its log's
# lines that DOCS_RAW matches, as $DOCS_CACHE/KEY.log (paths as in TREE),
# and the references sysdev.html renders, as KEY.ids; the key on stdout.
docs_run() {
	local name=$1 tree=$2 obj=$3 key log s=$SECONDS
	key=$(docs_key "$tree")
	if [ -f "$DOCS_CACHE/$key.ids" ]; then
		echo "docs: $name: cached ($key)" >&2
		echo "$key"
		return 0
	fi
	rm -rf "$obj" && mkdir -p "$obj" "$DOCS_CACHE"
	log=$TLOG/docs_$name.log
	if ! $DOCS_MAKE -C "$tree" O="$obj" > "$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "FAIL: docs: make htmldocs of $name failed (log: $log)" >&2
		return 1
	fi
	grep -aiE "$DOCS_RAW" "$log" > "$DOCS_CACHE/$key.log" || true
	{ grep -o 'id="c\.[a-z_0-9]*"' "$obj/$DOCS_HTML" 2>/dev/null || true; } |
		sed 's/^id="//; s/"$//' | sort -u > "$DOCS_CACHE/$key.ids.tmp"
	mv "$DOCS_CACHE/$key.ids.tmp" "$DOCS_CACHE/$key.ids"
	echo "docs: $name: built in $((SECONDS - s))s" >&2
	echo "$key"
}

# docs_judge BASE_WARNINGS HEAD_WARNINGS HEAD_IDS
docs_judge() {
	local new id missing=()
	new=$(LC_ALL=C comm -13 "$1" "$2")
	if [ -n "$new" ]; then
		echo "FAIL: documentation warnings the unpatched tree does not have:"
		echo "$new" | head -n 10
		return 1
	fi
	for id in $DOCS_IDS; do
		grep -qx "$id" "$3" || missing+=("$id")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "FAIL: sysdev.html lacks the rendered reference of: ${missing[*]}"
		return 1
	fi
	echo "docs: no new warning ($(wc -l < "$2") at the head, $(wc -l < "$1") in $BASE_VERSION), $(echo $DOCS_IDS | wc -w) references rendered"
}

test_docs_judges() {
	local f=$DOCS_FIXTURES tmp
	tmp=$(mktemp -d)
	docs_judge "$f/base.warnings" "$f/head.warnings" "$f/head.ids" > /dev/null ||
		fail "docs: the good fixture was rejected"
	{ cat "$f/head.warnings"; echo "drivers/base/sysdev.c: warning: Function parameter or struct member 'cls' not described in 'sysdev_class_register'"; } |
		LC_ALL=C sort > "$tmp/new"
	expect_fail docs_new_warning "sysdev.c: warning: Function parameter or struct member 'cls'" \
		docs_judge "$f/base.warnings" "$tmp/new" "$f/head.ids"
	printf '%s\n' "$TOP/drivers/base/core.c:2057: warning: Excess function parameter 'con' description in '__fw_devlink_relax_cycles'" > "$tmp/moved.log"
	[ "$(docs_warnings "$tmp/moved.log" "$TOP")" = "drivers/base/core.c: warning: Excess function parameter 'con' description in '__fw_devlink_relax_cycles'" ] ||
		fail "docs: docs_warnings kept the line number or the tree's path"
	grep -v '^c.sys_device_register$' "$f/head.ids" > "$tmp/ids"
	expect_fail docs_missing_id "lacks the rendered reference of: c.sys_device_register" \
		docs_judge "$f/base.warnings" "$f/head.warnings" "$tmp/ids"
	# a warning the base has, given more often at the head: new (twice
	# more, in case the head's fixture lacks it)
	{ cat "$f/head.warnings"; head -n 1 "$f/base.warnings"; head -n 1 "$f/base.warnings"; } |
		LC_ALL=C sort > "$tmp/twice"
	expect_fail docs_repeated_warning "warnings the unpatched tree does not have" \
		docs_judge "$f/base.warnings" "$tmp/twice" "$f/head.ids"
	printf '%s\n%s\n' "$TOP/a.c:1: warning: x" "$TOP/a.c:2: warning: x" > "$tmp/two.log"
	[ "$(docs_warnings "$tmp/two.log" "$TOP" | wc -l)" = 2 ] ||
		fail "docs: docs_warnings counted a warning given twice once"
	rm -rf "$tmp"
}

test_docs_htmldocs() {
	local hkey
	test_pkgs "${DOCS_PKGS[@]}"
	bash "$TOP/scripts/prepare-tree.sh"
	if ref_current docs_base; then
		echo "docs: base: the reference ci/references/docs_base, of $(head -n 1 "$REFS/docs_base.key")"
		cp "$REFS/docs_base" "$TLOG/docs_base.warnings"
	else
		echo "docs: base: ci/references/docs_base is not of this base and these tools: built"
		bash "$TOP/scripts/prepare-tree.sh" --base
		ref_write_docs_base > "$TLOG/docs_base.warnings" || return 1
	fi
	rel_head
	hkey=$(docs_run head "$KSRC" "$BUILD_ROOT/docs") || return 1
	docs_warnings "$DOCS_CACHE/$hkey.log" "$KSRC" > "$TLOG/docs_head.warnings"
	docs_judge "$TLOG/docs_base.warnings" "$TLOG/docs_head.warnings" "$DOCS_CACHE/$hkey.ids"
}
