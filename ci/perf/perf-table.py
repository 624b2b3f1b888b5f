#!/usr/bin/env python3
"""Print the table of make perf from the raw data of ci/perf/run-perf.sh.

usage: perf-table.py DIR

DIR holds boot-{base,head}-N.log (serial consoles of the production-like
perf kernels), boot-lockdep-1.log (the head's lockdep kernel; optional
when info.txt names no lockdep kernel), sizes.txt, bloat-o-meter.txt and
load.txt.  info.txt's "clock" line says how the guest's time was kept:
"wall" (the host's time), or "icount ..." (QEMU's -icount: one
nanosecond per instruction executed, so every time is an instruction
count; the table says so above its first row).  Prints a Markdown table
"figure | base | head | ratio | target | verdict", then one line per
missed target.  Exits 0 when every figure was measured, met or missed (a
benchmark reports; the table says which targets are missed), and 2 if a
figure is missing (a boot that did not run the module, lost suspend
lines, no "Run /init" line...): then it could not measure.
"""
import glob
import os
import re
import statistics
import sys

TS = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")


class Missing(Exception):
    pass


def lines_of(path):
    """(timestamp or None, text) for each line of a console log."""
    out = []
    with open(path, errors="replace") as f:
        for raw in f:
            raw = raw.rstrip("\r\n")
            m = TS.match(raw)
            out.append((float(m.group(1)), m.group(2)) if m else (None, raw))
    return out


def boot_time(path):
    for ts, text in lines_of(path):
        if ts is not None and text.startswith("Run /init as init process"):
            return ts
    raise Missing(f"{os.path.basename(path)}: no 'Run /init as init process' line")


def registrations(path, kind):
    """[(reg_ns, unreg_ns)] of the module's rounds of one kind."""
    rx = re.compile(r"SYSDEV-PERF %s rep=\d+ count=(\d+) reg_ns=(\d+) unreg_ns=(\d+)" % kind)
    out = [(int(m.group(2)), int(m.group(3)))
           for _, text in lines_of(path) if (m := rx.search(text))]
    if not out:
        raise Missing(f"{os.path.basename(path)}: no '{kind}' registration timings")
    return out


def sizeof_line(path):
    """The module's sizes: {device, node, node_alloc, ids_per_device, extra}."""
    for _, text in lines_of(path):
        m = re.search(r"SYSDEV-PERF sizeof device=(\d+) node=(\d+) node_alloc=(\d+) "
                      r"ids_per_device=(\d+) extra=(\d+)", text)
        if m:
            return dict(zip(("device", "node", "node_alloc", "ids_per_device", "extra"),
                            map(int, m.groups())))
    raise Missing(f"{os.path.basename(path)}: no sizeof line")


# The steps of sys_device_register()/sys_device_unregister() that the
# module adds to plain devices one at a time (kinds step1 ... step4).
STEPS = ("sysdev_mutex", "id index (node, xarray)", "KOBJ_ADD deferred, device lock",
         "list with interrupts off")


def suspend_cycles(path, phase):
    """Durations (s) of the suspend cycles after 'SYSDEV-PERF phase PHASE':
    from 'PM: suspend entry' to the next 'PM: suspend exit'."""
    cycles, inside, entry = [], False, None
    for ts, text in lines_of(path):
        if "SYSDEV-PERF phase " in text:
            inside = text.split("SYSDEV-PERF phase ", 1)[1].strip() == phase
            entry = None
            continue
        if not inside or ts is None:
            continue
        if text.startswith("PM: suspend entry"):
            entry = ts
        elif text.startswith("PM: suspend exit") and entry is not None:
            cycles.append(ts - entry)
            entry = None
    if not cycles:
        raise Missing(f"{os.path.basename(path)}: no suspend cycles in phase '{phase}'")
    return cycles


def wanted_cycles(path):
    for _, text in lines_of(path):
        m = re.search(r"perf_cycles=(\d+)", text)
        if m:
            return int(m.group(1))
    return None


