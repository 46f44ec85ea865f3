#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# uidgen-lease and a stop signal at each point of its start (the break-it
# review of the early handlers, lease/main.c): while the configuration
# loads (a FIFO nobody has written yet), while the layout check retries
# (no etcd answering), while adopt() retries (a node in force from a
# killed run, etcd gone), and with a claim to adopt. Each run must end
# by itself (never a hang: every wait here has a timeout), exit 0, and
# leave what the signal says: SIGTERM/SIGINT the node in force and the
# claim in etcd; SIGUSR1 both released. Device stand-in, real etcd
# (tests/lib/etcd.sh; set etcd_client_port/etcd_peer_port).
#
#   tests/lease/early-signals.sh [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
. tests/lib/etcd.sh
out=
while getopts "o:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
kver=host
host_out lease-early
make -s -C lease || exit 1
agent=${AGENT:-$repo/lease/uidgen-lease}
declare -A apid
. tests/lease/harness.sh
cleanup() {
	kill_agents
	etcd_stop
}
trap cleanup EXIT

echo "TAP version 13"
check "a 3-member etcd on 127.0.0.1:${etcd_client_port}N" 'etcd_start "$out/etcd"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }

# fifo_run NAME CLUSTER SIGNAL [-o K=V]...: an agent whose configuration
# is a FIFO, SIGNAL sent while it waits to open it, then the FIFO
# written; rc = its exit status (124: it did not end within 20 s).
fifo_run() {
	local name=$1 cl=$2 sig=$3 i
	shift 3
	rm -f "$out/$name.conf"
	mkfifo "$out/$name.conf"
	"$agent" -c "$out/$name.conf" --device-sim "$out/$name.sim" -o endpoints="$etcd_eps" \
		-o cluster="$cl" -o machine_id="$name" -o sim_node_bits=1 -o ttl=5 \
		-o margin_ms=1000 -o timeout_ms=1000 -o retry_ms=200 "$@" >> "$out/$name.log" 2>&1 &
	apid[$name]=$!
	sleep 0.5
	kill -"$sig" "${apid[$name]}"
	sleep 0.2
	timeout 5 sh -c 'echo "# nothing here" > "$1"' sh "$out/$name.conf"
	for i in $(seq 200); do
		kill -0 "${apid[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "${apid[$name]}" 2>/dev/null; then
		kill -KILL "${apid[$name]}"
		wait "${apid[$name]}" 2>/dev/null
		rc=124
	else
		wait "${apid[$name]}"
		rc=$?
	fi
}
# A configuration nobody ever writes (a FIFO, a pipe, a stuck mount):
# SIGTERM or SIGINT must still stop the agent at once, as the default
# action did before the early handlers (exit 143). With SA_RESTART on the
# handlers the open() is restarted, and it waits on (systemctl stop waits
# for TimeoutStopSec, then SIGKILL).
# never_run SIGNAL: rc of an agent stopped so (124: still there after 3 s).
never_run() {
	local p
	rm -f "$out/never.conf"
	mkfifo "$out/never.conf"
	"$agent" -c "$out/never.conf" --device-sim "$out/NV.sim" -o endpoints="$etcd_eps" \
		-o cluster=nv -o machine_id=NV >> "$out/NV.log" 2>&1 &
	p=$!
	apid[NV]=$p
	sleep 0.5
	kill -"$1" "$p"
	sleep 3
	if kill -0 "$p" 2>/dev/null; then
		kill -KILL "$p"; wait "$p" 2>/dev/null; rc=124
	else
		wait "$p"; rc=$?
	fi
}
claims() { ectl get --prefix "/uidgen/$1/node/" --keys-only | grep -c .; }
active() { cut -d' ' -f2 "$out/$1.sim"; }

for sig in TERM INT USR1; do
	fifo_run "F$sig" "f$sig" "$sig"
	check "SIG$sig while the configuration loads, nothing to adopt: exit 0 (got $rc), no claim" \
		'[ "$rc" = 0 ] && [ "$(claims "f$sig")" = 0 ]'
done

# A node in force from a killed run (SIGKILL: the claim stays in etcd, the
# stand-in keeps the node), then a start that gets SIGTERM while its
# configuration loads: it adopts and leaves it (exit 0, in force, claim
# kept); then one that gets SIGUSR1: it adopts and hands it over.
start AT adt 1
waitlog AT "in force" > /dev/null
kill -KILL "${apid[AT]}"; wait "${apid[AT]}" 2>/dev/null
tok=$(simlast AT install token)
fifo_run AT adt TERM
# Left: whether it adopted first (and kept the lease alive) or stopped
# before, it revokes nothing in the device and releases nothing in etcd.
check "SIGTERM while the configuration loads, a claim to adopt (token $tok): exit 0 (got $rc), node left in force (device active $(active AT)), nothing released" \
	'[ "$rc" = 0 ] && [ "$(active AT)" = 1 ] && ! grep -E "revoked in the device|released in etcd" "$out/AT.log"'
fifo_run AT adt USR1
check "SIGUSR1 while the configuration loads, a claim to adopt: exit 0 (got $rc), handed over (device active $(active AT), $(claims adt) claims)" \
	'[ "$rc" = 0 ] && [ "$(active AT)" = 0 ] && [ "$(claims adt)" = 0 ]'

# The layout check retrying (no etcd at that endpoint): SIGTERM ends it.
fifo_run LC lc TERM -o endpoints=http://127.0.0.1:${etcd_client_port}9
check "SIGTERM during the layout check's retries (no etcd): exit 0 (got $rc)" '[ "$rc" = 0 ]'

# adopt() retrying (node in force, etcd unreachable), then SIGUSR1.
start AR adr 1
waitlog AR "in force" > /dev/null
kill -KILL "${apid[AR]}"; wait "${apid[AR]}" 2>/dev/null
"$agent" -c /dev/null --device-sim "$out/AR.sim" -o endpoints=http://127.0.0.1:${etcd_client_port}9 \
	-o cluster=adr -o machine_id=AR -o sim_node_bits=1 -o ttl=5 -o margin_ms=1000 -o timeout_ms=1000 \
	-o retry_ms=200 >> "$out/AR2.log" 2>&1 &
apid[AR2]=$!
sleep 1.5
kill -USR1 "${apid[AR2]}"
for i in $(seq 100); do kill -0 "${apid[AR2]}" 2>/dev/null || break; sleep 0.1; done
if kill -0 "${apid[AR2]}" 2>/dev/null; then kill -KILL "${apid[AR2]}"; rc=124; else wait "${apid[AR2]}"; rc=$?; fi
check "SIGUSR1 while the layout check cannot reach etcd, a node in force: exit 0 (got $rc) within 10 s" '[ "$rc" = 0 ]'
for sig in TERM INT; do
	never_run "$sig"
	check "SIG$sig with the configuration never written (a FIFO): the agent ends within 3 s (got $rc; 124: still running)" \
		'[ "$rc" != 124 ]'
done
tap_end
