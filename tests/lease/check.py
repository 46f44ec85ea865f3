#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The global check of the uidgen-lease suites: no node ID held twice at
# any instant, and no ID issued twice.
#
#   check.py [--watch FILE] [--sim LOG]... [--ids FILE]... [--layout NODE_SHIFT NODE_BITS]
#
# --watch (watch.py's record of PREFIX/node/): each key's history must
#   alternate: created (version 1), then only puts with that
#   create_revision, then deleted. A second create while one is live is a
#   node ID held twice in etcd. A restore (watch.py's RESTORE and STATE
#   lines) starts every key's history again from the state restored.
# --sim (device stand-in logs): per node ID, the times each agent had it
#   in force, install to revoke or its deadline, must not overlap; each
#   must carry a token that is a create_revision of that node's key; and
#   each must end before etcd was seen deleting that claim (the device
#   stops first). Prints the smallest and median lead.
# --ids (decimal IDs, one a line, from every machine): no ID twice, and
#   with --layout NODE_SHIFT NODE_BITS (the node field's position and
#   width), no tick of a node field may carry IDs from two files: each
#   node field held by one machine at a time, at the resolution of a tick.
#   Repeats are also counted per pair of files (RESULT repeats_pair).
#   No repeat is excused, a restore's included (the claim wait covers it).
# Prints "RESULT key value" lines; exit 1 on any violation.
import argparse, collections, statistics, sys

ap = argparse.ArgumentParser()
ap.add_argument("--watch")
ap.add_argument("--sim", action="append", default=[])
# --boot-wall NS: CLOCK_REALTIME - CLOCK_BOOTTIME on this host (the
# stand-ins' logs are in CLOCK_BOOTTIME): with it, the ID time (ms) each
# interval could issue, and how much of it two agents could both issue
# under one node ID (RESULT sim_tick_overlap_ms; the stand-ins share the
# host's wall clock), counted in whole ticks of --tick-us.
ap.add_argument("--boot-wall", type=int)
ap.add_argument("--ids", action="append", default=[])
ap.add_argument("--layout", nargs=2, type=int)
ap.add_argument("--tick-us", type=int, default=1000)
ap.add_argument("--epoch-ms", type=int, default=1767225600000)
ap.add_argument("--cases", help="lines 'NAME WALL_MS': label each hand-over")
a = ap.parse_args()
bad = 0

def res(k, v):
    print("RESULT", k, v)

deleted = {}   # (key, create_rev) -> seen_ns of its delete
created = {}   # (key, create_rev) -> seen_ns of its create
if a.watch:
    live = {}
    twice = 0
    claims = 0
    restores = 0
    for line in open(a.watch):
        seen, typ, key, crev, mod, ver = line.split()
        seen, crev, mod, ver = int(seen), int(crev), int(mod), int(ver)
        if typ == "RESTORE":
            restores += 1
            live = {}
            continue
        if "/node/" not in key:
            continue
        if typ == "STATE":
            live[key] = crev
            created.setdefault((key, crev), seen)
            continue
        if typ == "DELETE":
            if key in live:
                deleted[(key, live.pop(key))] = seen
            continue
        if ver == 1:
            claims += 1
            if key in live:
                twice += 1
                print("held twice in etcd:", key, "created at", crev, "while", live[key], "lives")
            live[key] = crev
            created[(key, crev)] = seen
        elif live.get(key) != crev:
            twice += 1
            print("put to", key, "with create_revision", crev, "not the live", live.get(key))
    res("claims", claims)
    res("etcd_restores", restores)
    res("etcd_held_twice", twice)
    bad += twice

