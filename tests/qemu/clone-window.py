#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One restore of tests/qemu/clone-window.sh, measured from the two dumps
of tests/qemu/window-reader.c (the original's and the clone's, both from
the same mark).

usage: clone-window.py ORIG.bin CLONE.bin [CLONE-DMESG]

The entries both dumps share are the history before the snapshot; the
snapshot point is the CLOCK_BOOTTIME of the last of them. A TCG guest's
clocks stand still while QEMU is stopped and a restored copy's go on
from the saved ones, so from that point the clone's guest time is its
time running after the resume, and the original's (continued after the
snapshot) is the same ticks again. Prints one line:
  RESULT window_ms W last_ms L ticks T ids N repeats R shared_ticks S
         orig_ms O common C
W: the snapshot point to the clone's first EADDRNOTAVAIL; L: to the
read() that returned the clone's last ID (a read the reader was
preempted in returns late); T: the ticks of the ID clock from the last
ID before the snapshot to the clone's last ID (the default layout: ms,
read from the IDs themselves); N: IDs the clone read after the snapshot
(all under the old node ID); R: how many of them the original also read
after the snapshot; S: the (tick, slot) pairs both minted in after it
(IDs repeat only there: the same tick, node and slot, sequence numbers
that overlap); O: how far past the snapshot the original's dump reaches
(R and S count within O only); C: the shared entries. With the clone's
kernel log (its "window-reader: mark NS" line puts the log's times on
the reader's clock, to a few microseconds), also
  notify_ms A revoked_ms B
A: the snapshot point to random.c's "crng reseeded due to virtual
machine fork" (the VM generation ID handler running); B: to uidgen's
"revoked" line (logged once the revoke's grace period has ended).
Exit status 1 if the dumps share nothing or the clone did not fail.
"""
import re
import struct
import sys


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic, n, t_rev = struct.unpack_from('<8sQq', data)
    if magic != b'UIDWIN01' or len(data) != 24 + 16 * n:
        sys.exit(f'{path}: not a window-reader dump')
    e = list(struct.iter_unpack('<qQ', data[24:]))
    return e, t_rev


def main():
    orig, _ = load(sys.argv[1])
    clone, t_rev = load(sys.argv[2])
    k = 0
    while k < len(orig) and k < len(clone) and orig[k] == clone[k]:
        k += 1
    if k == 0 or not t_rev:
        print(f'RESULT common {k} revoke {t_rev}: nothing to measure')
        return 1
    t_s = clone[k - 1][0]
    after_c = clone[k:]
    after_o = orig[k:]
    ids_o = {i for _, i in after_o}
    rep = sum(1 for _, i in after_c if i in ids_o)
    last = after_c[-1][0] if after_c else t_s
    o_end = after_o[-1][0] if after_o else t_s
    tick = lambda i: i >> 22  # the default layout: 41, 5, 5, 12 bits
    ts = lambda e: {(i >> 22, (i >> 12) & 31) for _, i in e}
    ticks = tick(after_c[-1][1]) - tick(clone[k - 1][1]) if after_c else 0
    shared = len(ts(after_c) & ts(after_o))
    extra = ''
    if len(sys.argv) > 3:
        log = open(sys.argv[3]).read()
        m = re.search(r'\[ *([0-9.]+)\] window-reader: mark (\d+)', log)
        fork = re.search(r'\[ *([0-9.]+)\] random: crng reseeded due to virtual machine fork', log)
        rev = re.search(r'\[ *([0-9.]+)\] uidgen: node ID \d+ revoked \(VM fork', log)
        if m and fork and rev:
            off = float(m.group(1)) * 1e9 - int(m.group(2))
            extra = ' notify_ms %.1f revoked_ms %.1f' % (
                (float(fork.group(1)) * 1e9 - off - t_s) / 1e6,
                (float(rev.group(1)) * 1e9 - off - t_s) / 1e6)
    print('RESULT window_ms %.1f last_ms %.1f ticks %d ids %d repeats %d shared_ticks %d orig_ms %.1f common %d%s'
          % ((t_rev - t_s) / 1e6, (last - t_s) / 1e6, ticks, len(after_c), rep,
             shared, (o_end - t_s) / 1e6, k, extra))
    return 0


if __name__ == '__main__':
    sys.exit(main())
