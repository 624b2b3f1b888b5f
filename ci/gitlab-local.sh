#!/usr/bin/env bash
# Run the GitLab pipeline of ci/gitlab-ci.yml on this machine under
# gitlab-ci-local, as a farm of one runner: the plan job, then the child
# pipeline's jobs one after another (the merge last), each job with a cold
# cache of its own, of which only what its GitLab cache carries (ccache,
# the gate's passes, the suite's verdicts) is kept for the next run.  The
# pipeline runs the committed HEAD, as a runner checks it out.  Prints the
# seconds of every job, the critical path and the runner time; exits with
# the merge job's status.
#
# gitlab-ci-local (pinned below) needs Node 22; both are installed with npm
# under the cache.  Jobs run on this host (--force-shell-executor), so the
# host must have what the jobs install (run as root the first time).
# gitlab-ci-local's shell executor sets CI_PROJECT_DIR to a container path
# shared by every job, so each job is given SYSDEV_CACHE explicitly.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

GCL_VERSION=4.75.1
NODE_PKG=node@22
TOOLS=$SYSDEV_CACHE/tools/gitlab-ci-local-$GCL_VERSION

usage() {
	echo "usage: ${0##*/} [-d DIR] [-a] [--install | JOB...]"
	echo "  JOB: a job of the child pipeline, or merge (default: every job, the merge last)"
	echo "  -d DIR  the checkout, logs, times and the jobs' caches (default \$SYSDEV_CACHE/gitlab-local)"
	echo "  -a      run again the jobs that passed for this commit (a re-run on the jobs' caches)"
	echo "  --install  install Node 22 and gitlab-ci-local only"
	echo "  --check FILE...  only hold each FILE to GitLab's schema, as gitlab-ci-local does"
}

# gcl_install: Node 22 and gitlab-ci-local under $TOOLS; puts them first
# in PATH.
gcl_install() {
	local node
	if ! [ -x "$TOOLS/bin/gitlab-ci-local" ] || ! [ -f "$TOOLS/node.path" ]; then
		command -v npm >/dev/null || {
			[ "$(id -u)" -eq 0 ] || die "npm is missing: run as root to install it"
			apt-get update -qq
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
		}
		command -v rsync >/dev/null || {
			[ "$(id -u)" -eq 0 ] || die "rsync is missing: run as root to install it"
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rsync >/dev/null
		}
		rm -rf "$TOOLS"
		mkdir -p "$TOOLS"
		npm install --silent --prefix "$TOOLS/node" "$NODE_PKG" >/dev/null ||
			die "npm could not install $NODE_PKG"
		npm install --silent -g --prefix "$TOOLS" "gitlab-ci-local@$GCL_VERSION" >/dev/null ||
			die "npm could not install gitlab-ci-local@$GCL_VERSION"
		node=$(find "$TOOLS/node" -path '*/bin/node' -type f -perm -u+x | head -n 1)
		[ -n "$node" ] || die "$NODE_PKG installed no node binary"
		dirname "$node" > "$TOOLS/node.path"
	fi
	PATH=$(cat "$TOOLS/node.path"):$TOOLS/bin:$PATH
	export PATH
	gitlab-ci-local --version | grep -qx "$GCL_VERSION" ||
		die "gitlab-ci-local under $TOOLS does not run (Node: $(node --version 2>&1))"
}

# check_files FILE...: each FILE held to GitLab's CI schema (gitlab-ci-local
# validates before it lists the jobs), in a scratch project of its own.
check_files() {
	local t f rc=0
	t=$(mktemp -d)
	git -C "$t" init -q
	git -C "$t" remote add origin https://gitlab.example.com/sysdev/sysdev-series.git
	for f; do
		[ -f "$f" ] || die "$f: no such file"
		cp "$f" "$t/check.yml"
		if (cd "$t" && gitlab-ci-local --file check.yml --list) > "$t/out" 2>&1; then
			echo "$f: valid"
		else
			sed -n '/Invalid\|rror/,$p' "$t/out" | head -n 8
			echo "$f: not valid"
			rc=1
		fi
	done
	rm -rf "$t"
	return "$rc"
}

dir=$SYSDEV_CACHE/gitlab-local again=
while [ $# -gt 0 ]; do
	case $1 in
	-d) dir=$2; shift 2 ;;
	-a) again=1; shift ;;
	--install) gcl_install; echo "gitlab-ci-local $GCL_VERSION, Node $(node --version): $TOOLS"; exit 0 ;;
	--check) shift; gcl_install; check_files "$@"; exit ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
