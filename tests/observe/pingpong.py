#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ping-pong of issue 30, both halves.

  pingpong.py relay PORT            on the host: A connects to PORT, B to
                                    PORT + 1; pass each line to the other;
                                    answer "TIME" with the host's
                                    CLOCK_REALTIME in ns
  pingpong.py guest A|B PORT OFFSET_MS ROUNDS
                                    in a guest: set the wall clock to the
                                    host's + OFFSET_MS, then run the phases
                                    (module reloads on cue, both sides in
                                    step through SYNC lines)

Phases, each ROUNDS round trips: A mints an ID and sends it; B answers with
an ID minted after (observing A's first, or not); A checks the reply is
greater, observes it (or not) and mints its next message. Inversions are
replies not greater than the message they answer, and messages not greater
than the reply before them. B writes one result line per phase: "RESULT
phase inversions rounds lead_max_ms lead_end_ms lead_healed_ms refused".
"""
import os
import socket
import subprocess
import sys
import threading
import time

SYS = "/sys/class/misc/uid/"


def relay(port):
    peers = [None, None]

    def serve(k):
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", port + k))
        srv.listen(1)
        me, _ = srv.accept()
        me.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peers[k] = me
        f = me.makefile("rwb", buffering=0)
        for line in f:
            if line.startswith(b"TIME"):
                f.write(b"%d\n" % time.time_ns())
                continue
            while peers[1 - k] is None:
                time.sleep(0.01)
            peers[1 - k].sendall(line)

    threads = [threading.Thread(target=serve, args=(k,), daemon=True) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def attr(name):
    with open(SYS + name) as f:
        return int(f.read())


def sh(cmd):
    subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL)


def guest(role, port, offset_ms, rounds):
    sys.path.insert(0, "bindings/python")
    import uidgen
    s = socket.create_connection(("10.0.2.2", port + (role == "B")))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    f = s.makefile("rwb", buffering=0)
    # The host's time when its answer came, from the fastest of 20 asks:
    # its stamp plus half that round trip.
    best = None
    for _ in range(20):
        t0 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        f.write(b"TIME\n")
        host = int(f.readline())
        t1 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        if best is None or t1 - t0 < best[0]:
            best = (t1 - t0, host + (t1 - t0) // 2, t1)
    rtt, host, t1 = best
    time.clock_settime_ns(time.CLOCK_REALTIME,
                          host + time.clock_gettime_ns(time.CLOCK_BOOTTIME) - t1 +
                          offset_ms * 1000000)
    print("# %s: clock set to the host's %+d ms (round trip %d us)" % (role, offset_ms, rtt // 1000),
          flush=True)
    step = [0]

    def sync():
        step[0] += 1
        f.write(b"SYNC %d\n" % step[0])
        line = f.readline().split()
        assert line == [b"SYNC", b"%d" % step[0]], line

    def load(bound):
        subprocess.run("rmmod uidgen", shell=True, stderr=subprocess.DEVNULL)
        sh("insmod module/uidgen.ko observe_ahead_ms=%d" % bound)
        sh("userlib/uidgen set-node %d --new" % (1 if role == "A" else 2))

    def phase(name, bound, observe):
        load(bound)
        g = uidgen.Uidgen()
        sync()
        inv = refused = 0
        lead_max = -10 ** 9
        last = 0
        for i in range(rounds):
            if role == "A":
                m = g.next()
                inv += m <= last
                f.write(b"%d\n" % m)
                r = int(f.readline())
                inv += r <= m
                last = r
                if observe:
                    g.observe(r)
            else:
                m = int(f.readline())
                if observe:
                    try:
                        g.observe(m)
                    except uidgen.ClockAheadError:
                        refused += 1
                r = g.next()
                inv += r <= m
                f.write(b"%d\n" % r)
            if i % 500 == 0:
                lead_max = max(lead_max, attr("clock_offset_ms"))
        lead_end = attr("clock_offset_ms")
        sync()
        time.sleep(10)
        healed = attr("clock_offset_ms")
        counted = attr("observe_refused")
        g.close()
        print("RESULT %s %s inversions %d rounds %d lead_max_ms %d lead_end_ms %d "
              "lead_after_10s_ms %d refused %d observe_refused %d observe_moved %d" %
              (role, name, inv, rounds, lead_max, lead_end, healed, refused, counted,
               attr("observe_moved")), flush=True)
        sync()

    phase("no-observe", 5000, False)
    phase("observe", 5000, True)
    phase("observe-default-bound", 500, True)


if __name__ == "__main__":
    if sys.argv[1] == "relay":
        relay(int(sys.argv[2]))
    else:
        guest(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
