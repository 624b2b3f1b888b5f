#!/usr/bin/env bash
# Run the GitLab pipeline of ci/gitlab-ci.yml on this machine under
# gitlab-ci-local, as a farm of one runner: the plan job, then the child
# pipeline's jobs one after another in the pipeline's order (the merge
# last), each job in a clean environment with a cache directory of its
# own that starts empty; after a job, only what its GitLab cache carries
# is kept (ccache, the gate's passes, the suite's verdicts, the docs
# build's warnings, the tools; the job's cache: paths).  A job one of
# whose needs failed is skipped, as GitLab skips it.
# The pipeline runs the committed HEAD, as a runner checks it out.  Prints
# the seconds of every job, the critical path and the runner time.
#
# gitlab-ci-local (pinned below) needs Node 22; both are installed with npm
# under $SYSDEV_CACHE/tools.  Jobs run on this host (its shell executor),
# so the host must have the packages the jobs install; they are not timed.
# gitlab-ci-local's shell executor sets CI_PROJECT_DIR to a container path
# shared by every job, so each job is given SYSDEV_CACHE explicitly.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

GCL_VERSION=4.75.1
NODE_PKG=node@22
TOOLS=$SYSDEV_CACHE/tools/gitlab-ci-local-$GCL_VERSION
ORIGIN=https://gitlab.example.com/sysdev/sysdev-series.git

