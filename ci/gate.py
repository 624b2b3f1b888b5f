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

and for the series: cover letter, at most 16 patches, new files covered by
MAINTAINERS-notes.md and by MAINTAINERS, outgoing/ regenerates byte for
byte, and git send-email --dry-run sends one message per file.

A passing result (and a build cell's n/a) is cached under a key made of the
commits, the check and the tracked files of ci/, qemu/ and scripts/ (but
the suite's tests and benchmarks), so an unchanged series is re-judged
in minutes; a failure is always run again.  The report is a table, one row
per patch, written to $LOG_ROOT/gate/report.md; each cell points at its log.
"""

import argparse
import json
import os
import sys
from pathlib import Path

# The environment comes from ci/gate.sh (scripts/lib.sh): run without it
# ("python3 ci/gate.py --help"), go through it.
if "SYSDEV_GATE_ENV" not in os.environ:
    os.execvp("bash", ["bash", str(Path(__file__).resolve().parent / "gate.sh")] + sys.argv[1:])

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gatelib.env import CONFIGS  # noqa: E402
from gatelib.pipeline import gitlab_pipeline  # noqa: E402
from gatelib.plan import cell_args, list_cells, make_plan, read_plan  # noqa: E402
from gatelib.report import merge  # noqa: E402
from gatelib.runner import Gate  # noqa: E402


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
    ap.add_argument("--cell", help="run one cell of --list-cells (e.g. 0005:build:i386)")
    ap.add_argument("--native-from", nargs="+", metavar="FILE",
                    help="the cross column's native lists: the native.json of build runs "
                         "(default: this run's, from the full builds at the head or the cache)")
    ap.add_argument("--write-plan", metavar="FILE",
                    help="write the pipeline's plan (its jobs, their cells and tests; "
                         "--only and --configs apply) to FILE and exit")
    ap.add_argument("--tests", default=None,
                    help="with --write-plan: the suite's tests the plan runs, comma-separated "
                         "(default: all of ci/run-tests.sh --list)")
    ap.add_argument("--plan", metavar="FILE", help="the plan, for --pipeline and --merge")
    ap.add_argument("--pipeline", action="store_true",
                    help="print the GitLab child pipeline of --plan and exit")
    ap.add_argument("--merge", nargs="+", metavar=("OUT", "DIR"),
                    help="merge the log directories DIR... of runs made apart into OUT; "
                         "with --plan, those of the pipeline's jobs, held to the plan")
    a = ap.parse_args()
    # each named once, in the order given
    a.configs = list(dict.fromkeys(c for c in a.configs.split(",") if c))
    a.checks = list(dict.fromkeys(c for c in a.checks.split(",") if c))
    for what, given, known in (("configuration", a.configs, CONFIGS),
                               ("check", a.checks, ap.get_default("checks").split(","))):
        bad = [x for x in given if x not in known]
        if bad:
            sys.exit("gate: unknown %s %s (known: %s)" % (what, ",".join(bad), ",".join(known)))
    a.only = None if a.only is None else {int(x) for x in a.only.split(",")}
    if a.list_cells:
        print(json.dumps(list_cells(a.configs, a.checks)))
        return
    if a.write_plan:
        Path(a.write_plan).write_text(json.dumps(make_plan(a.only, a.tests.split(",") if a.tests else None,
                                                         a.configs), indent=1) + "\n")
        return
    if a.pipeline:
        if not a.plan:
            sys.exit("gate: --pipeline needs --plan FILE")
        print(gitlab_pipeline(read_plan(a.plan)))
        return
    if a.merge:
        if len(a.merge) < 2:
            sys.exit("gate: --merge OUT DIR...")
        merge(a.merge[0], a.merge[1:], read_plan(a.plan) if a.plan else None)
    if a.cell:
        cell_args(a, a.cell)
    Gate(a).main()


if __name__ == "__main__":
    main()