if a.sim:
    # who -> current interval; node -> list of (start, end, who, token)
    iv = collections.defaultdict(list)
    ticks = []
    cur = {}
    for path in a.sim:
        for line in open(path):
            f = line.split()
            t, ev = int(f[0]), f[1]
            kv = dict(x.split("=", 1) for x in f[2:])
            # One log a device: two agents may share a machine ID.
            who = "%s@%s" % (kv["who"], path)
            node, tok, dl = int(kv["node"]), int(kv["token"]), int(kv["deadline"])
            # In force from the first change that lets it issue: the
            # agent installs a claim closed (open=0) until it has seen
            # that its device was not forked since the claim.
            gr = int(kv.get("grant", "0"))
            if ev in ("install", "renew") and who in cur:
                cur[who][1] = dl
                cur[who][4] = max(cur[who][4], gr) if gr and cur[who][4] else 0
            elif ev in ("install", "renew") and kv.get("open", "1") == "1":
                cur[who] = [t, dl, node, tok, gr, int(kv.get("floor", "0"))]
            elif ev in ("revoke", "expire", "fork") and who in cur:
                s, d, n, k, g, fl = cur.pop(who)
                iv[n].append((s, min(t, d), who, k))
                ticks.append((n, s, min(t, d), who, g, fl))
    for who, (s, d, n, k, g, fl) in cur.items():
        iv[n].append((s, d, who, k))
        ticks.append((n, s, d, who, g, fl))
    # With etcd's history, a token (a create_revision, unique in the
    # store) names the very key: agents of several clusters may share
    # one node number.
    if a.watch:
        bykey = collections.defaultdict(list)
        for n, lst in iv.items():
            for x in lst:
                keys = [c[0] for c in created if c[1] == x[3]]
                bykey[keys[0] if keys else "?%d" % n].append(x)
        iv = bykey
    overlaps = 0
    leads = []
    unknown = 0
    late = 0
    for n, lst in iv.items():
        lst.sort()
        # Against the longest-running earlier interval, not just the one
        # before: a long hold can overlap one that starts several later.
        far = None
        for q in lst:
            if far is not None and q[0] < far[1]:
                overlaps += 1
                print("%s in force twice: %s token %d until %d, %s token %d from %d"
                      % (n, far[2], far[3], far[1], q[2], q[3], q[0]))
            if far is None or q[1] > far[1]:
                far = q
        if a.watch:
            for s, e, who, k in lst:
                key = [x for x in created if x[1] == k and x[0] == n]
                if not key:
                    unknown += 1
                    print("%s token %d (%s): no such claim in etcd's history" % (n, k, who))
                    continue
                if key[0] in deleted:
                    lead = deleted[key[0]] - e
                    leads.append(lead)
                    if lead < 0:
                        late += 1
                        print("%s token %d (%s): in force until %d, %.3f s after etcd freed it"
                              % (n, k, who, e, -lead / 1e9))
    res("sim_intervals", sum(len(x) for x in iv.values()))
    res("sim_overlaps", overlaps)
    bad += overlaps
    if a.boot_wall is not None:
        # The ID time (ms) an interval could issue: from its wall clock at
        # the start (or past its floor: the ID clock moved there) to its
        # grant, and no further than its ID clock at the end.
        # In us: a tick need not be a whole ms (tick_us is 1..60000000),
        # and the stand-ins log in ns.
        def span(s, e, g, fl):
            w0, w1 = (s + a.boot_wall) // 1000, (e + a.boot_wall) // 1000
            lo = max(w0, (fl + 1) * 1000)
            hi = w1 + (lo - w0)
            return lo, (min(hi, g * 1000) if g else hi)
        # At a tick's resolution (--tick-us, the stand-ins' sim_tick_us):
        # two holders whose times differ but fall in one tick could both
        # issue that tick, and so the same IDs.
        def tick(us):
            return (us - a.epoch_ms * 1000) // a.tick_us
        both = 0
        for i, x in enumerate(ticks):
            for y in ticks[i + 1:]:
                if x[0] != y[0] or x[3] == y[3]:
                    continue
                (l0, h0), (l1, h1) = span(*x[1:3], *x[4:6]), span(*y[1:3], *y[4:6])
                o = min(tick(h0), tick(h1)) - max(tick(l0), tick(l1)) + 1
                if o > 0:
                    both += o
                    print("node %d: ID time %d..%d us (%s) and %d..%d us (%s): %d ticks of %d us both could issue"
                          % (x[0], l0, h0, x[3], l1, h1, y[3], o, a.tick_us))
        # Rounded up: a shared tick shorter than 1 ms is not 0 ms.
        res("sim_tick_overlap_ms", (both * a.tick_us + 999) // 1000)
        bad += both
    if a.watch:
        res("sim_unknown_tokens", unknown)
        res("sim_after_etcd_freed", late)
        bad += unknown + late
        if leads:
            res("lead_min_ms", "%.0f" % (min(leads) / 1e6))
            res("lead_median_ms", "%.0f" % (statistics.median(leads) / 1e6))

if a.ids:
    seen = {}
    total = 0
    dups = 0
    pairs = collections.Counter()
    for path in a.ids:
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            total += 1
            if line in seen:
                pairs[tuple(sorted((seen[line], path)))] += 1
                dups += 1
                if dups <= 10:
                    print("repeat:", line, "in", seen[line], "and", path)
            else:
                seen[line] = path
    res("ids", total)
    res("repeats", dups)
    for (p, q), c in sorted(pairs.items()):
        res("repeats_pair", "%s %s %d" % ("/".join(p.split("/")[-2:]), "/".join(q.split("/")[-2:]), c))
    bad += dups
    if a.layout:
        shift, bits = a.layout
        owner = {}
        shared = 0
        per = collections.Counter()
        for v, path in seen.items():
            i = int(v)
            node = (i >> shift) & ((1 << bits) - 1)
            tick = i >> (shift + bits)
            per[(node, path)] += 1
            o = owner.setdefault((node, tick), path)
            if o != path:
                shared += 1
                if shared <= 10:
                    print("node %d tick %d: IDs from %s and %s" % (node, tick, o, path))
        for (node, path), c in sorted(per.items()):
            res("node_ids", "%d %s %d" % (node, path, c))
        # Hand-overs: per node field, in ID time, the last ID of one
        # machine and the first of the next: how long the node ID issued
        # nothing while it changed hands.
        cases = []
        if a.cases:
            cases = [(int(w), n) for n, w, _ in (l.split() for l in open(a.cases))]
        ms = lambda tick: a.epoch_ms + tick * a.tick_us // 1000
        bynode = collections.defaultdict(list)
        for v, path in seen.items():
            i = int(v)
            bynode[(i >> shift) & ((1 << bits) - 1)].append((i >> (shift + bits), path))
        for node, lst in sorted(bynode.items()):
            lst.sort()
            for (t0, p0), (t1, p1) in zip(lst, lst[1:]):
                if p0 != p1:
                    label = [n for w, n in cases if w <= ms(t0) + 1000]
                    res("handover", "node %d %s -> %s gap %d ms (%s)" % (
                        node, "/".join(p0.split("/")[-2:]), "/".join(p1.split("/")[-2:]),
                        ms(t1) - ms(t0), label[-1] if label else "?"))
        res("shared_ticks", shared)
        bad += shared

sys.exit(1 if bad else 0)
