#!/usr/bin/env python3
"""The commands README.md and Documentation/*.md tell a reader to type.

usage: doc-commands.py TOP

Prints one line per documented command, tab-separated: the file, the
command as written, and what the suite does with it, from the table
below: "run CMD" (the test runs CMD, which must exit 0), "test NAME"
(another test of the suite runs it) or "not run: REASON".  A command that
no rule of the table matches is printed with "UNKNOWN" and makes the exit
status 1: a new documented command must get a rule.

Commands are the lines of indented code blocks that start with make,
bash, python3 or git, and inline code spans that start with "make " or
"bash ".
"""
import re
import sys
from pathlib import Path

RULES = [
    # (regex on the command, action)
    (r"^make run\b", "test main_job"),
    (r"^make test\b", "not run: it is this suite"),
    (r"^make apply\b", "run make apply"),
    (r"^make regen V=[0-9N]", "not run: a reroll renames outgoing/ (make regen runs here)"),
    (r"^make regen\b", "run make regen && git diff --exit-code -- outgoing"),
    (r"^make references\b", "not run: it builds the unpatched tree's documentation again (4-5 "
     "minutes cold); the test references_current holds ci/references/ to the installed package "
     "and tools"),
    (r"^make perf\b|^bash ci/perf/run-perf\.sh", "not run: 8-60 minutes and three perf kernels; "
     "Documentation/performance.md has its measured runs"),
    (r"^python3 ci/perf/test-perf-table\.py", "run python3 ci/perf/test-perf-table.py"),
    (r"^python3 ci/perf/test-cost-compare\.py", "test cost_compare"),
    (r"^bash ci/perf/cost-per-patch\.sh", "not run: a perf kernel built and booted under -icount "
     "at every patch, about 5 minutes each; Documentation/performance.md has its runs"),
    (r"^python3 ci/perf/perf-table\.py DIR", "test perf_table"),
    (r"^bash ci/gate\.sh --no-cache", "not run: the whole gate without its cache (the gate test runs it cached)"),
    (r"^bash ci/gate\.sh --only 3 --checks build --configs i386$",
     "run bash ci/gate.sh --only 3 --checks build --configs i386"),
    (r"^bash ci/gate\.sh --only 5$", "run bash ci/gate.sh --only 5"),
    (r"^bash ci/gate\.sh\s*$", "test gate"),
    (r"^bash ci/gate\.sh --write-plan plan\.json$|^bash ci/gate\.sh --plan plan\.json --pipeline",
     "test gate_pipeline"),
    (r"^bash ci/gitlab-local\.sh --check ci/gitlab-ci\.yml$", "test pipeline_schema"),
    (r"^bash ci/gitlab-local\.sh\b", "not run: the whole pipeline, hours of runner time; "
     "Documentation/performance.md has its measured jobs"),
    (r"^make -C <objdir>", "not run: how ci/perf/run-perf.sh builds its module (make perf)"),
    (r"^git rebase -i\b", "not run: interactive"),
    (r"^git rebase sysdev-base --exec", "not run: re-signs the series with the sender's identity"),
    (r"^git send-email --dry-run\b", "test gate"),
    (r"^git send-email\b", "not run: mails the series (the gate's send-email column is its dry run)"),
    (r"^git add\b", "not run: commits to this repository"),
]


def commands(top):
    for f in [top / "README.md"] + sorted((top / "Documentation").glob("*.md")):
        for line in f.read_text().splitlines():
            m = re.match(r"^    ((?:make|bash|python3|git) .*)$", line)
            if m:
                yield f.relative_to(top), re.sub(r"\s+#.*$", "", m.group(1)).strip()
            for c in re.findall(r"`((?:make|bash) [^`]*)`", line):
                yield f.relative_to(top), c.strip()


def main():
    top = Path(sys.argv[1])
    unknown = 0
    for f, cmd in sorted(set(commands(top))):
        for rx, action in RULES:
            if re.search(rx, cmd):
                break
        else:
            action = "UNKNOWN"
            unknown += 1
        print("%s\t%s\t%s" % (f, cmd, action))
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
