#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A node ID's whole life, end to end, the packaged way: make install into
# a scratch root, then VMs that load the module with modprobe and the
# options in modprobe.d (the layout; the node ID is the state file's) and
# run the systemd units' own commands
# (tests/qemu/guest-nodelife.sh). One machine, A, boots three times with
# the same /mnt (its state file); a second, B, gets node ID 7 moved to it:
#
#   A1  first start ever (set-node 7 --new), then an upgrade reload
#       (units stop, rmmod, modprobe, units start); clean stop
#   A2  reboot with the wall clock behind: QEMU's -rtc base boots it 25 s
#       behind, the job waits until its clock is 2 s into A1's first load,
#       and loads there; then a crash (power off, nothing saved)
#   A3  start after the crash, the clock behind again (where A2's load
#       began); clean stop
#   B1  node ID 7 moved to machine B, whose clock is behind A's (1 s into
#       A3's load), its state file carried over; clean stop
#
# Every load reads with two applications that start before the module
# loads and borrow up to max_borrow_ticks (1 s) ahead of the clock. The
# IDs of every load and machine are checked together: no repeats.
#
#   tests/nodelife.sh [-k KVER] [-o OUTDIR] [-b GITREV]
# -b runs the same path on an older tree (its module, CLI and units), to
# show what it repeats; its checks then report those repeats as failures.
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
base=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-b) base=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
host_opts 6.1 "${args[@]}" || exit
host_out nodelife
out=$(realpath "$out")
export NL_IDS=${NL_IDS:-40000}

echo "TAP version 13"
tree=$repo
if [ -n "$base" ]; then
	tree=$out/tree
	mkdir -p "$tree"
	git archive "$base" | tar -x -C "$tree"
fi
check "make install DESTDIR ($([ -n "$base" ] && echo "$base" || echo "this tree"))" \
	'make -s -C "$tree" install DESTDIR="$out/root" PREFIX=/usr/local KVER="$kver" \
		KDIR="/usr/src/linux-headers-$kver"'

# boot MACHINE TAG RTC_BASE STEPS...: one boot of MACHINE's VM (its /mnt
# is $out/MACHINE, kept across its boots); RTC_BASE empty for the right
# time. Its console goes to $out/TAG.log.
# A boot the guest found unfit before issuing anything (its clock runs at
# another rate, or it booted too slowly to be behind) is booted again,
# three times at most; RTC_BASE is the name of a function that computes
# the -rtc base anew each time.
boot() {
	local m=$1 tag=$2 rtc=$3 try=0 base=
	shift 3
	mkdir -p "$out/$m"
	while :; do
		t_start=$(date +%s)
		[ -z "$rtc" ] || base=$($rtc)
		VM_QEMU_ARGS=${base:+-rtc base=$base} \
			tests/qemu/vm.sh -k "$kver" -o "$out/$m" tests/qemu/guest-nodelife.sh \
			"$out/root" "$tag" "$@" > "$out/$tag.log" 2>&1
		echo $? > "$out/$tag.rc"
		grep -q "^RESULT retry" "$out/$tag.log" && [ $try -lt 3 ] || break
		try=$((try + 1))
		# Too late: a longer margin next time, by as much and 10 s more.
		late=$(res "$tag" at_late_ms)
		[ "${late:-0}" -le 0 ] || margin=$((margin + late / 1000 + 10))
		echo "# $tag: $(sed -n 's/^RESULT retry //p' "$out/$tag.log" | tr -d '\r'): booting it again"
		cp "$out/$tag.log" "$out/$tag.try$try.log"
	done
}
res() { sed -n "s/^RESULT $2 //p" "$out/$1.log" | tr -d '\r'; }
# first_ms FILE: the Unix ms of the first tick of the IDs in FILE.a/.b (the
# layout of guest-nodelife.sh: 11 bits below the timestamp, 1 ms ticks).
first_ms() {
	local id
	id=$(cat "$1".a "$1".b 2>/dev/null | sort -n | head -n 1)
	echo $(( (${id:-0} >> 11) + 1767225600000 ))
}
# behind: the boot's RTC (-rtc base) $margin s before $t, the guest then
# waits until its clock reads $t (at=$t) and loads there: a clock behind
# where the earlier load was, by exactly as much as the scenario wants.
# The margin is A1's boot time plus 15 s (TCG on a busy host boots slower
# some times than others; a boot that still comes too late is redone).
behind() { date -u -d "@$((t / 1000 - margin))" +%Y-%m-%dT%H:%M:%S; }

boot A A1 "" first reload down
if [ ! -s "$out/A/ids-A1-1.a" ]; then
	# Nothing to build the other boots on.
	check "A1: the first boot issued IDs (vm.sh: $(cat "$out/A1.rc"))" false
	tail -n 20 "$out/A1.log" | tr -d '\r' | sed 's/^/# /'
	tail -n 20 "$out/A/console.log" | tr -d '\r' | sed 's/^/# /'
	tap_end
	exit
