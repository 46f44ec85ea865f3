#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Finding 4 of the fleet review (issue 17) on real kernels: a cloned VM's
# agent must not free the original's claim. A 3-member etcd on this
# machine's loopback; one guest, A, running from its initramfs alone (a
# 9p root cannot migrate; clone-guest.sh is its job) with the module
# (node_bits=0: one node ID, so that nothing else is free for the clone),
# uidgen-lease (TTL 10 s) and idreader. A holds node 0. Then:
#   A's agent and reader are stopped (SIGSTOP) and QEMU migrates A to a
#     file; A is continued (the original goes on);
#   a second QEMU starts from that file with another vmgenid GUID (the
#     clone): its kernel must revoke node 0 at the fork; its reader is
#     continued once it has (the window design.rst names stays: a clone
#     issues until its kernel has handled the new generation ID);
#   past its deadline: the clone's agent is continued once the clone's
#     CLOCK_BOOTTIME is TTL + 1 s past the stop (1.4.0: release() took
#     ESTALE at the deadline for its own revoke and revoked the lease:
#     the original's);
#   restarted: the clone's agent restarted as systemctl restart does it
#     (1.4.0: drop_stale_claim() saw this machine and boot ID and freed
#     the claim);
#   both run on for more than a TTL.
# Checked: the original's claim on node 0 stays in etcd, unchanged, to
# the end (watch.py); the original issues throughout, its node never
# revoked, no wait above a second; the clone issues nothing (every ID of
# it would be node 0's); every ID of both machines together (check.py):
# no repeat, no tick from two machines. Printed ("# clone ..."): the
# repeats, the original's longest wait, and, if etcd freed its claim, how
# long the original's kernel stayed in force after.
#
#   tests/lease/clone.sh [-k KVER] [-o OUTDIR]
# $LEASE_DIR: the uidgen-lease the guest runs (default lease/, built
# here); $UIDGEN_KO: the module (default module/uidgen.ko, built for
# KVER). 1.4.0: LEASE_DIR=<a build of b251b5b>/lease UIDGEN_KO=<its
# module/uidgen.ko>. etcd's ports: tests/lib/etcd.sh's etcd_client_port
# and etcd_peer_port.
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
. tests/lib/etcd.sh
. tests/lib/initramfs.sh
. tests/lib/migrate.sh
host_opts 6.1 "$@" || exit
host_out lease-clone
make -s -C lease || exit 1
LEASE_DIR=${LEASE_DIR:-lease}
ko=${UIDGEN_KO:-module/uidgen.ko}
[ -x "$LEASE_DIR/uidgen-lease" ] || { echo "no $LEASE_DIR/uidgen-lease" >&2; exit 1; }
[ "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver" ] ||
	{ echo "$ko is not built for $kver" >&2; exit 1; }
echo "# uidgen-lease: $LEASE_DIR/uidgen-lease ($("$LEASE_DIR"/uidgen-lease --version 2>&1 | head -n 1)); module $ko ($(modinfo -F version "$ko"))"
TTL=10
start_s=$(date +%s)

# The guest: busybox, the module, idreader, the agent with its libraries,
# virtio-pci (a module on 6.1), virtio-net and 9p (for the results,
# mounted only at the end).
initramfs_begin "$out" "$ko" || exit 1
r=$out/root
gcc -O2 -Wall -static -o "$r/idreader" tests/lease/idreader.c || exit 1
mkdir -p "$r/lease" "$r/lib/modules"
cp "$LEASE_DIR/uidgen-lease" "$r/lease/"
ldd "$LEASE_DIR/uidgen-lease" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | while read -r lib; do
	mkdir -p "$r$(dirname "$lib")"
	cp -L "$lib" "$r$lib"
done
: > "$r/modules.order"
for m in virtio_pci virtio_net 9pnet_virtio 9p; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r m; do
	cp "$m" "$r/lib/modules/"
	basename "$m" >> "$r/modules.order"
done
cp tests/lease/clone-guest.sh "$r/job.sh"
{
	echo "NAME=A TTL=$TTL NODE_SHIFT=17 NODE_BITS=0"
	echo "MODPARAMS='node_bits=0 ts_bits=46 slot_bits=5 seq_bits=12'"
	echo "EPS=http://10.0.2.2:${etcd_client_port}1,http://10.0.2.2:${etcd_client_port}2,http://10.0.2.2:${etcd_client_port}3"
} > "$r/params"
cat >> "$r/init" <<'INIT'
mount -t tmpfs tmp /tmp
for m in $(cat /modules.order); do insmod "/lib/modules/$m"; done
exec sh /job.sh
INIT
initramfs_end "$out"

