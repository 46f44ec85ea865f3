#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 30's ping-pong: two VMs whose wall clocks are 2 s apart (B behind)
# pass an ID back and forth ROUNDS times (default 10,000) through a relay
# on the host (pingpong.py), each side minting its next message after the
# one it received. Three phases, the module reloaded for each:
#   no-observe             observe_ahead_ms=5000, nobody observes: B's
#                          replies sort before A's messages (inversions)
#   observe                observe_ahead_ms=5000, each side observes what it
#                          received first: 0 inversions; B's ID clock leads
#                          its wall clock by the 2 s, and heals
#   observe-default-bound  observe_ahead_ms=500: B's observes of A's IDs
#                          are refused (EDOM), counted, and move nothing
# Boots two VMs at once (VM_NET=1, one CPU each).
#   tests/observe/pingpong.sh [-n ROUNDS] [-k KVER]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
rounds=10000
kver=
while getopts "n:k:" opt; do
	case $opt in
	n) rounds=$OPTARG ;;
	k) kver=$OPTARG ;;
	*) echo "usage: $0 [-n ROUNDS] [-k KVER]" >&2; exit 2 ;;
	esac
done
out=build/observe-pingpong
rm -rf "$out"; mkdir -p "$out"
port=$((20000 + RANDOM % 20000))
python3 tests/observe/pingpong.py relay "$port" > "$out/relay.log" 2>&1 &
relay=$!
trap 'kill $relay 2>/dev/null' EXIT
pids=
for side in A:0 B:-2000; do
	VM_NET=1 VM_SMP=1 tests/qemu/vm.sh ${kver:+-k "$kver"} -o "$out/${side%%:*}" -t 3600 \
		tests/observe/pingpong-guest.sh "${side%%:*}" "$port" "${side#*:}" "$rounds" \
		> "$out/${side%%:*}.vm.log" 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
pass=0 fail=0
ok() {	# ok NAME COND...
	local name=$1; shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
echo "TAP version 13"
cat "$out"/A/pingpong.txt "$out"/B/pingpong.txt | sed 's/^/# /'
# field SIDE PHASE NAME: the value after NAME on SIDE's RESULT line for PHASE.
field() {
	awk -v s="$1" -v p="$2" -v n="$3" '$1 == "RESULT" && $2 == s && $3 == p {
		for (i = 4; i < NF; i++) if ($i == n) print $(i + 1) }' "$out/$1/pingpong.txt"
}
inv() { echo $(( $(field A "$1" inversions || echo 0) + $(field B "$1" inversions || echo 0) )); }
n=$(inv no-observe)
ok "without observe: $n of $((2 * rounds)) messages sort before the one they answer" \
	test "${n:-0}" -gt 0
n=$(inv observe)
ok "with observe: 0 inversions ($n)" test "$(field A observe rounds)" = "$rounds" -a "$n" = 0
lead=$(field B observe lead_max_ms); end=$(field B observe lead_end_ms); healed=$(field B observe lead_after_10s_ms)
ok "with observe: B's ID clock led by ${lead} ms at most (bound 5000), ${end} ms at the end, ${healed} ms 10 s on" \
	test -n "$lead" -a "${lead:-0}" -le 5001 -a "${healed:-99999}" -lt "${end:-0}"
lead=$(field A observe lead_max_ms)
ok "with observe: A's lead stays small (${lead} ms)" test -n "$lead" -a "${lead:-99999}" -lt 1000
ref=$(field B observe-default-bound refused); cnt=$(field B observe-default-bound observe_refused)
ok "default bound: B's observes refused ($ref) and counted ($cnt), $rounds each" \
	test "$ref" = "$rounds" -a "$cnt" = "$rounds"
lead=$(field B observe-default-bound lead_max_ms); moved=$(field B observe-default-bound observe_moved)
ok "default bound: B's clock not moved (lead $lead ms, observe_moved $moved)" \
	test -n "$lead" -a "${lead:-99999}" -lt 100 -a "$moved" = 0
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" = 0 ]
