#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every ID of every boot of a tests/system run, checked together.

usage: ids-check.py BOOTS IDS-DIR NODE NODE_BITS SLOT_BITS SEQ_BITS

BOOTS is the run's list of boots in order (machine.sh: "BOOT_ID ...");
IDS-DIR holds reader-B-R (boot number B, hex IDs one a line, as a reader
on the host received them: the last line may be cut by the power-off)
and app ("BOOT_ID 0x..." lines, what the guest's service wrote). Checks:
every line an ID (but a reader's last), no ID twice, every ID's node
field NODE, and every boot's IDs above every ID of the boots before it.
Prints one line a boot and the totals; exit status 1 on any failure.
"""
import os
import re
import sys

HEX = re.compile(r"^0x[0-9a-f]{16}$")


def main():
    boots_file, ids_dir = sys.argv[1], sys.argv[2]
    node, node_bits, slot_bits, seq_bits = map(int, sys.argv[3:7])
    order = [line.split()[0] for line in open(boots_file) if line.strip()]
    index = {b: i for i, b in enumerate(order)}
    per_boot = [[] for _ in order]
    bad = []
    for name in sorted(os.listdir(ids_dir)):
        path = os.path.join(ids_dir, name)
        lines = open(path).read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if name.startswith("reader-"):
            b = int(name.split("-")[1])
            for i, line in enumerate(lines):
                if HEX.match(line):
                    per_boot[b].append(int(line, 16))
                elif i != len(lines) - 1:
                    bad.append("%s:%d: %r" % (name, i + 1, line))
        elif name == "app":
            for i, line in enumerate(lines):
                f = line.split()
                if len(f) == 2 and f[0] in index and HEX.match(f[1]):
                    per_boot[index[f[0]]].append(int(f[1], 16))
                elif len(f) == 2 and f[0] in index:
                    # The service's file: a line the power-off cut.
                    pass
                else:
                    bad.append("app:%d: %r" % (i + 1, line))
    ok = True
    for b in bad:
        print("not an ID: " + b)
        ok = False
    shift = slot_bits + seq_bits
    mask = (1 << node_bits) - 1
    seen = {}
    repeats = 0
    total = 0
    prev_max = None
    for b, ids in enumerate(per_boot):
        total += len(ids)
        for x in ids:
            if x in seen:
                repeats += 1
                if repeats <= 10:
                    print("repeat: 0x%016x (boots %d and %d)" % (x, seen[x], b))
            seen[x] = b
        wrong = [x for x in ids if (x >> shift) & mask != node]
        lo = min(ids) if ids else None
        hi = max(ids) if ids else None
        print("boot %d (%s): %d IDs, 0x%016x..0x%016x%s" % (
            b, order[b], len(ids), lo or 0, hi or 0,
            ", %d with another node ID" % len(wrong) if wrong else ""))
        if not ids:
            print("boot %d: no ID at all" % b)
            ok = False
        if wrong:
            ok = False
        if ids and prev_max is not None and lo <= prev_max:
            print("boot %d: its lowest ID 0x%016x is not above the boots before (0x%016x)"
                  % (b, lo, prev_max))
            ok = False
        if ids:
            prev_max = hi if prev_max is None else max(prev_max, hi)
    print("total: %d IDs over %d boots, %d distinct, repeats %d" % (total, len(order), len(seen), repeats))
    if repeats:
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
