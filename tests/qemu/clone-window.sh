#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How long a restored copy of a VM (the clone) mints under the original's
# node ID before its kernel's VM generation ID handler revokes it, and
# what that means for repeats. Runnable by hand; not part of make check
# (a measurement, minutes long, whose figures move with the host's load).
#
# One guest, the original, running from its initramfs alone (a 9p root
# cannot migrate), node ID 6, with window-reader minting one ID per
# read() without pause. For each of ROUNDS restores:
#   the reader marks its ring; QEMU stops the original and migrates it to
#   a file (the snapshot);
#   a second QEMU starts from that file with a vmgenid GUID of its own (the
#     clone) and runs until its reader gets EADDRNOTAVAIL, which dumps the
#     ring from the mark (IDs with their CLOCK_BOOTTIME) to the host;
#   the original is continued, mints on for HOLD seconds, and dumps too.
# The original is held stopped while its clone runs only to keep the two
# off the host's CPUs at once: a TCG guest's clocks stand still while it
# is stopped, so it mints in the same ticks after its resume whenever that
# is, as a copy running beside it would. clone-window.py compares the
# dumps: the window (the snapshot point to the revoke, in the clone's
# guest time, which is its time running after the resume), the IDs the
# clone minted in it, and how many of those the original minted too.
#
#   tests/qemu/clone-window.sh [-k KVER] [-o OUTDIR] [-n ROUNDS] [-c CPUS]
# ROUNDS defaults to 10, CPUS (the guests' -smp) to 2. Prints one line a
# restore, "# round I: window_ms W ..." (clone-window.py says what each
# field is), then "RESULT FIELD MIN MEDIAN MAX" over the rounds for
# window_ms, last_ms, ids, repeats, notify_ms, revoked_ms and orig_ms,
# and TAP checks of what does not depend on timing (each clone revoked,
# the dumps share the history up to the snapshot, the original never
# revoked, its dump reached past each clone's window). No check on the
# figures: they move with the host's load. About 45 s a restore with 2
# vCPUs, a minute with one; the dumps take about 20 MB a restore in
# OUTDIR (default build/clone-window-KVER). Exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
rounds=10
cpus=2
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) rounds=$2; shift 2 ;;
	-c) cpus=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
. tests/lib/host-suite.sh
. tests/lib/initramfs.sh
. tests/lib/migrate.sh
. tests/lib/tcg.sh
host_opts 6.1 "${args[@]}" || exit
host_out clone-window
HOLD=3
ko=module/uidgen.ko
[ "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver" ] ||
	{ echo "$ko is not built for $kver: make module KVER=$kver" >&2; exit 1; }

initramfs_begin "$out" "$ko" || exit 1
r=$out/root
gcc -O2 -Wall -static -o "$r/window-reader" tests/qemu/window-reader.c || exit 1
mkdir -p "$r/lib/modules"
: > "$r/modules.order"
for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r m; do
	cp "$m" "$r/lib/modules/"
	basename "$m" >> "$r/modules.order"
done
cat >> "$r/init" <<'INIT'
echo 3 > /proc/sys/kernel/printk
mount -t tmpfs tmp /tmp
for m in $(cat /modules.order); do insmod "/lib/modules/$m"; done
insmod /uidgen.ko
uidgen set-node 6 --new > /dev/null
share() {	# share FILE...: copy to the host's 9p share (mounted only now)
	mkdir -p /share
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /share &&
		cp "$@" /share/ && sync && umount /share
}
# The reader; in a clone it ends at the revoke, and so does the clone.
(
	/window-reader /tmp &
	echo $! > /tmp/rpid
	wait $!
	rc=$?
	echo "== clone-window: reader exited $rc"
	dmesg > /tmp/dmesg.txt
	[ $rc -ne 3 ] || share /tmp/clone.bin /tmp/dmesg.txt
	echo "== clone-window: clone done"
	poweroff -f
) &
while [ ! -s /tmp/rpid ]; do usleep 10000; done
rpid=$(cat /tmp/rpid)
stty -F /dev/ttyS1 raw -echo
exec 3< /dev/ttyS1
echo "== clone-window: up"
while read -r id c <&3; do
	case $c in
	mark) kill -USR1 "$rpid"; usleep 100000 ;;
	dump)
		rm -f /tmp/orig.bin
		kill -USR2 "$rpid"
		while [ ! -e /tmp/orig.bin ]; do usleep 50000; done
		dmesg > /tmp/dmesg.txt
		share /tmp/orig.bin /tmp/dmesg.txt ;;
	esac
	echo "== clone-window: done $id"
