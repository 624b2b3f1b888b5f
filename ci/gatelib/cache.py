"""The verdict cache: a pass, or a build cell's n/a, is kept under a key
made of the commits, the check, the configuration's fragment, the host
tools' versions and the workbench files the gate runs (tooling_hash());
a failure is never kept.  It also keeps the cross column's native lists
(cross.native_lists())."""

import hashlib
import json
import re
import subprocess

from .env import CACHE, CONFIGS, E, TOP


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


def tooling_hash():
    """The hash of what the verdicts depend on besides the commits: the
    versions of the host tools (tool_versions()) and the files under ci/,
    qemu/ and scripts/ as they are in the work tree, tracked or not (but
    what .gitignore ignores), so that a check or an allow-list that is not
    yet committed is in the key of every cell it could change; left out
    is what the gate never runs: the suite's own tests (ci/tests/,
    ci/run-tests.sh) and their references of the unpatched tree
    (ci/references/), the benchmarks (ci/perf/), the CI pipeline's
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
        if name.startswith(("ci/tests/", "ci/references/", "ci/perf/")) or \
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


class VerdictCache:
    """The Gate's cache of passes and build cells' n/a (needs self.tool,
    self.args.no_cache, self.record() and, for the cross column,
    self.cross_basis)."""
    def key(self, patch, check):
        frag = b""
        kind, _, config = check.partition(":")
        if kind in ("build", "native"):
            for d in ("qemu", "ci/configs"):
                f = TOP / d / (config + ".config")
                if f.exists():
                    frag = f.read_bytes()
        h = hashlib.sha256()
        for part in (self.tool, patch.parent, patch.commit, check):
            h.update(part.encode() + b"\0")
        h.update(frag)
        if check == "cross":
            # which files a cross cell builds is decided by the native
            # lists (cross.native_lists()): those of the run's native
            # configurations at the series' last patch
            assert self.cross_basis is not None, "a cross cell's key before main() set its basis"
            h.update(b"\0" + self.cross_basis.encode())
        return h.hexdigest()

    def cached(self, patch, col):
        f = CACHE / self.key(patch, col)
        if self.args.no_cache or not f.exists():
            return False
        data = json.loads(f.read_text())
        f.touch()   # read by this run: a gate job hands on what it used
        self.record(patch.num, col, data.get("status", "pass"),
                    data["detail"] + " (cached)", data["log"])
        return True

    def native_file(self, last, config):
        """Where config's native list (cross.native_lists()) is kept: under
        last's key for "native:config" and the series' C files."""
        return CACHE / hashlib.sha256((self.key(last, "native:" + config) + "\0" +
                                       " ".join(self.series_c)).encode()).hexdigest()

    def kept_native(self, last, config):
        """config's kept native list, or None (none kept, or --no-cache)."""
        f = self.native_file(last, config)
        if self.args.no_cache or not f.exists():
            return None
        f.touch()
        return json.loads(f.read_text())

    def keep_native(self, last, config, files):
        self.native_file(last, config).write_text(json.dumps(files))

    def store(self, patch, col, status, detail, log_text):
        """Record the cell and keep a pass, or a verdict of not applicable
        (n/a: a build cell's depends on the object directories of the
        walk, which a re-run on another runner does not have); a failure
        removes what was kept of the cell (bisect_break() fails a cell
        that an objects-only build had passed)."""
        self.record(patch.num, col, status, detail, log_text)
        f = CACHE / self.key(patch, col)
        if status in ("pass", "n/a"):
            f.write_text(json.dumps({"status": status, "detail": detail, "log": log_text}))
        elif f.exists():
            f.unlink()