def fmt(values, scale, unit, digits=1):
    """median (min-max) of values * scale."""
    v = [x * scale for x in values]
    med = statistics.median(v)
    if len(v) == 1:
        return med, f"{med:.{digits}f} {unit} (n=1)"
    return med, f"{med:.{digits}f} {unit} ({min(v):.{digits}f}-{max(v):.{digits}f}, n={len(v)})"


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    d = sys.argv[1]
    rows, missing = [], []

    def row(name, base, head, target, limit, low=None):
        """base/head: (value, text) or None; limit: max ratio, or None;
        low: min ratio, for a check that both sides agree."""
        if base is None or head is None or limit is None or not base[0]:
            ratio, verdict = "", "info"
            if base is not None and head is not None and base[0]:
                ratio = f"{head[0] / base[0]:.3f}"
        else:
            r = head[0] / base[0]
            ratio = f"{r:.3f}"
            if r > limit:
                verdict = f"MISSED by {100 * (r / limit - 1):.0f}%"
            elif low is not None and r < low:
                verdict = f"MISSED by {100 * (1 - r / low):.0f}% (below)"
            else:
                verdict = "ok"
        rows.append((name, base[1] if base else "-", head[1] if head else "-",
                     ratio, target, verdict))

    def attempt(fn):
        try:
            fn()
        except (Missing, OSError) as e:
            missing.append(str(e))

    full = {k: os.path.join(d, f"boot-{k}-1.log") for k in ("base", "head")}

    tot = lambda rs: [(a + b) for a, b in rs]
    reg_only = lambda rs: [a for a, _ in rs]

    def reg():
        hp = registrations(full["head"], "plain")
        hs = registrations(full["head"], "sysdev")
        n = re.search(r"count=(\d+)", open(full["head"], errors="replace").read()).group(1)
        row(f"register+unregister {n}: system devices vs plain devices (head, same boot)",
            fmt(tot(hp), 1e-6, "ms"), fmt(tot(hs), 1e-6, "ms"), "<= 1.05", 1.05)
        row("  of which register, system vs plain (head)",
            fmt(reg_only(hp), 1e-6, "ms"), fmt(reg_only(hs), 1e-6, "ms"), "<= 1.05", 1.05)
        row("  of which unregister, system vs plain (head)",
            fmt([b for _, b in hp], 1e-6, "ms"), fmt([b for _, b in hs], 1e-6, "ms"), "", None)
    attempt(reg)

    def steps():
        """What each step of sysdev costs, added one at a time to the
        plain devices (sysdev_perf.c: perf_plain_round()), as a share of
        the floor; the last row is what the steps leave unexplained."""
        hp = registrations(full["head"], "plain")
        levels = [registrations(full["head"], f"step{i}") for i in range(1, len(STEPS) + 1)]
        hs = registrations(full["head"], "sysdev")
        for what, part in (("register", reg_only), ("register+unregister", tot)):
            floor = prev = statistics.median(part(hp))
            names = [f"step: {n}" for n in STEPS] + ["the rest of sysdev (system devices vs all steps)"]
            for name, rs in zip(names, levels + [hs]):
                med = statistics.median(part(rs))
                row(f"  {what}, {name}", (prev, f"{prev * 1e-6:.1f} ms"),
                    (med, f"{med * 1e-6:.1f} ms ({100 * (med - prev) / floor:+.1f}% of the floor)"),
                    "", None)
                prev = med
    attempt(steps)

    lockdep_log = os.path.join(d, "boot-lockdep-1.log")
    try:
        with open(os.path.join(d, "info.txt")) as f:
            lockdep_wanted = any(l.split()[:1] == ["lockdep"] for l in f)
    except OSError:
        lockdep_wanted = False

    def lockdep():
        """The same module in the head's lockdep kernel: for comparison
        with the test kernels, never the cost of the series."""
        hp = registrations(lockdep_log, "plain")
        hs = registrations(lockdep_log, "sysdev")
        row("register+unregister, lockdep kernel: system vs plain (head)",
            fmt(tot(hp), 1e-6, "ms"), fmt(tot(hs), 1e-6, "ms"), "", None)
        row("  of which register, lockdep kernel (head)",
            fmt(reg_only(hp), 1e-6, "ms"), fmt(reg_only(hs), 1e-6, "ms"), "", None)
    if lockdep_wanted or os.path.exists(lockdep_log):
        attempt(lockdep)
    else:
        rows.append(("registration, lockdep kernel", "-", "-", "", "",
                     "not measured (run-perf.sh -L)"))

    def floor():
        bp = registrations(full["base"], "plain")
        hp = registrations(full["head"], "plain")
        # The driver core is the same in both kernels: a floor that
        # differs by more than 10% either way means the host's load
        # changed between the boots, and no ratio of this run can be
        # trusted to 5%.
        row("register+unregister plain devices (the floor), base vs head",
            fmt(tot(bp), 1e-6, "ms"), fmt(tot(hp), 1e-6, "ms"), "0.90-1.10", 1.10, 0.90)
    attempt(floor)

    def size():
        z = sizeof_line(full["head"])
        rows.append(("memory per system device beyond its struct device", "-",
                     f"{z['extra']} bytes (node {z['node']} in a {z['node_alloc']}-byte object, "
                     f"ids {z['ids_per_device']}; struct device {z['device']})", "", "", "info"))
    attempt(size)

    def static():
        sizes = {}
        with open(os.path.join(d, "sizes.txt")) as f:
            for line in f:
                p = line.split()
                if len(p) == 4:
                    sizes[p[0]] = (int(p[1]), int(p[2]))
        if "sysdev.o" not in sizes:
            raise Missing("sizes.txt: no sysdev.o line")
        t, dt = sizes["sysdev.o"]
        rows.append(("drivers/base/sysdev.o text+data", "-", f"{t + dt} bytes ({t}+{dt})",
                     "", "", "info"))
        if "vmlinux-base" in sizes and "vmlinux-head" in sizes:
            b, h = (sum(sizes["vmlinux-" + k]) for k in ("base", "head"))
            row("vmlinux text+data", (b, f"{b} bytes"), (h, f"{h} bytes (+{h - b})"), "", None)
        with open(os.path.join(d, "bloat-o-meter.txt")) as f:
            m = re.search(r"Total: Before=(\d+), After=(\d+)", f.read())
        if not m:
            raise Missing("bloat-o-meter.txt: no Total line")
        b, h = int(m.group(1)), int(m.group(2))
        row("bloat-o-meter symbol total (base vmlinux vs head vmlinux)",
            (b, f"{b} bytes"), (h, f"{h} bytes ({h - b:+d})"), "", None)
    attempt(static)

    for phase, name in (("core", "pm_test=core suspend cycle, delay 0"),
                        ("mem", "suspend-to-RAM cycle, RTC wake (entry to exit)")):
        def sus(phase=phase, name=name):
            res = {}
            for k in ("base", "head"):
                c = suspend_cycles(full[k], phase)
                want = wanted_cycles(full[k])
                if want is not None and len(c) != want:
                    raise Missing(f"boot-{k}-1.log: {len(c)} of {want} '{phase}' cycles timed")
                res[k] = fmt(c, 1e3, "ms")
            row(name, res["base"], res["head"], "<= 1.05", 1.05)
        attempt(sus)

    def boot():
        res = {}
        for k in ("base", "head"):
            logs = sorted(glob.glob(os.path.join(d, f"boot-{k}-*.log")))
            if not logs:
                raise Missing(f"no boot-{k}-N.log")
            res[k] = fmt([boot_time(p) for p in logs], 1e3, "ms", 0)
        row("kernel start to 'Run /init'", res["base"], res["head"], "<= 1.02", 1.02)
    attempt(boot)

    clock = "wall"
    try:
        with open(os.path.join(d, "info.txt")) as f:
            clocks = {l.split(None, 1)[1].strip() for l in f if l.startswith("clock ")}
        if len(clocks) > 1:
            print(f"perf: info.txt names more than one clock: {sorted(clocks)}")
            return 2
        clock = clocks.pop() if clocks else "wall"
    except OSError:
        pass
    if clock.startswith("icount"):
        print(f"Guest time is QEMU's instruction count (-{clock}): "
              "1 ns = 1 instruction executed; the figures are instruction counts, "
              "not wall-clock times, and do not depend on the host's load.\n")
    else:
        print("Guest time is wall-clock time under QEMU TCG: "
              "ratios between rounds vary by several percent with the host's load.\n")
    print("| figure | base | head | ratio | target | verdict |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    try:
        with open(os.path.join(d, "load.txt")) as f:
            loads = [float(l.split("loadavg ")[1].split()[0]) for l in f if "loadavg " in l]
        if loads:
            print(f"\nhost load (1-min average) during the boots: {min(loads):.1f}-{max(loads):.1f} "
                  f"on {os.cpu_count()} CPUs")
    except OSError:
        pass
    missed = [r for r in rows if r[5].startswith("MISSED")]
    for m in missing:
        print(f"MISSING FIGURE: {m}")
    if missing:
        print(f"perf: {len(missing)} figure(s) missing: the table is incomplete")
        return 2
    if missed:
        print(f"perf: {len(missed)} target(s) missed: " + "; ".join(r[0].strip() for r in missed))
        return 0
    print("perf: every target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
