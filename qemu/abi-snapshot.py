#!/usr/bin/env python3
"""Extract and compare user-ABI snapshots of /sys (qemu/checks/abi.sh).

usage: abi-snapshot.py extract LOG > SNAP
       abi-snapshot.py compare BASE_SNAP HEAD_SNAP [--allow ALLOW]

extract  finds the snapshot that the guest check "abi" printed on the
         serial console LOG, repairs the lines that a kernel message split
         (printk may interrupt a write to the console in the middle of a
         line), and verifies the record count and the SHA-256 the guest
         printed; exit 1 if there is no snapshot or it cannot be verified.
compare  prints every path of BASE that HEAD lost, every change of type,
         mode, link target or content, and every path that HEAD added and
         that ALLOW (default: none) does not allow; the last line is a
         summary naming the first difference.  Exit 1 on any of them.

A snapshot is one record per line, "PATH TYPE MODE TARGET CONTENT" (see
qemu/checks/abi.sh); link targets are compared resolved to absolute /sys
paths.  ALLOW lines are "GLOB | reason": a path is allowed as an addition
if it matches GLOB or lies below a match (fnmatch; "*" also matches "/").
Nothing under the cpu and node subsystems may be allowed: the allow-list is
rejected if a pattern could match there.
"""

import fnmatch
import hashlib
import posixpath
import re
import sys

PREFIX = "SYSDEV-ABI "
BEGIN = "SYSDEV-ABI-BEGIN"
END = "SYSDEV-ABI-END"
# A kernel message on the console: "[    1.234567] text" (CONFIG_PRINTK_TIME).
KMSG = re.compile(r"\[\s*\d+\.\d+\] ")
# Never allowed to differ: CPUs and NUMA nodes (a later patch of the series
# converts them to system devices; this check must catch any change).
PROTECTED = ("/sys/devices/system/cpu", "/sys/devices/system/node",
             "/sys/bus/cpu", "/sys/bus/node")


class Error(Exception):
    pass


def usage():
    return __doc__.split("\n\n")[1]


# -- extract ---------------------------------------------------------------
def console_records(text):
    """The records between the last BEGIN and its END, repaired; returns
    (records, expected count, expected sha256)."""
    lines = text.replace("\r", "").split("\n")
    starts = [i for i, l in enumerate(lines) if BEGIN in l]
    if not starts:
        raise Error("no %s line: the guest check abi did not run" % BEGIN)
    j = starts[-1] + 1
    records, repaired = [], 0
    while j < len(lines):
        line = lines[j]
        j += 1
        if not line.startswith("SYSDEV-ABI"):
            continue   # a kernel message or another check's output
        # Repair: a kernel message that cut the line runs to the end of the
        # console line; the rest of the record follows it (after any
        # further whole kernel messages).
        pos = 0
        while True:
            m = KMSG.search(line, pos)
            if not m:
                break
            head = line[:m.start()]
            while j < len(lines) and KMSG.match(lines[j]):
                j += 1
            if j >= len(lines):
                raise Error("the console log ends inside a record: %r" % head)
            line = head + lines[j]
            pos = len(head)
            j += 1
            repaired += 1
        if line.startswith(END):
            f = line.split()
            if len(f) != 3 or not f[1].isdigit():
                raise Error("malformed end line: %r" % line)
            return records, int(f[1]), f[2], repaired
        if line.startswith(PREFIX):
            records.append(line[len(PREFIX):])
    raise Error("no %s line after %s: the guest did not finish the dump"
                % (END, BEGIN))