fi
j=$(res A1 job_wall_s | tail -n 1)
margin=$(( ${j:-$t_start} - t_start + 15 ))
[ "$margin" -ge 20 ] || margin=20
# A reboot whose clock is 2 s into A1's first load.
t=$(( $(first_ms "$out/A/ids-A1-1") + 2000 ))
boot A A2 behind at=$t up crash
# After the crash, the clock where A2's load began.
t=$(first_ms "$out/A/ids-A2-1")
boot A A3 behind at=$t up down
# Node ID 7 moved to B, whose clock is 1 s into A3's load.
mkdir -p "$out/B/state"
cp "$out/A/state/uidgen.state" "$out/B/state/" 2>/dev/null
t=$(( $(first_ms "$out/A/ids-A3-1") + 1000 ))
boot B B1 behind at=$t up down

for t in A1 A2 A3 B1; do
	check "$t: the VM finished, its kernel log clean" '[ "$(cat "$out/$t.rc")" = 0 ]'
done
[ -n "$base" ] || check "A1: the module loads with no node ID (set-node, then the units, assign it)" \
	'[ "$(res A1 node_state_at_load | head -n 1)" = none ]'
[ -n "$base" ] || check "A2: after a reboot too, until the state file's node ID and floor arrive" \
	'[ "$(res A2 node_state_at_load)" = none ]'
# last_ms FILE: the Unix ms of the last tick in FILE.a/.b.
last_ms() {
	local id
	id=$(cat "$1".a "$1".b 2>/dev/null | sort -n | tail -n 1)
	echo $(( (${id:-0} >> 11) + 1767225600000 ))
}
for x in "A2 A/ids-A1-2" "A3 A/ids-A2-1" "B1 A/ids-A3-1"; do
	vm=${x% *}
	prev=${x#* }
	check "$vm booted with its RTC behind (it waited $(( -$(res "$vm" at_late_ms) )) ms for its load time)" \
		'[ "$(res "$vm" at_late_ms)" -le 0 ]'
	check "$vm loaded with the clock behind the last ID before it" \
		'[ $(( $(res "$vm" load_wall_s) * 1000 )) -lt "$(last_ms "$out/$prev")" ]'
done

# All IDs together, load by load: each load's repeats of any earlier load's
# IDs (or of its own).
all=$out/all.sorted
: > "$all"
total=0
for f in A/ids-A1-1 A/ids-A1-2 A/ids-A2-1 A/ids-A3-1 B/ids-B1-1; do
	name=${f#*/ids-}
	# the readers' IDs (.a, .b), and what a slow guest read on to reach
	# the ceiling (.c, .d): all checked, the readers' counted
	reads=$(cat "$out/$f".a "$out/$f".b 2>/dev/null | wc -l)
	cat "$out/$f".a "$out/$f".b "$out/$f".c "$out/$f".d 2>/dev/null | sort > "$out/$name.sorted"
	cnt=$(wc -l < "$out/$name.sorted")
	sort -u "$out/$name.sorted" > "$out/$name.uniq"
	own=$(( cnt - $(wc -l < "$out/$name.uniq") ))
	cross=$(comm -12 "$out/$name.uniq" "$all" | wc -l)
	sort -m -u "$all" "$out/$name.uniq" -o "$all"
	total=$((total + cnt))
	tag=${name%-*}
	ahead=$(res "$tag" ahead_ms | sed -n "s/^$name //p")
	echo "# $name: $cnt IDs, $((own + cross)) repeats, slots up to ${ahead:-?} ms ahead of the clock"
	case $name in
	A1-1) what="first start" ;;
	A1-2) what="upgrade reload" ;;
	A2-1) what="reboot with the clock behind" ;;
	A3-1) what="start after a crash, clock behind" ;;
	B1-1) what="node ID moved to a machine whose clock is behind" ;;
	esac
	check "$name ($what): $NL_IDS IDs" '[ "$reads" -eq "$NL_IDS" ]'
	check "$name: borrowing reached the ceiling (${ahead:-?} ms ahead, max_borrow_ticks=1000)" \
		'[ "${ahead:-0}" -ge 800 ]'
	check "$name: no repeats ($((own + cross)) of $cnt)" '[ $((own + cross)) -eq 0 ]'
done
check "all $total IDs distinct" '[ "$(wc -l < "$all")" -eq "$total" ]'
if [ "$fail" -ne 0 ]; then
	for t in A1 A2 A3 B1; do
		echo "# --- $t (last 20 lines)"
		tail -n 20 "$out/$t.log" | tr -d '\r' | sed 's/^/# /'
	done
fi
tap_end
