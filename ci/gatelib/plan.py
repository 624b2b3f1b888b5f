"""The plan: the patches of the series, and the cells the gate runs over
them (--list-cells, --cell)."""

import re
import sys

from .env import BASE_TAG, CONFIGS, OUTGOING, PATCH_CHECKS, WORK_BRANCH, git


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
    a.configs = [parts[2]] if len(parts) == 3 else []
