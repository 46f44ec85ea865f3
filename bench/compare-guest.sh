#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (tests/qemu/vm.sh) for bench/compare.sh: the cost and
# scale sections of a baseline build and of this tree, in turns.
#
#   bench/compare-guest.sh ROUNDS BASEDIR THISDIR [BASEDIR THISDIR]...
#
# Each BASEDIR THISDIR pair is one layout (compare.sh): BASEDIR the
# baseline's built tree (module/uidgen.ko and bench/uidgen_bench; a 1.x
# release takes the node ID and node_new as insmod parameters, a 2.x one
# from its userlib/uidgen), THISDIR this
# tree's, built the same way, whose module takes its node from its CLI
# (userlib/uidgen, 2.0). Round N runs pair (N - 1) mod L of the L pairs,
# and each pair's visits alternate which side goes first (compare.sh asks
# for a multiple of 2L rounds). A round runs each side's cost section three
# times, SIDE-cost-N-K.txt (K 1 to 3), and its scale section twice on each
# ID layout, SIDE-scale5-N-K.txt and SIDE-scale0-N-K.txt (K 1 and 2; SIDE
# base or this), in $UIDGEN_VM_OUT; then the instruction counts of
# bench/icount-guest.sh, if compare.sh left their list in icount/list;
# "done" when all have run.
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
ROUNDS=$1
shift
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || { echo "compare: BASEDIR THISDIR pairs wanted"; exit 1; }
PAIRS="$*"
NLAY=$(($# / 2))

# pair N: BASE and THIS for round N.
pair() {
	i=$1
	set -f
	set -- $PAIRS
	set +f
	i=$(((i - 1) % ($# / 2)))
	shift $((2 * i))
	BASE=$1 THIS=$2
}

# load SIDE NODE PARAM...: SIDE's module with the layout PARAM..., node
# NODE assigned as new the way SIDE's release does it.
load() {
	side=$1 node=$2
	shift 2
	rmmod uidgen 2>/dev/null
	# A 1.x baseline takes its node at insmod; a 2.x one (-b 2.0.0) from
	# its CLI, as this tree does.
	if [ "$side" = base ] && modinfo -F parm "$BASE/module/uidgen.ko" | grep -q '^node_id:'; then
		insmod "$BASE/module/uidgen.ko" "$@" node_id="$node" node_new=1 ||
			{ echo "compare: baseline insmod $* failed"; exit 1; }
	elif [ "$side" = base ]; then
		insmod "$BASE/module/uidgen.ko" "$@" ||
			{ echo "compare: baseline insmod $* failed"; exit 1; }
		"$BASE/userlib/uidgen" set-node "$node" --new > /dev/null ||
			{ echo "compare: baseline set-node $node --new failed"; exit 1; }
	else
		insmod "$THIS/module/uidgen.ko" "$@" ||
			{ echo "compare: insmod $* failed"; exit 1; }
		"$THIS/userlib/uidgen" set-node "$node" --new > /dev/null ||
			{ echo "compare: set-node $node --new failed"; exit 1; }
	fi
}

# The layouts of bench/guest.sh: cost and scale with per-CPU slots (the
# ceiling far above any loop here), then scale with one machine-wide slot.
epoch=$(( ($(date +%s) - 86400) * 1000 ))
cost="ts_bits=36 node_bits=0 slot_bits=5 seq_bits=22 epoch_ms=$epoch"
one="ts_bits=41 node_bits=0 slot_bits=0 seq_bits=22 epoch_ms=$epoch"

# bin SIDE: that side's bench binary.
bin() {
	if [ "$1" = base ]; then echo "$BASE/bench/uidgen_bench"; else echo "$THIS/bench/uidgen_bench"; fi
}

# cost_turn SIDE N K: one side's cost section, the Kth of round N. The host's
# slow spells last seconds to tens of seconds and slow a whole section
# alike: many short sections, the sides alternating, give each side more
# quiet ones than a few long turns would.
cost_turn() {
	load "$1" 0 $cost
	"$(bin "$1")" cost > "$OUT/$1-cost-$2-$3.txt" || { echo "compare: $1 cost failed"; exit 1; }
}

# scale_turn SIDE N K IDLAYOUT: one side's scale section on the ID layout
# $cost (5: 32 slots) or $one (0: one slot), the Kth of round N.
scale_turn() {
	if [ "$4" = 5 ]; then load "$1" 0 $cost; else load "$1" 0 $one; fi
	"$(bin "$1")" scale > "$OUT/$1-scale$4-$2-$3.txt" || { echo "compare: $1 scale failed"; exit 1; }
}

# $cost and $one are split on purpose: one insmod parameter each.
# Seed the random pool first, with nothing else running (bench/guest.sh).
pair 1
load this 0 $cost
dd if=/dev/random of=/dev/null bs=1 count=1 2>/dev/null
n=1
while [ "$n" -le "$ROUNDS" ]; do
	pair "$n"
	echo "== round $n: $BASE, $THIS"
	# A layout's visits alternate which side goes first, so that in
	# none does one side always run later; within a round the cost
	# sections go ABBAAB, then each ID layout's scale sections ABBA.
	if [ $(((n - 1) / NLAY % 2)) -eq 0 ]; then
		first=base second=this
	else
		first=this second=base
	fi
	cost_turn $first "$n" 1
	cost_turn $second "$n" 1
	cost_turn $second "$n" 2
	cost_turn $first "$n" 2
	cost_turn $first "$n" 3
	cost_turn $second "$n" 3
	for lay in 5 0; do
		scale_turn $first "$n" 1 $lay
		scale_turn $second "$n" 1 $lay
		scale_turn $second "$n" 2 $lay
		scale_turn $first "$n" 2 $lay
	done
	n=$((n + 1))
done
rmmod uidgen
if [ -e "$OUT/icount/list" ]; then
	bench/icount-guest.sh "$OUT/icount/list" || exit 1
fi
: > "$OUT/done"
