#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (tests/qemu/vm.sh, from bench/compare-guest.sh) for
# bench/compare.sh: the instruction counts of the userspace paths, each
# side's uidgen_icount under valgrind's callgrind with that side's module
# loaded, twice over (the counts are deterministic: the table shows both).
#
#   bench/icount-guest.sh LIST [PASSES]
#
# LIST has one side a line, "LABEL DIR BIN": DIR a built tree (its
# module/uidgen.ko, and userlib/uidgen for a 2.x module, which takes its
# node from the CLI; a 1.x module takes node_id and node_new at insmod),
# BIN its uidgen_icount. Writes icount-LABEL-K.txt (K 1 and 2: "ROW<TAB>
# INSTRUCTIONS<TAB>IDS" lines) and the callgrind files beside them in
# $UIDGEN_VM_OUT; icount-done when both passes have run. PASSES (default
# 2): 1 for a run short of time (a side takes 3 to 8 minutes a pass under
# TCG on a loaded host); the table then says the second pass is missing.
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
LIST=$1
PASSES=${2:-2}

# The cost layout of compare-guest.sh, with a 60 s tick: a cached run
# lives at least a tick, so none goes stale inside a row, and the count
# is the hit path plus the refills of spent runs, not of stale ones (how
# many go stale depends on how fast valgrind runs).
epoch=$(( ($(date +%s) - 86400) * 1000 ))
tick_us=60000000
layout="ts_bits=36 node_bits=0 slot_bits=5 seq_bits=22 tick_us=$tick_us epoch_ms=$epoch"

# load DIR: DIR's module with $layout, node 0 assigned as new the way its
# release does it.
load() {
	rmmod uidgen 2>/dev/null
	# shellcheck disable=SC2086
	if modinfo -F parm "$1/module/uidgen.ko" | grep -q '^node_id:'; then
		insmod "$1/module/uidgen.ko" $layout node_id=0 node_new=1 ||
			{ echo "icount: $1: insmod failed"; exit 1; }
	else
		insmod "$1/module/uidgen.ko" $layout ||
			{ echo "icount: $1: insmod failed"; exit 1; }
		"$1/userlib/uidgen" set-node 0 --new > /dev/null ||
			{ echo "icount: $1: set-node 0 --new failed"; exit 1; }
	fi
}

for k in $(seq 1 "$PASSES"); do
	while read -r label dir bin; do
		[ -n "$label" ] || continue
		echo "== icount pass $k: $label ($dir)"
		load "$dir"
		cg=$OUT/callgrind-$label-$k.out
		rm -f "$cg" "$cg".*
		# One CPU: the module's slot, and so its RESERVE path, the same
		# in every run.
		taskset -c 0 valgrind --tool=callgrind --collect-atstart=no \
			--callgrind-out-file="$cg" "$bin" 22 5 "$tick_us" "$epoch" \
			> "$OUT/icount-$label-$k.rows" 2> "$OUT/icount-$label-$k.log" ||
			{ echo "icount: $label: valgrind failed:"; tail -n 20 "$OUT/icount-$label-$k.log"; exit 1; }
		# Each row's dump: "Client Request: ROW" and its total.
		for f in "$cg".*; do
			awk '/^desc: Trigger: Client Request: / { sub(/^desc: Trigger: Client Request: /, ""); row = $0 }
			     /^totals: / { tot = $2 }
			     END { if (row != "") printf "%s\t%s\n", row, tot }' "$f"
		done | awk -F'\t' 'NR == FNR { ir[$1] = $2; next }
			{ if (!($1 in ir)) { print "icount: no dump for " $1 > "/dev/stderr"; exit 1 }
			  printf "%s\t%s\t%s\n", $1, ir[$1], $2 }' - "$OUT/icount-$label-$k.rows" \
			> "$OUT/icount-$label-$k.txt" || exit 1
		[ -s "$OUT/icount-$label-$k.txt" ] || { echo "icount: $label: no rows"; exit 1; }
	done < "$LIST"
done
rmmod uidgen
: > "$OUT/icount-done"
