#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-cluster: uidgen-lease against a real 3-member etcd, on the
# host with the device stand-in (host.sh; break17.sh, the break-it
# review's cases; fleet-quickstart.sh, fleet.rst's quick start walked;
# early-signals.sh, a stop signal at each point of the agent's start;
# check-ticks.sh, the global check's tick arithmetic),
# then with the module in three QEMU guests (cluster.sh), then a guest
# cloned while its agent holds a node ID (clone.sh); one line per suite
# and "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/totals.sh
out=$repo/build/check-cluster
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
: > "$out/summary.txt"
run_suite "$out" lease-host tests/lease/host.sh -o "$out/host"
# The break17 review's cases (a late lease grant answer, a closed install
# left by a killed run), each failing before its fix (~25 s).
run_suite "$out" lease-break17 tests/lease/break17.sh -o "$out/break17"
# fleet.rst's quick start, walked: its etcdctl steps, lease.conf and
# uidgen-cluster output against a real etcd (ports 2479N, not host.sh's
# 2379N), three agents with the device stand-in (~15 s).
run_suite "$out" fleet-quickstart tests/fleet-quickstart.sh -o "$out/fleet-quickstart"
# A stop signal at each point of the agent's start (configuration, layout
# check, adoption): it ends by itself, exit 0, leaving what the signal
# says (~30 s).
run_suite "$out" lease-early tests/lease/early-signals.sh -o "$out/early"
# check.py's shared ticks at ticks that are not whole ms (canned logs).
run_suite "$out" lease-ticks tests/lease/check-ticks.sh
run_suite "$out" lease-cluster tests/lease/cluster.sh -o "$out/cluster"
run_suite "$out" lease-clone tests/lease/clone.sh -o "$out/clone"
echo
echo "== summary (etcd $(etcd --version | sed -n 's/etcd Version: //p'), $(( $(date +%s) - start )) s; logs in $out)"
total_pass=0
total_fail=0
while read -r name pass fail secs; do
	printf '%-17s %s passed, %s failed (%s s)\n' "$name:" "$pass" "$fail" "$secs"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
done < "$out/summary.txt"
[ "$(wc -l < "$out/summary.txt")" -eq 7 ] || { echo "only $(wc -l < "$out/summary.txt") of 7 suites reported"; total_fail=$((total_fail + 1)); }
boot_retries "$out"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
