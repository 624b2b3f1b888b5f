"""The gate's environment (set by ci/gate.sh from scripts/lib.sh), its
configurations and checks, and how it runs commands."""

import os
import subprocess
import sys
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
# Documentation/process/submitting-patches.rst: "only post say 15 or so
# at a time"; netdev's hard 15 (maintainer-netdev.rst) is not this
# series' subsystem's rule.  "Or so" is one more, no further.
MAX_PATCHES = 16
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


def git(*args, cwd=KSRC):
    return run(["git", "-C", str(cwd)] + list(args), check=True)[1].strip()
