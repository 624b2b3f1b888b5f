#!/usr/bin/env python3
"""Per-patch gate: lint, build and boot every prefix of the series.

Run through ci/gate.sh, which sets the environment (scripts/lib.sh).  For
patch k (commit c_k, parent c_k-1) it runs:

  message     Signed-off-by matches From:, subject "area: summary" <= 75
              columns, body present and wrapped at 75 columns
  checkpatch  scripts/checkpatch.pl --strict --codespell: no ERROR or
              WARNING; every CHECK must be allowed in ci/checkpatch-allow.txt
  inline      no new static non-inline function in a header, no new
              "inline" in a .c file
  kerneldoc   scripts/kernel-doc -Wall -none on the
              touched files: no more warnings than at c_k-1
  rst         the touched .rst files parse with docutils (ci/rst-check.py)
  cocci       scripts/coccinelle/**/*.cocci in report mode on the touched
              .c files: no more reports than at c_k-1
  build:NAME  the configuration builds at c_k (incremental, W=1), and the
              compiler and sparse (C=2) warnings located in the touched
              files do not rise against c_k-1
  boot        the x86_64 test kernel at c_k boots in QEMU and passes the
              guest checks that apply to it (qemu/checks/*.sh with a
              "# gate:" line), KUnit included
  abi         the /sys/devices/system and /sys/bus snapshot of that boot
              equals the unpatched kernel's, but for the additions of
              qemu/abi-allowed.txt (qemu/abi-snapshot.py)
  cross       the touched C files that no configuration above built
              (other architectures, options the small configs leave out)
              build W=1 in full defconfigs with Debian's cross compilers
              (ci/cross-build.py), without more warnings than at c_k-1

and for the series: cover letter, at most 15 patches, new files covered by
MAINTAINERS-notes.md and by MAINTAINERS, outgoing/ regenerates byte for
byte, and git send-email --dry-run sends one message per file.

A passing result is cached under a key made of the commits, the check and
the tracked files of ci/, qemu/ and scripts/ (but the suite's tests and
benchmarks), so an unchanged series is re-judged
in minutes; a failure is always run again.  The report is a table, one row
per patch, written to $LOG_ROOT/gate/report.md; each cell points at its log.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

E = os.environ
TOP = Path(E["TOP"])
KSRC = Path(E["KSRC"])
BASE_KSRC = Path(E["BASE_KSRC"])
BUILD_ROOT = Path(E["BUILD_ROOT"])
OUTGOING = Path(E["OUTGOING"])
BASE_TAG = E["BASE_TAG"]
WORK_BRANCH = E["WORK_BRANCH"]
CACHE = Path(E["SYSDEV_CACHE"]) / "gate-cache"
GATE_LOGS = Path(E.get("GATE_LOGS", str(Path(E["LOG_ROOT"]) / "gate")))

CONFIGS = ["x86_64", "i386", "nopm", "nosmp", "nonuma", "clang"]
# Built in full at every patch; the others in full at the last selected
# patch and objects-only before it (Gate.check_builds).
PRIMARY = ["x86_64", "i386"]
# Objects-only at every patch, the head included: the same configuration as
# the value, built by another compiler.  Which files it builds is what the
# value's object directory holds; a full build would add no verdict (the
# warnings judged are those of the series' files, and the link is the
# value's).
OBJS_ONLY = {"clang": "x86_64"}
PATCH_CHECKS = ["message", "checkpatch", "inline", "kerneldoc", "rst", "cocci"]
MAX_PATCHES = 15
# checkpatch's helpers (spdxcheck.py, the codespell dictionary lookup) need
# Debian's python3 with python3-ply, python3-git and codespell, whatever
# python3 comes first in PATH.
SYSTEM_PYTHON_ENV = dict(E, PATH="/usr/bin:/bin:" + E.get("PATH", ""))
CODESPELL = "/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt"


def run(cmd, cwd=None, env=None, check=False, timeout=None):
    """Run cmd, return (returncode, combined output)."""
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True,
                       errors="replace", timeout=timeout)
    if check and p.returncode != 0:
        sys.exit("gate: %s failed (%d):\n%s" % (" ".join(map(str, cmd)),
                                                p.returncode, p.stdout[-3000:]))
    return p.returncode, p.stdout


def new_findings(before, after, key=lambda f: f):
    """The findings of after beyond those of before, counted as multisets
    by key: a second finding equal to one the parent has is new."""
    left = collections.Counter(key(f) for f in before)
    new = []
    for f in after:
        if left[key(f)] > 0:
            left[key(f)] -= 1
        else:
            new.append(f)
    return new


def compiler_warnings(out, objdir, files):
    """The compiler's and sparse's warnings and errors in out that are
    located in files, "path: warning: message" with a tree-relative path
    and without the line number, so that a warning that only moved is not
    new.  A header's warning repeats for every object that includes it:
    kept once per line; two at different lines are two (new_findings()
    counts them)."""
    found, seen, srcs = [], set(), set(files)
    for l in out.splitlines():
        m = re.match(r"^([^:\s]+):(\d+):(?:\d+:)? (warning|error): (.*)$", l)
        if not m:
            continue
        # gcc (through ccache) prints paths relative to the object
        # directory, sparse absolute ones: make both tree-relative.
        path = os.path.relpath(os.path.normpath(os.path.join(objdir, m.group(1))), KSRC)
        w = "%s: %s: %s" % (path, m.group(3), m.group(4))
        if path in srcs and (path, m.group(2), w) not in seen:
            seen.add((path, m.group(2), w))
            found.append(w)
    return found


def git(*args, cwd=KSRC):
    return run(["git", "-C", str(cwd)] + list(args), check=True)[1].strip()


def gate_config_files():
    """The fragments the gate's configurations are made of, includes too."""
    todo, used = list(CONFIGS), set()
    while todo:
        name = todo.pop()
        for d in ("qemu", "ci/configs"):
            f = TOP / d / (name + ".config")
            if f.exists() and str(f.relative_to(TOP)) not in used:
                used.add(str(f.relative_to(TOP)))
                todo += re.findall(r"^# include:\s*(\S+)", f.read_text(), re.M)
    return used


