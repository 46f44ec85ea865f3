#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (tests/qemu/vm.sh): every section of the benchmark,
# each with the module loaded the way it needs. Output in $UIDGEN_VM_OUT.
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
KO=module/uidgen.ko
B=bench/uidgen_bench

# load NODE PARAM...: load, then assign NODE as new (the module loads with
# no node ID; the CLI assigns it, as at boot).
load() {
	node=$1; shift
	rmmod uidgen 2>/dev/null
	insmod $KO "$@" || { echo "bench: insmod $* failed"; exit 1; }
	userlib/uidgen set-node "$node" --new > /dev/null ||
		{ echo "bench: set-node $node --new failed"; exit 1; }
}

# Cost: a layout whose ceiling (2^22 IDs per 1 ms tick per slot) is far
# above what any loop here reaches, so the loop measures the code. The
# epoch is a day ago, so that 36 bits of ms leave two years.
epoch=$(( ($(date +%s) - 86400) * 1000 ))
cost="ts_bits=36 node_bits=0 slot_bits=5 seq_bits=22 epoch_ms=$epoch"
load 0 $cost
# Seed the random pool now, with nothing else running: under TCG, getrandom()
# in a tight loop while the kernel marks the pool ready can spin for minutes
# (tests/qemu/vm.sh).
dd if=/dev/random of=/dev/null bs=1 count=1 2>/dev/null
echo "== cost"
$B cost | tee "$OUT/cost.txt"
echo "== curve"
$B curve | tee "$OUT/curve.dat"
echo "== scale, per-CPU slots"
$B scale | tee "$OUT/scale5.txt"
load 0 ts_bits=41 node_bits=0 slot_bits=0 seq_bits=22 epoch_ms=$epoch
echo "== scale, one machine-wide slot"
$B scale | tee "$OUT/scale0.txt"
# The bindings' next() and batch(4096) per ID, against the C library's
# uidgen_next() and uidgen_fill(4096) in the same boot and layout.
load 0 $cost
echo "== bindings"
{
	$B bindings
	PYTHONPATH=bindings/python PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 bench/bindings.py
	./bindings/go/uidgen.test -test.run '^$' -test.bench . -test.benchtime 2s -test.count 3 |
		awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); v = $3 / (n ~ /Batch4096/ ? 4096 : 1)
				    if (!(n in b) || v < b[n]) b[n] = v }
		     END { print "go next", b["BenchmarkNext"]; print "go batch4096", b["BenchmarkBatch4096"] }'
	# Node: the addon's next(), batch(4096), uidgen.next() through the
	# module's handle and crypto.randomBytes(8); the pure-JS fallback's next().
	node bench/bindings.js
	node bench/bindings.js js
} > "$OUT/bindings.txt"
# A row whose call has a C counterpart gets its ratio to C; the others
# (crypto.randomBytes(8)) a dash. Node's goal is a ratio of its own: next()
# against crypto.randomBytes(8) in the same run (issue 29: <= 1.0).
awk '$1 == "c" { c[$2] = $3 }
     { row[NR] = $0; lang[NR] = $1; what[NR] = $2; ns[NR] = $3; v[$1 " " $2] = $3 }
     END { printf "%-32s %10s %10s\n", "binding, call (per ID)", "ns/ID", "ratio to C"
	   for (i = 1; i <= NR; i++) {
		w = what[i]
		name = w == "next" ? "next()" : w == "batch4096" ? "batch(4096)" : \
		       w == "randombytes8" ? "crypto.randomBytes(8)" : w == "next-module" ? "uidgen.next()" : w
		k = w == "next-module" ? "next" : w
		if (k in c)
			printf "%-32s %10.1f %10.2f\n", lang[i] " " name, ns[i], ns[i] / c[k]
		else
			printf "%-32s %10.1f %10s\n", lang[i] " " name, ns[i], "-"
	   }
	   if (("node next" in v) && v["node randombytes8"] > 0)
		printf "node next() / crypto.randomBytes(8), same run: %.2fx (goal <= 1.0); fallback: %.2fx\n", \
		       v["node next"] / v["node randombytes8"], v["node-js next"] / v["node randombytes8"] }' \
	"$OUT/bindings.txt" | tee "$OUT/bindings-table.txt"

# The ceiling: the default layout, no borrowing.
load 1 max_borrow_ticks=0
echo "== ceiling"
$B ceiling | tee "$OUT/ceiling.txt"
rmmod uidgen
