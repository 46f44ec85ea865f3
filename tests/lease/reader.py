#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# In a test VM: read IDs from /dev/uid without pause, for the global
# check, and log when this machine could not issue.
#
#   reader.py IDS GAPS STOPFILE [NODE_SHIFT NODE_BITS]
# IDS gets every ID (decimal, one a line). GAPS gets a line
# "gap START_NS LEN_MS LAST_ERROR" (CLOCK_BOOTTIME) for every stretch of
# more than 200 ms with no ID read (an error, or a read waiting for the
# grant), and, with NODE_SHIFT and NODE_BITS (the node field), the
# machine's tenures: "start NODE NS" at the first ID of a node field,
# "stop NODE NS" at the last before an error or another node field.
# Stops when STOPFILE exists.
import errno, os, struct, sys, time

ids = open(sys.argv[1], "a")
gaps = open(sys.argv[2], "a", buffering=1)
stop = sys.argv[3]
shift = int(sys.argv[4]) if len(sys.argv) > 5 else None
mask = (1 << int(sys.argv[5])) - 1 if shift is not None else 0
cur = None     # node field of the tenure in progress
fd = os.open("/dev/uid", os.O_RDONLY)
now = lambda: time.clock_gettime_ns(time.CLOCK_BOOTTIME)
last_ok = now()
err = "-"
n = 0
while True:
    if n % 20 == 0 and os.path.exists(stop):
        break
    n += 1
    try:
        b = os.read(fd, 8 * 16)
        t = now()
        if t - last_ok > 200000000:
            gaps.write("gap %d %d %s\n" % (last_ok, (t - last_ok) // 1000000, err))
        got = struct.unpack("<%dQ" % (len(b) // 8), b)
        if shift is not None:
            node = (got[0] >> shift) & mask
            if node != cur:
                if cur is not None:
                    gaps.write("stop %d %d\n" % (cur, last_ok))
                gaps.write("start %d %d\n" % (node, t))
                cur = node
        last_ok = t
        err = "wait"
        ids.write("".join("%d\n" % i for i in got))
        time.sleep(0.005)
    except OSError as e:
        err = errno.errorcode.get(e.errno, str(e.errno))
        if cur is not None and e.errno == errno.EADDRNOTAVAIL:
            gaps.write("stop %d %d\n" % (cur, last_ok))
            cur = None
        time.sleep(0.02)
t = now()
if cur is not None:
    gaps.write("stop %d %d\n" % (cur, last_ok))
if t - last_ok > 200000000:
    gaps.write("gap %d %d %s (until the end)\n" % (last_ok, (t - last_ok) // 1000000, err))
ids.close()
