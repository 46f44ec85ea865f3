# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python binding's tests (unittest). Pure: decode and the UUID/ULID
views against libuidgen's own answers (tests/lib/idref) on the same IDs.
Device: against the real /dev/uid, node ID $UIDGEN_NODE assigned after load;
run as root in the repository (the VM's `python` suite). Prints a
kselftest-style "# Totals:" line."""
import errno
import os
import random
import subprocess
import sys
import threading
import time
import unittest
import uuid

import uidgen

REPO = os.environ.get("UIDGEN_REPO", os.getcwd())
IDREF = os.path.join(REPO, "tests/lib/idref")


def idref(lines, *args):
    out = subprocess.run([IDREF, *args], input="".join("%s\n" % x for x in lines),
                         capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines()]


def some_ids(n, rng):
    edges = [0, 1, 4095, 4096, (1 << 22) - 1, 1 << 22, (1 << 63) - 2, (1 << 63) - 1]
    return edges + [rng.getrandbits(63) >> rng.randrange(64) for _ in range(n)]


class Pure(unittest.TestCase):
    """No device: the default layout and another."""

    def compare(self, ids, info, args):
        ref = idref(ids, *args)
        self.assertEqual(len(ref), len(ids))
        for id, r in zip(ids, ref):
            if r[1] == "error":
                with self.assertRaises(uidgen.InvalidIdError) as cm:
                    uidgen.to_uuid(id, info)
                self.assertEqual(-cm.exception.errno, int(r[2]))
                continue
            p = uidgen.decode(id, info)
            self.assertEqual([str(p.tick), str(p.unix_ms), str(p.node), str(p.slot),
                              str(p.seq)], r[1:6], id)
            self.assertEqual(str(uidgen.to_uuid(id, info)), r[6])
            self.assertEqual(str(uidgen.to_uuid(id, info, v8=True)), r[7])
            self.assertEqual(uidgen.to_ulid(id, info), r[8])
            self.assertEqual(uidgen.from_uuid(r[6], info), id)
            self.assertEqual(uidgen.from_uuid(uuid.UUID(r[7]), info), id)
            self.assertEqual(uidgen.from_ulid(r[8], info), id)

    def test_default_layout_against_libuidgen(self):
        self.compare(some_ids(3000, random.Random(1)), uidgen.default_info(), ["-d"])

    def test_refusals_match_libuidgen(self):
        rng = random.Random(2)
        info = uidgen.default_info()
        texts = [str(uuid.uuid4()) for _ in range(200)]
        texts += [str(uidgen.to_uuid(i, info)) for i in some_ids(200, rng)]
        texts += ["01a22b21-6ca0-7cc3-98c4-dc0c0c07398f", "00000000-0000-7000-8000-000000000000",
                  "01a22b21-6ca0-7fff-8e10-000000000000", "01a22b21-6ca0-7000-8e10-000000000001",
                  "01M8NJ2V50E008W40000000000"]
        for text, r in zip(texts, idref(texts, "-d", "-u")):
            if r[1] == "error":
                with self.assertRaises(uidgen.InvalidIdError) as cm:
                    uidgen.from_uuid(text, info)
                self.assertEqual(-cm.exception.errno, int(r[2]), text)
                self.assertIsInstance(cm.exception, ValueError)
            else:
                self.assertEqual(uidgen.from_uuid(text, info), int(r[1]), text)

    def test_known(self):
        info = uidgen.default_info()
        self.assertEqual(str(uidgen.to_uuid(120772217587765248, info)),
                         "01a22b21-6ca0-7000-8e10-000000000000")
        self.assertEqual(uidgen.to_ulid(120772217587765248, info), "01M8NJ2V50E008W40000000000")
        p = uidgen.decode(120772217587765248, info)
        self.assertEqual((p.unix_ms, p.node, p.slot, p.seq), (1796019940512, 7, 1, 0))

    def test_order(self):
        info = uidgen.default_info()
        ids = sorted(set(some_ids(2000, random.Random(3))))
        self.assertEqual([uidgen.to_uuid(i, info).bytes for i in ids],
                         sorted(uidgen.to_uuid(i, info).bytes for i in ids))
        self.assertEqual([uidgen.to_ulid(i, info) for i in ids],
                         sorted(uidgen.to_ulid(i, info) for i in ids))

    def test_bad_ids(self):
        info = uidgen.default_info()
        for bad in (-1, 1 << 63):
            with self.assertRaises(uidgen.InvalidIdError) as cm:
                uidgen.decode(bad, info)
            self.assertEqual(cm.exception.errno, errno.ERANGE)
        with self.assertRaises(TypeError):
            uidgen.decode("12", info)
        with self.assertRaises(uidgen.InvalidIdError) as cm:
            uidgen.decode(1, info._replace(ts_bits=40))
        self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_no_device(self):
        with self.assertRaises(uidgen.NoDeviceError) as cm:
            uidgen.Uidgen("/nonexistent/uid")
        e = cm.exception
        self.assertEqual(e.errno, errno.ENOENT)
        self.assertIsInstance(e, OSError)
        self.assertIsInstance(e, FileNotFoundError)
        self.assertIn("not loaded", str(e))
        self.assertIn("insmod module/uidgen.ko, then uidgen set-node N --new", str(e))


@unittest.skipUnless(os.path.exists("/dev/uid") and os.environ.get("UIDGEN_NODE"),
                     "needs /dev/uid and UIDGEN_NODE")
class Device(unittest.TestCase):
    """The real device; node ID $UIDGEN_NODE assigned after load."""

    node = int(os.environ.get("UIDGEN_NODE", "-1"))

    def test_info_is_the_modules(self):
        i = uidgen.info()
        par = "/sys/module/uidgen/parameters/"
        scale = {"tick_us": ("tick_ns", 1000), "epoch_ms": ("epoch_unix_ns", 1000000)}
        for f in ("ts_bits", "node_bits", "slot_bits", "seq_bits", "tick_us", "epoch_ms"):
            name, k = scale.get(f, (f, 1))
            with open(par + f) as fh:
                self.assertEqual(getattr(i, name), int(fh.read()) * k, f)
        self.assertEqual(i.node_id, self.node)
        self.assertEqual(i.nr_slots, 1 << i.slot_bits)

    def test_next(self):
        ids = [uidgen.next() for _ in range(20000)]
        self.assertEqual(len(set(ids)), 20000)
        self.assertEqual({uidgen.decode(i).node for i in ids}, {self.node})
        now_ms = time.time() * 1000
        self.assertLess(abs(uidgen.decode(uidgen.next()).unix_ms - now_ms), 2000)

    def test_batch(self):
        self.assertEqual(uidgen.batch(0), [])
        self.assertEqual(len(uidgen.batch(1)), 1)
        ids = uidgen.batch(70000)
        self.assertEqual(len(set(ids)), 70000)
        with self.assertRaises(ValueError):
            uidgen.batch(-1)

    def test_device_layout_against_libuidgen(self):
        ids = uidgen.batch(500) + [uidgen.next() for _ in range(500)]
        ref = idref(ids)
        for id, r in zip(ids, ref):
            p = uidgen.decode(id)
            self.assertEqual([str(p.tick), str(p.unix_ms), str(p.node), str(p.slot),
                              str(p.seq)], r[1:6])
            self.assertEqual(str(uidgen.to_uuid(id)), r[6])
            self.assertEqual(uidgen.to_ulid(id), r[8])
            self.assertEqual(uidgen.from_uuid(r[6]), id)

    def test_threads(self):
        out = []
        lock = threading.Lock()

        def work():
            mine = [uidgen.next() for _ in range(5000)]
            with lock:
                out.extend(mine)
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(len(set(out)), 20000)

    def test_fork_repeats_nothing(self):
        g = uidgen.Uidgen()
        g.next()        # a run is cached now
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                os.write(w, " ".join(str(g.next()) for _ in range(100)).encode())
            finally:
                os._exit(0)
        os.close(w)
        mine = [g.next() for _ in range(100)]
        with os.fdopen(r) as fh:
            child = [int(x) for x in fh.read().split()]
        os.waitpid(pid, 0)
        self.assertEqual(len(child), 100)
        self.assertFalse(set(mine) & set(child))
        g.close()

    def test_observe(self):
        g = uidgen.Uidgen()
        a = g.next()    # a run is cached now
        p = g.decode(a)
        low = g.layout.node_bits + g.layout.slot_bits + g.layout.seq_bits
        top = (p.tick << low) | ((1 << low) - 1)    # the last ID of a's tick
        g.observe(top)
        self.assertGreater(g.next(), top)
        self.assertGreater(uidgen.next(), top)
        self.assertGreater(g.batch(1)[0], top)
        with self.assertRaises(uidgen.ClockAheadError) as cm:
            g.observe((1 << 63) - 1)
        self.assertEqual(cm.exception.errno, errno.EDOM)
        with self.assertRaises(uidgen.InvalidIdError):
            g.observe(1 << 63)
        g.close()

    def test_revoke_stops_next(self):
        cli = os.path.join(os.environ.get("UIDGEN_REPO", "."), "userlib/uidgen")
        g = uidgen.Uidgen()
        g.next()        # a run is cached now
        subprocess.run([cli, "revoke-node"], check=True)
        try:
            with self.assertRaises(uidgen.NoNodeError) as cm:
                g.next()
            self.assertEqual(cm.exception.errno, errno.EADDRNOTAVAIL)
            self.assertIsInstance(cm.exception, OSError)
            self.assertIn("uidgen set-node N --new", str(cm.exception))
            with self.assertRaises(uidgen.NoNodeError):
                g.batch(3)
        finally:
            subprocess.run([cli, "set-node", str(self.node), "--new"],
                           check=True, stdout=subprocess.DEVNULL)
        self.assertEqual(g.decode(g.next()).node, self.node)
        g.close()


@unittest.skipUnless(os.environ.get("UIDGEN_PIP_TARGET"), "needs UIDGEN_PIP_TARGET")
class Installed(unittest.TestCase):
    """The package under test is the one pip installed (offline)."""

    def test_installed_by_pip(self):
        target = os.environ["UIDGEN_PIP_TARGET"]
        self.assertTrue(uidgen.__file__.startswith(target + "/uidgen/"), uidgen.__file__)
        self.assertTrue(os.path.isdir(os.path.join(target, "uidgen-2.0.0.dist-info")))


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors) + len(result.skipped)
    print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0"
          % (result.testsRun - failed, failed))
    sys.exit(1 if failed else 0)
