#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The persister's property explorer: random sequences of boots against the
real `uidgen state restore/keep/save` and the real module, a boot being an
rmmod and insmod of it. Run as root in a guest (it steps CLOCK_REALTIME,
and puts it back after each run), in the repository.

Each run draws an --ahead-ms A from 10 s up to the CLI's own maximum (read
from 'state restore --help', so the bounds are those of the build under
test) and a node ID's life of boot cycles. A cycle is: boot (the clock
off by up to an hour either way, as a wrong RTC before NTP; insmod; state
restore; a keeper most of the time), then some of: mint IDs, time passing
(a real sleep), a clock step of up to an hour either way while loaded; then
a crash (keeper SIGKILLed, rmmod, no save) or a clean stop (keeper
stopped, state save, rmmod), then time off (the clock moved on by up to
two days). At most CRASHES crashes in a row (--crashes; a crash loop:
--crashes 1000 --crash-p 1 --off-max 0).

Properties, each checked after every step:
  order    every ID minted after a boot is above every ID minted before it
           (and none repeats);
  restore  state restore succeeds: within these bounds (A at most the CLI's
           maximum, the clock off by at most an hour, CRASHES crashes in a
           row) a floor is never more than a day ahead, and EDOM never
           comes;
  unchanged  a refused restore leaves the state file as it was (a restore
           is tried RETRIES times more after one is refused, as a service
           restarted);
  recovers after refused restores, a restore at a boot once the clock is
           within a day of the file's floor is taken;
  bounded  the file's mark never runs away: floor_ms <= the true time +
           UIDGEN_FLOOR_AHEAD_MAX (a day) + the clock's error (an hour) + A.
A run stops at its first violation (after the retries for a refused
restore) and prints its steps. Output is TAP with
a kselftest "# Totals:" line (a run per test point).

  tests/shell/crashloop.py [--seed N] [--runs N] [--cycles N] [--crashes N]
                           [--crash-p P] [--off-max MS] [--ahead MS]
Environment: UIDGEN_CLI (default userlib/uidgen), UIDGEN_KO (default
module/uidgen.ko).
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

CLI = os.environ.get("UIDGEN_CLI", "userlib/uidgen")
KO = os.environ.get("UIDGEN_KO", "module/uidgen.ko")
SYS = "/sys/class/misc/uid/"
NODE = 9
HOUR = 3600 * 1000
DAY = 24 * HOUR			# UIDGEN_FLOOR_AHEAD_MAX_NS, in ms
CLOCK_OFF = HOUR		# how far the clock may be off, either way
CRASHES = 3			# crashes in a row at most
RETRIES = 3			# restores again after a refused one


def mono_ms():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000000


# The real time, whatever the runs do to the clock: put back after each.
REAL0 = time.clock_gettime_ns(time.CLOCK_REALTIME) // 1000000 - mono_ms()


def wall_ms():
    return time.clock_gettime_ns(time.CLOCK_REALTIME) // 1000000


def set_wall_ms(ms):
    time.clock_settime_ns(time.CLOCK_REALTIME, ms * 1000000)


def sh(*argv, timeout=30):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def cli(*args, timeout=30):
    return sh(CLI, *args, timeout=timeout)


def ahead_max():
    """The most --ahead-ms the CLI under test takes, as its help says."""
    _, out, _ = cli("state", "restore", "--help")
    m = re.search(r"--ahead-ms MS .*?1 to (\d+)", out)
    if not m:
        sys.exit(f"crashloop: {CLI} state restore --help names no --ahead-ms range")
    return int(m.group(1))


def loaded():
    return os.path.exists("/sys/module/uidgen")


def unload():
    if loaded():
        rc, _, err = sh("rmmod", "uidgen")
        if rc:
            raise RuntimeError(f"rmmod uidgen: {err.strip()}")


def load():
    rc, _, err = sh("insmod", KO)
    if rc:
        raise RuntimeError(f"insmod {KO}: {err.strip()}")


def file_floor(path):
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None, None
    m = re.search(r"^floor_ms=(\d+)$", text, re.M)
    return (int(m.group(1)) if m else None), text


class Violation(Exception):
    pass


