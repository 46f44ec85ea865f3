#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# uidgen-lease at scale, by simulation (a benchmark: it prints figures and
# fails only if uniqueness does): N agents on this machine, each with the
# device stand-in (--device-sim), against a real 3-member etcd on the
# loopback (127.0.0.1:2379N).
#
#   bench/lease-sim.sh [-n AGENTS] [-b NODE_BITS] [-s SECONDS] [-o OUTDIR]
#
# Round 1: AGENTS agents (default 500) start at once with NODE_BITS (default
#   10: 1024 IDs): every one must get a distinct ID; claim latency p50/p99.
# Round 2: the same AGENTS with NODE_BITS - 2 bits (256 IDs by default):
#   agents outnumber IDs; a tenth of the holders is stopped (SIGTERM), then
#   another tenth SIGKILLed: how long until waiting agents take the freed
#   IDs.
# Each round ends with check.py over etcd's watched history and every
# stand-in's log: no node key created twice, no two stand-ins with the same
# node ID in force at any instant, each stand-in stopped before etcd freed
# its claim.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/etcd.sh
n=500
bits=10
secs=30
out=$repo/build/lease-sim
while getopts "n:b:s:o:" opt; do
	case $opt in
	n) n=$OPTARG ;;
	b) bits=$OPTARG ;;
	s) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
rm -rf "$out"
mkdir -p "$out"
make -s -C lease || exit 1
ulimit -n 65536 2>/dev/null
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	[ -z "${wpid:-}" ] || kill "$wpid" 2>/dev/null
	etcd_stop
}
trap cleanup EXIT
etcd_start "$out/etcd" || exit 1
bad=0

pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.5); if (i < 1) i = 1; print a[i] }'; }

# round NAME CLUSTER BITS
round() {
	local name=$1 cl=$2 b=$3 i d=$out/$1
	mkdir -p "$d"
	tests/lease/watch.py "$etcd_eps" "/uidgen/$cl/" "$d/watch.txt" 2>> "$d/watch.err" &
	wpid=$!
	sleep 1
	pids=()
	local t0
	t0=$(date +%s%N)
	for i in $(seq "$n"); do
		lease/uidgen-lease -c /dev/null --device-sim "$d/a$i.sim" -o endpoints="$etcd_eps" \
			-o cluster="$cl" -o machine_id="m$i" -o sim_node_bits="$b" -o ttl=10 \
			-o timeout_ms=3000 -o retry_ms=1000 > "$d/a$i.log" 2>&1 &
		pids+=($!)
	done
	echo "$name: $n agents started in $(( ($(date +%s%N) - t0) / 1000000 )) ms, $((1 << b)) node IDs"
}

settle() {
	local d=$out/$1 want=$2 i have=0
	for i in $(seq "$secs"); do
		have=$(grep -l "in force" "$d"/a*.log 2>/dev/null | wc -l)
		[ "$have" -ge "$want" ] && break
		sleep 1
	done
	echo "$1: $have agents hold an ID after ${i} s"
}

finish() {
	local d=$out/$1 i
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
	sleep 1
	kill "$wpid"
	wait "$wpid" 2>/dev/null
	wpid=
	tests/lease/check.py --watch "$d/watch.txt" $(for f in "$d"/*.sim.log; do echo --sim "$f"; done) > "$d/check.txt"
	i=$?
	sed "s/^/$1: /" "$d/check.txt"
	[ $i -eq 0 ] || { echo "$1: UNIQUENESS VIOLATED"; bad=1; }
}

# Round 1: agents fewer than IDs.
round r1 sim "$bits"
settle r1 "$n"
sleep 3
d=$out/r1
held=$(cat "$d"/*.sim 2>/dev/null | awk '$2 == 1 { print $3 }' | sort -n)
echo "r1: $(echo "$held" | grep -c .) stand-ins have a node ID in force, $(echo "$held" | uniq -d | grep -c .) IDs in force on two"
grep -h "claimed" "$d"/a*.log | sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' > "$d/lat.txt"
echo "r1: claim latency (lease grant to claim, ms): p50 $(pct 50 < "$d/lat.txt") p90 $(pct 90 < "$d/lat.txt") p99 $(pct 99 < "$d/lat.txt") max $(pct 100 < "$d/lat.txt") over $(wc -l < "$d/lat.txt") claims"
finish r1

# Round 2: agents outnumber IDs.
b2=$((bits - 2))
round r2 over "$b2"
settle r2 $((1 << b2))
sleep 3
d=$out/r2
echo "r2: $(grep -l "all $((1 << b2)) node IDs are held" "$d"/a*.log | wc -l) agents told all IDs are held"
holders=$(grep -l "in force" "$d"/a*.log | head -n $(( (1 << b2) / 10 )) | sed 's/.*a\([0-9]*\)\.log/\1/')
for i in $holders; do kill -TERM "${pids[$((i - 1))]}"; done
t0=$(date +%s%N)
k=$(echo "$holders" | wc -l)
for i in $(seq 60); do
	c=$(grep -h "claimed" "$d"/a*.log | wc -l)
	[ "$c" -ge $(( (1 << b2) + k )) ] && break
	sleep 0.5
done
echo "r2: $k holders stopped (SIGTERM): $((c - (1 << b2))) freed IDs taken by waiting agents within $(( ($(date +%s%N) - t0) / 1000000 )) ms"
holders2=$(grep -L "revoked\|released" "$d"/a*.log | xargs grep -l "in force" | head -n "$k" | sed 's/.*a\([0-9]*\)\.log/\1/')
base=$c
for i in $holders2; do kill -KILL "${pids[$((i - 1))]}"; done
t0=$(date +%s%N)
for i in $(seq 120); do
	c=$(grep -h "claimed" "$d"/a*.log | wc -l)
	[ "$c" -ge $((base + k)) ] && break
	sleep 0.5
done
echo "r2: $k holders SIGKILLed: $((c - base)) of their IDs taken over within $(( ($(date +%s%N) - t0) / 1000000 )) ms (the TTL, 10 s, must pass first)"
finish r2
exit $bad
