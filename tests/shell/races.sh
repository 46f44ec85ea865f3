#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Parameter files racing the module's init and exit. They exist while
# uidgen_init() runs and until after uidgen_exit() returns; all of them
# are read-only, so a write in those windows changes nothing, and a read
# touches nothing that is being freed. Run as root in the repository
# inside the test VM, with the module not loaded; leaves it unloaded. Any
# oops or KASAN report fails the VM run as a whole.
. tests/shell/lib.sh
KO=${UIDGEN_KO:-module/uidgen.ko}
U=userlib/uidgen
P=/sys/module/uidgen/parameters
N=${RACE_LOOPS:-60}

# writer FILE VALUE: write VALUE to FILE as fast as it will go, until killed.
writer() {
	while :; do
		echo "$2" > "$1" 2>/dev/null
	done
}

# reader: read every parameter file as fast as it will go, until killed.
reader() {
	while :; do
		cat $P/* > /dev/null 2>&1
	done
}

# 1. Writes while init runs: refused, never applied. No node ID either:
# node_id is no parameter, so nothing written there can name one.
bad=0; i=0
while [ $i -lt $N ]; do
	writer $P/max_borrow_ticks 5 &
	w1=$!
	writer $P/node_id 9 &
	w2=$!
	insmod $KO || bad=$((bad + 1))
	kill $w1 $w2; wait $w1 $w2 2>/dev/null
	[ "$(cat $P/max_borrow_ticks)" = 0 ] || bad=$((bad + 1))
	[ "$(stat_of node_state)" = none ] || bad=$((bad + 1))
	[ ! -e $P/node_id ] || bad=$((bad + 1))
	rmmod uidgen || bad=$((bad + 1))
	i=$((i + 1))
done
is "$N loads under parameter writes: none applied, no node ID" "$bad" 0

# 2. Reads while the module loads and unloads, with a node ID assigned in
# between: never a crash.
bad=0; i=0
while [ $i -lt $N ]; do
	reader &
	r=$!
	insmod $KO || bad=$((bad + 1))
	$U set-node 2 --new > /dev/null || bad=$((bad + 1))
	rmmod uidgen || bad=$((bad + 1))
	kill $r; wait $r 2>/dev/null
	i=$((i + 1))
done
is "$N loads and unloads under parameter reads" "$bad" 0
ok "no oops, no KASAN report" sh -c "! dmesg | grep -Eq 'BUG:|Oops|KASAN|general protection'"

done_testing