usage() {
	cat <<USAGE
usage: ${0##*/} [-d DIR] [-a] [JOB...] | --check FILE... | --install
  JOB       a job of the child pipeline, or merge (default: every job);
            the jobs run in the pipeline's order, the merge always last
  -d DIR    the checkout, logs, times and the jobs' caches
            (default \$SYSDEV_CACHE/gitlab-local)
  -a        run again the jobs that passed for this commit (the re-run of
            an unchanged series on the jobs' caches)
  --check   hold each FILE to GitLab's schema, as gitlab-ci-local does,
            and require at least one job of it
  --install install Node 22 and gitlab-ci-local, nothing else
Exit status: 0 when every job run passed and the merge passed.
USAGE
}

# gcl_install: Node 22 and gitlab-ci-local under $TOOLS (once; locked
# against a concurrent install), first in PATH.
gcl_install() {
	local node
	mkdir -p "$(dirname "$TOOLS")"
	exec 8>"$TOOLS.lock"
	flock 8
	if ! [ -x "$TOOLS/bin/gitlab-ci-local" ] || ! [ -f "$TOOLS/node.path" ]; then
		command -v npm >/dev/null || apt_install npm
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
	exec 8>&-
	PATH=$(cat "$TOOLS/node.path"):$TOOLS/bin:$PATH
	export PATH
	[ "$(gitlab-ci-local --version 2>&1)" = "$GCL_VERSION" ] ||
		die "gitlab-ci-local under $TOOLS does not run (Node: $(node --version 2>&1))"
}

# check_files FILE...: each FILE held to GitLab's CI schema (gitlab-ci-local
# validates a file before it lists its jobs), in a scratch project; a file
# that lists no job fails too.
check_files() {
	local f rc=0 names
	CHECK_DIR=$(mktemp -d)
	trap 'rm -rf "$CHECK_DIR"' EXIT
	git -C "$CHECK_DIR" init -q
	git -C "$CHECK_DIR" -c user.name=check -c user.email=check@localhost commit -q --allow-empty -m check
	git -C "$CHECK_DIR" remote add origin "$ORIGIN"
	git -C "$CHECK_DIR" update-ref refs/remotes/origin/main HEAD
	git -C "$CHECK_DIR" symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
	for f; do
		[ -f "$f" ] || { echo "$f: no such file"; rc=1; continue; }
		cp "$f" "$CHECK_DIR/check.yml"
		if ! (cd "$CHECK_DIR" && gitlab-ci-local --file check.yml --list-json) \
			> "$CHECK_DIR/jobs" 2> "$CHECK_DIR/err"; then
			grep -v '^[[:space:]]*$' "$CHECK_DIR/err" | tail -n 12 || true
			echo "$f: not valid"
			rc=1
			continue
		fi
		names=$(python3 -c 'import json, sys
print(" ".join(j["name"] for j in json.load(open(sys.argv[1]))))' "$CHECK_DIR/jobs") || names=
		if [ -z "$names" ]; then
			echo "$f: not valid: it has no job"
			rc=1
			continue
		fi
		echo "$f: valid, jobs: $names"
	done
	return "$rc"
}

dir=$SYSDEV_CACHE/gitlab-local again=
while [ $# -gt 0 ]; do
	case $1 in
	-d) [ $# -ge 2 ] || { usage >&2; exit 2; }
	    dir=$(realpath -m -- "$2"); shift 2 ;;
	-a) again=1; shift ;;
	--install) gcl_install; echo "gitlab-ci-local $GCL_VERSION, Node $(node --version): $TOOLS"; exit 0 ;;
	--check) shift
	    [ $# -gt 0 ] || { usage >&2; exit 2; }
	    gcl_install; check_files "$@"; exit ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
gcl_install
command -v rsync >/dev/null || apt_install rsync	# gitlab-ci-local copies the project with it

GCL=(gitlab-ci-local --force-shell-executor --shell-isolation --concurrency 1 --timestamps)
repo=$dir/repo times=$dir/times.tsv
mkdir -p "$dir/logs" "$dir/cache"
exec 9>"$dir/lock"
flock -n 9 || die "$dir is in use by another run"
trap 'exit 130' INT TERM
head=$(git -C "$TOP" rev-parse HEAD)
kpkg=$(kpkg_installed)
[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
	note "uncommitted changes are not in the pipeline: it runs HEAD ($head)"
if [ "$(cat "$dir/for" 2>/dev/null)" != "$head $kpkg" ]; then
	# a new commit or base: a new checkout, plan and times; the jobs'
	# caches stay, as GitLab keeps them from pipeline to pipeline
	rm -rf "$repo" "$dir/logs"/* "$times" "$dir/for"
	git clone -q --no-checkout "$TOP" "$repo"
	git -C "$repo" checkout -q --detach "$head"
	# gitlab-ci-local derives the project's path from a remote named origin
	git -C "$repo" remote set-url origin "$ORIGIN"
	echo "$head $kpkg" > "$dir/for"
fi
run=$(date +%s)

# trim DIR FILE JOB: only what JOB's GitLab cache carries (its cache: paths
# in FILE, under .sysdev-cache/; CACHED in ci/gatelib/pipeline.py) stays
# in DIR.  The plan job (ci/gitlab-ci.yml) has no cache.
trim() {
	local keep=() n paths=
	if [ "$2" != ci/gitlab-ci.yml ]; then
		paths=$(python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))[sys.argv[2]].get("cache", {}).get("paths", []):
    print(p.split("/", 1)[1])' "$repo/$2" "$3") || die "no cache paths of job $3 in $2"
	fi
	for n in $paths; do keep+=(! -name "$n"); done
	find "$1" -mindepth 1 -maxdepth 1 "${keep[@]}" -exec rm -rf {} +
}

# run_job FILE JOB: one job in a clean environment (as a runner starts it)
# with its own cache; "JOB STATUS SECONDS RUN" in $times.  A job that
# passed for this commit is not run again without -a, but for the merge
# and for a job that needs one run again here (cross after a build job).
ran_here=()
run_job() {
	local f=$1 j=$2 c=$dir/cache/$2 t0 rc=0
	if [ -z "$again" ] && [ "$j" != merge ] && grep -q "^$j"$'\t0\t' "$times" 2>/dev/null &&
		! { [ "$j" = cross ] && printf '%s\n' "${ran_here[@]}" | grep -q '^build-'; }; then
		echo "$j: passed before for $head"
		return 0
	fi
	sed -i "/^$j\t/d" "$times" 2>/dev/null || true
	mkdir -p "$c"
	trim "$c" "$f" "$j"
	t0=$(date +%s)
	echo "$(date +%T) $j"
	(cd "$repo" && env -i HOME="$HOME" PATH="$PATH" LANG=C.UTF-8 TERM=dumb \
		"${GCL[@]}" --file "$f" --variable SYSDEV_CACHE="$c" "$j") \
		> "$dir/logs/$j.log" 2>&1 || rc=$?
	printf '%s\t%s\t%s\t%s\n' "$j" "$rc" "$(($(date +%s) - t0))" "$run" >> "$times"
	ran_here+=("$j")
	trim "$c" "$f" "$j"
	[ "$rc" -lt 128 ] || die "job $j interrupted ($rc)"
	[ "$rc" -eq 0 ] || { tail -n 15 "$dir/logs/$j.log"; note "job $j failed ($rc): $dir/logs/$j.log"; }
	return "$rc"
}

run_job ci/gitlab-ci.yml plan || die "the plan job failed"
child=$repo/pipeline.yml
check_files "$child" > "$dir/logs/child-check.txt" ||
	{ cat "$dir/logs/child-check.txt"; die "gitlab-ci-local does not take the child pipeline"; }
# the child's jobs in its order, the merge apart
mapfile -t all < <(python3 -c 'import json, sys
print("\n".join(n for n in json.load(open(sys.argv[1])) if n not in ("stages", "merge")))' "$child")
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${all[@]}")
for j in "${want[@]}"; do
	[ "$j" = merge ] || printf '%s\n' "${all[@]}" | grep -qx -- "$j" ||
		die "no job $j in the child pipeline (${all[*]} merge)"
done
# failed_needs JOB: the jobs JOB needs whose last run here failed or was
# skipped.  GitLab starts no job one of whose needs failed: it is
# skipped, and the merge (when: always) judges without it.
failed_needs() {
	python3 -c 'import json, os, sys
rc = dict(l.split("\t")[:2] for l in open(sys.argv[3]).read().splitlines()) \
    if os.path.exists(sys.argv[3]) else {}
print(" ".join(d["job"] for d in json.load(open(sys.argv[1]))[sys.argv[2]].get("needs", [])
               if rc.get(d["job"], "0") != "0"))' "$child" "$1" "$times"
}
failed=0
for j in "${all[@]}"; do
	printf '%s\n' "${want[@]}" | grep -qx -- "$j" || continue
	bad=$(failed_needs "$j") || die "no needs of job $j in $child"
	if [ -n "$bad" ]; then
		echo "$j: skipped, as GitLab skips it: the jobs it needs failed: $bad"
		sed -i "/^$j\t/d" "$times"
		printf '%s\t%s\t0\t%s\n' "$j" skipped "$run" >> "$times"
		rm -rf "$repo/.gitlab-ci-local/artifacts/$j"	# none of an earlier run
		failed=1
		continue
	fi
	run_job pipeline.yml "$j" || failed=1
done
# the merge fails by itself on a job that has no results
run_job pipeline.yml merge || failed=1

# The times: each job's, and when every job has one, the critical path
# (the longest chain of needs: from pipeline.yml) and the runner time.
python3 - "$times" "$child" "$run" <<'EOF'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    name, rc, secs, run = line.rstrip("\n").split("\t")
    rows[name] = (rc, int(secs), run)
jobs = {n: j for n, j in json.load(open(sys.argv[2])).items() if n != "stages"}
print("job\tstatus\tseconds\t")
for n in ["plan"] + list(jobs):
    if n in rows:
        rc, secs, run = rows[n]
        print("%s\t%s\t%d\t%s" % (n, {"0": "pass", "skipped": "skipped"}.get(rc, "FAIL"), secs,
                                 "" if run == sys.argv[3] else "(an earlier run)"))
    else:
        print("%s\t-\t-\tnot run" % n)
missing = [n for n in ["plan"] + list(jobs) if n not in rows]
if missing:
    print("no critical path or runner time: %s not run" % ", ".join(missing))
    sys.exit(0)
memo = {}
def chain(n):    # seconds of the longest chain of needs that ends with n
    if n not in memo:
        memo[n] = rows[n][1] + max([chain(d["job"]) for d in jobs[n].get("needs", [])] or [0])
    return memo[n]
runs = {r[2] for r in rows.values()}
print("critical path (the plan, then the longest chain of needs, the merge last): %d s"
      % (rows["plan"][1] + max(chain(n) for n in jobs)))
print("runner time (every job): %d s" % sum(r[1] for r in rows.values()))
if len(runs) > 1:
    print("(the rows come from %d runs of this script)" % len(runs))
if any(r[0] not in ("0", "skipped") for r in rows.values()):
    print("(some jobs failed: their times are those of a failure)")
if any(r[0] == "skipped" for r in rows.values()):
    print("(some jobs were skipped, as GitLab skips them: 0 s each)")
EOF
grep -o '[0-9]* passed, [0-9]* failed' "$dir/logs/merge.log" | tail -n 1 || true
exit "$failed"
