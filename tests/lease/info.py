#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# In a test VM: the node's state as UIDGEN_IOC_INFO has it (through the
# Python binding: the node state, grant, deadline and token are not sysfs
# files) and the clocks and counters of /sys/class/misc/uid/.
#
#   info.py             one "NAME:VALUE" line each: node_state, deadline_ns,
#                       token, grant_ms, now_ms, clock_offset_ms, grant_waits
#   info.py wait-grant  return once the grant has moved (up to 5 s)
# blocked.py samples the same through state() and sysfs().
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bindings", "python"))
import uidgen  # noqa: E402

SYS = "/sys/class/misc/uid/"
# UIDGEN_NODE_STATE_NONE and UIDGEN_NODE_STATE_ACTIVE (the uapi: 0 and 1).
STATES = ("none", "active")


def sysfs(name):
    with open(SYS + name) as f:
        return int(f.read())


def state(g):
    """INFO's node state, deadline (CLOCK_BOOTTIME ns, 0: none), token
    and grant (Unix ms, rounded up; 0: none)."""
    i = g.info()
    return {"node_state": STATES[i.node_state], "deadline_ns": i.deadline_boot_ns,
            "token": i.token, "grant_ms": -(-i.grant_unix_ns // 1000000)}


if __name__ == "__main__":
    with uidgen.Uidgen() as g:
        if sys.argv[1:] == ["wait-grant"]:
            g0 = state(g)["grant_ms"]
            end = time.monotonic() + 5
            while state(g)["grant_ms"] == g0 and time.monotonic() < end:
                time.sleep(0.05)
            sys.exit(0)
        s = state(g)
    for k in ("now_ms", "clock_offset_ms", "grant_waits"):
        s[k] = sysfs(k)
    for k, v in s.items():
        print("%s:%s" % (k, v))