def extract(log):
    with open(log, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    records, count, digest, repaired = console_records(text)
    data = "".join(r + "\n" for r in records)
    got = hashlib.sha256(data.encode("utf-8", "surrogateescape")).hexdigest()
    if len(records) != count or got != digest:
        raise Error("snapshot in %s does not verify: %d records (guest: %d), "
                    "sha256 %s (guest: %s)%s" % (
                        log, len(records), count, got[:16], digest[:16],
                        "; %d lines repaired" % repaired if repaired else ""))
    return "# sysdev ABI snapshot: %d records, sha256 %s\n%s" % (
        count, digest, data)


# -- compare ---------------------------------------------------------------
def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "x" and i + 3 < len(s) + 1:
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append({"n": "\n", "t": "\t", "s": " ", "\\": "\\"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def load(snap):
    """path -> (type, mode, resolved link target or "-", content)."""
    recs = {}
    with open(snap, encoding="utf-8", errors="surrogateescape") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            f5 = line.split(" ", 4)
            if len(f5) != 5:
                raise Error("%s:%d: not 'PATH TYPE MODE TARGET CONTENT': %r"
                            % (snap, n, line[:80]))
            path, typ, mode, target, content = f5
            path = unescape(path)
            if typ == "l":
                target = posixpath.normpath(posixpath.join(
                    posixpath.dirname(path), unescape(target)))
            recs[path] = (typ, mode, target, content)
    if not recs:
        raise Error("%s: empty snapshot" % snap)
    return recs


def load_allow(path):
    rules = []
    if not path:
        return rules
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [x.strip() for x in line.split("|", 1)]
            if len(parts) != 2 or not all(parts) or not parts[0].startswith("/sys/"):
                raise Error("%s:%d: want '/sys/GLOB | reason'" % (path, n))
            glob = parts[0].rstrip("/")
            literal = re.split(r"[*?[]", glob)[0]
            for p in PROTECTED:
                # Below p, or a wildcard that can reach p.
                if literal == p or literal.startswith(p + "/") or any(
                        fnmatch.fnmatchcase(probe, g) for g in (glob, glob + "/*")
                        for probe in (p, p + "/x", p + "/x/y")):
                    raise Error("%s:%d: %s may match under %s: nothing "
                                "there may be allowed to differ"
                                % (path, n, glob, p))
            rules.append((glob, parts[1]))
    return rules


def allowed(path, rules):
    for glob, _ in rules:
        if fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path, glob + "/*"):
            return True
    return False


def short(v, width=60):
    v = repr(v)
    return v if len(v) <= width else v[:width - 4] + "...'"


def content_change(bv, hv):
    """The first line that differs, for a readable message."""
    if bv[:1] != "=" or hv[:1] != "=":
        return "content %s -> %s" % (short(bv), short(hv))
    bl, hl = unescape(bv[1:]).split("\n"), unescape(hv[1:]).split("\n")
    if len(bl) == 1 and len(hl) == 1:
        return "content %s -> %s" % (short(bl[0]), short(hl[0]))
    for n in range(max(len(bl), len(hl))):
        b = bl[n] if n < len(bl) else "<none>"
        h = hl[n] if n < len(hl) else "<none>"
        if b != h:
            return "content line %d: %s -> %s" % (n + 1, short(b), short(h))
    return "content"


def compare(base_snap, head_snap, allow=None):
    """Print the differences; return the number of problems."""
    base, head = load(base_snap), load(head_snap)
    rules = load_allow(allow)
    problems, n_allowed = [], 0
    names = ("type", "mode", "link target", "content")
    for path in sorted(set(base) | set(head)):
        b, h = base.get(path), head.get(path)
        if h is None:
            problems.append((path, "removed: %s (%s)" % (path, b[0])))
            continue
        if b is None:
            if allowed(path, rules):
                n_allowed += 1
            else:
                problems.append((path, "added: %s (%s), not in the allow-list"
                                 % (path, h[0])))
            continue
        for k in range(4):
            bv, hv = b[k], h[k]
            if k == 3 and "!v" in (bv, hv):
                continue   # volatile on either side: not compared
            if bv == hv:
                continue
            what = content_change(bv, hv) if k == 3 else \
                "%s %s -> %s" % (names[k], bv, hv)
            problems.append((path, "changed: %s: %s" % (path, what)))
    for _, msg in problems:
        print(msg)
    summary = "abi: %d paths in base, %d in head, %d additions allowed" % (
        len(base), len(head), n_allowed)
    if problems:
        print("%s; %d differences, first: %s" % (summary, len(problems),
                                                 problems[0][1]))
    else:
        print("%s; no difference" % summary)
    return len(problems)


def main(argv):
    try:
        if len(argv) == 2 and argv[0] == "extract":
            sys.stdout.write(extract(argv[1]))
            return 0
        if argv and argv[0] == "compare":
            rest = argv[1:]
            allow = None
            if "--allow" in rest:
                i = rest.index("--allow")
                if i + 1 >= len(rest):
                    raise Error("--allow needs a file")
                allow = rest[i + 1]
                del rest[i:i + 2]
            if len(rest) == 2:
                return 1 if compare(rest[0], rest[1], allow) else 0
        if argv and argv[0] in ("-h", "--help"):
            print(usage())
            return 0
        print(usage(), file=sys.stderr)
        return 2
    except (Error, OSError) as e:
        print("abi-snapshot: error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