declare -A qpid cfd
# vm NAME [QEMU ARGS...]: start NAME's QEMU (its files in $out/NAME); the
# second serial port (commands) on the FIFOs NAME/cmd.in and cmd.out,
# cmd.in also held open here (cfd: a write never waits for a reader).
vm() {
	local d=$out/$1 guid fd
	guid=$(cat /proc/sys/kernel/random/uuid)
	mkdir -p "$d/share"
	mkfifo "$d/cmd.in" "$d/cmd.out"
	exec {fd}<> "$d/cmd.in"
	cfd[$1]=$fd
	echo "# $1: vmgenid GUID $guid"
	qemu-system-x86_64 -accel tcg -smp 1 -m 256 -display none -no-reboot \
		-nic user,model=virtio-net-pci \
		-kernel "/boot/vmlinuz-$kver" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyS0 clocksource=tsc tsc=reliable panic=-1 quiet" \
		-device vmgenid,id=vmgenid0,guid="$guid" \
		-serial file:"$d/console.log" -serial pipe:"$d/cmd" \
		-qmp unix:"$d/qmp.sock",server=on,wait=off \
		-virtfs local,path="$d/share",mount_tag=out,security_model=none,multidevs=remap \
		"${@:2}" 2> "$d/qemu.err" &
	qpid[$1]=$!
}
qmp() { tests/qemu/qmp.py "$out/$1/qmp.sock" "${@:2}"; }
con() { tr -d '\r' < "$out/$1/console.log" 2>/dev/null; }
# vget NAME KEY: the last "RESULT KEY ..." of NAME's console.
vget() { con "$1" | sed -n "s/^RESULT $2 //p" | tail -n 1; }
# vwait NAME REGEX SECONDS [FROM_LINE]: wait for NAME's console to match.
vwait() {
	local i
	for i in $(seq $(($3 * 10))); do
		con "$1" | tail -n +"$((${4:-0} + 1))" | grep -Eq "$2" && return 0
		kill -0 "${qpid[$1]}" 2>/dev/null || { echo "$1's QEMU ended"; break; }
		sleep 0.1
	done
	echo "no '$2' on $1's console:"
	con "$1" | tail -n 8
	return 1
}
vlines() { con "$1" | wc -l; }
# vcmd NAME COMMAND [SECONDS]: have NAME's guest run COMMAND, wait for it.
nc_=0
vcmd() {
	local i
	nc_=$((nc_ + 1))
	echo "$nc_ $2" >&"${cfd[$1]}"
	for i in $(seq $((${3:-30} * 20))); do
		con "$1" | grep -qx "== clone-vm: done $nc_" && return 0
		kill -0 "${qpid[$1]}" 2>/dev/null || break
		sleep 0.05
	done
	echo "$1: no answer to '$2'" >&2
	return 1
}
# vsync NAME: a command line NAME's guest reads whole. The clone's first
# line after the restore loses its first bytes ("6 fence" came as
# "fence", answered "done fence"): "N sync" (a no-op) until one is
# answered, at most 10 times.
vsync() {
	local i
	for i in $(seq 10); do
		vcmd "$1" sync 3 2> /dev/null && return 0
	done
	echo "$1: no answer to 10 syncs" >&2
	return 1
}
# calib NAME VAR: VAR = NAME's CLOCK_REALTIME minus the host's (ms), from
# the quickest of three round trips (not in a subshell: vcmd counts).
calib() {
	local i t0 t1 g best=999999 off=
	for i in 1 2 3; do
		t0=$(date +%s%N)
		vcmd "$1" clock || continue
		t1=$(date +%s%N)
		g=$(vget "$1" clock | cut -d' ' -f1)
		if [ $(((t1 - t0) / 1000000)) -lt "$best" ]; then
			best=$(((t1 - t0) / 1000000))
			off=$(((g - (t0 + t1) / 2) / 1000000))
		fi
	done
	echo "# $1: clock $off ms from the host's (round trip $best ms)"
	printf -v "$2" '%s' "$off"
}
wall_ns() { date +%s%N; }
# The host's CLOCK_REALTIME - CLOCK_BOOTTIME (watch.py's times are boottime).
boot_wall=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_BOOTTIME))')
cleanup() {
	local p
	for p in "${qpid[@]}"; do kill "$p" 2>/dev/null; done
	[ -z "${wpid:-}" ] || kill "$wpid" 2>/dev/null
	etcd_stop
}
trap cleanup EXIT

echo "TAP version 13"
check "a 3-member etcd on 127.0.0.1:${etcd_client_port}N" 'etcd_start "$out/etcd"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
tests/lease/watch.py "$etcd_eps" /uidgen/ "$out/watch.txt" 2>> "$out/watch.err" &
wpid=$!

