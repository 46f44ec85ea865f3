#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 30: an observe must not poison the next load's clock, and what it
moves is granted and persisted before anything above the grant is minted.
Static mode: the state file and the CLI's 'state restore / keep / save'
(uidgen-state.service and uidgen-persist.service run them). Runs as root
in a guest (tests/observe/persist-guest.sh) with KO loaded by it, no node
ID in force, observe_ahead_ms 500 and 1 ms ticks:

  persist.py KO STATEFILE

Prints TAP. Cases, each from a fresh load:
  grant_first      restore with a grant 100 ms ahead, observe an ID 400 ms
                   ahead: nothing is minted past the grant (a nonblocking
                   read is EAGAIN, counted as a grant wait) until 'state
                   keep' (--ahead-ms 100, of the ID clock) has persisted a
                   mark past it; the first ID then is above the observed
                   one and the file's mark covers it
  save_covers      mint, observe an ID 300 ms ahead, 'state save' at once
                   (nothing minted since): the saved floor is the observed
                   tick's end, no less and no more, and after a reload and
                   'state restore' the first ID is above the observed one
  refused_no_mark  an ID 2 s ahead is refused (EDOM); 'state save' then
                   saves the floor of what was minted, not 2 s ahead, and
                   the next load's first ID is on the wall clock
"""
import errno
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../bindings/python"))
import uidgen  # noqa: E402

KO, STATE = sys.argv[1], sys.argv[2]
CLI = "userlib/uidgen"
NODE = 9
results = []


def sh(*args, check=True):
    print("# $ " + " ".join(args), file=sys.stderr, flush=True)
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if check and p.returncode:
        raise RuntimeError("%s: exit %d: %s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def load():
    """KO loaded afresh; every handle on the old one closed first."""
    while handles:
        handles.pop().close()
    if os.path.exists("/sys/module/uidgen"):
        sh("rmmod", "uidgen")
    sh("insmod", KO)


def state_floor_ms():
    for line in open(STATE):
        if line.startswith("floor_ms="):
            return int(line.split("=")[1])
    raise RuntimeError("no floor_ms in " + STATE)


def wall_ms():
    return time.clock_gettime_ns(time.CLOCK_REALTIME) // 1000000


handles = []


class Dev:
    def __init__(self):
        self.g = uidgen.Uidgen()
        handles.append(self.g)
        i = self.g.info()
        self.low = i.node_bits + i.slot_bits + i.seq_bits
        self.tick_ns = i.tick_ns
        self.epoch_ms = i.epoch_unix_ns // 1000000
        assert self.tick_ns == 1000000, "1 ms ticks wanted"

    def tick(self, id):
        return id >> self.low

    def tick_end_ms(self, id):
        return self.epoch_ms + self.tick(id) + 1

    def top_at(self, ms_ahead):
        """The last ID of the tick ms_ahead after the wall clock's."""
        t = wall_ms() + ms_ahead - self.epoch_ms
        return (t << self.low) | ((1 << self.low) - 1)

    def read(self, nonblock=False, wait_s=20):
        """One ID by read(2); EAGAIN at once if nonblock, else retried
        (nonblocking, every 10 ms) for up to wait_s: a test never hangs."""
        fd = os.open(uidgen.DEVICE, os.O_RDONLY | os.O_NONBLOCK)
        try:
            end = time.monotonic() + wait_s
            while True:
                try:
                    return struct.unpack("=Q", os.read(fd, 8))[0]
                except BlockingIOError:
                    if nonblock or time.monotonic() > end:
                        raise
                    time.sleep(0.01)
        finally:
            os.close(fd)

    def attr(self, name):
        return int(open("/sys/class/misc/uid/" + name).read())


def case(fn):
    name = fn.__name__
    print("# case " + name, file=sys.stderr, flush=True)
    try:
        if os.path.exists(STATE):
            os.unlink(STATE)
        load()
        notes = fn()
        results.append((name, True, notes))
    except Exception as e:      # a failed check or an unexpected error
        results.append((name, False, "%s: %s" % (type(e).__name__, e)))


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def fresh_static(ahead_ms):
    """set-node --new, then the first 'state restore': a grant ahead_ms on."""
    sh(CLI, "set-node", str(NODE), "--new")
    sh(CLI, "state", "restore", STATE, "--ahead-ms", str(ahead_ms))


