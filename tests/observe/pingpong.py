#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ping-pong of issue 30, both halves.

  pingpong.py relay FILE            on the host: listen on two free ports
                                    of 127.0.0.1, A's and B's, and write
                                    them to FILE ("PORT_A PORT_B"); pass
                                    each line to the other side; answer
                                    "TIME" with "T" and the host's
                                    CLOCK_REALTIME in ns
  pingpong.py guest A|B PORT OFFSET_MS ROUNDS   (PORT: this side's)
                                    in a guest: set the wall clock to the
                                    host's + OFFSET_MS, check that it runs
                                    at the host's rate, then run the phases
                                    (the module reloaded for each, both
                                    sides in step through SYNC lines)

Phases, each ROUNDS round trips: A mints an ID and sends it; B answers with
an ID minted after (observing A's first, or not); A checks the reply is
greater, observes it (or not) and mints its next message. B counts the
replies not greater than the message they answer, A the messages not
greater than the reply before them: together, the inversions among the
2 * ROUNDS messages. Each side writes one line per phase:
"RESULT SIDE PHASE name value ...". The names:
  inversions rounds seconds     as above, and how long the rounds took
  lead_min_ms lead_max_ms       the ID clock's lead over the wall clock
                                (clock_offset_ms), sampled every 100 rounds
  lead_end_ms                   the lead just after the last round
  lead_after_ms heal_elapsed_ms the lead again about 10 s later, and the
                                exact time between the two reads
  refused                       observes that failed with EDOM
  observe_refused_before observe_refused observe_moved
                                the module's counters before the rounds and
                                after them
  offset_start_ms offset_end_ms this guest's wall clock minus the host's
                                (the relay's), before and after the rounds
"""
import os
import socket
import subprocess
import sys
import threading
import time

SYS = "/sys/class/misc/uid/"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def relay(ports_file):
    peers = [None, None]
    ready = threading.Condition()
    servers = []
    for _ in (0, 1):
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        servers.append(srv)
    with open(ports_file + ".tmp", "w") as f:
        f.write("%d %d\n" % tuple(srv.getsockname()[1] for srv in servers))
    os.rename(ports_file + ".tmp", ports_file)

    def serve(k):
        srv = servers[k]
        me, _ = srv.accept()
        srv.close()
        me.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with ready:
            peers[k] = me
            ready.notify_all()
        f = me.makefile("rb", buffering=0)
        for line in f:
            if line.startswith(b"TIME"):
                me.sendall(b"T %d\n" % time.time_ns())
                continue
            with ready:
                ready.wait_for(lambda: peers[1 - k] is not None)
            peers[1 - k].sendall(line)
        # One side gone (its guest failed): the other reads the end of its
        # stream and fails too, rather than wait for the VM's timeout.
        print("relay: side %s closed" % "AB"[k], flush=True)
        with ready:
            other = peers[1 - k]
        if other is not None:
            other.shutdown(socket.SHUT_RDWR)

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


class Link:
    """The line protocol to the relay: the other side's lines, and the
    host's time (answers to TIME, which may come between them)."""

    def __init__(self, port):
        self.s = socket.create_connection(("10.0.2.2", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.f = self.s.makefile("rb", buffering=0)
        self.held = []

    def send(self, line):
        self.s.sendall(line + b"\n")

    def recv(self):
        if self.held:
            return self.held.pop(0)
        line = self.f.readline()
        if not line:
            raise EOFError("the relay closed the connection")
        return line.rstrip(b"\n")

    def host_ns(self):
        """(host ns at the midpoint, round trip ns, CLOCK_BOOTTIME then):
        one TIME asked and answered."""
        t0 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        self.send(b"TIME")
        while True:
            line = self.f.readline()
            if not line:
                raise EOFError("the relay closed the connection")
            if line.startswith(b"T "):
                break
            self.held.append(line.rstrip(b"\n"))
        t1 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        return int(line.split()[1]) + (t1 - t0) // 2, t1 - t0, t1

    def best(self, n=20):
        """The host's time from the fastest of n asks, as host_ns()."""
        return min((self.host_ns() for _ in range(n)), key=lambda r: r[1])

    def offset_ms(self):
        """This guest's CLOCK_REALTIME minus the host's, in ms."""
        host, _, t1 = self.best(10)
        real = time.clock_gettime_ns(time.CLOCK_REALTIME) - \
            (time.clock_gettime_ns(time.CLOCK_BOOTTIME) - t1)
        return (real - host) / 1e6


def guest(role, port, offset_ms, rounds):
    sys.path.insert(0, os.path.join(ROOT, "bindings/python"))
    import uidgen
    link = Link(port)

    # This guest's clocks against the host's over 5 s: under TCG on a busy
    # host the kernel can take a TSC rate far off at boot, and its clocks
    # then run at another rate than the host's (one guest here ran 9.5
    # times fast), which would turn the 2 s apart into anything.
    h0, _, b0 = link.best()
    time.sleep(5)
    h1, _, b1 = link.best()
    rate = (b1 - b0) / (h1 - h0)
    print("# %s: this guest's clock runs at %.6f of the host's" % (role, rate), flush=True)
    if abs(rate - 1) > 0.001:
        print("RESULT %s clock rate %.6f: off by more than 0.1%%, nothing tested" % (role, rate),
              flush=True)
        sys.exit(3)

    host, rtt, t1 = link.best()
    time.clock_settime_ns(time.CLOCK_REALTIME,
                          host + time.clock_gettime_ns(time.CLOCK_BOOTTIME) - t1 +
                          offset_ms * 1000000)
    print("# %s: clock set to the host's %+d ms (round trip %d us); now %+.1f ms" %
          (role, offset_ms, rtt // 1000, link.offset_ms()), flush=True)
    step = [0]

    def sync():
        step[0] += 1
        link.send(b"SYNC %d" % step[0])
        line = link.recv().split()
        assert line == [b"SYNC", b"%d" % step[0]], line

    def load(bound):
        subprocess.run("rmmod uidgen", shell=True, stderr=subprocess.DEVNULL)
        sh("insmod %s observe_ahead_ms=%d" % (os.environ.get("UIDGEN_KO", "module/uidgen.ko"), bound))
        sh("userlib/uidgen set-node %d --new" % (1 if role == "A" else 2))

    def phase(name, bound, observe):
        load(bound)
        g = uidgen.Uidgen()
        off_start = link.offset_ms()
        refused_before = attr("observe_refused")
        sync()
        inv = refused = 0
        leads = []
        last = 0
        t0 = time.monotonic()
        for i in range(rounds):
            if role == "A":
                m = g.next()
                inv += m <= last
                link.send(b"%d" % m)
                r = int(link.recv())
                last = r
                if observe:
                    g.observe(r)
            else:
                m = int(link.recv())
                if observe:
                    try:
                        g.observe(m)
                    except uidgen.ClockAheadError:
                        refused += 1
                r = g.next()
                inv += r <= m
                link.send(b"%d" % r)
            if i % 100 == 0:
                leads.append(attr("clock_offset_ms"))
        seconds = time.monotonic() - t0
        lead_end = attr("clock_offset_ms")
        e0 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        sync()
        off_end = link.offset_ms()
        time.sleep(10)
        healed = attr("clock_offset_ms")
        e1 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        g.close()
        print("RESULT %s %s inversions %d rounds %d seconds %.1f lead_min_ms %d lead_max_ms %d "
              "lead_end_ms %d lead_after_ms %d heal_elapsed_ms %d refused %d "
              "observe_refused_before %d observe_refused %d observe_moved %d "
              "offset_start_ms %.1f offset_end_ms %.1f" %
              (role, name, inv, rounds, seconds, min(leads), max(leads), lead_end, healed,
               (e1 - e0) // 1000000, refused, refused_before, attr("observe_refused"),
               attr("observe_moved"), off_start, off_end), flush=True)
        sync()

    phase("no-observe", 5000, False)
    phase("observe", 5000, True)
    phase("observe-default-bound", 500, True)


if __name__ == "__main__":
    if sys.argv[1] == "relay":
        relay(sys.argv[2])
    else:
        guest(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
