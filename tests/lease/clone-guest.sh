#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The job of the machine that tests/lease/clone.sh clones, run from the
# initramfs alone (a 9p root cannot migrate): configure the link, load
# the module (/params: $MODPARAMS), run uidgen-lease against the host's
# etcd ($EPS) and idreader, everything they write in /tmp; then do what
# the host writes to the second serial port (/dev/ttyS1), one line
# "N COMMAND" each, answered on the console with "== clone-vm: done N".
# A clone of this machine runs the same shell from the same state, and
# answers its own host's commands:
#   pause        SIGSTOP the agent and the reader (before the snapshot);
#                RESULT cut: the size of the IDs file then (what a clone
#                has of the original's IDs)
#   resume       SIGCONT both
#   sync         nothing: clone.sh's handshake with a restored clone,
#                whose first line loses its first bytes
#   fence        wait (up to 20 s) for the kernel's VM fork revoke
#   reader       SIGCONT the reader
#   agent        SIGCONT the agent
#   after S      wait until CLOCK_BOOTTIME is S s past the pause
#   restart      as systemctl restart does it: SIGTERM, its exit, start
#   clock        RESULT clock REALTIME_NS BOOTTIME_NS
#   finish       stop the reader and the agent (SIGKILL: nothing of it
#                runs on), copy /tmp's files to the 9p share "out",
#                power off
# The agent's log, each line also on the console as "agent| ...", gets
# "== agent start" at each start and "uidgen-lease exited N".
set -u
. /params
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
if ! insmod /uidgen.ko $MODPARAMS; then
	echo "== clone-vm: insmod failed"
	poweroff -f
fi
mkfifo /tmp/alog
exec 4<> /tmp/alog
(while IFS= read -r l; do echo "$l" >> /tmp/agent.log; echo "agent| $l"; done < /tmp/alog) &

agent() {
	rm -f /tmp/apid
	echo "== agent start $(cut -d' ' -f1 /proc/uptime)" > /tmp/alog
	(
		/lease/uidgen-lease -c /dev/null -o endpoints="$EPS" -o cluster=clone -o machine_id="$NAME" \
			-o ttl="$TTL" -o margin_ms=1000 -o timeout_ms=1000 -o retry_ms=300 > /tmp/alog 2>&1 &
		echo $! > /tmp/apid
		wait $!
		echo "uidgen-lease exited $?" > /tmp/alog
	) &
	spid=$!
	while [ ! -s /tmp/apid ]; do usleep 10000; done
	apid=$(cat /tmp/apid)
}
agent
/idreader /tmp/ids.txt /tmp/gaps.txt "$NODE_SHIFT" "$NODE_BITS" &
rpid=$!

stty -F /dev/ttyS1 raw -echo
exec 3< /dev/ttyS1
echo "== clone-vm: up"
while read -r id c arg <&3; do
	case $c in
	pause)
		kill -STOP "$apid" "$rpid"
		usleep 100000
		paused=$(/idreader --clock | cut -d' ' -f2)
		echo "RESULT cut $(wc -c < /tmp/ids.txt)" ;;
	resume) kill -CONT "$rpid" "$apid" ;;
	sync) ;;
	fence)
		i=0
		until dmesg | grep -q 'revoked (VM fork or snapshot restore detected)' || [ $i -ge 200 ]; do
			usleep 100000
			i=$((i + 1))
		done
		echo "RESULT fence $(dmesg | grep -c 'revoked (VM fork or snapshot restore detected)')" ;;
	reader) kill -CONT "$rpid" ;;
	agent) kill -CONT "$apid" ;;
	after)
		while [ "$(/idreader --clock | cut -d' ' -f2)" -lt $((paused + arg * 1000000000)) ]; do
			usleep 100000
		done ;;
	restart)
		kill -TERM "$apid"
		wait "$spid"
		agent ;;
	clock) echo "RESULT clock $(/idreader --clock)" ;;
	finish)
		kill -TERM "$rpid"
		kill -CONT "$rpid"
		wait "$rpid"
		kill -KILL "$apid"
		wait "$spid"
		dmesg > /tmp/dmesg.txt
		mkdir -p /share
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /share &&
			cp /tmp/ids.txt /tmp/gaps.txt /tmp/agent.log /tmp/dmesg.txt /share/ && sync && umount /share
		echo "== clone-vm: done $id"
		poweroff -f ;;
	esac
	echo "== clone-vm: done $id"
done
