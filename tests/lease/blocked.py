#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# In a test VM: for SECS seconds, every 20 ms, how far the module's ID
# clock is from its grant. A caller of /dev/uid waits at the grant while
# the ID clock has reached it (now_ms >= grant_ms): the fraction of the
# samples with the node in force where it had is the time blocked.
#
#   blocked.py SECS
# Prints "RESULT key value" lines: samples (with the node active),
# blocked_pct, lead_min_ms / lead_last_ms (grant_ms - now_ms, < 0 when
# blocked), offset_max_ms / offset_last_ms (the ID clock minus the wall
# clock, sysfs clock_offset_ms), grant_waits (its increase) and
# window_ns (CLOCK_BOOTTIME at its start and end).
import sys, time
from info import state, sysfs, uidgen

g = uidgen.Uidgen()
secs = float(sys.argv[1])
w0 = sysfs("grant_waits")
t0 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
n = blocked = 0
leads, offs = [], []
end = time.monotonic() + secs
while time.monotonic() < end:
    s = state(g)
    if s["node_state"] == "active":
        gr, now, off = s["grant_ms"], sysfs("now_ms"), sysfs("clock_offset_ms")
        if gr:
            n += 1
            blocked += now >= gr
            leads.append(gr - now)
            offs.append(off)
    time.sleep(0.02)
print("RESULT window_ns", t0, time.clock_gettime_ns(time.CLOCK_BOOTTIME))
print("RESULT samples", n)
print("RESULT blocked_pct %.1f" % (100.0 * blocked / n if n else -1))
print("RESULT lead_min_ms", min(leads) if leads else "-")
print("RESULT lead_last_ms", leads[-1] if leads else "-")
print("RESULT offset_max_ms", max(offs) if offs else "-")
print("RESULT offset_last_ms", offs[-1] if offs else "-")
print("RESULT grant_waits", sysfs("grant_waits") - w0)
