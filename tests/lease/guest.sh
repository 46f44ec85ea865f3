#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The job of one machine of tests/lease/cluster.sh, in a VM with a
# virtio-net NIC on QEMU's user network: configure the link by hand, load
# the module with node_bits=1, run uidgen-lease against the host's etcd
# (10.0.2.2:2379N) and reader.py, then do what the host writes to
# $OUT/cmd (one command a line, run once each, reported in $OUT/done):
#   stop | cont       SIGSTOP / SIGCONT the agent
#   kill9 | restart   SIGKILL the agent / start it again
#   linkdown | linkup the NIC
#   info              the kernel's node state into $OUT/info
#   nop               nothing (for the clock calibration)
#   quit              SIGTERM the agent, stop the reader, end the job
#   crash             end the job at once, as a crash would (no revoke)
#
#   guest.sh NAME TTL
set -u
NAME=$1
TTL=$2
OUT=${UIDGEN_VM_OUT:-/mnt}
EPS=http://10.0.2.2:23791,http://10.0.2.2:23792,http://10.0.2.2:23793
now() { cut -d' ' -f1 /proc/uptime; }
bt() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))'; }

ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
if ! insmod "$UIDGEN_KO" node_bits=1 ts_bits=45 slot_bits=5 seq_bits=12; then
	echo "insmod $UIDGEN_KO failed" >> "$OUT/agent.log"
	exit 1
fi
boot=$(cat "$OUT/boot" 2>/dev/null || echo 0)
boot=$((boot + 1))
echo "$boot" > "$OUT/boot"
echo "boot $boot" >> "$OUT/gaps.txt"

agent() {
	lease/uidgen-lease -c /dev/null -o endpoints=$EPS -o cluster=vm -o machine_id="$NAME" \
		-o ttl="$TTL" -o margin_ms=1000 -o timeout_ms=1000 -o retry_ms=300 \
		>> "$OUT/agent.log" 2>&1 &
	apid=$!
}
agent
rm -f /tmp/stop
python3 tests/lease/reader.py "$OUT/ids-$boot.txt" "$OUT/gaps.txt" /tmp/stop 17 1 &
rpid=$!
echo "up $(bt)" >> "$OUT/done"

ndone=0
while :; do
	sleep 0.1
	[ -s "$OUT/cmd" ] || continue
	total=$(wc -l < "$OUT/cmd")
	[ "$total" -gt "$ndone" ] || continue
	c=$(sed -n "$((ndone + 1))p" "$OUT/cmd")
	ndone=$((ndone + 1))
	case $c in
	stop) kill -STOP "$apid" ;;
	cont) kill -CONT "$apid" ;;
	kill9) kill -KILL "$apid"; wait "$apid" 2>/dev/null ;;
	restart) agent ;;
	linkdown) ip link set eth0 down ;;
	linkup) ip link set eth0 up; ip route add default via 10.0.2.2 2>/dev/null ;;
	info) { grep . /sys/class/uidgen/uid/node_state /sys/class/uidgen/uid/deadline_ns \
		/sys/class/uidgen/uid/token /sys/class/uidgen/uid/grant_ms 2>&1; echo "now $(bt)"; } > "$OUT/info" ;;
	crash) echo "$c $(bt)" >> "$OUT/done"; sync; echo b > /proc/sysrq-trigger ;;
	quit)
		kill -TERM "$apid"; wait "$apid"
		touch /tmp/stop; wait "$rpid"
		echo "$c $(bt)" >> "$OUT/done"
		break ;;
	esac
	echo "$c $(bt)" >> "$OUT/done"
done
echo "RESULT quit $(now)"
