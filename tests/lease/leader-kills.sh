#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repeated etcd leader kills against two holders (the device stand-in):
# how long the other two members take to answer a write, and whether a
# holder revoked. Not a suite: the measurement behind fleet.rst's "etcd
# leader killed" and "Choosing TTL, margin and grant window" (a holder
# keeps its ID when the election fits in TTL x (2/3 - rate) - margin).
#
#   tests/lease/leader-kills.sh [-n KILLS] [-t TTL] [-o OUTDIR]
# One line per kill, then "kills N revoked R answered MIN..MAX ms".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
. tests/lib/etcd.sh
kills=10 ttl=10 out=
while getopts "n:t:o:" opt; do
	case $opt in
	n) kills=$OPTARG ;;
	t) ttl=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
kver=host
host_out leader-kills
make -s -C lease || exit 1
agent=$repo/lease/uidgen-lease
declare -A apid
. tests/lease/harness.sh
trap 'kill_agents; etcd_stop' EXIT

etcd_start "$out/etcd" || exit 1
events() { cat "$out"/H1.sim.log "$out"/H2.sim.log | grep -c -E " (expire|revoke) "; }
start H1 lk 1 -o ttl="$ttl"
start H2 lk 1 -o ttl="$ttl"
waitlog H1 "in force" 30 > /dev/null && waitlog H2 "in force" 30 > /dev/null || exit 1
revoked=0 min= max=
for k in $(seq "$kills"); do
	leader=$(etcd_leader)
	rest=$(echo "$etcd_eps" | tr , "\n" | grep -v ":$etcd_client_port$leader\$" | paste -sd,)
	before=$(events)
	t0=$(date +%s%N)
	etcd_kill "$leader"
	until ectl --endpoints "$rest" --dial-timeout 1s --command-timeout 1s put /probe x > /dev/null 2>&1; do
		sleep 0.05
	done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	sleep $((ttl * 2 / 3 + 1))
	lost=$(( $(events) - before ))
	echo "kill $k: m$leader, the others answered in $ms ms, $lost revoked"
	[ "$lost" -eq 0 ] || revoked=$((revoked + 1))
	[ -n "$min" ] && [ "$min" -le "$ms" ] || min=$ms
	[ -n "$max" ] && [ "$max" -ge "$ms" ] || max=$ms
	etcd_run "$leader"
	# a holder that revoked claims again: until both are in force
	for h in H1 H2; do
		for i in $(seq 300); do
			[ "$(grep -c " install " "$out/$h.sim.log")" -gt \
			  "$(grep -c -E " (expire|revoke) " "$out/$h.sim.log")" ] && break
			sleep 0.1
		done
	done
	sleep 2
done
echo "kills $kills revoked $revoked answered $min..$max ms (TTL $ttl)"