gcl_install
command -v rsync >/dev/null || die "rsync is missing (gitlab-ci-local copies the project with it)"

GCL=(gitlab-ci-local --force-shell-executor --shell-isolation --concurrency 1)
repo=$dir/repo times=$dir/times.tsv
mkdir -p "$dir/logs" "$dir/cache"
head=$(git -C "$TOP" rev-parse HEAD)
[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
	note "uncommitted changes are not in the pipeline: it runs HEAD ($head)"
if ! [ -d "$repo/.git" ] || [ "$(git -C "$repo" rev-parse HEAD)" != "$head" ]; then
	# a new commit: a new checkout, a new plan and new times; the jobs'
	# caches stay, as GitLab keeps them from pipeline to pipeline
	rm -rf "$repo" "$dir/logs"/* "$times"
	git clone -q --no-checkout "$TOP" "$repo"
	git -C "$repo" checkout -q --detach "$head"
	# gitlab-ci-local derives the project's path from a remote named origin
	git -C "$repo" remote set-url origin https://gitlab.example.com/sysdev/sysdev-series.git
fi

# run_job FILE JOB: one job with its own cache; "JOB STATUS SECONDS" in
# $times.  A job that already passed for this commit is not run again.
run_job() {
	local f=$1 j=$2 c=$dir/cache/$2 t0 rc=0
	if [ -z "$again" ] && grep -q "^$j"$'\t0\t' "$times" 2>/dev/null; then
		echo "$j: passed before for $head"
		return 0
	fi
	sed -i "/^$j\t/d" "$times" 2>/dev/null || true
	mkdir -p "$c"
	t0=$(date +%s)
	echo "$(date +%T) $j"
	(cd "$repo" && "${GCL[@]}" --file "$f" --variable SYSDEV_CACHE="$c" "$j") \
		> "$dir/logs/$j.log" 2>&1 || rc=$?
	printf '%s\t%s\t%s\n' "$j" "$rc" "$(($(date +%s) - t0))" >> "$times"
	# keep only what the job's GitLab cache carries
	find "$c" -mindepth 1 -maxdepth 1 ! -name ccache ! -name gate-cache ! -name verdicts \
		-exec rm -rf {} +
	[ "$rc" -eq 0 ] || { tail -n 15 "$dir/logs/$j.log"; note "job $j failed ($rc): $dir/logs/$j.log"; }
	return "$rc"
}

run_job ci/gitlab-ci.yml plan || die "the plan job failed"
(cd "$repo" && "${GCL[@]}" --file pipeline.yml --list) > "$dir/logs/child-list.txt" 2>&1 ||
	{ cat "$dir/logs/child-list.txt"; die "gitlab-ci-local does not take the child pipeline"; }
mapfile -t all < <(python3 -c 'import json, sys
print("\n".join(n for n in json.load(open(sys.argv[1])) if n not in ("stages", "merge")))' \
	"$repo/pipeline.yml")
[ $# -gt 0 ] || set -- "${all[@]}" merge
for j in "$@"; do
	[ "$j" = merge ] || printf '%s\n' "${all[@]}" | grep -qx -- "$j" ||
		die "no job $j in the child pipeline (${all[*]} merge)"
done
failed=0
for j in "$@"; do
	# the merge fails by itself on a job that has no results
	run_job pipeline.yml "$j" || failed=1
done

python3 - "$times" "${all[@]}" <<'EOF'
import sys
rows = {}
for line in open(sys.argv[1]):
    name, rc, secs = line.split("\t")
    rows[name] = (int(rc), int(secs))
jobs = sys.argv[2:]
print("job\tstatus\tseconds")
for n in ["plan"] + jobs + ["merge"]:
    if n in rows:
        print("%s\t%s\t%d" % (n, "pass" if rows[n][0] == 0 else "FAIL", rows[n][1]))
if all(n in rows for n in ["plan", "merge"] + jobs):
    builds = [n for n in jobs if n.startswith("build-")]
    longest = max(rows[n][1] + (max(rows[b][1] for b in builds) if n == "cross" else 0)
                  for n in jobs)
    print("critical path (plan, the longest chain of jobs, merge): %d s" %
          (rows["plan"][1] + longest + rows["merge"][1]))
    print("runner time (every job): %d s" % sum(r[1] for r in rows.values()))
EOF
grep -ho '[0-9]* passed, [0-9]* failed$' "$dir/logs/merge.log" 2>/dev/null | tail -n 1 || true
exit "$failed"
