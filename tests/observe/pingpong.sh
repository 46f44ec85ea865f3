#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 30's ping-pong (make check-observe): two VMs whose wall clocks are
# 2 s apart (B behind) pass an ID back and forth ROUNDS times (default
# 10,000) through a relay on the host (pingpong.py), each side minting its
# next message after the one it received. Three phases, the module
# reloaded for each:
#   no-observe             observe_ahead_ms=5000, nobody observes: each of
#                          B's replies sorts before A's message (ROUNDS of
#                          the 2 * ROUNDS messages, half)
#   observe                observe_ahead_ms=5000, each side observes what it
#                          received first: 0 inversions; B's ID clock leads
#                          its wall clock by the 2 s, and heals at 1/16 of
#                          real time once the rounds end
#   observe-default-bound  observe_ahead_ms=500: each of B's observes of
#                          A's IDs is refused (EDOM), counted, and moves
#                          nothing
# Boots two VMs at once (VM_NET=1, one CPU each). Their clocks are the
# HPET's, and the TSC is marked unstable: a busy host can make a guest's
# kernel take its TSC's rate nine times too low at boot (the PIT's count
# against the HPET's; 2 of the first 4 guests here), and then the TSC
# clocksource runs its clocks nine times fast (a 2 s offset is gone in a
# quarter of a second) and sched_clock, which the soft-lockup watchdog
# reads, too (a "BUG: soft lockup" on a guest that ran fine). QEMU runs the
# HPET at the host's rate, and an unstable TSC makes sched_clock keep to
# the clocksource's time.
#   tests/observe/pingpong.sh [-n ROUNDS] [-k KVER] [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure. The
# guests' output is in OUTDIR/{A,B}/pingpong.txt (default OUTDIR
# build/observe-pingpong). About 8 minutes for 10,000 rounds on a
# loaded 2-core machine (90 round trips a second under TCG).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
rounds=10000
kver=
out=build/observe-pingpong
while getopts "n:k:o:" opt; do
	case $opt in
	n) rounds=$OPTARG ;;
	k) kver=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-n ROUNDS] [-k KVER] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
rm -rf "$out"; mkdir -p "$out"
# The relay listens on two free ports and says which.
/usr/bin/python3 tests/observe/pingpong.py relay "$out/ports" > "$out/relay.log" 2>&1 &
relay=$!
trap 'kill $relay 2>/dev/null' EXIT
i=0
while [ ! -s "$out/ports" ] && [ $i -lt 100 ] && kill -0 $relay 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
read -r port_a port_b < "$out/ports" || { echo "pingpong.sh: the relay did not start:" >&2; cat "$out/relay.log" >&2; exit 1; }
t0=$(date +%s)
pids=
for side in A:0:$port_a B:-2000:$port_b; do
	IFS=: read -r s offset port <<< "$side"
	VM_NET=1 VM_SMP=1 VM_APPEND="clocksource=hpet tsc=unstable" \
		tests/qemu/vm.sh ${kver:+-k "$kver"} -o "$out/$s" -t 3600 \
		tests/observe/pingpong-guest.sh "$s" "$port" "$offset" "$rounds" \
		> "$out/$s.vm.log" 2>&1 &
	pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
pass=0 fail=0
ok() {	# ok NAME COND...
	local name=$1; shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
echo "TAP version 13"
echo "# both VMs ran $(($(date +%s) - t0)) s, $rounds rounds a phase"
for s in A B; do
	sed 's/^/# /' "$out/$s/pingpong.txt" 2> /dev/null
	[ -s "$out/$s/pingpong.txt" ] || sed 's/^/# '"$s"': /' "$out/$s.vm.log"
done
# f SIDE PHASE NAME: the value after NAME on SIDE's RESULT line for PHASE
# ("none" if there is none, which every comparison below fails on).
f() {
	awk -v s="$1" -v p="$2" -v n="$3" '$1 == "RESULT" && $2 == s && $3 == p {
		for (i = 4; i < NF; i++) if ($i == n) { print $(i + 1); found = 1 } }
		END { if (!found) print "none" }' "$out/$1/pingpong.txt" 2> /dev/null || echo none
}
# py EXPR: a Python comparison of the numbers above, true or false; a
# missing number ("none") makes it false. A lead read (clock_offset_ms)
# is the ID clock and the wall clock read one after the other: a guest's
# one vCPU preempted by the host between the two reads makes it tens of ms
# off (-13 ms seen once), so "moved nothing" is a lead within 50 ms (a
# move of the 2 s would be 2000) and observe_moved's 0.
py() { /usr/bin/python3 -c "import sys; none = float('nan'); sys.exit(0 if ($1) else 1)"; }
# num EXPR: the value of EXPR over those numbers, an integer, or "none".
num() { /usr/bin/python3 -c "none = float('nan'); v = ($1); print('none' if v != v else int(v))"; }
ok "both guests finished (exit status 0)" test "$rc" = 0
ok "B's wall clock is 2000 ms behind A's: $(f A observe offset_start_ms) and $(f B observe offset_start_ms) ms from the host's before the observe rounds, $(f A observe offset_end_ms) and $(f B observe offset_end_ms) after" \
	py "all(abs(b - a + 2000) < 50 for a, b in (($(f A observe offset_start_ms), $(f B observe offset_start_ms)), ($(f A observe offset_end_ms), $(f B observe offset_end_ms))))"