vm A
check "A boots and puts node 0 in force" 'vwait A "agent\| .*node 0: in force" 300'
tok=$(con A | sed -n 's/.*node 0: in force (token \([0-9]*\).*/\1/p' | head -n 1)
sleep 4
calib A offA0

# The snapshot: A's agent and reader stopped, A migrated, A continued.
check "A's agent and reader stopped" 'vcmd A pause'
cut=$(vget A cut)
snap_ns=$(wall_ns)
migrate_to_file "$out/A/qmp.sock" "$out/snapshot.bin" 1073741824 600
qmp A cont > /dev/null
mig_ms=$((($(wall_ns) - snap_ns) / 1000000))
check "QEMU migrated A to a file ($mig_ms ms) and A runs on" \
	'[ "$migrate_status" = completed ] && snapshot_ready "$out/snapshot.bin" && vcmd A resume'
resume_ns=$(wall_ns)
echo "# A: $cut bytes of IDs before the snapshot; stopped for $(((resume_ns - snap_ns) / 1000000)) ms"

# The clone: its kernel fences at the new generation ID.
vm clone -incoming "exec:cat $out/snapshot.bin"
check "the clone starts from A's snapshot" 'vm_status_wait "$out/clone/qmp.sock" running 300'
check "the clone answers on its command port" 'vsync clone'
check "the clone's kernel revokes node 0 at the fork (VM generation ID changed)" \
	'vcmd clone fence 25 && [ "$(vget clone fence)" -ge 1 ]'
vcmd clone reader
# Past its deadline: the clone's agent wakes after it.
vcmd clone "after $((TTL + 1))" 30
lc=$(vlines clone)
vcmd clone agent
check "deadline: the clone's agent, continued past its deadline, finds it passed" \
	'vwait clone "agent\| .*deadline passed" 20 "$lc"'
sleep 5
# Restarted: it finds a claim of this machine and boot in etcd.
lc=$(vlines clone)
vcmd clone restart
check "restart: the clone's new agent finds the claim of this machine and boot (or, 1.4.0, frees it: the checks below tell)" \
	'vwait clone "agent\| .*(a claim of this machine and boot|released this machine.s claim)" 30 "$lc"'
# Both run on, more than a TTL: a claim freed in etcd is taken by then,
# and a lost lease has shown in the original.
sleep $((TTL + 3))
calib A offA
calib clone offC
end_ns=$(wall_ns)
vcmd clone finish 60
vcmd A finish 60
for m in A clone; do wait "${qpid[$m]}" 2>/dev/null; done
kill -0 "$wpid" 2>/dev/null
watch_alive=$?
kill "$wpid"
wait "$wpid" 2>/dev/null
wpid=
for m in A clone; do
	find "$out/$m/share" -xdev \( -type b -o -type c \) -delete 2>/dev/null
	find "$out/$m/share" -xdev -type f -perm /6000 -exec chmod ug-s {} + 2>/dev/null
done
echo "# A's console: $out/A/console.log; the clone's: $out/clone/console.log; the clone's agent after the fork:"
con clone | sed -n 's/^agent| /#   /p' | tail -n 30

A=$out/A/share
C=$out/clone/share
check "both guests wrote their IDs" '[ -s "$A/ids.txt" ] && [ -s "$C/ids.txt" ]'
tail -c +$((cut + 1)) "$C/ids.txt" > "$out/clone-ids-after.txt"
check "the clone has A's IDs up to the snapshot ($cut bytes), no more before it" \
	'cmp -n "$cut" "$A/ids.txt" "$C/ids.txt"'
nclone=$(grep -c . "$out/clone-ids-after.txt")
echo "# clone: $nclone IDs issued by the clone after the fork (all node 0's)"
check "the clone issues nothing under the original's node 0 ($nclone)" '[ "$nclone" -eq 0 ]'

# etcd: node 0's claim from the snapshot to the end (host boottime).
t0b=$((snap_ns - boot_wall))
t1b=$((end_ns - boot_wall))
awk -v s="$t0b" -v e="$t1b" '$1 > s && $1 < e && $3 ~ /\/node\/0$/' "$out/watch.txt" > "$out/node0-after.txt"
freed=$(awk '$2 == "DELETE" { print $1; exit }' "$out/node0-after.txt")
reclaims=$(awk '$2 == "PUT" && $6 == 1' "$out/node0-after.txt" | grep -c .)
echo "# clone: A's claim on node 0 (token $tok): $( [ -n "$freed" ] && echo "freed in etcd $(((freed - t0b) / 1000000)) ms after the snapshot" || echo "never freed"); $reclaims new claims of node 0 after"
# What the watch saw must include the claim itself, or an empty record
# (watch.py dead, never connected) would pass.
check "etcd's watch ran to the end and saw the original's claim (node 0, token $tok, version 1)" \
	'[ "$watch_alive" -eq 0 ] && awk -v t="$tok" '"'"'$2 == "PUT" && $3 ~ /\/node\/0$/ && $4 == t && $6 == 1'"'"' "$out/watch.txt" | grep -q .'