class Run:
    """One node ID's life: a sequence of boot cycles, checked as it goes."""

    def __init__(self, rng, amax, opts, dirname):
        self.rng = rng
        self.cycles = opts.cycles
        self.max_crashes = opts.crashes
        self.crash_p = opts.crash_p
        self.off_max = opts.off_max
        self.state = os.path.join(dirname, "state")
        # A: a few seconds, the default, ten minutes, half and all of the max.
        self.ahead = opts.ahead or rng.choice(sorted({10000, 60000, min(600000, amax),
                                                      amax // 2, amax}))
        self.every = min(500, self.ahead // 3)
        self.steps = []
        self.keeper = None
        self.max_before = 0	# the highest ID of the boots before this one
        self.max_now = 0	# the highest ID of this boot
        self.seen = set()
        self.crashes = 0	# in a row
        # The true time is the clock with its error taken away.
        self.error = 0

    def log(self, what):
        self.steps.append(what)

    def true_ms(self):
        return wall_ms() - self.error

    def check_bounded(self, when):
        # The kernel takes no floor past its anchor (the clock at load, off
        # by CLOCK_OFF at most) + a day, and a mark is A past what it took.
        floor, _ = file_floor(self.state)
        lead = DAY + CLOCK_OFF + self.ahead
        if floor is not None and floor > self.true_ms() + lead:
            raise Violation(f"bounded: after {when} the file's floor_ms={floor} is "
                            f"{floor - self.true_ms()} ms ahead of the true time, past "
                            f"a day + the clock's error + A ({lead} ms)")

    # --- the events ---------------------------------------------------------

    def boot(self, first=False):
        # The clock at boot: right, or off by up to an hour either way.
        err = self.rng.choice([0, 0, self.rng.randint(-CLOCK_OFF, CLOCK_OFF)])
        set_wall_ms(self.true_ms() + err)
        self.error = err
        load()
        if first:
            rc, _, e = cli("set-node", str(NODE), "--new")
            if rc:
                raise RuntimeError(f"set-node --new: {e.strip()}")
        if not self.restore(f"boot (clock off {err} ms)"):
            # Refused: the service is started again, as systemd would,
            # and each try must leave the file where it was.
            found = [self.refused]
            for i in range(RETRIES):
                if self.restore(f"restore again ({i + 1})"):
                    break
                if self.moved:
                    found.append(self.moved)
                try:
                    self.check_bounded("a refused restore")
                except Violation as v:
                    found.append(str(v))
            # Once the clock has caught up to a day behind the floor (the
            # floor stays where it was), a restore at the next boot is
            # taken: the kernel's anchor is the clock at load.
            floor, _ = file_floor(self.state)
            ms = max(0, floor - wall_ms() - DAY + 60000)
            unload()
            set_wall_ms(wall_ms() + ms)
            load()
            self.log(f"off for {ms} ms, to a minute within a day of the floor; boot")
            if not self.restore("restore once the clock is on"):
                found.append(f"recovers: refused still, {ms} ms later: {self.refused}")
            raise Violation("; ".join(found))
        self.check_bounded("restore")
        if self.rng.random() < 0.75:
            self.start_keeper()

    def restore(self, what):
        """state restore; False (and self.refused said) if it is refused."""
        floor0, text0 = file_floor(self.state)
        rc, out, e = cli("state", "restore", self.state, "--ahead-ms", str(self.ahead))
        floor1, text1 = file_floor(self.state)
        self.log(f"{what}: restore floor {floor0} -> {floor1} (ahead of the clock by "
                 f"{None if floor0 is None else floor0 - wall_ms()} ms): exit {rc}")
        self.moved = None
        if text1 != text0:
            self.moved = (f"unchanged: a refused restore moved the file's floor from "
                          f"{floor0} to {floor1}")
        if rc == 0:
            return True
        why = "EDOM" if "hours ahead" in e else e.strip()
        lead = None if floor0 is None else floor0 - wall_ms()
        self.refused = (f"restore: refused ({why}) after {self.crashes} crash(es) in a "
                        f"row (A={self.ahead} ms), the floor {floor0} {lead} ms ahead "
                        f"of the clock")
        if self.moved:
            self.refused += "; " + self.moved
        return False

    def start_keeper(self):
        self.keeper = subprocess.Popen(
            [CLI, "state", "keep", self.state, "--ahead-ms", str(self.ahead),
             "--every-ms", str(self.every)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.log(f"keep every {self.every} ms")

    def stop_keeper(self, sig):
        if self.keeper:
            self.keeper.send_signal(sig)
            self.keeper.wait()
            self.keeper = None

    def mint(self):
        n = self.rng.choice([1, 10, 100])
        try:
            rc, out, e = cli("-n", str(n), timeout=10)
        except subprocess.TimeoutExpired:
            # At the grant with no keeper: callers wait, by design.
            self.log(f"mint {n}: waited at the grant")
            return
        if rc:
            raise RuntimeError(f"uidgen -n {n}: exit {rc}: {e.strip()}")
        ids = [int(x) for x in out.split()]
        low = min(ids)
        self.log(f"mint {n}: {low}..{max(ids)}")
        if low <= self.max_before:
            raise Violation(f"order: ID {low} minted after a boot is not above "
                            f"{self.max_before}, minted before it")
        rep = self.seen.intersection(ids)
        if rep or len(set(ids)) != len(ids):
            raise Violation(f"order: IDs repeat: {sorted(rep)[:3]}")
        self.seen.update(ids)
        self.max_now = max(self.max_now, max(ids))
        self.check_bounded("mint")

    def pass_time(self):
        ms = self.rng.choice([100, 500, 1500])
        time.sleep(ms / 1000)
        self.log(f"sleep {ms} ms")
        self.check_bounded("time passing")

    def step_clock(self):
        err = self.rng.randint(-CLOCK_OFF, CLOCK_OFF)
        set_wall_ms(self.true_ms() + err)
        self.error = err
        self.log(f"clock step: now off {err} ms")
        self.check_bounded("a clock step")

    def crash(self):
        self.stop_keeper(signal.SIGKILL)
        unload()
        self.crashes += 1
        self.log("crash")
        self.check_bounded("a crash")

    def stop(self):
        self.stop_keeper(signal.SIGTERM)
        rc, out, e = cli("state", "save", self.state)
        if rc:
            raise RuntimeError(f"state save: exit {rc}: {e.strip()}")
        unload()
        self.crashes = 0
        self.log("clean stop (save)")
        self.check_bounded("a save")

    def time_off(self):
        ms = self.rng.choice([0, 1000, self.rng.randint(0, self.off_max)])
        set_wall_ms(wall_ms() + ms)
        self.log(f"off for {ms} ms")

    def boundary(self):
        self.max_before = max(self.max_before, self.max_now)

    def run(self):
        unload()
        self.boot(first=True)
        for _ in range(self.cycles):
            for _ in range(self.rng.randint(1, 4)):
                self.rng.choice([self.mint, self.mint, self.pass_time,
                                 self.step_clock])()
            if self.crashes < self.max_crashes and self.rng.random() < self.crash_p:
                self.crash()
            else:
                self.stop()
            self.boundary()
            self.time_off()
            self.boot()
        self.mint()

    def cleanup(self):
        self.stop_keeper(signal.SIGKILL)
        try:
            unload()
        except RuntimeError:
            pass
        # The run's time off was its own: back to the real time.
        set_wall_ms(REAL0 + mono_ms())
        self.error = 0


def main():
    sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser(description="state restore/keep/save: crash-loop properties")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("CRASHLOOP_SEED", "1")))
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--cycles", type=int, default=6)
    ap.add_argument("--crashes", type=int, default=CRASHES,
                    help="crashes in a row at most (default %(default)s)")
    ap.add_argument("--crash-p", type=float, default=0.7,
                    help="how likely a cycle ends in a crash (default %(default)s)")
    ap.add_argument("--off-max", type=int, default=2 * DAY,
                    help="the longest time off between boots, ms (default two days)")
    ap.add_argument("--ahead", type=int, default=0,
                    help="--ahead-ms for every run (default: drawn per run)")
    a = ap.parse_args()
    amax = ahead_max()
    print("TAP version 13")
    print(f"# {CLI}: --ahead-ms up to {amax}; seed {a.seed}, {a.runs} runs of "
          f"{a.cycles} boot cycles, at most {a.crashes} crashes in a row, the clock off "
          f"by up to {CLOCK_OFF} ms")
    print(f"1..{a.runs}")
    passed = failed = 0
    counts = {}
    total = {"restores": 0, "crashes": 0, "clean stops": 0, "IDs": 0}
    for i in range(a.runs):
        rng = random.Random(a.seed * 1000 + i)
        with tempfile.TemporaryDirectory(prefix="crashloop.") as d:
            r = Run(rng, amax, a, d)
            try:
                r.run()
                ok, what = True, ""
            except Violation as v:
                ok, what = False, str(v)
            finally:
                r.cleanup()
        for step in r.steps:
            for word, key in (("boot", "restores"), ("restore again", "restores"),
                              ("crash", "crashes"), ("clean stop", "clean stops")):
                if step.startswith(word):
                    total[key] += 1
        total["IDs"] += len(r.seen)
        if ok:
            passed += 1
            print(f"ok {i + 1} run {i + 1}: A={r.ahead} ms, {len(r.steps)} steps, "
                  f"{len(r.seen)} IDs")
        else:
            failed += 1
            for prop in {p.split(":")[0] for p in what.split("; ")}:
                counts[prop] = counts.get(prop, 0) + 1
            print(f"not ok {i + 1} run {i + 1}: A={r.ahead} ms: {what}")
            for s in r.steps:
                print(f"#   {s}")
    print("# " + ", ".join(f"{v} {k}" for k, v in total.items()) +
          f"; violations by property (runs): {counts or 'none'}")
    print(f"# Totals: pass:{passed} fail:{failed} xfail:0 xpass:0 skip:0 error:0")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