p=no-observe
a=$(f A $p inversions) b=$(f B $p inversions)
ok "without observe: $(num "$a + $b") of $((2 * rounds)) messages sort before the one they answer (B's replies $b, A's messages $a; $(f A $p seconds) s)" \
	py "$b == $rounds and $a == 0 and $(f A $p rounds) == $(f B $p rounds) == $rounds"

p=observe
a=$(f A $p inversions) b=$(f B $p inversions)
ok "with observe: 0 inversions among $((2 * rounds)) messages (B's replies $b, A's messages $a; $(f A $p seconds) s)" \
	py "$a == 0 and $b == 0 and $(f A $p rounds) == $(f B $p rounds) == $rounds"
ok "with observe: B's observes moved its clock ($(f B $p observe_moved) of $rounds), none refused ($(f B $p refused), observe_refused $(f B $p observe_refused))" \
	py "$(f B $p observe_moved) > 0 and $(f B $p refused) == $(f B $p observe_refused) == 0"
ok "with observe: B's ID clock led its wall clock by $(f B $p lead_min_ms) to $(f B $p lead_max_ms) ms during the rounds (bound 5000 + a tick), $(f B $p lead_end_ms) ms at the end" \
	py "1900 <= $(f B $p lead_min_ms) and $(f B $p lead_max_ms) <= 5001 and 1900 <= $(f B $p lead_end_ms)"
drop=$(num "$(f B $p lead_end_ms) - $(f B $p lead_after_ms)")
ok "with observe: B's lead heals: $(f B $p lead_after_ms) ms $(f B $p heal_elapsed_ms) ms later, $drop ms less (1/16 of the time: $(num "$(f B $p heal_elapsed_ms) / 16") ms)" \
	py "abs($drop - $(f B $p heal_elapsed_ms) / 16) <= 10 + $(f B $p heal_elapsed_ms) / 16 / 20"
ok "with observe: A's ID clock led by $(f A $p lead_min_ms) to $(f A $p lead_max_ms) ms (bound 5000 + a tick), $(f A $p lead_end_ms) ms at the end; A's observes moved it $(f A $p observe_moved) times" \
	py "-50 <= $(f A $p lead_min_ms) and $(f A $p lead_max_ms) <= 5001 and $(f A $p refused) == 0"

p=observe-default-bound
ok "default bound (500 ms): B refused every observe of A's IDs ($(f B $p refused) of $rounds) and observe_refused rose by as many ($(f B $p observe_refused_before) to $(f B $p observe_refused))" \
	py "$(f B $p refused) == $rounds and $(f B $p observe_refused) - $(f B $p observe_refused_before) == $rounds"
ok "default bound: the refusals moved nothing: B's observe_moved $(f B $p observe_moved), its lead $(f B $p lead_min_ms) to $(f B $p lead_max_ms) ms, B's replies below A's messages $(f B $p inversions) of $rounds" \
	py "$(f B $p observe_moved) == 0 and -50 <= $(f B $p lead_min_ms) and $(f B $p lead_max_ms) <= 50 and $(f B $p inversions) == $rounds"
ok "default bound: A's observes of B's (earlier) IDs moved nothing and were not refused (observe_moved $(f A $p observe_moved), observe_refused $(f A $p observe_refused)); A's messages below B's replies $(f A $p inversions)" \
	py "$(f A $p observe_moved) == 0 and $(f A $p observe_refused) == 0 and $(f A $p inversions) == 0"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" = 0 ]
