"""The plan: the patches of the series, and the cells the gate runs over
them (--list-cells, --cell)."""

import collections
import json
import re
import subprocess
import sys

from .env import BASE_TAG, CONFIGS, E, OBJS_ONLY, OUTGOING, PATCH_CHECKS, TOP, WORK_BRANCH, git


class Patch:
    def __init__(self, idx, commit, parent, mail):
        self.idx = idx
        self.commit = commit
        self.parent = parent
        self.mail = mail
        self.name = mail.name
        self.num = "%04d" % idx
        out = git("diff", "--name-status", "--no-renames", parent, commit)
        self.touched, self.added = [], []
        for line in out.splitlines():
            status, path = line.split("\t", 1)
            if status != "D":
                self.touched.append(path)
            if status == "A":
                self.added.append(path)
        self.diff = git("diff", "--no-renames", parent, commit)

    def c_files(self):
        return [f for f in self.touched if f.endswith(".c")]

    def src_files(self):
        return [f for f in self.touched if f.endswith((".c", ".h"))]


def series_patches():
    """The patches of outgoing/ with their commits on the working branch."""
    mails = [m for m in sorted(OUTGOING.glob("*.patch"))
             if not re.match(r"^(v\d+-)?0000-", m.name)]
    commits = git("rev-list", "--reverse", "%s..%s" % (BASE_TAG, WORK_BRANCH)).split()
    if len(mails) != len(commits):
        sys.exit("gate: outgoing/ has %d patches, %s %d commits: run "
                 "scripts/apply-series.sh (or regen-series.sh)"
                 % (len(mails), WORK_BRANCH, len(commits)))
    out, parent = [], git("rev-parse", BASE_TAG + "^{commit}")
    for i, (c, m) in enumerate(zip(commits, mails), 1):
        out.append(Patch(i, c, parent, m))
        parent = c
    return out


def list_cells(configs, checks):
    """The cells of the whole series as data: ids "NNNN:CHECK[:CONFIG]"
    and "series".  A boot cell also gives the abi column of that boot."""
    commits = git("rev-list", "--reverse", "%s..%s" % (BASE_TAG, WORK_BRANCH)).split()
    cells = []
    for i in range(1, len(commits) + 1):
        for c in PATCH_CHECKS:
            if c in checks:
                cells.append("%04d:%s" % (i, c))
        if "build" in checks:
            cells += ["%04d:build:%s" % (i, n) for n in configs]
        for c in ("boot", "cross"):
            if c in checks:
                cells.append("%04d:%s" % (i, c))
    if "series" in checks:
        cells.append("series")
    return cells


def cell_args(a, cell):
    """Turn a cell id into the --only/--checks/--configs of one run."""
    parts = cell.split(":")
    if parts == ["series"]:
        a.only, a.checks = set(), ["series"]
        return
    if len(parts) not in (2, 3) or not parts[0].isdigit() or \
            parts[1] not in PATCH_CHECKS + ["build", "boot", "cross"] or \
            (parts[1] == "build") != (len(parts) == 3) or \
            (len(parts) == 3 and parts[2] not in CONFIGS):
        sys.exit("gate: bad cell id %r (see --list-cells)" % cell)
    a.only, a.checks = {int(parts[0])}, [parts[1]]
    # a build cell is one configuration; cross reads the native
    # configurations (--configs) to know what they built
    if len(parts) == 3:
        a.configs = [parts[2]]


# The columns of the series row (SeriesChecks.series_checks()).
SERIES_CHECKS = ["cover", "count", "maint-notes", "maintainers", "regen", "send-email"]


def expected_cells(rows, checks, configs):
    """Every (row, column) that a run of checks and configs over the
    patch rows ("0001", ...) gives a verdict on: pass, fail or n/a.  A
    boot gives the abi column too; the build of a configuration is one
    column of its own."""
    cells = []
    for row in rows:
        cells += [(row, c) for c in PATCH_CHECKS if c in checks]
        if "build" in checks:
            cells += [(row, "build:" + n) for n in configs]
        if "boot" in checks:
            cells += [(row, "boot"), (row, "abi")]
        if "cross" in checks:
            cells.append((row, "cross"))
    if "series" in checks:
        cells += [("series", c) for c in SERIES_CHECKS]
    return cells


