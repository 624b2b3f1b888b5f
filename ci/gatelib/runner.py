"""The Gate: runs the selected checks over the selected patches, in the
order of a serial run, and writes the report."""

import json
import shutil
import sys
import time

from .boot import BootChecks
from .build import BuildChecks
from .cache import VerdictCache, tooling_hash
from .cross import CrossChecks
from .env import CACHE, GATE_LOGS, KSRC, OBJS_ONLY, OUTGOING, PATCH_CHECKS, PRIMARY, git, run
from .lint import LintChecks
from .plan import expected_cells, series_patches
from .report import write_report
from .series import SeriesChecks


class Gate(VerdictCache, LintChecks, BuildChecks, BootChecks, CrossChecks, SeriesChecks):
    def __init__(self, args):
        self.args = args
        self.tool = tooling_hash()
        self.results = {}   # (row, column) -> (status, detail, log)
        self.built_at = {}  # configuration -> commit its objdir was built at
        self.native_at_last = {}    # configuration -> (rc, its native list)
        self.native = None          # native_lists(), once
        self.cross_basis = None     # cache.key() of a cross cell: set by main()
        self.logdir = GATE_LOGS
        if self.logdir.exists():
            shutil.rmtree(self.logdir)
        self.logdir.mkdir(parents=True)
        self.t0 = time.time()
        CACHE.mkdir(parents=True, exist_ok=True)

    def record(self, row, col, status, detail, log_text):
        log = self.logdir / ("%s.%s.log" % (row, col.replace(":", "-")))
        log.write_text(log_text)
        self.results[(row, col)] = (status, detail, log)
        mark = {"pass": "ok    ", "fail": "FAIL  ", "n/a": "n/a   "}[status]
        print("gate: %s %-10s %-14s %s" % (mark, row, col, detail), flush=True)

    def progress(self, what):
        """A line on stderr: where the gate is, how long it has run and,
        from the patches done so far, about how long it has left."""
        secs = time.time() - self.t0
        done = getattr(self, "done", 0)
        left = ""
        if done and hasattr(self, "sel"):
            left = ", about %d min left" % round(secs / done * (len(self.sel) - done) / 60)
        print("gate: [%d:%02d%s] %s" % (secs // 60, secs % 60, left, what),
              file=sys.stderr, flush=True)

    def main(self):
        a = self.args
        if git("status", "--porcelain", "--untracked-files=no"):
            sys.exit("gate: the kernel tree %s has uncommitted changes" % KSRC)
        patches = series_patches()
        if not patches:
            sys.exit("gate: no patches in %s" % OUTGOING)
        sel = [p for p in patches if a.only is None or p.idx in a.only]
        want = set(a.checks)
        t0 = time.time()
        print("gate: %d patches, checks: %s, configs: %s" %
              (len(sel), ",".join(a.checks), ",".join(a.configs)), flush=True)
        self.results_cached = {}
        for p in sel:
            for c in PATCH_CHECKS:
                if c in want and c != "cocci" and not self.cached(p, c):
                    getattr(self, "check_" + c)(p)
        if "cocci" in want:
            self.check_cocci(sel)
        orig = git("symbolic-ref", "-q", "--short", "HEAD") if run(
            ["git", "-C", str(KSRC), "symbolic-ref", "-q", "HEAD"])[0] == 0 \
            else git("rev-parse", "HEAD")
        self.sel = sel
        self.series_c = sorted({f for p in patches for f in p.c_files()})
        last = patches[-1]      # secondary configurations: full build here
        self.cross_basis = "%s %s" % (last.commit, ",".join(
            sorted(n for n in a.configs if n not in OBJS_ONLY)))
        try:
            self.before = {}
            configs = a.configs if "build" in want else []
            cols_of = lambda p: ["build:" + n for n in configs] + \
                (["boot", "abi"] if "boot" in want else [])
            for p in sel:
                for col in cols_of(p) + (["cross"] if "cross" in want else []):
                    self.results_cached[(p.num, col)] = self.cached(p, col)
            # A secondary configuration never built here is built at the
            # last patch of the series first: its objects tell which files it
            # builds, and so which patches get an objects-only cell.
            # An OBJS_ONLY configuration asks the one it mirrors, which
            # needs no first build if this run builds it at the first
            # selected patch, before the OBJS_ONLY cell there.
            for n in configs:
                m = OBJS_ONLY.get(n, n)
                if m in configs and m in PRIMARY and \
                        not self.results_cached[(sel[0].num, "build:" + m)]:
                    continue
                if n not in PRIMARY and not (self.objdir(m) / "vmlinux").exists() and \
                        any(not self.results_cached[(p.num, "build:" + n)] for p in sel):
                    git("checkout", "-q", "--detach", last.commit)
                    self.progress("first build of %s at %s" % (m, last.num))
                    self.drop_series_objects(m)
                    rc, _ = self.build(m)
                    self.built_at[m] = last.commit if rc == 0 else None
                    # a full build at the last patch: its native list
                    # (cross.native_lists()), before the walk builds
                    # earlier patches' objects in this directory
                    self.native_at_last[m] = (rc, self.native_sources(m, self.series_c))
            for i, p in enumerate(sel):
                nxt = sel[i + 1] if i + 1 < len(sel) and sel[i + 1].idx == p.idx + 1 else None
                todo = [c for c in cols_of(p) if not self.results_cached[(p.num, c)]]
                if not todo:
                    continue
                self.progress("patch %s (%d of %d): %s" % (p.num, i + 1, len(sel), ", ".join(todo)))
                git("checkout", "-q", "--detach", p.commit)
                if configs:
                    self.check_builds(p, nxt, configs, last)
                if "boot" in want:
                    self.check_boot(p)
                self.done = i + 1
            # What each configuration builds at the last patch: the cross
            # column's native lists, here and (as native.json) in the
            # pipeline's cross job.
            if configs:
                (self.logdir / "native.json").write_text(
                    json.dumps(self.native_lists(configs, last), indent=1))
            if "cross" in want:
                native = self.load_native(a.configs, last)
                for p in sel:
                    if not self.results_cached[(p.num, "cross")]:
                        git("checkout", "-q", "--detach", p.commit)
                        self.check_cross(p, native)
            if "series" in want:
                self.series_checks(patches)
        finally:
            git("checkout", "-q", orig)
        # Every cell of the selection has a verdict (pass, fail or n/a): a
        # cell no runner recorded is a failure, never a hole in the table.
        for row, col in expected_cells([p.num for p in sel], a.checks, a.configs):
            if (row, col) not in self.results:
                self.record(row, col, "fail", "no verdict: no check recorded this cell", "")
        self.report(sel, time.time() - t0)

    def report(self, patches, secs):
        write_report(self.results, [p.name for p in patches], self.logdir, secs)
