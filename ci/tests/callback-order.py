#!/usr/bin/env python3
"""The order of the callbacks that run with interrupts off, from a serial
console log of a test boot with "pm_debug_messages initcall_debug" that
ran the check suspend (one real suspend-to-RAM) and then powered off.

usage: callback-order.py LOG
       callback-order.py --diff BASE_LOG HEAD_LOG

Prints one line per callback, in the order they ran:

  suspend CB     a syscore_ops or system device callback (save, suspend,
                 resume, restore) between the last "PM: suspend entry"
                 and the next "PM: suspend exit"
  shutdown DEV   device_shutdown() calling the shutdown of DEV, after the
                 guest's last check
  shutdown CB    a syscore_ops or system device shutdown callback, there

CB is the function: 6.12's syscore.c prints "Calling CB+off/size" with
pm_debug_messages and "PM: Calling CB+off/size" at shutdown with
initcall_debug; the series' sysdev.c prints "sysdev: OP DEV
class|driver|global CB+off/size" with the same options.  A class of the
series is a syscore entry of its own whose callbacks
(sysdev_syscore_suspend, _resume, _shutdown) only walk the class: they
are left out, and the class's callbacks they call stand where they ran,
so that a callback that left syscore_ops for a class shows either in its
old place (renamed, if its function is) or moved.  Device PM callbacks
are left out too: 6.12 runs many of them asynchronously, in an order
that changes from boot to boot, and the series does not touch them.
Exits 1 if the log has no suspend cycle or no power off.

With --diff, prints what differs between the two orders, without line
numbers: for each changed stretch, "- LINE" for each line of BASE_LOG's
order, then "+ LINE" for each of HEAD_LOG's, so that a callback that
moved shows as removed in one place and added in another.
"""
import difflib
import re
import sys

TIME = r"^\[\s*[0-9.]+\] "
SYSCORE = re.compile(TIME + r"(?:PM: )?Calling (\S+?)(?:\+0x\S+)?$")
SYSDEV = re.compile(TIME + r"sysdev: (?:suspend|resume|shutdown) "
                    r"\S+ (?:class|driver|global) (\S+?)(?:\+0x\S+)?$")
# the syscore entries of the series' classes (drivers/base/sysdev.c)
WALK = re.compile(r"sysdev_syscore_(?:suspend|resume|shutdown)$")
DEVICE = re.compile(TIME + r"(\S+ \S+): shutdown$")


def callback(line):
    m = SYSCORE.match(line) or SYSDEV.match(line)
    if m and not WALK.match(m.group(1)):
        return m.group(1)
    return None


def order(path):
    """The callback order of the log at path (see the module's doc)."""
    lines = [l.rstrip("\r\n") for l in
             open(path, encoding="utf-8", errors="replace")]
    entry = [i for i, l in enumerate(lines)
             if re.match(TIME + "PM: suspend entry", l)]
    done = [i for i, l in enumerate(lines) if l.startswith("SYSDEV-DONE")]
    if not entry or not done:
        sys.exit("callback-order: %s: no suspend cycle ('PM: suspend entry') "
                 "or no end of the checks (SYSDEV-DONE)" % path)
    out = []
    for l in lines[entry[-1]:]:
        if re.match(TIME + "PM: suspend exit", l):
            break
        cb = callback(l)
        if cb:
            out.append("suspend " + cb)
    down = 0
    for l in lines[done[-1]:]:
        m = DEVICE.match(l)
        cb = callback(l)
        if m:
            out.append("shutdown " + m.group(1))
            down += 1
        elif cb:
            out.append("shutdown " + cb)
            down += 1
    if not down or not any(l.startswith("suspend ") for l in out):
        sys.exit("callback-order: %s: no callback in the suspend cycle or "
                 "the power off (boot with pm_debug_messages initcall_debug)"
                 % path)
    return out


def main():
    args = sys.argv[1:]
    if len(args) == 1 and not args[0].startswith("-"):
        print("\n".join(order(args[0])))
    elif len(args) == 3 and args[0] == "--diff":
        base, head = order(args[1]), order(args[2])
        ops = difflib.SequenceMatcher(None, base, head, autojunk=False)
        for tag, i1, i2, j1, j2 in ops.get_opcodes():
            if tag != "equal":
                print("\n".join(["- " + l for l in base[i1:i2]] +
                                ["+ " + l for l in head[j1:j2]]))
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
