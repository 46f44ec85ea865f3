#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Parameter writes racing the module's init and exit. The sysfs files
# exist while uidgen_init() runs and until after uidgen_exit() returns: a
# write in those windows must be checked like any other, and once the
# module is going must touch nothing (ENODEV). Run as root in the
# repository inside the test VM, with the module not loaded; leaves it
# unloaded. Any oops or KASAN report fails the VM run as a whole.
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

# 1. A node ID that does not fit node_bits, written while init runs: the
# load is refused, or the write is; never a node ID of 99 in a 5-bit field.
bad=0; loaded=0; i=0
while [ $i -lt $N ]; do
	writer $P/node_id 99 &
	w=$!
	if insmod $KO 2>/dev/null; then
		loaded=$((loaded + 1))
		kill $w; wait $w 2>/dev/null
		[ "$(cat $P/node_id)" != 99 ] || bad=$((bad + 1))
		rmmod uidgen
	else
		kill $w; wait $w 2>/dev/null
		dmesg | tail -n 3 | grep -q 'uidgen: node_id=99 does not fit node_bits=5' ||
			bad=$((bad + 1))
	fi
	i=$((i + 1))
done
is "node_id=99 written during init: never in force ($loaded of $N loads completed)" "$bad" 0

# 2. A floor written while init runs is applied, or refused: never recorded
# and ignored. Whatever floor_ms reads, the first ID is past it.
bad=0; i=0
floor=$(( $(date +%s%3N) + 3600000 ))
while [ $i -lt $N ]; do
	writer $P/floor_ms $floor &
	w=$!
	insmod $KO node_id=1 node_new=1 || bad=$((bad + 1))
	kill $w; wait $w 2>/dev/null
	f=$(cat $P/floor_ms)
	t=$(date -u -d "$($U decode "$($U)" | sed 's/.*time=\([^ ]*\).*/\1/')" +%s%3N)
	[ "$f" = 0 ] || [ "$t" -gt "$f" ] || bad=$((bad + 1))
	rmmod uidgen
	i=$((i + 1))
done
is "floor_ms written during init: applied whenever it reads back" "$bad" 0

# 3. Writes while the module unloads: ENODEV or done before; never a
# revoke that touches the freed fence page, never a crash.
bad=0; i=0
while [ $i -lt $N ]; do
	insmod $KO node_id=2 node_new=1 || bad=$((bad + 1))
	writer $P/node_id -1 &
	w1=$!
	writer $P/floor_ms $floor &
	w2=$!
	rmmod uidgen || bad=$((bad + 1))
	kill $w1 $w2; wait $w1 $w2 2>/dev/null
	i=$((i + 1))
done
is "$N unloads under parameter writes" "$bad" 0
ok "no oops, no KASAN report" sh -c "! dmesg | grep -Eq 'BUG:|Oops|KASAN|general protection'"

done_testing