# Host packages whose version can change a verdict: the compilers and
# sparse, coccinelle, QEMU and SeaBIOS, busybox (the guest's userland),
# perl and python (checkpatch, kernel-doc, the judges), docutils,
# codespell's dictionary; install-deps.sh's list is read as well.
TOOL_PKGS = ["gcc-12", "cpp-12", "binutils", "python3.11", "seabios", "clang-14", "lld-14",
             "gcc-12-aarch64-linux-gnu", "gcc-12-powerpc64le-linux-gnu",
             "gcc-12-s390x-linux-gnu", "gcc-12-sparc64-linux-gnu",
             "qemu-system-data", "libpython3.11-stdlib"]


def tool_versions():
    """'package version' lines of the host tools (see TOOL_PKGS)."""
    deps = (TOP / "scripts/install-deps.sh").read_text()
    m = re.search(r"^PKGS=\((.*?)^\)", deps, re.M | re.S)
    pkgs = TOOL_PKGS + [w.replace('"$KPKG"', E.get("KPKG", ""))
                        for l in (m.group(1) if m else "").splitlines()
                        for w in l.split("#")[0].split()]
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n"]
                       + sorted(set(pkgs)), stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return p.stdout


def cocci_key(report):
    """A coccinelle report without its line numbers, so that moved code
    matches: both the position ("f.c:563:9-10:") and the lines the message
    names ("bound on line 561")."""
    report = re.sub(r":\d+(:\d+)?(-\d+)?:", ":", report)
    return re.sub(r"\b(line|lines) \d+(-\d+)?", r"\1 N", report)


def tooling_hash():
    """The hash of what the verdicts depend on besides the commits: the
    versions of the host tools (tool_versions()) and the files under ci/,
    qemu/ and scripts/ as they are in the work tree, tracked or not (but
    what .gitignore ignores), so that a check or an allow-list that is not
    yet committed is in the key of every cell it could change; left out
    is what the gate never runs: the suite's own tests (ci/tests/,
    ci/run-tests.sh), the benchmarks (ci/perf/), the CI pipeline's
    definition (ci/gitlab-ci.yml), guest checks without a "# gate:" line
    and the fragments of configurations it does not build."""
    h = hashlib.sha256()
    h.update(tool_versions().encode())
    files = subprocess.run(["git", "-C", str(TOP), "ls-files", "-z", "-c", "-o",
                            "--exclude-standard", "ci", "qemu", "scripts"],
                           stdout=subprocess.PIPE,
                           check=True).stdout.decode().split("\0")
    used = gate_config_files()
    for name in sorted({f for f in files if f}):
        f = TOP / name
        if name.startswith(("ci/tests/", "ci/perf/")) or \
                name in ("ci/run-tests.sh", "ci/gitlab-ci.yml"):
            continue
        # guest checks the gate never runs (lib.sh is sourced by all of
        # them), configurations it never builds
        if name.startswith("qemu/checks/") and name.endswith(".sh") and \
                name != "qemu/checks/lib.sh" and f.exists() and \
                not re.search(r"^# gate:", f.read_text(), re.M):
            continue
        if name.endswith(".config") and name not in used:
            continue
        h.update(name.encode())
        h.update(f.read_bytes() if f.exists() else b"(deleted)")
    return h.hexdigest()


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