done
INIT
initramfs_end "$out"

declare -A qpid
# vm NAME [QEMU ARGS...]: start NAME's QEMU, its files in $out/NAME; the
# second serial port reads commands from the FIFO NAME/cmd.in.
vm() {
	local d=$out/$1 guid
	guid=$(cat /proc/sys/kernel/random/uuid)
	mkdir -p "$d/share"
	mkfifo "$d/cmd.in" "$d/cmd.out"
	qemu-system-x86_64 "${tcg_args[@]}" -smp "$cpus" -m 512 -display none -no-reboot -nic none \
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
# vwait NAME REGEX SECONDS: wait for NAME's console to match.
vwait() {
	local i
	for i in $(seq $(($3 * 10))); do
		con "$1" | grep -Eq "$2" && return 0
		kill -0 "${qpid[$1]}" 2>/dev/null || { echo "$1's QEMU ended"; break; }
		sleep 0.1
	done
	echo "no '$2' on $1's console:"
	con "$1" | tail -n 8
	return 1
}
nc_=0
vcmd() {	# vcmd NAME COMMAND: have NAME's guest do COMMAND, wait for it
	nc_=$((nc_ + 1))
	echo "$nc_ $2" >&"$cfd"
	vwait "$1" "^== clone-window: done $nc_\$" 120
}
cleanup() {
	local p
	for p in "${qpid[@]}"; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT

echo "TAP version 13"
vm orig
exec {cfd}<> "$out/orig/cmd.in"
check "the original boots with node ID 6 and its reader minting" \
	'vwait orig "== clone-window: up" 300 && vwait orig "== reader: up" 10'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
sleep 2
revoked=0 measured=0
: > "$out/rounds.txt"
for i in $(seq "$rounds"); do
	c=clone$i
	vcmd orig mark > /dev/null || break
	qmp orig stop > /dev/null
	migrate_to_file "$out/orig/qmp.sock" "$out/snapshot.bin" "" 1200
	snapshot_ready "$out/snapshot.bin"
	[ "$migrate_status" = completed ] && [ -s "$out/snapshot.bin" ] ||
		{ echo "# round $i: migration $migrate_status"; break; }
	vm "$c" -incoming "exec:cat $out/snapshot.bin"
	# The snapshot is of a stopped VM: its copy waits, loaded, for cont.
	vm_status_wait "$out/$c/qmp.sock" paused 1200
	qmp "$c" cont > /dev/null
	vwait "$c" "== clone-window: clone done" 300 > "$out/$c/wait.log"
	wait "${qpid[$c]}" 2>/dev/null
	unset "qpid[$c]"
	con "$c" | grep -q "== reader: revoked" && revoked=$((revoked + 1))
	qmp orig cont > /dev/null
	sleep "$HOLD"
	vcmd orig dump > /dev/null || break
	mv "$out/orig/share/orig.bin" "$out/$c/orig.bin"
	line=$(tests/qemu/clone-window.py "$out/$c/orig.bin" "$out/$c/share/clone.bin" "$out/$c/share/dmesg.txt" 2>&1)
	echo "# round $i: ${line#RESULT }"
	case $line in RESULT\ window_ms*) measured=$((measured + 1)); echo "${line#RESULT }" >> "$out/rounds.txt" ;; esac
	rm -f "$out/snapshot.bin"
done

# dist FIELD: min, median and max of FIELD over the rounds.
dist() {
	awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$out/rounds.txt" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%s %s %s\n", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR] }'
}
for f in window_ms last_ms ids repeats notify_ms revoked_ms orig_ms; do
	echo "RESULT $f $(dist $f)"
done
check "every clone's node ID was revoked ($revoked of $rounds)" '[ "$revoked" -eq "$rounds" ]'
check "every round measured: the dumps share the history up to the snapshot ($measured of $rounds)" \
	'[ "$measured" -eq "$rounds" ]'
check "the original was never revoked" '! con orig | grep -q "== reader: revoked"'
check "the original covered each clone's window" \
	'awk '"'"'{ for (i = 1; i < NF; i++) { if ($i == "window_ms") w = $(i + 1); if ($i == "orig_ms") o = $(i + 1) } if (o < w) exit 1 }'"'"' "$out/rounds.txt"'
vcmd orig quit > /dev/null 2>&1
qmp orig quit > /dev/null 2>&1
tap_end
