"""The report of a run (report.md, results.tsv, the closing count) and the
merge of cells run apart into one report."""

import re
import shutil
import sys
from pathlib import Path

from .env import CONFIGS, PATCH_CHECKS


def num_of(name):
    """The patch number of a mail's file name: 0005 of 0005-x.patch and of
    v7-0005-x.patch (format-patch --reroll-count); the name itself if it
    has none (a row such as "series")."""
    m = re.match(r"^(?:v\d+-)?(\d{4})-", name)
    return m.group(1) if m else name


def write_report(results, names_in_order, logdir, secs, count=True):
    """report.md and results.tsv in logdir, the table on stdout, the
    closing count; exit status 1 if a cell failed.  count=False: return
    (passed, failed) instead of printing the count and exiting."""
    rows = [num_of(n) for n in names_in_order]
    cols = []
    for (r, c) in results:
        if r != "series" and c not in cols:
            cols.append(c)
    names = {num_of(n): n for n in names_in_order}
    md = ["# Gate report", "", "%d patches, %.0f s" % (len(rows), secs), "",
          "| patch | " + " | ".join(cols) + " |",
          "|---" * (len(cols) + 1) + "|"]
    for r in rows:
        cells = []
        for c in cols:
            s = results.get((r, c))
            cells.append("%s ([log](%s))" % (s[0], s[2].name) if s else "-")
        md.append("| %s | %s |" % (names[r], " | ".join(cells)))
    md += ["", "## Series", ""]
    for (r, c), (s, d, log) in results.items():
        if r == "series":
            md.append("- %s: %s: %s ([log](%s))" % (c, s, d, log.name))
    md += ["", "## Failures", ""]
    for (r, c), (s, d, log) in results.items():
        if s == "fail":
            md.append("- %s %s: %s (%s)" % (names.get(r, r), c, d, log))
    (logdir / "report.md").write_text("\n".join(md) + "\n")
    with (logdir / "results.tsv").open("w") as f:
        for (r, c), (s, d, log) in results.items():
            f.write("%s\t%s\t%s\t%s\t%s\n" % (names.get(r, r), c, s, d.replace("\t", " "), log))
    print()
    print("gate: %-8s %s" % ("patch", " ".join("%-9s" % c[:9] for c in cols)))
    for r in rows:
        print("gate: %-8s %s" % (r, " ".join(
            "%-9s" % results.get((r, c), ("-",))[0] for c in cols)))
    fails = [(r, c, d) for (r, c), (s, d, _) in results.items() if s == "fail"]
    for r, c, d in fails:
        print("gate: FAILED %s %s: %s" % (names.get(r, r), c, d))
    print("gate: report %s, %.0f s" % (logdir / "report.md", secs))
    npass = sum(1 for v in results.values() if v[0] == "pass")
    if not count:
        return npass, len(fails)
    print("%d passed, %d failed" % (npass, len(fails)))
    sys.exit(1 if fails else 0)


def read_results(d, problems):
    """The cells of a gate job's results.tsv: [(row, col, status, detail,
    log, name)].  A cell given twice is a problem."""
    f = d / "results.tsv"
    if not f.exists():
        return None
    cells, seen = [], set()
    for line in f.read_text().splitlines():
        name, col, status, detail, log = line.split("\t")
        row = "series" if name == "series" else num_of(name)
        if (row, col) in seen:
            problems.append("job %s: cell %s %s given twice" % (d.name, row, col))
        seen.add((row, col))
        cells.append((row, col, status, detail, log, name))
    return cells


