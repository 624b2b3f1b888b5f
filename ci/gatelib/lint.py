"""Cell runners of the checks without a build: message, checkpatch, inline,
kerneldoc, rst and cocci."""

import email
import email.policy
import email.utils
import fnmatch
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .env import BASE_KSRC, CODESPELL, KSRC, SYSTEM_PYTHON_ENV, TOP, run
from .findings import cocci_key, new_findings


class LintChecks:
    def check_message(self, p):
        # The mail as git send-email sends it: headers decoded (an RFC 2047
        # From: of a non-ASCII name), folded lines unfolded; the trailers
        # as git reads them.
        msg = email.message_from_bytes(p.mail.read_bytes(), policy=email.policy.default)
        body = msg.get_content().split("\n---\n", 1)[0]
        tp = subprocess.run(["git", "interpret-trailers", "--parse"], input=body,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(SYSTEM_PYTHON_ENV, GIT_CONFIG_GLOBAL="/dev/null",
                                     GIT_CONFIG_SYSTEM="/dev/null"))
        if tp.returncode != 0:
            self.store(p, "message", "fail", "git interpret-trailers failed (see log)", tp.stdout)
            return
        trailers = tp.stdout
        problems = []
        subject = re.sub(r"^\[PATCH[^]]*\]\s*", "", str(msg.get("subject", "")))
        if not re.match(r"^[a-zA-Z0-9_./, -]+: \S", subject):
            problems.append("subject is not 'area: summary': %r" % subject)
        if len(subject) > 75:
            problems.append("subject is %d columns (> 75)" % len(subject))
        # compared as (name, address): the header's display name may be
        # quoted ("H. Peter Anvin"), the trailer's is not
        frm = msg.get("from")
        who = (frm.addresses[0].display_name, frm.addresses[0].addr_spec) if frm else ("", "")
        author = "%s <%s>" % who
        sobs = re.findall(r"^Signed-off-by: (.+)$", trailers, re.M)
        if not sobs:
            problems.append("no Signed-off-by")
        elif who not in [email.utils.parseaddr(s) for s in sobs]:
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
        if not p.src_files():
            # nothing to check: not a pass (Documentation/gate.md)
            self.store(p, "inline", "n/a", "no .c or .h file touched", "")
            return
        problems = []
        cur = None
        for line in p.diff.splitlines():
            if line.startswith("+++ "):
                cur = line[6:] if line.startswith("+++ b/") else None
                continue
            if not cur or not line.startswith("+") or line.startswith("+++"):
                continue
            code = line[1:]
            # inline, __inline__, __always_inline, __always_inline__...
            if cur.endswith(".h") and re.match(r"^static\s(?!.*\b(__)?(always_)?inline(__)?\b)"
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
        if not p.src_files():
            self.store(p, "kerneldoc", "n/a", "no .c or .h file touched", "")
            return
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
            self.store(p, "rst", "n/a", "no .rst file touched", "")
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

    @staticmethod
    def cocci_unparsed(path):
        """The lines of the C file at path that spatch cannot parse (its
        --parse-c "nb bad"), which no semantic patch then checks; None if
        spatch gave no count."""
        rc, out = run(["spatch", "--parse-c", str(path)], timeout=600)
        m = re.search(r"nb bad = (\d+)", out)
        return int(m.group(1)) if m else None

    def check_cocci(self, patches):
        """One spatch run per semantic patch over every file version; a
        file version with more lines that spatch cannot parse than its
        parent's had (so code no semantic patch checked) fails the cell."""
        todo = [p for p in patches if p.c_files() and not self.cached(p, "cocci")]
        for p in patches:
            if not p.c_files() and not self.cached(p, "cocci"):
                self.store(p, "cocci", "n/a", "no .c file touched", "")
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
            unparsed = {}
            for p in todo:
                for f in p.c_files():
                    counts = []
                    for side in ("before", "after"):
                        path = Path(tmp) / p.num / side / f
                        counts.append(self.cocci_unparsed(path) if path.exists() else 0)
                    unparsed[(p.num, f)] = counts
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
            counts = [(f, unparsed[(p.num, f)]) for f in p.c_files()]
            worse = ["%s: spatch --parse-c gave no count" % f
                     for f, (b, a) in counts if a is None]
            worse += ["%s: %d -> %d lines spatch cannot parse" % (f, b, a)
                      for f, (b, a) in counts
                      if a is not None and b is not None and a > b]
            log = "scripts: %d\nbefore:\n%s\nafter:\n%s\nnew:\n%s\nspatch failures:\n%s\n" \
                  "unparsed lines (spatch --parse-c), before -> after:\n%s\n" % (
                      len(scripts), "\n".join(before), "\n".join(after), "\n".join(new),
                      "\n".join(broken),
                      "\n".join("%s: %s -> %s" % (f, b, a) for f, (b, a) in counts))
            if broken:
                self.store(p, "cocci", "fail", "spatch failed on %d of %d scripts: %s"
                           % (len(broken), len(scripts), broken[0]), log)
            elif new:
                self.store(p, "cocci", "fail", "coccinelle reports %d -> %d: %s"
                           % (len(before), len(after), new[0]), log)
            elif worse:
                self.store(p, "cocci", "fail", "not checked: %s" % worse[0], log)
            else:
                self.store(p, "cocci", "pass", "%d -> %d reports"
                           % (len(before), len(after)), log)
