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


def write_report(results, names_in_order, logdir, secs):
    """report.md and results.tsv in logdir, the table on stdout, the
    closing count; exit status 1 if a cell failed."""
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
    print("%d passed, %d failed" % (npass, len(fails)))
    sys.exit(1 if fails else 0)


def merge(out, dirs):
    """Merge the results.tsv (and logs) of cells run apart into one report,
    as a serial run writes it."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results, names = {}, set()
    for d in map(Path, dirs):
        f = d / "results.tsv"
        if not f.exists():
            sys.exit("gate: %s has no results.tsv (a cell that did not finish)" % d)
        for line in f.read_text().splitlines():
            name, col, status, detail, log = line.split("\t")
            src = Path(log)
            if not src.exists():
                src = d / src.name
            dst = out / src.name
            if src.exists() and src.resolve() != dst.resolve():
                shutil.copyfile(src, dst)
            row = "series" if name == "series" else num_of(name)
            if name != "series":
                names.add(name)
            results[(row, col)] = (status, detail, dst)
    # the order of a serial run: patches, then columns as list_cells has them
    order = {c: i for i, c in enumerate(PATCH_CHECKS + ["build:" + n for n in CONFIGS]
                                         + ["boot", "abi", "cross"])}
    results = dict(sorted(results.items(), key=lambda kv: (
        kv[0][0] == "series", kv[0][0], order.get(kv[0][1], 99), kv[0][1])))
    write_report(results, sorted(names), out, 0)
