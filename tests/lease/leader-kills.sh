#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repeated etcd leader kills against two holders (the device stand-in):
# how long the other two members take to answer a write, and whether a
# holder revoked. Not a suite: the measurement behind fleet.rst's "etcd
# leader killed" and "Choosing TTL, margin and grant window" (a holder
# keeps its ID when the election fits in about TTL x (2/3 - 1/20 - rate)
# - margin).
#
#   tests/lease/leader-kills.sh [-n KILLS] [-t TTL] [-o OUTDIR]
# One line per kill, then "kills N, with a holder lost L, answered in
# MIN..MAX ms". Exits 1 if etcd or a holder does not come back.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
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
# in_force H: H's stand-in holds a node (more installs than expiries and
# revokes).
in_force() {
	[ -e "$out/$1.sim.log" ] && [ "$(grep -c " install " "$out/$1.sim.log" 2>/dev/null)" -gt \
	  "$(grep -c -E " (expire|revoke) " "$out/$1.sim.log" 2>/dev/null)" ]
}
# until both hold again: a holder that revoked claims again once etcd
# expired its lease (a TTL) and its claim wait passed (2/3 TTL + 1 s)
settle() {
	local h i
	for h in H1 H2; do
		for i in $(seq $((ttl * 30 + 300))); do
			in_force "$h" && break
			sleep 0.1
		done
		in_force "$h" || { echo "$h holds no node $((ttl * 3 + 30)) s on: see $out/$h.log" >&2; exit 1; }
	done
}
settle
hit=0 min="" max=""
for k in $(seq "$kills"); do
	before=$(events)
	etcd_kill_leader || { echo "no member says it leads" >&2; exit 1; }
	ms=$(etcd_answers "$etcd_others" 30) || { echo "the other two members did not answer within 30 s" >&2; exit 1; }
	sleep $((ttl * 2 / 3 + 1))
	lost=$(( $(events) - before ))
	echo "kill $k: m$leader, the others answered in $ms ms; expiries and revokes: $lost"
	[ "$lost" -eq 0 ] || hit=$((hit + 1))
	[ -n "$min" ] && [ "$min" -le "$ms" ] || min=$ms
	[ -n "$max" ] && [ "$max" -ge "$ms" ] || max=$ms
	etcd_run "$leader"
	settle
	sleep 2
done
echo "kills $kills, with a holder lost $hit, answered in $min..$max ms (TTL $ttl)"
