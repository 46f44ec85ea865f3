#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.py's shared-tick count (--tick-us) at ticks that are not whole
# milliseconds (the break-it review): tick_us is 1..60000000 in the
# module and the stand-in, and the stand-ins log in ns, but check.py
# rounds each interval to ms before it finds the tick. Canned stand-in
# logs, no etcd:
#   1500 us: A in force until 1.7 ms past the epoch, B from 2.0 ms: both
#     in tick 1 (1.5 to 3.0 ms), a tick both could issue: one shared tick;
#   500 us: A until 1.2 ms (tick 2), B from 1.6 ms (tick 3): none; and a
#     shared tick of 500 us must not read as "sim_tick_overlap_ms 0",
#     which is what host.sh's check greps for.
#
#   tests/lease/check-ticks.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ep=1767225600000
# sim NAME WHO TOKEN FROM_US TO_US: a stand-in log in force FROM..TO us
# past the epoch (CLOCK_BOOTTIME = CLOCK_REALTIME here: --boot-wall 0).
sim() {
	printf '%s\n' "$(( ep * 1000000 + $4 * 1000 )) install who=$2 node=0 token=$3 deadline=$(( (ep + 9999) * 1000000 )) grant=0 floor=0 open=1" \
		"$(( ep * 1000000 + $5 * 1000 )) revoke who=$2 node=0 token=$3 deadline=0" > "$out/$1"
}
# ticks A B TICK_US: check.py's output for the two.
ticks() { tests/lease/check.py --sim "$out/$1" --sim "$out/$2" --boot-wall 0 --tick-us "$3"; }

echo "TAP version 13"
sim A15 A 5 0 1700
sim B15 B 6 2000 2900
check "tick_us 1500: A until 1.7 ms, B from 2.0 ms share tick 1: counted (exit 1)" \
	'ticks A15 B15 1500; [ $? = 1 ]'
sim A5 A 5 0 1200
sim B5 B 6 1600 2900
check "tick_us 500: A until 1.2 ms (tick 2), B from 1.6 ms (tick 3): no shared tick (exit 0)" \
	'ticks A5 B5 500; [ $? = 0 ]'
sim A5s A 5 0 1200
sim B5s B 6 1300 2900
check "tick_us 500: a shared tick (tick 2) is not reported as sim_tick_overlap_ms 0" \
	'ticks A5s B5s 500 > "$out/r"; cat "$out/r"; ! grep -q "^RESULT sim_tick_overlap_ms 0$" "$out/r"'
tap_end
