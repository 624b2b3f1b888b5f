"""The series row: cover letter, patch count, MAINTAINERS and its notes,
regeneration byte for byte, git send-email --dry-run."""

import re
import tempfile

from .env import E, KSRC, MAX_PATCHES, OUTGOING, TOP, git, run


class SeriesChecks:
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
