"""Cell runners of the boot and abi columns: the x86_64 test kernel of each
patch booted in QEMU with the guest checks, and its /sys snapshot against
the unpatched kernel's."""

import hashlib
import re
import sys
from pathlib import Path

from .cache import tool_versions
from .env import BASE_KSRC, CACHE, E, KSRC, TOP, run


class BootChecks:
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
                self.store(p, "abi", "fail", "no boot: x86_64 does not build", "")
                return
            self.built_at["x86_64"] = p.commit
        run_checks = []
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
                self.store(p, "abi", "fail", "no boot: no KUnit suite to expect", "")
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
                    snap.touch()    # read: a gate job hands it on
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
