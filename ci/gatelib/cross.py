"""Cell runner of the cross column: touched C files no native configuration
built, cross-built W=1 by ci/cross-build.py."""

import json
import os
import sys

from .env import KSRC, OBJS_ONLY, TOP, git, run
from .findings import new_findings


class CrossChecks:
    def native_sources(self, config, files):
        """The files of files that config's object directory built, as the
        directory is now (included_by_object() counts)."""
        return [f for f in files
                if (self.objdir(config) / (f[:-2] + ".o")).exists() or
                self.included_by_object(config, f)]

    def native_lists(self, configs, last):
        """{configuration: the series' C files it builds at last}, for the
        configurations of configs that build in full (an OBJS_ONLY one
        only compiles objects its mirror builds, and so adds no file).

        The cross column decides by these lists, whether the builds ran in
        this process (make test) or in other jobs (the pipeline, through
        native.json), so they must not depend on which object directories
        a runner happens to have: a list is read from an object directory
        only just after a full build at last (check_builds(), or a
        secondary configuration's first build there in Gate.main(), with
        the series' objects deleted before it) and kept in the verdict cache
        under last's key and the series' files; a run whose build cells
        are all cached reads it from there.  Without either (a run of
        --only that leaves out the head, of --checks cross alone), the
        configuration is built at last here.  A list from a failed build
        is used but not kept."""
        if self.native is not None:
            return self.native
        native = {}
        for n in configs:
            if n in OBJS_ONLY:
                continue
            if n not in self.native_at_last:
                kept = self.kept_native(last, n)
                if kept is not None:
                    native[n] = kept
                    continue
                git("checkout", "-q", "--detach", last.commit)
                self.progress("build of %s at %s, for its native list" % (n, last.num))
                self.drop_series_objects(n)
                rc, _ = self.build(n)
                self.native_at_last[n] = (rc, self.native_sources(n, self.series_c))
            rc, native[n] = self.native_at_last[n]
            if rc == 0:
                self.keep_native(last, n, native[n])
            else:
                self.progress("%s does not build at %s: its native list is what the "
                              "build left, not kept" % (n, last.num))
        self.native = native
        return native

    def load_native(self, configs, last):
        """The native lists the cross column uses: those of --native-from
        (the build jobs' native.json files), else native_lists()."""
        if not self.args.native_from:
            return self.native_lists(configs, last)
        native = {}
        for f in self.args.native_from:
            for n, built in json.loads(open(f).read()).items():
                native.setdefault(n, set()).update(built)
        return native

    def included_by_object(self, config, f):
        """Whether a native build of config compiled the C file f inside
        another object, #included by a .c file of its directory or of the
        one above (the kernel's KUnit tests that reach static code, such
        as sysdev_kunit.c in sysdev.c): kbuild's .o.cmd dependency file of
        that object names f.  Its warnings are then the build column's."""
        src = "/" + f
        d = self.objdir(config) / os.path.dirname(f)
        for cmd in list(d.glob(".*.o.cmd")) + list(d.parent.glob(".*.o.cmd")):
            try:
                if src in cmd.read_text(errors="replace"):
                    return True
            except OSError:
                pass
        return False

    def check_cross(self, p, native):
        """Column cross: the touched C files that no native configuration
        built (files of other architectures, code behind options the small
        configs leave out) compile, W=1, in the defconfigs of
        ci/cross-build.py, without more warnings than at the parent.  Not
        applicable (n/a) to a patch whose C files all built natively.  native
        is load_native()'s: what the native configurations build at the
        last patch."""
        col = "cross"
        if self.results_cached.get((p.num, col)) or self.cached(p, col):
            return
        files = [f for f in p.c_files()
                 if (KSRC / f).exists() and not any(f in built for built in native.values())]
        if not files:
            self.record(p.num, col, "n/a", "no C file touched" if not p.c_files() else
                        "every touched C file builds natively (%s)" % ", ".join(
                            "%s: %s" % (n, " ".join(f for f in p.c_files() if f in native[n]))
                            for n in sorted(native) if set(p.c_files()) & set(native[n])), "")
            return
        tool = [sys.executable, str(TOP / "ci/cross-build.py")]
        rc, out = run(tool + files)
        after = [l for l in out.splitlines() if l.startswith("WARNING ")]
        built = [l for l in out.splitlines() if l.endswith(": built")]
        unbuilt = [f for f in files
                   if not any(l.endswith(" %s: built" % f) for l in built)]
        if rc != 0:
            failed = [l for l in out.splitlines() if l.startswith("FAILED")]
            self.store(p, col, "fail", failed[0] if failed else "cross build failed", out)
            return
        before, bout = [], ""
        if after:
            git("checkout", "-q", "--detach", p.parent)
            try:
                _, bout = run(tool + [f for f in files if (KSRC / f).exists()])
            finally:
                git("checkout", "-q", "--detach", p.commit)
            before = [l for l in bout.splitlines() if l.startswith("WARNING ")]
        new = new_findings(before, after)
        log = "== files: %s\n== warnings before (%d):\n%s\n== after (%d):\n%s\n" \
              "== build:\n%s\n== parent build:\n%s" % (
                  " ".join(files), len(before), "\n".join(before), len(after),
                  "\n".join(after), out, bout)
        if new:
            self.store(p, col, "fail", "warnings %d -> %d: %s" % (
                len(before), len(after), new[0] if new else ""), log)
        elif unbuilt:
            self.store(p, col, "fail", "built by no configuration: "
                       + ", ".join(unbuilt), log)
        else:
            self.store(p, col, "pass", "%d file builds on %s, warnings %d -> %d" % (
                len(built), ",".join(sorted({l.split()[0] for l in built})) or "-",
                len(before), len(after)), log)