check "the original's claim on node 0 (token $tok) stays in etcd to the end: not freed, not claimed again" \
	'cat "$out/node0-after.txt"; [ -z "$freed" ] && [ "$reclaims" -eq 0 ]'
# The original: its reader's record after its resume (A's clock, ms).
ra=$(((resume_ns / 1000000) + offA))
# A gap counts if it ends after the resume (one that began before it and
# lasted is a wait of the original's too).
awk -v r="$ra" '($1 == "gap" && $2 / 1000000 + $3 > r) || ($1 == "stop" && $3 / 1000000 > r)' "$A/gaps.txt" > "$out/A-after.txt"
# And the original's last ID (ts_bits 46 over 17 bits of slot and
# sequence, 1 ms ticks from the default epoch) comes well after the
# resume: a reader blocked from before it to the end records no gap or
# stop after it.
lastA=$(tail -n 1 "$A/ids.txt")
lastA_ms=$(( (${lastA:-0} >> 17) + 1767225600000 ))
maxgap=$(awk '$1 == "gap" { if ($3 > m) m = $3 } END { print m + 0 }' "$out/A-after.txt")
stops=$(awk '$1 == "stop" && $3 / 1000000 < e' e=$(((end_ns / 1000000) + offA)) "$out/A-after.txt" | grep -c .)
echo "# clone: the original after its resume: node revoked $stops times, longest wait $maxgap ms"
# Each claim of the original freed in etcd after the snapshot: how long
# its kernel issued on after (host ms; its starts and stops from its
# reader, on A's clock, corrected by offA).
atoks=$(con A | sed -n 's/.*node 0: in force (token \([0-9]*\).*/\1/p' | sort -u | tr '\n' ' ')
awk -v toks=" $atoks" -v live="$tok" -v bw="$boot_wall" -v off="$offA" -v endms=$((end_ns / 1000000)) '
	FNR == NR { if ($1 == "start" || $1 == "stop") { ev[++n] = $1; at[n] = $3 / 1000000 - off } next }
	$2 == "PUT" && $6 == 1 { live = $4 }
	$2 == "DELETE" {
		if (index(toks, " " live " ")) {
			t = ($1 + bw) / 1000000
			on = 0
			for (i = 1; i <= n && at[i] <= t; i++)
				on = ev[i] == "start"
			if (!on)
				printf "# clone: etcd freed the original'"'"'s claim (token %s); it had stopped issuing before\n", live
			else
				printf "# clone: etcd freed the original'"'"'s claim (token %s); its kernel stayed in force %d ms after%s\n",
					live, (i <= n ? at[i] : endms) - t, i <= n ? "" : " (to the end)"
		}
		live = ""
	}' "$A/gaps.txt" "$out/node0-after.txt"
check "the original issues throughout: node 0 never revoked, no wait over 1 s, its last ID $((lastA_ms - ra)) ms after its resume (> TTL s)" \
	'cat "$out/A-after.txt"; [ "$stops" -eq 0 ] && [ "$maxgap" -le 1000 ] && [ $((lastA_ms - ra)) -gt $((TTL * 1000)) ]'
check "the guests' kernel logs are clean" \
	'[ -s "$A/dmesg.txt" ] && [ -s "$C/dmesg.txt" ] && ! cat "$A/dmesg.txt" "$C/dmesg.txt" | grep -E "WARNING:|BUG:|Oops|general protection fault|Call Trace:|UBSAN:|KASAN:|RCU stall|rcu: INFO|blocked for more than"'
check "global check: every ID of both machines, no repeat, no tick of node 0 from both" \
	'tests/lease/check.py --watch "$out/watch.txt" --layout 17 0 --ids "$A/ids.txt" --ids "$out/clone-ids-after.txt" > "$out/global.txt";
	 r=$?; cat "$out/global.txt"; [ $r -eq 0 ] && grep -q "RESULT repeats 0" "$out/global.txt" && grep -q "RESULT shared_ticks 0" "$out/global.txt"'
sed -n 's/^RESULT /# /p' "$out/global.txt"
echo "# clone: $(($(date +%s) - start_s)) s in all"
tap_end