class Gate:
    def __init__(self, args):
        self.args = args
        self.tool = tooling_hash()
        self.results = {}   # (row, column) -> (status, detail, log)
        self.built_at = {}  # configuration -> commit its objdir was built at
        self.logdir = GATE_LOGS
        if self.logdir.exists():
            shutil.rmtree(self.logdir)
        self.logdir.mkdir(parents=True)
        self.t0 = time.time()
        CACHE.mkdir(parents=True, exist_ok=True)

    # -- bookkeeping -------------------------------------------------------
    def key(self, patch, check):
        frag = b""
        if check.startswith("build:"):
            for d in ("qemu", "ci/configs"):
                f = TOP / d / (check[6:] + ".config")
                if f.exists():
                    frag = f.read_bytes()
        h = hashlib.sha256()
        for part in (self.tool, patch.parent, patch.commit, check):
            h.update(part.encode() + b"\0")
        h.update(frag)
        return h.hexdigest()

    def record(self, row, col, status, detail, log_text):
        log = self.logdir / ("%s.%s.log" % (row, col.replace(":", "-")))
        log.write_text(log_text)
        self.results[(row, col)] = (status, detail, log)
        mark = {"pass": "ok    ", "fail": "FAIL  ", "skip": "skip  "}[status]
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

    def cached(self, patch, col):
        f = CACHE / self.key(patch, col)
        if self.args.no_cache or not f.exists():
            return False
        data = json.loads(f.read_text())
        self.record(patch.num, col, "pass", data["detail"] + " (cached)",
                    data["log"])
        return True

    def store(self, patch, col, status, detail, log_text):
        self.record(patch.num, col, status, detail, log_text)
        if status == "pass":
            (CACHE / self.key(patch, col)).write_text(
                json.dumps({"detail": detail, "log": log_text}))

    # -- per-patch checks without a build -----------------------------------
    def check_message(self, p):
        text = p.mail.read_text(errors="replace")
        head, _, rest = text.partition("\n\n")
        headers = {}
        last = None
        for line in head.splitlines():
            if line[:1] in (" ", "\t") and last:
                headers[last] += line
                continue
            k, _, v = line.partition(":")
            last = k.strip().lower()
            headers[last] = v.strip()
        body = rest.split("\n---\n", 1)[0]
        problems = []
        subject = re.sub(r"^\[PATCH[^]]*\]\s*", "", headers.get("subject", ""))
        if not re.match(r"^[a-zA-Z0-9_./, -]+: \S", subject):
            problems.append("subject is not 'area: summary': %r" % subject)
        if len(subject) > 75:
            problems.append("subject is %d columns (> 75)" % len(subject))
        author = headers.get("from", "")
        sobs = re.findall(r"^Signed-off-by: (.+)$", body, re.M)
        if not sobs:
            problems.append("no Signed-off-by")
        elif author not in sobs:
            problems.append("no Signed-off-by matches the author %r" % author)
        lines = [l for l in body.splitlines()]
        prose = [l for l in lines if not re.match(r"^[A-Za-z-]+: ", l)]
        if not "".join(prose).strip():
            problems.append("empty body")
        for n, l in enumerate(lines, 1):
            if len(l) > 75 and not re.search(r"https?://|^\s", l) \
                    and not re.match(r"^[A-Za-z-]+: ", l):
                problems.append("body line %d is %d columns (> 75): %r"
                                % (n, len(l), l[:40] + "..."))
        if problems:
            self.store(p, "message", "fail", problems[0], "\n".join(problems))
        else:
            self.store(p, "message", "pass", "%d body lines" % len(lines),
                       "subject: %s\nfrom: %s\n" % (subject, author))

    def checkpatch_allow(self):
        rules = []
        f = TOP / "ci" / "checkpatch-allow.txt"
        if f.exists():
            for n, line in enumerate(f.read_text().splitlines(), 1):
                if not line.strip() or line.startswith("#"):
                    continue
                parts = [x.strip() for x in line.split("|")]
                if len(parts) != 3 or not all(parts):
                    sys.exit("gate: ci/checkpatch-allow.txt:%d: want "
                             "'PATCH-GLOB | MESSAGE-REGEX | reason'" % n)
                rules.append(parts)
        return rules

    def check_checkpatch(self, p):
        rc, out = run(["perl", "scripts/checkpatch.pl", "--strict",
                       "--codespell", "--codespellfile", CODESPELL,
                       "--terse", "--no-summary", "--showfile",
                       "--max-line-length=80", str(p.mail)], cwd=BASE_KSRC,
                      env=SYSTEM_PYTHON_ENV)
        if re.search(r"No codespell typos will be found|Traceback|"
                     r"No such file or directory", out):
            self.store(p, "checkpatch", "fail", "checkpatch could not run "
                       "all its checks (see log)", out)
            return
        findings = [l for l in out.splitlines()
                    if re.search(r": (ERROR|WARNING|CHECK):", l)]
        # checkpatch exits 0 when clean and 1 when it reported something;
        # anything else, or 1 without a finding, means it did not run.
        if rc not in (0, 1) or (rc == 1) != bool(findings):
            self.store(p, "checkpatch", "fail", "checkpatch exited %d with %d "
                       "findings (see log)" % (rc, len(findings)), out)
            return
        import fnmatch
        bad, allowed = [], []
        for l in findings:
            if re.search(r": (ERROR|WARNING):", l):
                bad.append(l)
                continue
            for glob, regex, reason in self.checkpatch_allow():
                if fnmatch.fnmatch(p.name, glob) and re.search(regex, l):
                    allowed.append("%s  [allowed: %s]" % (l, reason))
                    break
            else:
                bad.append(l + "  [CHECK not in ci/checkpatch-allow.txt]")
        log = out + "\n--- allowed:\n" + "\n".join(allowed)
        if bad:
            self.store(p, "checkpatch", "fail", bad[0], log)
        else:
            self.store(p, "checkpatch", "pass",
                       "clean" + (", %d CHECK allowed" % len(allowed)
                                  if allowed else ""), log)

    def check_inline(self, p):
        problems = []
        cur = None
        for line in p.diff.splitlines():
            if line.startswith("+++ "):
                cur = line[6:] if line.startswith("+++ b/") else None
                continue
            if not cur or not line.startswith("+") or line.startswith("+++"):
                continue
            code = line[1:]
            if cur.endswith(".h") and re.match(r"^static\s(?!.*\binline\b)"
                                               r"[^=;]*\([^;]*$", code):
                problems.append("%s: static non-inline function in a header: %s"
                                % (cur, code.strip()))
            if cur.endswith(".c") and re.search(r"\binline\b", code) \
                    and not re.match(r"^\s*(\*|//|/\*)", code):
                problems.append("%s: inline in a .c file: %s" % (cur, code.strip()))
        if problems:
            self.store(p, "inline", "fail", problems[0], "\n".join(problems))
        else:
            self.store(p, "inline", "pass", "none", "")

    def blob(self, commit, path, dest):
        rc, out = run(["git", "-C", str(KSRC), "cat-file", "-e",
                       "%s:%s" % (commit, path)])
        if rc != 0:
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(["git", "-C", str(KSRC), "show",
                               "%s:%s" % (commit, path)],
                              stdout=subprocess.PIPE, check=True).stdout
        dest.write_bytes(data)
        return True

    def check_kerneldoc(self, p):
        counts, logs = {}, []
        with tempfile.TemporaryDirectory() as tmp:
            for side, commit in (("before", p.parent), ("after", p.commit)):
                files = []
                for f in p.src_files():
                    d = Path(tmp) / side / f
                    if self.blob(commit, f, d):
                        files.append(str(d))
                out = ""
                if files:
                    # -Wall as the kernel's robots run it (missing return
                    # docs, short descriptions).  With -none it exits 0
                    # whatever it found: anything else means it did not
                    # run.
                    rc, out = run(["perl", str(BASE_KSRC / "scripts/kernel-doc"),
                                   "-Wall", "-none"] + files)
                    if rc != 0 or re.search(r"Argument unknown|^Usage:", out, re.M):
                        self.store(p, "kerneldoc", "fail",
                                   "kernel-doc did not run (exit %d, see log)" % rc, out)
                        return
                out = out.replace(str(Path(tmp) / side) + "/", "")
                counts[side] = sorted(re.sub(r":\d+: ", ": ", l) for l in out.splitlines()
                                      if re.search(r": warning: ", l))
                logs.append("== %s (%s): %d warnings\n%s"
                            % (side, commit[:12], len(counts[side]), out))
        new = new_findings(counts["before"], counts["after"])
        log = "\n".join(logs) + "\n== new:\n" + "\n".join(new)
        counts = {k: len(v) for k, v in counts.items()}
        if new:
            self.store(p, "kerneldoc", "fail", "kernel-doc warnings %d -> %d, new: %s"
                       % (counts["before"], counts["after"], new[0]), log)
        else:
            self.store(p, "kerneldoc", "pass", "%d -> %d warnings"
                       % (counts["before"], counts["after"]), log)

    def check_rst(self, p):
        rsts = [f for f in p.touched if f.endswith(".rst")]
        if not rsts:
            self.store(p, "rst", "pass", "no .rst file touched", "")
            return
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for f in rsts:
                d = Path(tmp) / f
                if self.blob(p.commit, f, d):
                    files.append(str(d))
            rc, out = run(["/usr/bin/python3", str(TOP / "ci/rst-check.py")] + files)
            out = out.replace(tmp + "/", "")
        if rc != 0:
            bad = [l for l in out.splitlines() if "OK" not in l]
            self.store(p, "rst", "fail", bad[0] if bad else "rst-check failed", out)
        else:
            self.store(p, "rst", "pass", "%d files valid" % len(files), out)

    def cocci_scripts(self):
        out = []
        for f in sorted((BASE_KSRC / "scripts" / "coccinelle").rglob("*.cocci")):
            text = f.read_text(errors="replace")
            if not re.search(r"^virtual\s+.*\breport\b", text, re.M):
                continue
            opts = []
            m = re.search(r"^// Options:(.*)$", text, re.M)
            if m:
                opts = m.group(1).split()
            out.append((f, opts))
        return out

    def check_cocci(self, patches):
        """One spatch run per semantic patch over every file version."""
        todo = [p for p in patches if p.c_files() and not self.cached(p, "cocci")]
        for p in patches:
            if not p.c_files() and (p.num, "cocci") not in self.results:
                self.store(p, "cocci", "pass", "no .c file touched", "")
        if not todo:
            return
        scripts = self.cocci_scripts()
        if not scripts:
            for p in todo:
                self.store(p, "cocci", "fail", "no coccinelle script in report mode "
                           "under %s/scripts/coccinelle" % BASE_KSRC, "")
            return
        broken = []
        with tempfile.TemporaryDirectory() as tmp:
            for p in todo:
                for side, commit in (("before", p.parent), ("after", p.commit)):
                    for f in p.c_files():
                        self.blob(commit, f, Path(tmp) / p.num / side / f)
            reports = []
            for script, opts in scripts:
                rc, out = run(["spatch", "-D", "report", "--very-quiet",
                               "--no-show-diff", "--cocci-file", str(script),
                               "--dir", tmp] + opts, timeout=600)
                if rc != 0:
                    broken.append("%s: spatch exit %d: %s" % (
                        script.name, rc, out.strip().splitlines()[-1:] or ""))
                for l in out.splitlines():
                    if l.startswith(tmp):
                        reports.append(l[len(tmp) + 1:] + "  [" +
                                       script.name + "]")
        for p in todo:
            pre = p.num + "/"
            before = [r[len(pre) + 7:] for r in reports if r.startswith(pre + "before/")]
            after = [r[len(pre) + 6:] for r in reports if r.startswith(pre + "after/")]
            new = new_findings(before, after, cocci_key)
            log = "scripts: %d\nbefore:\n%s\nafter:\n%s\nnew:\n%s\nspatch failures:\n%s\n" % (
                len(scripts), "\n".join(before), "\n".join(after), "\n".join(new),
                "\n".join(broken))
            if broken:
                self.store(p, "cocci", "fail", "spatch failed on %d of %d scripts: %s"
                           % (len(broken), len(scripts), broken[0]), log)
            elif new:
                self.store(p, "cocci", "fail", "coccinelle reports %d -> %d: %s"
                           % (len(before), len(after), new[0]), log)
            else:
                self.store(p, "cocci", "pass", "%d -> %d reports"
                           % (len(before), len(after)), log)

    # -- builds and boots --------------------------------------------------
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
                ref = self.objdir(OBJS_ONLY.get(name, name))
                if not any((ref / (f[:-2] + ".o")).exists() for f in cfiles):
                    continue
                t0 = time.time()
                rc, out, found, objs = self.build_at(name, cfiles, p.src_files(), objs_only=True)
                if rc == 0 and not objs:
                    continue
                detail = "objects only (%d): %.0fs" % (len(objs), time.time() - t0)
                old = self.before_objs(p, name, cfiles) if rc == 0 and found else []
                self.judge_build(p, col, rc, out, old, found, detail)
                continue
            ncfiles = self.includers(nxt, nxt.commit) if nxt and name in PRIMARY else []
            t0 = time.time()
            rc, out, found, _ = self.build_at(
                name, cfiles + [f for f in ncfiles if f not in cfiles],
                p.src_files() + (nxt.src_files() if ncfiles else []))
            secs = time.time() - t0
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

    def gate_checks(self):
        """Guest checks with a "# gate:" line, and what each needs."""
        checks = []
        for f in sorted((TOP / "qemu" / "checks").glob("*.sh")):
            m = re.search(r"^# gate:(.*)$", f.read_text(), re.M)
            if m:
                checks.append((f.stem, m.group(1).split()))
        return checks

    def check_boot(self, p):
        col = "boot"
        if self.results_cached.get((p.num, col)) and \
                self.results_cached.get((p.num, "abi")):
            return
        if self.built_at.get("x86_64") != p.commit:
            rc, out = self.build("x86_64")
            if rc != 0:
                self.store(p, col, "fail", "x86_64 does not build", out)
                return
            self.built_at["x86_64"] = p.commit
        run_checks, opts = [], []
        cfg = (self.objdir("x86_64") / ".config").read_text()
        for name, needs in self.gate_checks():
            ok = True
            for n in needs:
                if n.startswith("CONFIG_"):
                    ok &= ("\n%s=y" % n) in cfg
                elif n.startswith("file:"):
                    ok &= (KSRC / n[5:]).exists()
            if ok:
                run_checks.append(name)
        log = self.logdir / ("%s.boot.console" % p.num)
        allowed = (TOP / "qemu" / "expected-warnings.txt")
        cmd = ["bash", str(TOP / "qemu/boot.sh"), "-k", "-c", ",".join(run_checks),
               "-a", "pm_debug_messages initcall_debug", "-o", str(log)]
        # From the patch that adds the sysdev suite, it must run every
        # case of this checkout: a lost or skipped case fails the boot.
        if "\nCONFIG_SYSDEV_KUNIT_TEST=y" in cfg:
            rc, suite = run(["bash", "-c", '. "$1" && sysdev_kunit_expect',
                             "-", str(TOP / "scripts/lib.sh")])
            if rc != 0 or not suite.strip():
                self.store(p, col, "fail", "CONFIG_SYSDEV_KUNIT_TEST=y but no sysdev "
                           "KUnit suite in the tree: %s" % suite.strip(), suite)
                return
            cmd += ["-K", suite.strip()]
        if allowed.exists():
            pats = [l.strip() for l in allowed.read_text().splitlines()
                    if l.strip() and not l.startswith("#")]
            if pats:
                cmd += ["-W", "|".join(pats)]
        rc, out = run(cmd + [str(self.objdir("x86_64") / "arch/x86/boot/bzImage")])
        if rc != 0:
            reason = [l for l in out.splitlines() if "FAIL:" in l]
            self.store(p, col, "fail", reason[0].split("FAIL: ", 1)[1]
                       if reason else "boot failed", out)
        else:
            kunit = [l for l in out.splitlines() if "kunit:" in l]
            self.store(p, col, "pass", "%s; %s" % (",".join(run_checks),
                       kunit[0].split("Testing complete. ")[-1] if kunit else ""), out)
        self.check_abi(p, log)

    # The user ABI: what the guest check "abi" dumps of /sys/devices/system
    # and /sys/bus at patch k, against the unpatched kernel.
    ABI_BASE_BUILD = Path(E["SYSDEV_CACHE"]) / "base/build"   # lib.sh's BASE_BUILD_ROOT
    ABI_BASE_IMAGE = ABI_BASE_BUILD / "x86_64/arch/x86/boot/bzImage"
    abi_build_base = True   # a driver testing check_abi may turn it off
    abi_base = None         # (snapshot path or None, detail, log)

    def check_abi(self, p, console):
        """Column abi: nothing under /sys/devices/system or /sys/bus of the
        unpatched kernel is removed or changed at patch k (type, mode, link
        target, content; qemu/checks/abi.sh lists the volatile files), and
        additions are only those of qemu/abi-allowed.txt.  The snapshot of
        the base kernel is made once per run (the base image built, then
        booted with the check abi) and cached by the hash of the image and
        of the guest check."""
        tool = [sys.executable, str(TOP / "qemu/abi-snapshot.py")]
        if self.abi_base is None:
            rc, log = 0, ""
            if self.abi_build_base:
                rc, log = run(["bash", str(TOP / "scripts/build-kernel.sh"), "-q",
                               "x86_64"], env=dict(E, KSRC=str(BASE_KSRC),
                               BUILD_ROOT=str(self.ABI_BASE_BUILD)))
            if rc != 0 or not self.ABI_BASE_IMAGE.exists():
                self.abi_base = (None, "the base kernel %s does not build"
                                 % self.ABI_BASE_IMAGE, log)
            else:
                # the image and everything that makes its snapshot
                h = hashlib.sha256(self.ABI_BASE_IMAGE.read_bytes())
                for f in ("qemu/checks/abi.sh", "qemu/checks/lib.sh", "qemu/init",
                          "qemu/abi-snapshot.py", "qemu/boot.sh", "qemu/mkinitramfs.sh"):
                    h.update((TOP / f).read_bytes())
                h.update(tool_versions().encode())
                snap = CACHE / ("abi-base-%s.snap" % h.hexdigest()[:32])
                if snap.exists():
                    self.abi_base = (snap, "cached", log)
                else:
                    blog = self.logdir / "abi-base.console"
                    rc, out = run(["bash", str(TOP / "qemu/boot.sh"), "-c", "abi",
                                   "-a", "pm_debug_messages initcall_debug",
                                   "-o", str(blog), str(self.ABI_BASE_IMAGE)])
                    rc2, text = run(tool + ["extract", str(blog)])
                    if rc == 0 and rc2 == 0:
                        snap.write_text(text)
                        self.abi_base = (snap, "booted", log + out)
                    else:
                        self.abi_base = (None, "the base kernel's boot gave no "
                                         "snapshot: " + (text.strip() if rc2 else
                                                         "boot failed"), log + out)
        base, how, blog = self.abi_base
        if base is None:
            self.store(p, "abi", "fail", "base snapshot: " + how, blog)
            return
        rc, text = run(tool + ["extract", str(console)])
        if rc != 0:
            self.store(p, "abi", "fail", "no snapshot in the console log: "
                       + text.strip().splitlines()[-1].split("error: ", 1)[-1], text)
            return
        head = self.logdir / ("%s.abi.snap" % p.num)
        head.write_text(text)
        rc, out = run(tool + ["compare", str(base), str(head), "--allow",
                              str(TOP / "qemu/abi-allowed.txt")])
        last = out.strip().splitlines()[-1] if out.strip() else "compare failed"
        log = "base: %s (%s)\nhead: %s\n\n%s" % (base, how, head, out)
        if rc != 0:
            self.store(p, "abi", "fail", last.split("first: ", 1)[-1], log)
        else:
            self.store(p, "abi", "pass", last.split("abi: ", 1)[-1], log)

    # -- other architectures -------------------------------------------------
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

    def check_cross(self, p, configs):
        """Column cross: the touched C files that no native configuration
        built (files of other architectures, code behind options the small
        configs leave out) compile, W=1, in the defconfigs of
        ci/cross-build.py, without more warnings than at the parent.  Not
        applicable to a patch whose C files all built natively."""
        col = "cross"
        if self.results_cached.get((p.num, col)) or self.cached(p, col):
            return
        files = [f for f in p.c_files()
                 if (KSRC / f).exists() and not any(
                     (self.objdir(n) / (f[:-2] + ".o")).exists() or
                     self.included_by_object(n, f) for n in configs)]
        if not files:
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

    # -- the series --------------------------------------------------------
    def series_checks(self, patches):
        row = "series"
        mails = sorted(OUTGOING.glob("*.patch"))
        cover = [m for m in mails if re.match(r"^(v\d+-)?0000-cover-letter\.patch$", m.name)]

        def rec(col, ok, detail, log=""):
            self.record(row, col, "pass" if ok else "fail", detail, log)

        text = cover[0].read_text() if cover else ""
        ok = bool(cover) and "*** SUBJECT HERE ***" not in text and "*** BLURB HERE ***" not in text
        rec("cover", ok, "cover letter present" if ok else "no cover letter (or placeholders left)")
        rec("count", 0 < len(patches) <= MAX_PATCHES, "%d patches (max %d)" % (len(patches), MAX_PATCHES))

        notes = (TOP / "MAINTAINERS-notes.md")
        notes_text = notes.read_text() if notes.exists() else ""
        added = sorted({f for p in patches for f in p.added})
        missing_notes = [f for f in added if f not in notes_text]
        rec("maint-notes", not missing_notes,
            "new files in MAINTAINERS-notes.md: %d/%d" % (len(added) - len(missing_notes), len(added))
            + ("; missing: " + ", ".join(missing_notes) if missing_notes else ""))
        git("checkout", "-q", "--detach", patches[-1].commit)
        uncovered, log = [], ""
        for f in added:
            _, out = run(["perl", "scripts/get_maintainer.pl", "--no-git",
                          "--no-git-fallback", "--sections", "-f", f], cwd=KSRC)
            log += "== %s\n%s\n" % (f, out)
            sections = [l for l in out.splitlines()
                        if l.strip() and not re.match(r"^[A-Z]:\s", l)]
            if not [s for s in sections if s != "THE REST"]:
                uncovered.append(f)
        rec("maintainers", not uncovered,
            "new files covered by MAINTAINERS: %d/%d" % (len(added) - len(uncovered), len(added))
            + ("; not covered: " + ", ".join(uncovered) if uncovered else ""), log)

        with tempfile.TemporaryDirectory() as tmp:
            env = dict(E, OUTGOING=tmp)
            # the reroll count of outgoing/ (v7-0000-...), which an empty
            # directory cannot tell regen-series.sh
            v = [m.group(1) for m in (re.match(r"^v(\d+)-0000-", c.name) for c in cover) if m]
            rc, out = run(["bash", str(TOP / "scripts/regen-series.sh")]
                          + (["-v", v[0]] if v else []), env=env)
            if rc == 0:
                rc2, diff = run(["diff", "-ru", str(OUTGOING), tmp])
                rec("regen", rc2 == 0, "outgoing/ regenerates byte for byte"
                    if rc2 == 0 else "outgoing/ differs from the working branch", diff)
            else:
                rec("regen", False, "regeneration failed", out)

        cc = "perl scripts/get_maintainer.pl --norolestats --no-git --no-git-fallback --no-rolestats"
        rc, out = run(["git", "-c", "sendemail.smtpserver=/bin/false",
                       "send-email", "--dry-run", "--confirm=never",
                       "--from=%s <%s>" % (E["SERIES_NAME"], E["SERIES_EMAIL"]),
                       "--to=linux-kernel@vger.kernel.org", "--cc-cmd=" + cc,
                       "--suppress-cc=self", "--no-chain-reply-to"]
                      + [str(m) for m in mails], cwd=KSRC)
        n = len(re.findall(r"^Dry-OK\. Log says:", out, re.M)) or len(re.findall(r"^Dry-Sent", out, re.M))
        rec("send-email", rc == 0 and n == len(mails),
            "dry run: %d of %d messages" % (n, len(mails)), out)

    # -- driver -------------------------------------------------------------
    def patches(self):
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

    def main(self):
        a = self.args
        if git("status", "--porcelain", "--untracked-files=no"):
            sys.exit("gate: the kernel tree %s has uncommitted changes" % KSRC)
        patches = self.patches()
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
        try:
            self.before = {}
            configs = a.configs if "build" in want else []
            cols_of = lambda p: ["build:" + n for n in configs] + \
                (["boot", "abi"] if "boot" in want else []) + \
                (["cross"] if "cross" in want else [])
            for p in sel:
                for col in cols_of(p):
                    self.results_cached[(p.num, col)] = self.cached(p, col)
            # A secondary configuration never built here is built at the
            # last selected patch first: its objects tell which files it
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
                    self.build(m)
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
                if "cross" in want:
                    self.check_cross(p, configs)
                self.done = i + 1
            if "series" in want:
                self.series_checks(patches)
        finally:
            git("checkout", "-q", orig)
        self.report(sel, time.time() - t0)

    def report(self, patches, secs):
        write_report(self.results, [p.name for p in patches], self.logdir, secs)


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


