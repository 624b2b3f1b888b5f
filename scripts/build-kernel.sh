#!/usr/bin/env bash
# Configure and build one kernel configuration of the kernel tree,
# incrementally, with ccache, in its own object directory.
#
# A configuration NAME is a fragment file, qemu/NAME.config or
# ci/configs/NAME.config, applied on top of tinyconfig.  A fragment may
# start with "# arch: i386", "# include: OTHER" and "# llvm: 1" (build
# with clang and the LLVM tools, LLVM=1) lines.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [-q] NAME [make targets and variables...]"
	echo "  builds \$BUILD_ROOT/NAME (default target bzImage); -q: only the summary"
}
quiet=0
[ "${1:-}" = "-q" ] && { quiet=1; shift; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h|--help) usage; exit 0 ;; esac
name=$1; shift
require_tree

fragment_of() {
	local f
	for f in "$TOP/qemu/$1.config" "$TOP/ci/configs/$1.config"; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	die "no fragment for configuration '$1' (qemu/$1.config or ci/configs/$1.config)"
}

# Collect the fragment chain (includes first) and the architecture.
frags=()
arch=x86_64
llvm=0
collect() {
	local f inc a
	f=$(fragment_of "$1")
	inc=$(sed -n 's/^# include: *//p' "$f")
	for a in $inc; do collect "$a"; done
	a=$(sed -n 's/^# arch: *//p' "$f")
	[ -z "$a" ] || arch=$a
	grep -qx "# llvm: 1" "$f" && llvm=1
	frags+=("$f")
}
collect "$name"

obj=$BUILD_ROOT/$name
mkdir -p "$obj" "$CCACHE_DIR"
# Reproducible version strings keep init/version.o and ccache stable, and
# the image of a relink byte for byte the same (the build number "#N"
# would count every link): the kept verdicts of ci/tests/lib.sh are keyed
# on the images.
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
export KBUILD_BUILD_USER=sysdev KBUILD_BUILD_HOST=workbench
export KBUILD_BUILD_VERSION=1
# Paths are hashed relative to the cache directory: the base tree
# (base/linux, base/build/NAME) and the series tree (linux, build/NAME) share
# their ccache entries.
export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$SYSDEV_CACHE"
if [ $llvm -eq 1 ]; then
	mk=(make -C "$KSRC" O="$obj" ARCH="$arch" LLVM=1 CC="ccache clang" HOSTCC="ccache clang" -j"$JOBS" W=1)
else
	mk=(make -C "$KSRC" O="$obj" ARCH="$arch" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" W=1)
fi

# Write .config from tinyconfig + fragments, every time: after a checkout a
# symbol may have appeared or gone, and olddefconfig would give a new one
# its default instead of the fragment's value.  Kconfig only touches the
# per-symbol dependency files of symbols whose value changes, so this is
# cheap when nothing changed.
allcfg=$obj/sysdev.allconfig
{
	cat "$KSRC/kernel/configs/tiny-base.config" "$KSRC/kernel/configs/tiny.config"
	[ -f "$KSRC/arch/x86/configs/tiny.config" ] && cat "$KSRC/arch/x86/configs/tiny.config"
	cat "${frags[@]}"
} > "$allcfg"
"${mk[@]}" -s KCONFIG_ALLCONFIG="$allcfg" allnoconfig >/dev/null 2>"$obj/kconfig.log" ||
	{ cat "$obj/kconfig.log" >&2; die "$name: kconfig failed"; }

# Every option of the fragments must have its value (the last fragment that
# names a symbol wins), unless the symbol does not exist in this tree (a
# later patch of the series may add it).
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) sym=${line%%=*}; want=$line ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want=$line ;;
	*) continue ;;
	esac
	grep -qxF -- "$want" "$obj/.config" && continue
	case "$want" in "# $sym is not set"|"$sym=n")
		grep -q "^$sym=" "$obj/.config" || continue ;;
	esac
	if ! git -C "$KSRC" grep -qE "^[[:space:]]*(menu)?config[[:space:]]+${sym#CONFIG_}\$" -- '*Kconfig*'; then
		continue
	fi
	have=$(grep -E "^($sym=|# $sym is not set)" "$obj/.config" || echo "$sym undefined (dependencies not met)")
	echo "${0##*/}: $name: fragment wants '$want', .config has '$have'" >&2
	bad=1
done < <(cat "${frags[@]}" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s); v[s] = $0; if (!(s in o)) { o[s] = n++; k[o[s]] = s } }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { s = $2; v[s] = $0; if (!(s in o)) { o[s] = n++; k[o[s]] = s } }
	END { for (i = 0; i < n; i++) print v[k[i]] }')
[ $bad -eq 0 ] || die "$name: configuration does not match its fragments"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(bzImage)
log=$obj/build.log
start=$(date +%s)
if [ $quiet -eq 1 ]; then
	"${mk[@]}" "${targets[@]}" >"$log" 2>&1 || { tail -n 40 "$log" >&2; die "$name: build failed (log: $log)"; }
else
	"${mk[@]}" "${targets[@]}" 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || die "$name: build failed (log: $log)"
fi
echo "build-kernel: $name ($arch) built in $(( $(date +%s) - start ))s: $obj"
