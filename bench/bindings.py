# SPDX-License-Identifier: GPL-2.0
# make bench: the Python binding's per-ID cost of next() and batch(4096),
# "python ROW NS" lines like uidgen_bench's "bindings" (best of 25 rounds
# of about 20 ms each, as uidgen_bench's); "python-pure" with
# UIDGEN_PURE_PYTHON=1 (the binding without its C extension). Then the yardstick of the goal, one
# os.urandom(8) (a getrandom() system call), called as next() is: a bound
# C function, no Python frame. Run in the VM with PYTHONPATH=bindings/python
# (bench/bindings-guest.sh).
import functools
import os
import time

import uidgen


def best(fn, ids_per_call):
    n = 1
    while True:                     # calls taking about 20 ms
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        if time.perf_counter_ns() - t0 > 20_000_000:
            break
        n *= 2
    res = []
    for _ in range(25):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        res.append((time.perf_counter_ns() - t0) / (n * ids_per_call))
    return min(res)


pure = os.environ.get("UIDGEN_PURE_PYTHON") == "1"
name = "python-pure" if pure else "python"
g = uidgen.Uidgen()
print("%s next %.1f" % (name, best(g.next, 1)))
print("%s batch4096 %.1f" % (name, best(lambda: g.batch(4096), 4096)))
if not pure:
    print("yardstick urandom8 %.1f" % best(functools.partial(os.urandom, 8), 1))
