#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM, from bench/guest.sh (or a job of its own), with the
# module loaded in the cost layout and a node ID assigned: the bindings'
# next() and batch(4096) per ID against the C library's uidgen_next() and
# uidgen_fill(4096) in the same boot and layout, and the goals' ratios:
# Python's next() against one os.urandom(8) (a getrandom() system call;
# goal <= 1.0) and Go's Next() against C's cached uidgen_next() (goal
# <= 2.0). "python" is the binding as imported (its C extension when
# built: make clients), "python-pure" the same forced to pure Python
# (UIDGEN_PURE_PYTHON=1). Node (bench/bindings.js): the addon's next(),
# batch(4096) and uidgen.next() through the module's handle, the pure-JS
# fallback's next() ("node-js"), against crypto.randomBytes(8) in the same
# run (goal <= 1.0). Every figure is the best of rounds of about
# 20 ms, as uidgen_bench's (25 rounds; Go: -test.count 25): a longer window
# averages in the time the host takes the guest's CPUs away, which under
# QEMU TCG on a shared machine can be most of it. Three passes over every
# row, each row's best taken, so that a slow spell of the host does not
# land on one row alone (uidgen_bench takes its rows in turns for the same
# reason). Table in $OUT/bindings-table.txt.
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
B=bench/uidgen_bench
for pass in 1 2 3; do
	$B bindings
	PYTHONPATH=bindings/python PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 bench/bindings.py
	UIDGEN_PURE_PYTHON=1 PYTHONPATH=bindings/python PYTHONDONTWRITEBYTECODE=1 \
		/usr/bin/python3 bench/bindings.py
	./bindings/go/uidgen.test -test.run '^$' -test.bench . -test.benchtime 20ms -test.count 25 |
		awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); v = $3 / (n ~ /Batch4096/ ? 4096 : 1)
				    if (!(n in b) || v < b[n]) b[n] = v }
		     END { print "go next", b["BenchmarkNext"]; print "go batch4096", b["BenchmarkBatch4096"] }'
	node bench/bindings.js
	node bench/bindings.js js
done > "$OUT/bindings.txt"
# Each row's best of the passes, in the order first seen.
awk '{ k = $1 " " $2 }
     !(k in v) { n++; key[n] = k; v[k] = $3 }
     $3 < v[k] { v[k] = $3 }
     END { for (i = 1; i <= n; i++) print key[i], v[key[i]] }' "$OUT/bindings.txt" |
awk '$1 == "c" { c[$2] = $3 }
     $1 == "yardstick" { y[$2] = $3; next }
     { n++; lang[n] = $1; what[n] = $2; ns[n] = $3; v[$1 " " $2] = $3 }
     END { printf "%-32s %10s %10s\n", "binding, call (per ID)", "ns/ID", "ratio to C"
	   for (i = 1; i <= n; i++) {
		w = what[i]
		name = w == "next" ? "next()" : w == "batch4096" ? "batch(4096)" : w == "next-module" ? "uidgen.next()" : w
		printf "%-32s %10.1f %10.2f\n", lang[i] " " name, ns[i], ns[i] / c[w == "next-module" ? "next" : w]
	   }
	   printf "%-32s %10.1f\n", "os.urandom(8) (Python)", y["urandom8"]
	   printf "%-32s %10.1f\n", "crypto.randomBytes(8) (Node)", y["randombytes8"]
	   printf "%-32s %10s %10.2f  (goal <= 1.0)\n", "python next() / os.urandom(8)", "", v["python next"] / y["urandom8"]
	   printf "%-32s %10s %10.2f  (goal <= 2.0)\n", "go Next() / C cached next", "", v["go next"] / c["next"]
	   printf "%-32s %10s %10.2f  (goal <= 1.0)\n", "node next() / randomBytes(8)", "", v["node next"] / y["randombytes8"]
	   printf "%-32s %10s %10.2f\n", "node-js next() / randomBytes(8)", "", v["node-js next"] / y["randombytes8"] }' |
	tee "$OUT/bindings-table.txt"
