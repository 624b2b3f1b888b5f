#!/usr/bin/env python3
"""Hot-add devices to a QEMU guest when the guest asks for them.

usage: qmp-hotadd.py SOCKET LOG [TIMEOUT]

Follows LOG, the guest's serial console, and answers each line
"SYSDEV-HOTADD memory NODE" with 256 MiB as a pc-dimm on NUMA node NODE,
and each line "SYSDEV-HOTADD cpu NODE" with the CPU of socket 2 on node
NODE (the hot-pluggable CPU of scripts/lib.sh's hotadd topology),
plugged through the QMP socket SOCKET.  Each request and QEMU's answer
is printed, one line each.  Ends when QEMU closes the socket, or after
TIMEOUT seconds (default 900).  The guest checks that the device
arrived; this only plugs it.
"""
import json
import select
import socket
import sys
import time


class QMP:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = b""
        self.recv()                         # the greeting
        self.cmd("qmp_capabilities")

    def recv(self):
        """The next message that is not an event."""
        while True:
            while b"\n" not in self.buf:
                data = self.sock.recv(65536)
                if not data:
                    raise EOFError("QEMU closed the QMP socket")
                self.buf += data
            line, self.buf = self.buf.split(b"\n", 1)
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def cmd(self, name, **args):
        self.sock.sendall(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        reply = self.recv()
        if "error" in reply:
            raise RuntimeError("%s: %s" % (name, reply["error"].get("desc")))
        return reply["return"]


def plug_memory(qmp, node, n):
    qmp.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "hotmem%d" % n,
                             "size": 256 << 20})
    qmp.cmd("device_add", driver="pc-dimm", id="hotdimm%d" % n, memdev="hotmem%d" % n,
            node=int(node))
    return "device_add pc-dimm node %s" % node


def plug_cpu(qmp, node, n):
    qmp.cmd("device_add", driver="qemu64-x86_64-cpu", id="hotcpu%d" % n,
            **{"socket-id": 2, "core-id": 0, "thread-id": 0, "node-id": int(node)})
    return "device_add qemu64-x86_64-cpu socket 2 node %s" % node


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    path, log = sys.argv[1], sys.argv[2]
    deadline = time.time() + (float(sys.argv[3]) if len(sys.argv) == 4 else 900)
    qmp = None
    while qmp is None:
        try:
            qmp = QMP(path)
        except (FileNotFoundError, ConnectionRefusedError):
            if time.time() > deadline:
                print("qmp-hotadd: no QMP socket %s" % path)
                return 1
            time.sleep(0.2)
    pos, n = 0, 0
    while time.time() < deadline:
        try:
            with open(log, "rb") as f:
                f.seek(pos)
                data = f.read()
        except FileNotFoundError:
            data = b""
        lines = data.split(b"\n")
        pos += len(data) - len(lines[-1])   # keep a partial last line
        for raw in lines[:-1]:
            words = raw.decode(errors="replace").strip().split()
            if words[:1] != ["SYSDEV-HOTADD"]:
                continue
            n += 1
            try:
                plug = {"memory": plug_memory, "cpu": plug_cpu}.get(words[1] if len(words) == 3 else "")
                if plug:
                    print("qmp-hotadd: %s: %s" % (" ".join(words), plug(qmp, words[2], n)),
                          flush=True)
                else:
                    print("qmp-hotadd: unknown request: %s" % " ".join(words), flush=True)
            except (RuntimeError, ValueError) as e:
                print("qmp-hotadd: %s: failed: %s" % (" ".join(words), e), flush=True)
        # Wait for QEMU: its events are kept for recv(), which skips them;
        # an empty read is QEMU gone.
        if select.select([qmp.sock], [], [], 0.5)[0]:
            data = qmp.sock.recv(65536)
            if not data:
                return 0
            qmp.buf += data
    print("qmp-hotadd: timeout")
    return 1


if __name__ == "__main__":
    sys.exit(main())
