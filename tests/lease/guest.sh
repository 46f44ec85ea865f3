#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The job of one machine of tests/lease/cluster.sh, in a VM with a
# virtio-net NIC on QEMU's user network: configure the link by hand, load
# the module with node_bits=1, run uidgen-lease against the host's etcd
# (10.0.2.2:2379N) and reader.py, then do what the host writes to
# $OUT/cmd (one command a line, run once each, reported in $OUT/done):
#   stop | cont       SIGSTOP / SIGCONT the agent
#   kill9 | restart   SIGKILL the agent / start it again (restart: as
#                     systemctl does it: SIGTERM a running agent, wait for
#                     its exit, start it)
#   term              hand the node over and wait for the agent's exit:
#                     SIGUSR1 (an agent whose --help names it; SIGTERM
#                     leaves the node for adoption there), else SIGTERM
#                     (1.4.0's agent released on it)
#   restart2          just after the agent raised the grant, restart; 1.5 s
#                     later restart again
#   startvia PORT [K=V]...  restart the agent with 10.0.2.2:PORT as its
#                     only endpoint (a faultproxy.py there), and these settings
#   reload [K=V]...   stop agent and reader, reload the module with these
#                     parameters on top of the suite's, start the reader
#                     again (IDs into a new file, named in $OUT/idsfile);
#                     the agent is not started
#   sample SECS TAG   blocked.py: how much of SECS the ID clock was at the
#                     grant (callers blocked), the grant and clock offset,
#                     into $OUT/sample-TAG.txt
#   linkdown | linkup the NIC
#   info              the kernel's node state into $OUT/info
#   nop               nothing (for the clock calibration)
#   quit              SIGTERM the agent, stop the reader, end the job
#   crash             end the job at once, as a crash would (no revoke)
#
# The agent's exit status goes to agent.log ("uidgen-lease exited N"),
# after a line "== agent start NS" at each start.
#
#   guest.sh NAME TTL [LEASE_DIR]
# LEASE_DIR (default lease, in the repository): where uidgen-lease is, e.g.
# another build of it.
set -u
NAME=$1
TTL=$2
LEASE=${3:-lease}
OUT=${UIDGEN_VM_OUT:-/mnt}
EPS=http://10.0.2.2:23791,http://10.0.2.2:23792,http://10.0.2.2:23793
now() { cut -d' ' -f1 /proc/uptime; }
bt() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))'; }

ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
MODPARAMS="node_bits=1 ts_bits=45 slot_bits=5 seq_bits=12"
if ! insmod "$UIDGEN_KO" $MODPARAMS; then
	echo "insmod $UIDGEN_KO failed" >> "$OUT/agent.log"
	exit 1
fi
boot=$(cat "$OUT/boot" 2>/dev/null || echo 0)
boot=$((boot + 1))
echo "$boot" > "$OUT/boot"
echo "boot $boot" >> "$OUT/gaps.txt"

# agent [ENDPOINTS [K=V]...]: start uidgen-lease in the background (K=V:
# more settings): its pid in $apid, that of the subshell that logs its
# exit status in $spid.
agent() {
	eps=${1:-$EPS}
	[ $# -eq 0 ] || shift
	more=
	for kv; do more="$more -o $kv"; done
	rm -f /tmp/apid
	echo "== agent start $(bt)" >> "$OUT/agent.log"
	(
		"$LEASE"/uidgen-lease -c /dev/null -o endpoints="$eps" -o cluster=vm -o machine_id="$NAME" \
			-o ttl="$TTL" -o margin_ms=1000 -o timeout_ms=1000 -o retry_ms=300 $more \
			>> "$OUT/agent.log" 2>&1 &
		echo $! > /tmp/apid
		wait $!
		echo "uidgen-lease exited $?" >> "$OUT/agent.log"
	) &
	spid=$!
	while [ ! -s /tmp/apid ]; do sleep 0.01; done
	apid=$(cat /tmp/apid)
}
# The hand-over signal of this agent (see term).
handover=TERM
"$LEASE"/uidgen-lease --help 2>/dev/null | grep -q SIGUSR1 && handover=USR1
# stopagent [SIGNAL]: signal the agent (default TERM) and wait for its exit.
stopagent() {
	kill -"${1:-TERM}" "$apid" 2>/dev/null
	wait "$spid" 2>/dev/null
}
# reader: read IDs into a new file (named in $OUT/idsfile).
nreader=0
reader() {
	nreader=$((nreader + 1))
	ids=ids-$boot.txt
	[ "$nreader" -eq 1 ] || ids=ids-$boot.$nreader.txt
	echo "$ids" > "$OUT/idsfile"
	rm -f /tmp/stop
	python3 tests/lease/reader.py "$OUT/$ids" "$OUT/gaps.txt" /tmp/stop 17 1 &
	rpid=$!
}
agent
reader
echo "up $(bt)" >> "$OUT/done"

ndone=0
while :; do
	sleep 0.1
	[ -s "$OUT/cmd" ] || continue
	total=$(wc -l < "$OUT/cmd")
	[ "$total" -gt "$ndone" ] || continue
	c=$(sed -n "$((ndone + 1))p" "$OUT/cmd")
	ndone=$((ndone + 1))
	set -- $c
	cn=$1
	case $cn in
	stop) kill -STOP "$apid" ;;
	cont) kill -CONT "$apid" ;;
	kill9) stopagent KILL ;;
	restart) stopagent; agent ;;
	term) stopagent "$handover" ;;
	restart2)
		# Just after a grant write (the worst phase: 1.4.0 left that
		# grant, a window ahead, as the floor).
		python3 tests/lease/info.py wait-grant
		stopagent; agent; sleep 1.5; stopagent; agent ;;
	startvia) shift; p=$1; shift; stopagent; agent "http://10.0.2.2:$p" "$@" ;;
	reload)
		stopagent
		touch /tmp/stop; wait "$rpid"
		shift
		rmmod uidgen && insmod "$UIDGEN_KO" $MODPARAMS "$@" ||
			echo "reload $*: failed" >> "$OUT/agent.log"
		reader ;;
	sample) python3 tests/lease/blocked.py "$2" > "$OUT/sample-$3.txt" 2>&1 ;;
	linkdown) ip link set eth0 down ;;
	linkup) ip link set eth0 up; ip route add default via 10.0.2.2 2>/dev/null ;;
	info) { python3 tests/lease/info.py 2>&1; echo "now $(bt)"; } > "$OUT/info" ;;
	crash) echo "$cn $(bt)" >> "$OUT/done"; sync; echo b > /proc/sysrq-trigger ;;
	quit)
		stopagent
		touch /tmp/stop; wait "$rpid"
		echo "$cn $(bt)" >> "$OUT/done"
		break ;;
	esac
	echo "$cn $(bt)" >> "$OUT/done"
done
echo "RESULT quit $(now)"
