#!/usr/bin/env python3
"""Judge what a patch adds to the cost of a system device registration.

usage: cost-compare.py [--budget POINTS] BEFORE AFTER

BEFORE and AFTER are raw data directories of ci/perf/run-perf.sh -I -K
head (the series at two commits, usually a patch's parent and the
patch).  For each, the cost is the head kernel's system devices against
plain devices in the same boot, as make perf's table computes it: the
median of the rounds of each kind, sysdev over plain, for register +
unregister and for register alone.  The patch fails when either cost
grows by more than POINTS percent of the plain devices' floor (default
1.0): e.g. 1.025 -> 1.037 is 1.2 points.

Only runs whose info.txt says "clock icount" are judged: under the
host's clock, rounds of one boot move by several percent, and a budget
of one point would judge noise.  Both runs must have the same number of
rounds and devices per round, so that the same rounds are compared.

Exit status: 0 within the budget, 1 over it (each cost printed either
way), 2 when a run is missing, incomplete or not comparable.
"""
import argparse
import os
import re
import statistics
import sys

RX = re.compile(r"SYSDEV-PERF (plain|sysdev) rep=(\d+) count=(\d+) reg_ns=(\d+) unreg_ns=(\d+)")


class Incomparable(Exception):
    pass


def rounds(run):
    """{kind: {rep: (count, reg_ns, unreg_ns)}} of the head boot of RUN."""
    info = os.path.join(run, "info.txt")
    if not os.path.isfile(info):
        raise Incomparable(f"{run}: no info.txt (not a run-perf.sh directory)")
    clocks = re.findall(r"^clock (.*)$", open(info).read(), re.M)
    if len(clocks) != 1 or not clocks[0].startswith("icount"):
        raise Incomparable(f"{run}: clock {clocks or 'not recorded'}: only -I (icount) runs are judged")
    log = os.path.join(run, "boot-head-1.log")
    if not os.path.isfile(log):
        raise Incomparable(f"{run}: no boot-head-1.log")
    out = {"plain": {}, "sysdev": {}}
    with open(log, errors="replace") as f:
        for line in f:
            m = RX.search(line)
            if m:
                out[m.group(1)][int(m.group(2))] = tuple(int(m.group(i)) for i in (3, 4, 5))
    for kind, got in out.items():
        if not got:
            raise Incomparable(f"{log}: no '{kind}' rounds")
    if set(out["plain"]) != set(out["sysdev"]):
        raise Incomparable(f"{log}: the plain and sysdev rounds differ")
    return out


def costs(r):
    """(register + unregister, register) of system devices over plain."""
    med = lambda kind, f: statistics.median(f(v) for v in r[kind].values())
    both = lambda v: v[1] + v[2]
    reg = lambda v: v[1]
    return (med("sysdev", both) / med("plain", both), med("sysdev", reg) / med("plain", reg))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=1.0,
                    help="percent of the floor a patch may add (default 1.0)")
    ap.add_argument("before")
    ap.add_argument("after")
    a = ap.parse_args()
    try:
        rb, ra = rounds(a.before), rounds(a.after)
        shape = lambda r: (sorted(r["plain"]), sorted({v[0] for v in r["plain"].values()}))
        if shape(rb) != shape(ra):
            raise Incomparable(f"rounds or devices per round differ: {shape(rb)} against {shape(ra)}")
    except Incomparable as e:
        print(f"cost-compare: {e}", file=sys.stderr)
        return 2
    over = []
    for name, b, x in zip(("register+unregister", "register"), costs(rb), costs(ra)):
        points = (x - b) * 100
        verdict = "ok" if points <= a.budget else "OVER BUDGET"
        print(f"{name}: {b:.4f} -> {x:.4f} ({points:+.2f} points of the floor, "
              f"budget {a.budget:.2f}): {verdict}")
        if points > a.budget:
            over.append(name)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