def grant_first():
    fresh_static(100)
    d = Dev()
    x = d.top_at(400)
    mark0 = state_floor_ms()
    check(mark0 < d.tick_end_ms(x), "the first grant mark %d is below the observed tick's end %d"
          % (mark0, d.tick_end_ms(x)))
    d.g.observe(x)
    waits = d.attr("grant_waits")
    try:
        id = d.read(nonblock=True)
        raise AssertionError("minted %#x past the grant (mark %d ms) after observing %#x"
                             % (id, mark0, x))
    except BlockingIOError as e:
        check(e.errno == errno.EAGAIN, "errno %d" % e.errno)
    check(d.attr("grant_waits") == waits + 1, "grant_waits did not count it")
    # A mark 100 ms ahead: of the ID clock, which the observe put 400 ms
    # ahead (of the wall clock alone, minting would wait the 300 ms, and
    # 16 times that while the lead heals).
    t0 = time.monotonic()
    with open(STATE + ".keep.log", "w") as log:
        keep = subprocess.Popen([CLI, "state", "keep", STATE, "--ahead-ms", "100", "--every-ms", "50"],
                                stdout=log, stderr=log)
    try:
        id = d.read()           # waits for keep's grant
        waited = time.monotonic() - t0
        mark = state_floor_ms()
    finally:
        keep.terminate()
        try:
            keep.wait(timeout=10)
        except subprocess.TimeoutExpired:
            keep.kill()
            keep.wait()
    check(id > x, "first ID %#x not above the observed %#x" % (id, x))
    check(mark >= d.tick_end_ms(id), "minted %#x (tick ends %d ms) past the file's mark %d ms"
          % (id, d.tick_end_ms(id), mark))
    return ("EAGAIN past the grant; keep's mark %d ms past the first grant, the first ID %d ticks "
            "after the observed, %.2f s after keep started" % (mark - mark0, d.tick(id) - d.tick(x), waited))


def save_covers():
    fresh_static(1000)
    d = Dev()
    before = d.read()
    x = d.top_at(300)
    d.g.observe(x)
    d.g.close()
    sh(CLI, "state", "save", STATE)
    floor, saved_at = state_floor_ms(), wall_ms()
    # Nothing minted since: the observed tick is the high water, exactly.
    check(floor == d.tick_end_ms(x), "saved floor %d ms, not the observed tick's end %d ms"
          % (floor, d.tick_end_ms(x)))
    load()
    sh(CLI, "state", "restore", STATE, "--ahead-ms", "1000")
    d = Dev()
    id = d.read()
    check(id > x, "after the reload, %#x is not above the observed %#x" % (id, x))
    check(id > before, "after the reload, %#x is not above %#x" % (id, before))
    return "floor %d ms past the last ID minted, %d ms past the wall clock at save" % (
        floor - d.tick_end_ms(before), floor - saved_at)


def refused_no_mark():
    fresh_static(1000)
    d = Dev()
    last = d.read()
    far = d.top_at(2000)
    refused = d.attr("observe_refused")
    try:
        d.g.observe(far)
        raise AssertionError("an ID 2 s ahead was accepted")
    except uidgen.ClockAheadError as e:
        check(e.errno == errno.EDOM, "errno %d" % e.errno)
    check(d.attr("observe_refused") == refused + 1, "not counted")
    last = max(last, d.read())
    d.g.close()
    sh(CLI, "state", "save", STATE)
    floor = state_floor_ms()
    check(floor == d.tick_end_ms(last), "saved floor %d ms, not the end of the last ID's tick %d ms"
          % (floor, d.tick_end_ms(last)))
    load()
    sh(CLI, "state", "restore", STATE, "--ahead-ms", "1000")
    d = Dev()
    id = d.read()
    w = wall_ms()
    check(id > last, "%#x not above %#x" % (id, last))
    check(d.tick(id) + d.epoch_ms <= w + 1, "the next load's first ID is %d ms ahead of the wall clock"
          % (d.tick(id) + d.epoch_ms - w))
    return "floor = the last ID's tick end; next load's first ID %d ms from the wall clock" % (
        d.tick(id) + d.epoch_ms - w)


for fn in (grant_first, save_covers, refused_no_mark):
    case(fn)
while handles:
    handles.pop().close()
subprocess.run(["rmmod", "uidgen"], capture_output=True)
print("TAP version 13")
print("1..%d" % len(results))
for i, (name, ok, notes) in enumerate(results, 1):
    print("%sok %d %s" % ("" if ok else "not ", i, name))
    if notes:
        print("# %s: %s" % (name, notes))
passed = sum(ok for _, ok, _ in results)
print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0" % (passed, len(results) - passed))
sys.exit(0 if passed == len(results) else 1)