def gitlab_pipeline(cells):
    """A GitLab CI child pipeline (YAML, written as JSON, which YAML
    includes): one job per cell, then a merge job that downloads every
    cell's GATE_LOGS (the artifacts of the earlier stage) and writes the
    report.  ci/gitlab-ci.yml generates and triggers it."""
    setup = ["bash scripts/install-deps.sh", "bash scripts/prepare-tree.sh",
             "bash scripts/apply-series.sh"]
    common = {"image": "debian:12",
              "variables": {"SYSDEV_CACHE": "$CI_PROJECT_DIR/.sysdev-cache"},
              "cache": {"key": "sysdev-ccache", "paths": [".sysdev-cache/ccache"]}}
    jobs = {"stages": ["cells", "merge"]}
    for c in cells:
        d = "gate-logs/" + c.replace(":", "_")
        jobs["cell " + c] = dict(common, stage="cells", script=setup + [
            "GATE_LOGS=%s bash ci/gate.sh --no-cache --cell %s" % (d, c)],
            artifacts={"when": "always", "paths": [d]})
    jobs["merge"] = dict(common, stage="merge", when="always", script=[
        "bash ci/gate.sh --merge gate-report gate-logs/*"],
        artifacts={"when": "always", "paths": ["gate-report"]})
    return json.dumps(jobs, indent=1)


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help="build configurations (default: %(default)s)")
    ap.add_argument("--checks", default="message,checkpatch,inline,kerneldoc,rst,cocci,build,boot,cross,series",
                    help="checks to run (default: %(default)s)")
    ap.add_argument("--only", default=None,
                    help="comma-separated patch numbers to check (default: all)")
    ap.add_argument("--no-cache", action="store_true", help="ignore cached passes")
    ap.add_argument("--list-cells", action="store_true",
                    help="print the cells (of --checks and --configs) as a JSON list and exit")
    ap.add_argument("--format", choices=["json", "gitlab"], default="json",
                    help="--list-cells as a JSON list, or as a GitLab CI child pipeline")
    ap.add_argument("--cell", help="run one cell of --list-cells (e.g. 0005:build:i386)")
    ap.add_argument("--merge", nargs="+", metavar=("OUT", "DIR"),
                    help="merge the GATE_LOGS directories DIR... of cells run apart into OUT")
    a = ap.parse_args()
    a.configs = [c for c in a.configs.split(",") if c]
    a.checks = [c for c in a.checks.split(",") if c]
    a.only = None if a.only is None else {int(x) for x in a.only.split(",")}
    if a.list_cells:
        cells = list_cells(a.configs, a.checks)
        print(gitlab_pipeline(cells) if a.format == "gitlab" else json.dumps(cells))
        return
    if a.merge:
        if len(a.merge) < 2:
            sys.exit("gate: --merge OUT DIR...")
        merge(a.merge[0], a.merge[1:])
    if a.cell:
        cell_args(a, a.cell)
    Gate(a).main()


if __name__ == "__main__":
    main()
