#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ID clock's offset over many restarts (issue 17's bounded offset, a
# benchmark: it prints figures, and fails only if an ID repeats or the
# offset passes its bound): one machine's uidgen-lease with the device
# stand-in (--device-sim) against a real 3-member etcd on the loopback,
# stopped and started N times three ways, with every ID replayed
# through check.py at the end:
#   restart    SIGTERM, then start again on the same device (systemctl
#              restart: the next run adopts the node);
#   crash      SIGKILL, then start again (adopts, as after a crash);
#   hand-over  SIGUSR1 (revoke, release), then the other of two machines
#              claims afresh (the claim wait of P9 each time).
# After 1, 10, 50 and N rounds: the stand-in's ID clock minus the wall
# clock, and the floor etcd holds minus the wall clock. The bound
# (fleet.rst, "Bounded clock offset"): clock_error_ms + grant_window_ms.
#
#   bench/lease-restarts.sh [-n ROUNDS] [-o OUTDIR]
# etcd on 127.0.0.1:${etcd_client_port}N (default prefix 2379, like the
# other lease suites: set etcd_client_port and etcd_peer_port to share the
# machine with one of them).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/etcd.sh
rounds=100
out=$repo/build/lease-restarts
while getopts "n:o:" opt; do
	case $opt in
	n) rounds=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
rm -rf "$out"
mkdir -p "$out"
make -s -C lease || exit 1
agent=$repo/lease/uidgen-lease
window=3333	# the agent's default at harness.sh's ttl 5: ttl x 2/3
clock_error=500
pid=
cleanup() {
	[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null
	etcd_stop
}
trap cleanup EXIT
etcd_start "$out/etcd" || exit 1

. tests/lease/harness.sh
declare -A apid
# run NAME CLUSTER: harness.sh's agent for machine NAME (one node ID), in
# force or adopted within 30 s; its pid in $pid.
run() {
	start "$1" "$2" 0
	pid=${apid[$1]}
	waitlog "$1" "in force|adopted from" 30 >&2
}
wall_ms() { date +%s%3N; }
# offsets NAME CLUSTER ROUND: one line of figures.
offsets() {
	local off fl
	off=$(awk '{ print $9 }' "$out/$1.sim")
	fl=$(ectl get "/uidgen/$2/floor/0" --print-value-only)
	printf '%-10s %6s %+14d %+12d\n' "$2" "$3" "$off" $(( fl - $(wall_ms) ))
}

printf '%-10s %6s %14s %12s\n' way rounds "ID clock (ms)" "floor (ms)"
worst=0
for way in restart crash hand-over; do
	m=$way-A
	run $m "$way" || exit 1
	for i in $(seq "$rounds"); do
		case $way in
		restart) kill -TERM "$pid" ;;
		crash) kill -KILL "$pid" ;;
		hand-over) kill -USR1 "$pid" ;;
		esac
		wait "$pid" 2>/dev/null
		[ "$way" != hand-over ] || { [ $m = $way-A ] && m=$way-B || m=$way-A; }
		run $m "$way" || exit 1
		case $i in 1 | 10 | 50 | "$rounds")
			line=$(offsets $m "$way" "$i")
			echo "$line"
			set -- $line
			[ "$3" -le "$worst" ] || worst=$3
			;;
		esac
	done
	kill -USR1 "$pid"
	wait "$pid" 2>/dev/null
	pid=
done
sims=()
for f in "$out"/*.sim.log; do sims+=(--sim "$f"); done
tests/lease/check.py "${sims[@]}" > "$out/check.txt"
grep RESULT "$out/check.txt"
echo "largest ID clock offset: $worst ms (bound: clock_error_ms + grant_window_ms = $((clock_error + window)) ms)"
grep -q "RESULT sim_overlaps 0" "$out/check.txt" && [ "$worst" -le $((clock_error + window)) ]
