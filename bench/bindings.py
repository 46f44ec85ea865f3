# SPDX-License-Identifier: GPL-2.0
# make bench: the Python binding's per-ID cost of next() and batch(4096),
# "python ROW NS" lines like uidgen_bench's "bindings" (best of 5 rounds of
# about 0.2 s each). Run in the VM with PYTHONPATH=bindings/python.
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
    n *= 10
    res = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        res.append((time.perf_counter_ns() - t0) / (n * ids_per_call))
    return min(res)


g = uidgen.Uidgen()
print("python next %.1f" % best(g.next, 1))
print("python batch4096 %.1f" % best(lambda: g.batch(4096), 4096))
