#!/usr/bin/python3
"""Compile the touched C files of a patch in full configurations of
several architectures, with Debian's cross compilers.

usage: cross-build.py [--list] FILE...

The gate's native builds use small configurations (tinyconfig plus
fragments), which do not build every file a patch may touch, and only
x86.  Here each FILE (a path in the kernel tree $KSRC) is compiled, W=1,
as a single object in the defconfig of:
  - the architecture of its directory, for a file under arch/<a>/;
  - every architecture of GENERIC, for any other file;
when that defconfig builds it (the obj-$(CONFIG_...) line of the
directory's Makefile).  One object directory per architecture,
$BUILD_ROOT/cross-<name>, configured once; one make call per architecture.

Prints, per architecture and file, "built", "not built by <defconfig>"
or the failure, then the warnings located in the touched files, one per
line as "WARNING <arch> <file>: <message>" (without line numbers, so that
the gate can compare a patch with its parent).  A file of an
architecture without a cross compiler here is reported "NOT COVERED":
a gap is said, not hidden.  Exit status: 0 if every compile succeeded,
1 if one failed, 2 for a usage error.  --list prints the architectures.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

# name: (ARCH, CROSS_COMPILE, defconfig, Debian package); the options of
# EXTRA are enabled on top of the defconfig.
ARCHES = {
    "x86_64": ("x86", "", "defconfig", "gcc"),
    "arm64": ("arm64", "aarch64-linux-gnu-", "defconfig", "gcc-aarch64-linux-gnu"),
    "powerpc": ("powerpc", "powerpc64le-linux-gnu-", "ppc64le_defconfig",
                "gcc-powerpc64le-linux-gnu"),
    "s390": ("s390", "s390x-linux-gnu-", "defconfig", "gcc-s390x-linux-gnu"),
    "sparc64": ("sparc", "sparc64-linux-gnu-", "sparc64_defconfig",
                "gcc-sparc64-linux-gnu"),
}

EXTRA = {"x86_64": ["CRYPTO_SHA256", "HYPERVISOR_GUEST", "X86_X2APIC", "X86_SGX"]}
GENERIC = ["x86_64", "arm64"]

KSRC = Path(os.environ["KSRC"])
BUILD_ROOT = Path(os.environ["BUILD_ROOT"])
JOBS = os.environ.get("JOBS", str(os.cpu_count() or 1))


def make(arch, objdir, *targets):
    karch, cross, _, _ = ARCHES[arch]
    cmd = ["make", "-s", "-C", str(KSRC), "O=" + str(objdir), "ARCH=" + karch,
           "CROSS_COMPILE=" + cross, "CC=ccache %sgcc" % cross,
           "-j" + JOBS] + list(targets)
    # as scripts/build-kernel.sh does, so that the trees share ccache hits
    env = dict(os.environ, CCACHE_NOHASHDIR="1", CCACHE_BASEDIR=os.environ.get(
        "SYSDEV_CACHE", str(KSRC.parent)))
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    return p.returncode, p.stdout


def configure(arch):
    objdir = BUILD_ROOT / ("cross-" + arch)
    defconfig = ARCHES[arch][2]
    extra = EXTRA.get(arch, [])
    want = " ".join([defconfig] + extra)
    stamp = objdir / ".sysdev-defconfig"
    if (objdir / ".config").exists() and stamp.exists() \
            and stamp.read_text() == want:
        return objdir, None
    objdir.mkdir(parents=True, exist_ok=True)
    rc, out = make(arch, objdir, defconfig)
    if rc:
        return objdir, out
    if extra:
        args = [str(KSRC / "scripts/config"), "--file", str(objdir / ".config")]
        for o in extra:
            args += ["--enable", o]
        p = subprocess.run(args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode:
            return objdir, p.stdout
        rc, out = make(arch, objdir, "olddefconfig")
        if rc:
            return objdir, out
        cfg = (objdir / ".config").read_text()
        missing = [o for o in extra if "\nCONFIG_%s=y" % o not in cfg]
        if missing:
            return objdir, "options not set by olddefconfig: %s" % missing
    stamp.write_text(want)
    return objdir, None


def makefile_condition(path):
    """The CONFIG_ symbol that builds path's object, "y", or None."""
    mk = KSRC / os.path.dirname(path) / "Makefile"
    if not mk.exists():
        return None
    obj = os.path.basename(path)[:-2] + ".o"
    text = mk.read_text(errors="replace").replace("\\\n", " ")
    for line in text.splitlines():
        m = re.match(r"^\s*obj-(\$\((CONFIG_\w+)\)|y)\s*[+:]?=(.*)$", line)
        if m and obj in m.group(3).split():
            return m.group(2) or "y"
    return None


