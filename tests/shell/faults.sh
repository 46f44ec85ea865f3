#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Faults that need the whole machine: a reload with the wall clock set
# back (and the floor that survives it), unloading under readers. (VM fork
# and suspend break the 9p root this VM runs from: tests/qemu/snapshot.sh
# runs those in a VM of their own.) Run as root in the repository inside the test
# VM (tests/qemu/vm.sh), with the module not loaded; leaves it unloaded.
. tests/shell/lib.sh
KO=${UIDGEN_KO:-module/uidgen.ko}
U=${UIDGEN_CLI:-userlib/uidgen}
state=/tmp/uidgen.state
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

max() { sort -n | tail -n 1; }
min() { sort -n | head -n 1; }

# --- Reload with the wall clock an hour behind ------------------------------
insmod $KO
$U set-node 3 --new > /dev/null
ids1=$($U -n 2000)
max1=$(echo "$ids1" | max)
ok "state save" $U state save $state
like "the state file holds a floor" "$(cat $state)" "^floor_ms=[0-9]{13}$"
floor=$(sed -n 's/^floor_ms=//p' $state)
# The largest ID read, decoded (not high_water_ms: the CLI added to that).
iso_max=$($U decode "$max1" | sed -n 's/.* time=\([^ ]*\) .*/\1/p')
like "the largest ID decodes to a time" "$iso_max" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'
t_max=$(date -u -d "${iso_max:-no time}" +%s%3N)
ok "the floor ($floor) is at or after the largest ID's tick ($t_max)" \
	[ "$floor" -ge "$t_max" ]
rmmod uidgen
date -s "@$(( $(date +%s) - 3600 ))" > /dev/null

# Without the floor, IDs would go back in time: the test can tell. Only an
# administrator who wrongly states the node ID is new gets there.
insmod $KO
$U set-node 3 --new > /dev/null
ok "without the floor, new IDs are lower (what the floor is for)" \
	[ "$($U)" -lt "$max1" ]
rmmod uidgen

# A load has no node ID: nothing issued until the state file's arrives,
# with its floor.
insmod $KO
is "a load has no node ID" "$(stat_of node_state)" none
$U > /dev/null 2>&1
is "and issues nothing" "$?" 1
like "state restore" "$($U state restore $state)" "^node ID 3 active, floor $floor ms, grant [0-9]+ ms$"
like "the floor is in force" "$($U stats)" "^floor_ms +$floor \("
ids2=$($U -n 2000)
ok "with the floor, every new ID is above every old one" \
	[ "$(echo "$ids2" | min)" -gt "$max1" ]
is "4000 IDs, all distinct" "$(printf '%s\n%s\n' "$ids1" "$ids2" | sort -u | wc -l)" 4000
like "restore again: nothing to do" "$($U state restore $state)" "^node ID 3 already active, .*: nothing to restore$"
stats=$($U stats)
like "stats shows the floor" "$stats" "^floor_ms +$floor \("
like "stats shows the counters" "$stats" "^issued +[0-9]+"
like "stats shows per-slot counters" "$stats" "^  slot issued waits behind last_tick borrowed"
rmmod uidgen
date -s "@$(( $(date +%s) + 3600 ))" > /dev/null

# --- Unloading under readers, 100 times --------------------------------------
bad=0; refused=0; i=0
while [ $i -lt 100 ]; do
	insmod $KO || bad=$((bad + 1))
	$U set-node $((i % 32)) --new > /dev/null || bad=$((bad + 1))
	$U -n 1000000000 > /dev/null &
	reader=$!
	# Once the reader holds the device, rmmod is refused; never a crash.
	k=0
	until ls -l /proc/$reader/fd 2>/dev/null | grep -q /dev/uid || [ $k -ge 100 ]; do
		sleep 0.02; k=$((k + 1))
	done
	rmmod uidgen 2>/dev/null || refused=$((refused + 1))
	kill $reader
	wait $reader 2>/dev/null
	rmmod uidgen || bad=$((bad + 1))
	i=$((i + 1))
done
is "100 load/read/unload cycles" "$bad" 0
is "rmmod refused every time a reader held the device" "$refused" 100

# A reader blocked waiting for a tick: rmmod is refused, the reader is fine.
# Four IDs per 5-second tick: a read of 12 gets the tick's 4 and waits.
ok "loads with 4 IDs per 5-second tick" \
	insmod $KO slot_bits=0 seq_bits=2 ts_bits=56 tick_us=5000000
ok "and node ID 1" $U set-node 1 --new
# One read(2) of 12 IDs that prints what it returned: with a handler, a
# signal ends the wait and read() returns the whole IDs copied so far.
python3 -c '
import os, signal, struct
signal.signal(signal.SIGINT, lambda s, f: None)
fd = os.open("/dev/uid", os.O_RDONLY)
b = os.read(fd, 96)
print("bytes=%d" % len(b))
for i in range(len(b) // 8):
    print(struct.unpack_from("=Q", b, 8 * i)[0])
' > /tmp/blocked.out &
reader=$!
k=0
until ls -l /proc/$reader/fd 2>/dev/null | grep -q /dev/uid || [ $k -ge 250 ]; do
	sleep 0.02; k=$((k + 1))
done
sleep 1
ok "the reader holds /dev/uid and waits" sh -c "kill -0 $reader && ls -l /proc/$reader/fd | grep -q /dev/uid"
rmmod uidgen 2>/dev/null
is "rmmod refused while a reader waits" "$?" 1
ok "still loaded after the refused rmmod" test -d /sys/module/uidgen
kill -INT $reader
wait $reader
is "the interrupted reader exits 0" "$?" 0
n=$(sed -n 's/^bytes=//p' /tmp/blocked.out)
ok "the interrupted read returned whole IDs, at least one, fewer than 12 (${n:-none} bytes)" \
	sh -c "[ -n '$n' ] && [ $((${n:-0} % 8)) -eq 0 ] && [ ${n:-0} -ge 8 ] && [ ${n:-0} -lt 96 ]"
is "each of them printed, decimal" "$(grep -Ecx '[0-9]+' /tmp/blocked.out)" "$((${n:-0} / 8))"
ok "unloads once it is gone" rmmod uidgen

done_testing