def merge(out, dirs, plan=None):
    """Merge the results of jobs run apart into one report, as a serial
    run writes it.  Each DIR is a job's log directory: a gate job's
    (results.tsv) or, with a plan, a suite job's (suite.tsv).

    Without a plan: the cells of every results.tsv.  With the plan
    (plan.make_plan()): the directories are named after its jobs; every
    job of the plan is there, each gate job gave a verdict on exactly its
    cells and each suite job ran exactly its tests, once; anything
    missing, extra or twice is a failure (a job that needs every gate
    job, plan.AFTER_GATE, is not started by GitLab when one of them
    fails: its tests then count as failed, not run).  The count is then
    that of the whole make test: the gate's cells, the suite's tests, and
    the test "gate" itself (every gate job complete)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    dirs = [Path(d) for d in dirs]
    results, names, problems, where = {}, set(), [], {}
    gate_dirs = dirs
    if plan is not None:
        gate_jobs = {j["name"]: j for j in plan["gate_jobs"]}
        suite = {j["name"]: j for j in plan["suite_jobs"]}
        by_name = {}
        for d in dirs:
            if d.name in by_name:
                problems.append("job %s given twice (%s, %s)" % (d.name, by_name[d.name], d))
            elif d.name not in gate_jobs and d.name not in suite:
                problems.append("%s: no job %s in the plan" % (d, d.name))
            by_name.setdefault(d.name, d)
        for n in gate_jobs:
            if n not in by_name:
                problems.append("job %s: no results (it did not run or lost its artifacts)" % n)
        gate_dirs = [by_name[n] for n in gate_jobs if n in by_name]
    # a gate job that failed: a failed cell (below), or no verdicts at all
    gate_failed = plan is not None and len(gate_dirs) < len(plan["gate_jobs"])
    for d in gate_dirs:
        cells = read_results(d, problems)
        if cells is None:
            if plan is None:
                sys.exit("gate: %s has no results.tsv (a cell that did not finish)" % d)
            problems.append("job %s: no results.tsv (it did not finish)" % d.name)
            gate_failed = True
            continue
        if plan is not None:
            want = {tuple(c) for c in gate_jobs[d.name]["cells"]}
            got = {(r, c) for r, c, *_ in cells}
            for r, c in sorted(want - got):
                problems.append("job %s: no verdict on cell %s %s" % (d.name, r, c))
            for r, c in sorted(got - want):
                problems.append("job %s: cell %s %s is not in its plan" % (d.name, r, c))
        for row, col, status, detail, log, name in cells:
            if (row, col) in where:
                if where[(row, col)] != d.name:    # twice in one job: read_results()
                    problems.append("cell %s %s given by %s and %s"
                                    % (row, col, where[(row, col)], d.name))
                continue
            where[(row, col)] = d.name
            src = Path(log)
            if not src.exists():
                src = d / src.name
            dst = out / src.name
            if src.exists() and src.resolve() != dst.resolve():
                shutil.copyfile(src, dst)
            if name != "series":
                names.add(name)
            results[(row, col)] = (status, detail, dst)
    # the order of a serial run: patches, then columns as list_cells has them
    order = {c: i for i, c in enumerate(PATCH_CHECKS + ["build:" + n for n in CONFIGS]
                                         + ["boot", "abi", "cross"])}
    results = dict(sorted(results.items(), key=lambda kv: (
        kv[0][0] == "series", kv[0][0], order.get(kv[0][1], 99), kv[0][1])))
    if plan is None:
        if problems:
            sys.exit("gate: " + "\n".join(problems))
        write_report(results, sorted(names), out, 0)
    npass, nfail = write_report(results, sorted(names), out, 0, count=False)
    gate_problems = len(problems)
    # the suite's tests
    ran, not_run = {}, []
    gate_failed = gate_failed or nfail
    for j in plan["suite_jobs"]:
        d = by_name.get(j["name"])
        if d is None:
            # GitLab does not start a job whose needs failed: the tests
            # of one that needs the gate jobs did not run, and count as
            # failed; any other missing job is a hole in the plan
            if j.get("after_gate") and gate_failed:
                not_run += [(t, j["name"]) for t in j["tests"]]
            else:
                problems.append("job %s: no results (it did not run or lost its artifacts)"
                                % j["name"])
            continue
        f = d / "suite.tsv"
        if not f.exists():
            problems.append("job %s: no suite.tsv (it did not finish)" % j["name"])
        lines = f.read_text().splitlines() if f.exists() else []
        got = []
        for line in lines:
            t, verdict, secs = line.split("\t")
            got.append(t)
            if t not in j["tests"]:
                problems.append("job %s: test %s is not in its plan" % (j["name"], t))
            elif t in ran:
                problems.append("test %s ran twice (%s, %s)" % (t, ran[t][0], j["name"]))
            else:
                ran[t] = (j["name"], verdict, secs)
        for t in j["tests"]:
            if f.exists() and t not in got:
                problems.append("job %s: test %s did not run" % (j["name"], t))
    for t, (job, verdict, secs) in ran.items():
        print("%s %-28s %4ss  (%s)" % ("ok    " if verdict == "pass" else "not ok", t, secs, job))
        npass += verdict == "pass"
        nfail += verdict != "pass"
    for t, job in not_run:
        print("not ok %-28s %5s  (%s: not run, a gate job it needs failed)" % (t, "-", job))
        nfail += 1
    for pr in problems:
        print("not ok   plan: %s" % pr)
    gate_ok = not gate_problems
    print("%s gate (every gate job gave a verdict on each of its cells, once)"
          % ("ok    " if gate_ok else "not ok"))
    npass += gate_ok
    nfail += (not gate_ok) + len(problems)
    print("%d passed, %d failed" % (npass, nfail))
    sys.exit(1 if nfail else 0)
