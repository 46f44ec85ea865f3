#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest half of tests/observe/pingpong.sh: ROLE PORT OFFSET_MS ROUNDS.
OUT=${UIDGEN_VM_OUT:-/tmp}
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
/usr/bin/python3 tests/observe/pingpong.py guest "$@" > "$OUT/pingpong.txt" 2>&1
rc=$?
rmmod uidgen 2>/dev/null
exit $rc
