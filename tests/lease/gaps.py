#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The availability gaps of tests/lease/cluster.sh, in real time: for each
# node field, when the machine that held it issued its last ID and when
# the next one issued its first, on the host's clock.
#
#   gaps.py OUTDIR VM...
# Reads OUTDIR/cmdtimes ("VM CMD HOST_NS", written as the host sends each
# command), OUTDIR/cases.txt ("CASE WALL_MS HOST_NS"), and per VM its
# done ("up GUEST_NS" at each boot, "CMD GUEST_NS" as each command ran)
# and gaps.txt (reader.py's "boot N", "start NODE NS", "stop NODE NS").
# A guest's clock is put on the host's by the smallest (guest - host) over
# that boot's commands (the guest runs a command at most ~0.1 s after it
# is sent). Prints "RESULT gap CASE node N VM -> VM MS", and each
# machine's tenures "RESULT tenure NODE VM START_NS STOP_NS" (host
# CLOCK_BOOTTIME; STOP_NS "-" if it never ended: a crash or the end).
import collections, sys

out, vms = sys.argv[1], sys.argv[2:]
cmds = collections.defaultdict(list)
for line in open(out + "/cmdtimes"):
    vm, c, h = line.split()
    cmds[vm].append(int(h))
cases = [(int(h), n) for n, w, h in (l.split() for l in open(out + "/cases.txt"))]
ten = collections.defaultdict(list)   # node -> [(start, stop, vm)]
for vm in vms:
    off = {}
    boot = 0
    k = 0
    for line in open("%s/%s/done" % (out, vm)):
        c, g = line.split()
        if c == "up":
            boot += 1
            continue
        d = int(g) - cmds[vm][k]
        k += 1
        off[boot] = min(off.get(boot, d), d)
    boot = 0
    cur = {}
    for line in open("%s/%s/gaps.txt" % (out, vm)):
        f = line.split()
        if f[0] == "boot":
            for n, s in cur.items():
                ten[n].append((s, None, vm))
            cur = {}
            boot = int(f[1])
        elif f[0] in ("start", "stop") and boot in off:
            n, t = int(f[1]), int(f[2]) - off[boot]
            if f[0] == "start":
                cur[n] = t
            elif n in cur:
                ten[n].append((cur.pop(n), t, vm))
    for n, s in cur.items():
        ten[n].append((s, None, vm))
for n, lst in sorted(ten.items()):
    lst.sort()
    for s, e, vm in lst:
        print("RESULT tenure %d %s %d %s" % (n, vm, s, "-" if e is None else e))
    for p, q in zip(lst, lst[1:]):
        if p[1] is None:
            continue
        label = [c for h, c in cases if h <= p[1] + 100000000]
        print("RESULT gap %s node %d %s -> %s %d ms" % (label[-1] if label else "?", n, p[2], q[2],
                                                       (q[0] - p[1]) // 1000000))
