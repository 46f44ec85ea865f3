#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (tests/qemu/vm.sh) for bench/compare.sh: the cost and
# scale sections of a baseline build and of this tree, in turns.
#
#   bench/compare-guest.sh BASEDIR ROUNDS
#
# BASEDIR is the baseline's built tree (module/uidgen.ko and
# bench/uidgen_bench, a 1.x release: the node ID and node_new are insmod
# parameters); this tree's module takes its node from the CLI (2.0). Each
# round runs the baseline, then this tree; each turn writes
# SIDE-cost-N.txt, SIDE-scale5-N.txt and SIDE-scale0-N.txt (SIDE base or
# this) to $UIDGEN_VM_OUT, and "done" when all rounds have run.
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
BASE=$1
ROUNDS=$2

# load SIDE NODE PARAM...: SIDE's module with the layout PARAM..., node
# NODE assigned as new the way SIDE's release does it.
load() {
	side=$1 node=$2
	shift 2
	rmmod uidgen 2>/dev/null
	if [ "$side" = base ]; then
		insmod "$BASE/module/uidgen.ko" "$@" node_id="$node" node_new=1 ||
			{ echo "compare: baseline insmod $* failed"; exit 1; }
	else
		insmod module/uidgen.ko "$@" ||
			{ echo "compare: insmod $* failed"; exit 1; }
		userlib/uidgen set-node "$node" --new > /dev/null ||
			{ echo "compare: set-node $node --new failed"; exit 1; }
	fi
}

# The layouts of bench/guest.sh: cost and scale with per-CPU slots (the
# ceiling far above any loop here), then scale with one machine-wide slot.
epoch=$(( ($(date +%s) - 86400) * 1000 ))
cost="ts_bits=36 node_bits=0 slot_bits=5 seq_bits=22 epoch_ms=$epoch"
one="ts_bits=41 node_bits=0 slot_bits=0 seq_bits=22 epoch_ms=$epoch"

# turn SIDE N: one side's sections, with its own bench binary.
turn() {
	side=$1 n=$2
	if [ "$side" = base ]; then b=$BASE/bench/uidgen_bench; else b=bench/uidgen_bench; fi
	echo "== round $n, $side"
	load "$side" 0 $cost
	$b cost > "$OUT/$side-cost-$n.txt" || { echo "compare: $side cost failed"; exit 1; }
	$b scale > "$OUT/$side-scale5-$n.txt" || { echo "compare: $side scale failed"; exit 1; }
	load "$side" 0 $one
	$b scale > "$OUT/$side-scale0-$n.txt" || { echo "compare: $side scale failed"; exit 1; }
}

# $cost and $one are split on purpose: one insmod parameter each.
# Seed the random pool first, with nothing else running (bench/guest.sh).
load this 0 $cost
dd if=/dev/random of=/dev/null bs=1 count=1 2>/dev/null
n=1
while [ "$n" -le "$ROUNDS" ]; do
	turn base "$n"
	turn this "$n"
	n=$((n + 1))
done
rmmod uidgen
: > "$OUT/done"