def gate_jobs(configs=CONFIGS):
    """The gate as the pipeline runs it: a few jobs, each a serial gate
    run (ci/gate.sh --checks ... --configs ...) over every patch, so that
    each walks the series in one object directory as make test does.
    Returns [(name, checks, configs)]: every cell of the serial run is in
    exactly one job.  An OBJS_ONLY configuration runs in the job of the
    one it mirrors (it reads that object directory), or alone in a job of
    its own when configs leave its mirror out (that job builds the mirror
    at the last patch, as the serial run does); the boot job builds
    the x86_64 test kernel itself; the cross job reads the build jobs'
    native.json (--native-from), so it runs after them."""
    jobs = [("lint", PATCH_CHECKS + ["series"], [])]
    for n in configs:
        if n in OBJS_ONLY and OBJS_ONLY[n] in configs:
            continue
        jobs.append(("build-" + n, ["build"], [n] + [o for o, m in OBJS_ONLY.items()
                                                     if m == n and o in configs]))
    jobs.append(("boot", ["boot"], []))
    jobs.append(("cross", ["cross"], [n for n in configs if n not in OBJS_ONLY]))
    return jobs


# The suite's tests (ci/run-tests.sh --list) as the pipeline runs them: a
# test goes to the first job whose pattern matches its name.  The test
# "gate" is not among them: the gate jobs are its cells.  One job per
# kernel configuration the tests build, so that each is built once (the
# debug kernel for its boots and the kexec jump; the test kernel for the
# head's reliability boots and, from its ccache, the fallback's side
# tree).  One job of four kernels spent 25 minutes on the first two, cold.
# gate_pipeline has a job of its own: a runner has no test "gate" whose
# passes it could read, so it judges its serial slice there, cold.
SUITE_JOBS = [
    ("suite-debug", r"^reliability_(debug|kexec_jump)$"),
    ("suite-rt", r"^reliability_rt$"),
    ("suite-hotadd", r"^reliability_hotadd(_base)?$"),
    ("suite-nosysfs", r"^reliability_nosysfs$"),
    ("suite-docs", r"^(docs_htmldocs|references_current)$"),
    ("suite-reliability", r"^(reliability_|docs_)"),
    ("suite-documented", r"^documented_commands$"),
    ("suite-gate-pipeline", r"^gate_pipeline$"),
    ("suite-gate-selftests", r"^(gate_|maintainers_notes$)"),
    ("suite-workbench", r""),
]
# Jobs whose tests run the gate's own commands (the README's "ci/gate.sh
# --only 5"), which make test runs after the test "gate", on its passes:
# in the pipeline they start after the gate jobs, on the passes those
# hand on (ci/pipeline-job.sh suite --gate-passes).  Cold, they would
# judge whole patches again in every configuration.
AFTER_GATE = {"suite-documented"}


def suite_jobs(tests):
    """[(job, [test...])] of SUITE_JOBS, without empty jobs."""
    jobs = {name: [] for name, _ in SUITE_JOBS}
    for t in tests:
        if t == "gate":
            continue
        jobs[next(n for n, rx in SUITE_JOBS if re.search(rx, t))].append(t)
    return [(n, ts) for n, ts in jobs.items() if ts]


def kpkg_version():
    """"linux-source-6.12 6.12.118-1~deb12u1": the base's package as
    installed, which every job of a pipeline must have too."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}", E["KPKG"]],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return out.strip() or "%s not installed" % E["KPKG"]


def make_plan(only=None, tests=None, configs=CONFIGS):
    """The pipeline's plan: the base package, the series, every gate job
    with the cells it must give a verdict on, every suite job with its
    tests.  The merge holds the jobs' results to it."""
    patches = series_patches()
    rows = [p.num for p in patches if only is None or p.idx in only]
    if tests is None:
        tests = subprocess.run(["bash", str(TOP / "ci/run-tests.sh"), "--list"],
                               stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    jobs = [{"name": n, "checks": c, "configs": cf, "cells": expected_cells(rows, c, cf)}
            for n, c, cf in gate_jobs(configs)]
    # every cell of the serial run in exactly one job
    got = collections.Counter(tuple(c) for j in jobs for c in j["cells"])
    want = set(expected_cells(rows, PATCH_CHECKS + ["build", "boot", "cross", "series"], configs))
    wrong = {"lose": sorted(want - set(got)), "add": sorted(set(got) - want),
             "repeat": sorted(c for c, n in got.items() if n > 1)}
    if any(wrong.values()):
        sys.exit("gate: the plan's jobs " + "; ".join(
            "%s cells %s" % (k, v) for k, v in wrong.items() if v))
    return {
        "kpkg": kpkg_version(),
        "head": git("rev-parse", WORK_BRANCH),
        "patches": [p.name for p in patches if p.num in rows],
        "only": sorted(only) if only else None,
        "gate_jobs": jobs,
        "suite_jobs": [{"name": n, "tests": ts, "after_gate": n in AFTER_GATE}
                       for n, ts in suite_jobs(tests)],
    }


def read_plan(path):
    return json.loads(open(path).read())
