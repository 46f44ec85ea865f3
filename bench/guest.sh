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
# The bindings against the C library, same boot and layout
# (bench/bindings-guest.sh).
load 0 $cost
echo "== bindings"
bench/bindings-guest.sh

# The ceiling: the default layout, no borrowing.
load 1 max_borrow_ticks=0
echo "== ceiling"
$B ceiling | tee "$OUT/ceiling.txt"
rmmod uidgen
