"""Cell runners of the build columns: every configuration at every patch,
full or objects only, warnings against the parent."""

import os
import re
import time

from .env import BUILD_ROOT, E, KSRC, OBJS_ONLY, PRIMARY, TOP, git, run
from .findings import compiler_warnings, new_findings


class BuildChecks:
    def build(self, name, targets=(), extra_env=None):
        env = dict(E)
        if extra_env:
            env.update(extra_env)
        rc, out = run(["bash", str(TOP / "scripts/build-kernel.sh"), "-q", name]
                      + list(targets), env=env)
        log = self.objdir(name) / "build.log"
        if log.exists():
            out = log.read_text(errors="replace") + "\n" + out
        return rc, out

    def objdir(self, name):
        return BUILD_ROOT / name

    def build_at(self, name, cfiles, files, objs_only=False):
        """Build configuration name at the checked-out commit, W=1.

        Full build (objs_only False): the whole configuration, then sparse
        (C=2) on the objects of cfiles that it built.  Objects only: just
        the objects of cfiles that the configuration builds (their .o is in
        the object directory from an earlier build, or for OBJS_ONLY in
        the directory of the configuration it mirrors), compiled and
        checked by sparse (OBJS_ONLY: only compiled).  Either way the objects of cfiles are deleted first, so
        that the compiler prints their warnings whatever the object
        directory held before.  Sparse only ever looks at cfiles: it is
        not cached, and on a full rebuild (a header of the series changed)
        it would otherwise take as long as the build.

        Returns (rc, log, warnings, objs): the warnings are the compiler
        and sparse lines located in files (tree-relative paths),
        deduplicated, without line numbers; objs the objects of cfiles
        that were compiled and checked.
        """
        objdir = self.objdir(name)
        ref = self.objdir(OBJS_ONLY.get(name, name))
        objs = []
        for f in cfiles:
            o = objdir / (f[:-2] + ".o")
            if (ref / (f[:-2] + ".o")).exists():
                objs.append(f[:-2] + ".o")
            if o.exists():
                o.unlink()
        if objs_only:
            # sparse once, with the configuration whose compiler it follows
            sp = [] if name in OBJS_ONLY else ["C=2"]
            rc, out = (self.build(name, sp + objs) if objs else
                       (0, "no object of %s is built here\n" % " ".join(cfiles)))
        else:
            rc, out = self.build(name)
            self.built_at[name] = git("rev-parse", "HEAD") if rc == 0 else None
            objs = [f[:-2] + ".o" for f in cfiles
                    if (objdir / (f[:-2] + ".o")).exists()]
            if rc == 0 and objs:
                rc, sout = self.build(name, ["C=2"] + objs)
                out += "\n== sparse (C=2) on %s\n%s" % (" ".join(objs), sout)
        return rc, out, compiler_warnings(out, objdir, files), objs

    def includers(self, p, commit):
        """The .c files of p, and the .c files of the whole series that
        include a header p touches (as they are at commit): what an
        objects-only build of p compiles."""
        out = list(p.c_files())
        heads = [h for h in p.touched if h.endswith(".h")]
        if not heads:
            return out
        pats = []
        for h in heads:
            m = re.match(r"^(?:arch/[^/]+/)?include/(.+)$", h)
            pats.append(re.compile(r'^#\s*include\s*<%s>' % re.escape(m.group(1)), re.M)
                        if m else re.compile(r'^#\s*include\s*"(?:.*/)?%s"'
                                             % re.escape(os.path.basename(h)), re.M))
        for f in self.series_c:
            if f in out:
                continue
            rc, text = run(["git", "-C", str(KSRC), "show", "%s:%s" % (commit, f)])
            if rc == 0 and any(pt.search(text) for pt in pats):
                out.append(f)
        return out

    def judge_build(self, p, col, rc, out, old, after, detail):
        if rc != 0:
            err = [l for l in out.splitlines() if re.search(r"error|Error", l)]
            self.store(p, col, "fail", "build failed: %s"
                       % (err[0] if err else "see log"), out)
            return False
        new = new_findings(old, after)
        log = "== warnings in the touched files before (%d):\n%s\n" \
              "== after (%d):\n%s\n== new:\n%s\n== build:\n%s" % (
                  len(old), "\n".join(old), len(after), "\n".join(after),
                  "\n".join(new), out)
        # The warnings themselves are compared, not their number: one
        # fixed and one new is a new warning.
        if new:
            self.store(p, col, "fail", "%d new warning%s: %s" % (
                len(new), "" if len(new) == 1 else "s", new[0]), log)
            return False
        self.store(p, col, "pass", "%s, warnings %d -> %d"
                   % (detail, len(old), len(after)), log)
        return True

    def drop_series_objects(self, name):
        """Delete the objects (and their .cmd files) of the series' C files
        from name's object directory, before its full build at the last
        patch: kbuild never removes an object it no longer builds, and the
        native list (cross.native_lists()) must be what this build built,
        not what an older series or an earlier patch left."""
        d = self.objdir(name)
        for f in self.series_c:
            o = d / (f[:-2] + ".o")
            for x in (o, o.parent / ("." + o.name + ".cmd")):
                if x.exists():
                    x.unlink()

    def before_objs(self, p, name, cfiles):
        """The warnings of p's files at its parent, from an objects-only
        build there (the parent was not built in this run)."""
        there = [f for f in cfiles if run(["git", "-C", str(KSRC), "cat-file", "-e",
                                           "%s:%s" % (p.parent, f)])[0] == 0]
        git("checkout", "-q", "--detach", p.parent)
        try:
            rc, out, w, _ = self.build_at(name, there, p.src_files(), objs_only=True)
        finally:
            git("checkout", "-q", "--detach", p.commit)
        return w if rc == 0 else []

    def check_builds(self, p, nxt, configs, last):
        """Judge every configuration at p.

        Primary configurations (PRIMARY), and every configuration but
        OBJS_ONLY at the last patch of the selection: a full build at p.
        The other cells get an objects-only build of p's .c files and of
        the series' .c files that include a header p touches
        (includers()), where the configuration builds one of them; no
        cell where it builds none.  The warnings before p are only needed
        when p's files have warnings: they come from the full build of
        the previous patch in this run, or else from an objects-only build
        at the parent; the parent is never built in full only to be a
        baseline."""
        for name in configs:
            col = "build:" + name
            full = name in PRIMARY or (p is last and name not in OBJS_ONLY)
            if self.results_cached.get((p.num, col)):
                continue
            cfiles = self.includers(p, p.commit)
            if not full:
                m = OBJS_ONLY.get(name, name)
                ref = self.objdir(m)
                na = ("%s builds none of %s" % (m, " ".join(cfiles))
                      if cfiles else "no C file to build")
                if not any((ref / (f[:-2] + ".o")).exists() for f in cfiles):
                    # kept only if the reference directory is of a good
                    # build of this run, not a partial or an old one
                    if self.built_at.get(m):
                        self.store(p, col, "n/a", na, "")
                    else:
                        self.record(p.num, col, "n/a", na, "")
                    continue
                t0 = time.time()
                rc, out, found, objs = self.build_at(name, cfiles, p.src_files(), objs_only=True)
                detail = "objects only (%d): %.0fs" % (len(objs), time.time() - t0)
                old = self.before_objs(p, name, cfiles) if rc == 0 and found else []
                self.judge_build(p, col, rc, out, old, found, detail)
                continue
            ncfiles = self.includers(nxt, nxt.commit) if nxt and name in PRIMARY else []
            if p is last:
                self.drop_series_objects(name)
            t0 = time.time()
            rc, out, found, _ = self.build_at(
                name, cfiles + [f for f in ncfiles if f not in cfiles],
                p.src_files() + (nxt.src_files() if ncfiles else []))
            secs = time.time() - t0
            if p is last:
                # before before_objs() or bisect_break() build elsewhere
                self.native_at_last[name] = (rc, self.native_sources(name, self.series_c))
            after = [w for w in found if w.split(":", 1)[0] in p.src_files()]
            if ncfiles and rc == 0:
                self.before[(nxt.idx, name)] = [
                    w for w in found if w.split(":", 1)[0] in nxt.src_files()]
            if (p.idx, name) in self.before:
                old = self.before[(p.idx, name)]
            elif rc == 0 and after:
                old = self.before_objs(p, name, cfiles)
            else:
                old = []
            ok = self.judge_build(p, col, rc, out, old, after, "full build %.0fs" % secs)
            if not ok and rc != 0 and name not in PRIMARY:
                self.bisect_break(p, name)

    def bisect_break(self, last, name):
        """The secondary configuration name does not build at the last
        selected patch: find, by bisection with full builds, the first
        selected patch at which it does not build, and fail its cell."""
        sel = [p for p in self.sel if p.idx <= last.idx]
        lo, hi = -1, len(sel) - 1          # builds at lo (or base), not at hi
        log = []
        while hi - lo > 1:
            mid = (lo + hi) // 2
            git("checkout", "-q", "--detach", sel[mid].commit)
            rc, _ = self.build(name)
            log.append("%s: %s" % (sel[mid].name, "builds" if rc == 0 else "does not build"))
            if rc == 0:
                lo = mid
            else:
                hi = mid
        git("checkout", "-q", "--detach", last.commit)
        first = sel[hi]
        if first is not last:
            self.store(first, "build:" + name, "fail", "full build fails from this "
                       "patch on (bisected from %s)" % last.num, "\n".join(log))