def enabled(objdir, cond):
    if cond == "y":
        return True
    cfg = (objdir / ".config").read_text()
    return re.search(r"^%s=y$" % cond, cfg, re.M) is not None


def plan(files):
    """{arch: [files]} for the touched C files, and the uncovered ones."""
    todo, uncovered = {}, []
    for f in files:
        m = re.match(r"^arch/([^/]+)/", f)
        if m:
            wanted = [a for a, v in ARCHES.items() if v[0] == m.group(1)]
            if not wanted:
                uncovered.append(f)
        else:
            wanted = GENERIC
        for arch in wanted:
            todo.setdefault(arch, []).append(f)
    return todo, uncovered


def warnings_in(out, objdir, files):
    found = []
    for line in out.splitlines():
        w = re.match(r"^([^:\s]+):(\d+):(?:\d+:)? warning: (.*)$", line)
        if not w:
            continue
        src = os.path.relpath(os.path.normpath(
            os.path.join(objdir, w.group(1))), KSRC)
        if src.startswith("../"):
            src = os.path.normpath(w.group(1))
        if src in files:
            found.append((src, w.group(2), w.group(3)))
    return found


def main(argv):
    if not argv:
        print("usage: cross-build.py [--list] FILE...", file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if argv[0] == "--list":
        for a, (karch, cross, cfg, pkg) in ARCHES.items():
            print("%-8s ARCH=%s CROSS_COMPILE=%s %s %s (%s)" % (
                a, karch, cross, cfg, " ".join(EXTRA.get(a, [])), pkg))
        return 0
    files = [f for f in argv if f.endswith(".c")]
    todo, uncovered = plan(files)
    for f in uncovered:
        print("NOT COVERED %s: no cross compiler for its architecture" % f)
    failed = False
    warnings, seen = [], set()
    for arch, fs in todo.items():
        objdir, err = configure(arch)
        if err:
            print("FAILED %s: %s does not configure:\n%s"
                  % (arch, ARCHES[arch][2], err[-2000:]))
            failed = True
            continue
        objs = []
        for f in fs:
            cond = makefile_condition(f)
            if cond is None or not enabled(objdir, cond):
                print("%s %s: not built by %s (%s)"
                      % (arch, f, ARCHES[arch][2], cond or "no obj- line"))
                continue
            obj = f[:-2] + ".o"
            if (objdir / obj).exists():
                (objdir / obj).unlink()
            objs.append(obj)
        if not objs:
            continue
        rc, out = make(arch, objdir, "W=1", *objs)
        if rc:
            print("FAILED %s %s:\n%s" % (arch, " ".join(objs), out[-3000:]))
            failed = True
            continue
        for obj in objs:
            print("%s %s: built" % (arch, obj[:-2] + ".c"))
        # one per line: a header's warning repeats for every object that
        # includes it; two at different lines are two
        for src, line, msg in warnings_in(out, objdir, fs):
            if (arch, src, line, msg) not in seen:
                seen.add((arch, src, line, msg))
                warnings.append("WARNING %s %s: %s" % (arch, src, msg))
    for w in warnings:
        print(w)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
