#!/usr/bin/env python3
"""Self-test of perf-table.py on synthetic raw data: a complete set that
meets every target exits 0, a missed target exits 0 and says MISSED, and a missing figure
(no "Run /init" line, lost suspend exit lines, 19 of 20 cycles, no module
output) exits 2 and names it.

usage: test-perf-table.py
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write_set(d, sysdev_reg=1_020_000_000, head_cycle=1.0, base_plain=1_000_000_000, lockdep=True):
    def log(kind, i, full):
        out = ["[    0.000000] Linux version 6.12",
               f"[    0.000000] Kernel command line: sysdev_checks=perf perf_cycles={20 if full else 0}",
               f"[    {1.5 + i / 100:.6f}] Run /init as init process",
               "SYSDEV-INIT 6.12 checks=perf"]
        if full:
            if kind == "head":
                out.append("[    3.000000] sysdev_perf: SYSDEV-PERF sizeof device=744 "
                           "node=32 node_alloc=32 ids_per_device=10 extra=42")
            for r in range(5):
                plain = base_plain if kind == "base" else 1_000_000_000
                out.append(f"[    3.100000] sysdev_perf: SYSDEV-PERF plain rep={r} count=10000 "
                           f"reg_ns={plain + r} unreg_ns=500000000")
                if kind == "head":
                    out.append(f"[    3.200000] sysdev_perf: SYSDEV-PERF sysdev rep={r} count=10000 "
                               f"reg_ns={sysdev_reg + r} unreg_ns=510000000")
                    for level in range(1, 5):
                        out.append(f"[    3.300000] sysdev_perf: SYSDEV-PERF step{level} rep={r} "
                                   f"count=10000 reg_ns={1_000_000_000 + 5_000_000 * level} "
                                   f"unreg_ns=505000000")
            t = 5.0
            for phase, dur in (("core", 0.05), ("mem", 0.2)):
                out.append(f"[   {t:.6f}] SYSDEV-PERF phase {phase}")
                for _ in range(20):
                    out.append(f"[   {t:.6f}] PM: suspend entry (deep)")
                    t += dur * (head_cycle if kind == "head" else 1.0)
                    out.append(f"[   {t:.6f}] PM: suspend exit")
                    t += 0.01
            out.append(f"[   {t:.6f}] SYSDEV-PERF phase end")
        out += ["SYSDEV-CHECK perf PASS", "SYSDEV-DONE"]
        with open(os.path.join(d, f"boot-{kind}-{i}.log"), "w") as f:
            f.write("\n".join(out) + "\n")

    for i in range(1, 6):
        log("base", i, i == 1)
        log("head", i, i == 1)
    with open(os.path.join(d, "info.txt"), "w") as f:
        f.write("base perf 6.12.118 b\nhead perf 6.12.118 h\n")
        if lockdep:
            f.write("lockdep perf-lockdep 6.12.118 h\n")
    if lockdep:
        with open(os.path.join(d, "boot-lockdep-1.log"), "w") as f:
            for r in range(3):
                for kind, reg in (("plain", 1_800_000_000), ("sysdev", 1_818_000_000)):
                    f.write(f"[    3.400000] sysdev_perf: SYSDEV-PERF {kind} rep={r} "
                            f"count=10000 reg_ns={reg} unreg_ns=900000000\n")
            f.write("SYSDEV-CHECK perf PASS\nSYSDEV-DONE\n")
    with open(os.path.join(d, "sizes.txt"), "w") as f:
        f.write("sysdev.o 4000 200 0\nvmlinux-base 1000 100 50\nvmlinux-head 1100 110 50\n")
    with open(os.path.join(d, "bloat-o-meter.txt"), "w") as f:
        f.write("Total: Before=1000, After=1100, chg +10.00%\n")


def edit(path, fn):
    with open(path) as f:
        lines = f.read().splitlines()
    with open(path, "w") as f:
        f.write("\n".join(fn(lines)) + "\n")


def run(d):
    p = subprocess.run([sys.executable, os.path.join(HERE, "perf-table.py"), d],
                       capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    cases = []

    def case(name, want_rc, want_text, setup):
        with tempfile.TemporaryDirectory() as d:
            setup(d)
            rc, out = run(d)
            ok = rc == want_rc and want_text in out
            cases.append(ok)
            print(f"{'PASS' if ok else 'FAIL'}: {name} (exit {rc}, want {want_rc})")
            if not ok:
                print(out)

    case("complete, every target met", 0, "perf: every target met", write_set)
    case("registration 1.5x the floor", 0, "MISSED by", lambda d: write_set(d, sysdev_reg=2_000_000_000))
    case("the memory per device", 0,
         "42 bytes (node 32 in a 32-byte object, ids 10; struct device 744)", write_set)
    case("registration 1.06x the floor", 0, "MISSED by 1%", lambda d: write_set(d, sysdev_reg=1_060_000_000))
    case("suspend 10% slower", 0, "MISSED by", lambda d: write_set(d, head_cycle=1.1))
    case("the base's floor 30% slower (load changed)", 0, "0.90-1.10 | MISSED by",
         lambda d: write_set(d, base_plain=1_500_000_000))
    case("the base's floor 30% faster", 0, "0.90-1.10 | MISSED by",
         lambda d: write_set(d, base_plain=700_000_000))

    def no_init(d):
        write_set(d)
        edit(os.path.join(d, "boot-base-3.log"), lambda ls: [l for l in ls if "Run /init" not in l])
    case("a boot without 'Run /init'", 2, "boot-base-3.log: no 'Run /init", no_init)

    def lost_exit(d):
        write_set(d)
        edit(os.path.join(d, "boot-head-1.log"),
             lambda ls: [l for l in ls if "PM: suspend exit" not in l])
    case("suspend exit lines lost", 2, "no suspend cycles in phase 'core'", lost_exit)

    def one_short(d):
        write_set(d)
        def drop(ls):
            i = max(n for n, l in enumerate(ls) if "PM: suspend exit" in l)
            return ls[:i] + ls[i + 1:]
        edit(os.path.join(d, "boot-base-1.log"), drop)
    case("19 of 20 suspend cycles", 2, "19 of 20 'mem' cycles", one_short)

    def no_module(d):
        write_set(d)
        edit(os.path.join(d, "boot-head-1.log"), lambda ls: [l for l in ls if "sysdev_perf" not in l])
    case("module output missing", 2, "no 'plain' registration timings", no_module)

    def no_step(d):
        write_set(d)
        edit(os.path.join(d, "boot-head-1.log"), lambda ls: [l for l in ls if "step3" not in l])
    def no_lockdep_sysdev(d):
        write_set(d)
        edit(os.path.join(d, "boot-lockdep-1.log"), lambda ls: [l for l in ls if " sysdev rep" not in l])
    case("the lockdep kernel's figures missing", 2, "boot-lockdep-1.log: no 'sysdev' registration timings",
         no_lockdep_sysdev)

    def no_lockdep_log(d):
        write_set(d)
        os.remove(os.path.join(d, "boot-lockdep-1.log"))
    case("the lockdep kernel's boot missing", 2, "boot-lockdep-1.log", no_lockdep_log)
    case("no lockdep kernel asked for (-L)", 0, "not measured (run-perf.sh -L)",
         lambda d: write_set(d, lockdep=False))
    case("lockdep kernel: system vs plain", 0,
         "of which register, lockdep kernel (head) | 1800.0 ms (1800.0-1800.0, n=3) | 1818.0 ms (1818.0-1818.0, n=3) | 1.010", write_set)

    def no_sizes(d):
        write_set(d)
        edit(os.path.join(d, "boot-head-1.log"), lambda ls: [l for l in ls if "sizeof" not in l])
    case("the sizes line missing", 2, "no sizeof line", no_sizes)
    case("a step of the breakdown missing", 2, "no 'step3' registration timings", no_step)
    case("the breakdown: each step's share of the floor", 0,
         "register, step: id index (node, xarray) | 1005.0 ms | 1010.0 ms (+0.5% of the floor)", write_set)

    def no_bloat(d):
        write_set(d)
        os.remove(os.path.join(d, "bloat-o-meter.txt"))
    case("bloat-o-meter output missing", 2, "MISSING FIGURE", no_bloat)

    def clock(line):
        def setup(d):
            write_set(d)
            with open(os.path.join(d, "info.txt"), "a") as f:
                f.write(line)
        return setup
    case("instruction counts say so", 0, "Guest time is QEMU's instruction count",
         clock("clock icount shift=0,sleep=off\n"))
    case("wall-clock times say so", 0, "Guest time is wall-clock time", clock("clock wall\n"))
    case("boots of two clocks mixed", 2, "info.txt names more than one clock",
         clock("clock wall\nclock icount shift=0,sleep=off\n"))

    print(f"{sum(cases)} passed, {len(cases) - sum(cases)} failed")
    return 0 if all(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
