#!/usr/bin/env python3
"""Self-test of cost-compare.py: synthetic runs within and over the
budget, and each kind of run it must refuse to judge (exit 2).

usage: test-cost-compare.py
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_dir(root, name, sysdev_scale=1.0, clock="icount shift=0,sleep=off", reps=3, kinds=("plain", "sysdev")):
    d = os.path.join(root, name)
    os.makedirs(d)
    with open(os.path.join(d, "info.txt"), "w") as f:
        f.write(f"clock {clock}\n")
    with open(os.path.join(d, "boot-head-1.log"), "w") as f:
        for rep in range(reps):
            for kind in kinds:
                base = 258_000_000 + rep * 10_000_000
                s = sysdev_scale * 1.04 if kind == "sysdev" else 1.0
                f.write(f"[    1.0{rep}] sysdev_perf: SYSDEV-PERF {kind} rep={rep} count=10000 "
                        f"reg_ns={int(base * s)} unreg_ns={int(base * s)}\n")
    return d


def check(name, want_rc, want_text, *args):
    p = subprocess.run([sys.executable, os.path.join(HERE, "cost-compare.py"), *args],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok = p.returncode == want_rc and want_text in p.stdout
    print(("ok     " if ok else "FAILED ") + f"{name}: exit {p.returncode}, {p.stdout.strip()!r}")
    return ok


def main():
    good = True
    with tempfile.TemporaryDirectory() as t:
        before = run_dir(t, "before")
        good &= check("same", 0, "+0.00 points", before, run_dir(t, "same"))
        good &= check("within", 0, "ok", before, run_dir(t, "within", 1.005))
        good &= check("over", 1, "OVER BUDGET", before, run_dir(t, "over", 1.02))
        good &= check("cheaper", 0, "ok", before, run_dir(t, "cheaper", 0.98))
        good &= check("budget", 0, "ok", "--budget", "2.5", before, run_dir(t, "budget", 1.02))
        good &= check("wall", 2, "only -I (icount) runs are judged", before, run_dir(t, "wall", clock="wall"))
        good &= check("no_sysdev", 2, "no 'sysdev' rounds", before, run_dir(t, "nosys", kinds=("plain",)))
        good &= check("rounds", 2, "rounds or devices per round differ", before, run_dir(t, "rounds", reps=5))
        good &= check("not_a_run", 2, "no info.txt", before, t)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
