#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Suspend/resume and VM snapshot restore, for real, in a VM that runs
# from its initramfs alone (a 9p root can neither be suspended nor
# migrated).
#
# 1. Suspend to mem with pm_test=core (about 5 s asleep): CLOCK_MONOTONIC
#    stops, the wall clock and CLOCK_BOOTTIME go on. IDs minted after the
#    resume must read as wall time.
# 2. Snapshot restore: QEMU (with a vmgenid device, guid=auto) migrates
#    the running guest to a file; a second QEMU starts from that file,
#    with a new VM generation ID. The restored guest must refuse to issue
#    IDs (node ID revoked, with a kernel log line) until a node ID is
#    assigned again.
#
#   tests/qemu/snapshot.sh [-k KVER] [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/tests/lib/host-suite.sh"
host_opts 6.1 "$@" || exit
host_out snapshot
. "$repo/tests/lib/initramfs.sh"
. "$repo/tests/lib/tcg.sh"
initramfs_begin "$out" "$repo/module/uidgen.ko" || exit 1
cat >> "$out/root/init" <<'INIT'
echo 3 > /proc/sys/kernel/printk
echo "== snapshot-vm: up"
insmod /uidgen.ko
uidgen set-node 6 --new > /dev/null
before=$(uidgen)
echo "RESULT before $before"
w0=$(date +%s)
if grep -qw mem /sys/power/state; then
	echo core > /sys/power/pm_test
	echo mem > /sys/power/state
	echo "RESULT suspend_rc $?"
	echo none > /sys/power/pm_test
else
	echo "RESULT suspend_rc no-mem-state"
fi
w1=$(date +%s)
after=$(uidgen)
echo "RESULT wall_slept $((w1 - w0))"
echo "RESULT after $after"
echo "RESULT after_time $(date -u -d "$(uidgen decode "$after" | sed 's/.*time=\([^ .]*\).*/\1/' | tr T ' ')" +%s)"
echo "RESULT wall_now $(date +%s)"

echo "== snapshot-vm: ready for snapshot"
# Only a restored copy of this VM gets a new VM generation ID.
i=0
node_now() { uidgen info | sed -n 's/^node_id: *\([^ ]*\).*/\1/p'; }
while [ "$(node_now)" != unassigned ] && [ $i -lt 900 ]; do
	sleep 0.2
	i=$((i + 1))
done
echo "== snapshot-vm: restored"
echo "RESULT restored_node $(node_now)"
echo "RESULT restored_log $(dmesg | grep 'uidgen: node ID 6 revoked')"
echo "RESULT restored_read $(uidgen 2>&1 | head -n 1)"
uidgen set-node 9 --new > /dev/null
echo "RESULT reassigned $(uidgen decode "$(uidgen)")"
echo "== snapshot-vm: done"
poweroff -f
INIT
initramfs_end "$out"

qemu() {	# qemu N EXTRA...: start QEMU number N in the background
	local n=$1
	shift
	qemu-system-x86_64 "${tcg_args[@]}" -smp 2 -m 512 -display none -no-reboot -nic none \
		-kernel "/boot/vmlinuz-$kver" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyS0 clocksource=tsc tsc=reliable panic=-1 quiet" \
		-device vmgenid,id=vmgenid0,guid=auto \
		-serial file:"$out/console$n.log" \
		-qmp unix:"$out/qmp$n.sock",server=on,wait=off "$@" 2> "$out/qemu$n.err" &
}

wait_for() {	# wait_for FILE PATTERN SECONDS PID: gives up when PID is gone
	local i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$4" 2>/dev/null || return 1
		sleep 0.5
		i=$((i + 1))
		[ $i -lt $(($3 * 2)) ] || return 1
	done
}

wait_for_file() {	# wait_for_file FILE SECONDS
	local i=0
	until [ -e "$1" ]; do
		sleep 0.5
		i=$((i + 1))
		[ $i -lt $(($2 * 2)) ] || return 1
	done
}

qmp() { "$repo/tests/qemu/qmp.py" "$@"; }

migrated=no
qemu 1
q1=$!
if wait_for "$out/console1.log" "ready for snapshot" 300 $q1; then
	# QEMU 7.2 has no file: URI. Its exec: child may still be writing
	# when QEMU reports the migration done, so the file only gets its
	# name once cat has closed it.
	qmp "$out/qmp1.sock" migrate \
		"{\"uri\": \"exec:cat > $out/snapshot.tmp && mv $out/snapshot.tmp $out/snapshot.bin\"}" \
		> /dev/null
	for _ in $(seq 600); do
		status=$(qmp "$out/qmp1.sock" query-migrate | sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p')
		[ "$status" = completed ] || [ "$status" = failed ] && break
		sleep 0.5
	done
fi
qmp "$out/qmp1.sock" quit > /dev/null 2>&1
wait $q1 2>/dev/null
if [ "${status:-}" = completed ] && wait_for_file "$out/snapshot.bin" 60; then
	migrated=yes
fi

if [ $migrated = yes ]; then
	qemu 2 -incoming "exec:cat $out/snapshot.bin"
	q2=$!
	wait_for "$out/console2.log" "snapshot-vm: done" 300 $q2
	kill $q2 2>/dev/null
	wait $q2 2>/dev/null
fi

get() { sed -n "s/^RESULT $1 //p" "$out"/console*.log | tr -d '\r' | head -n 1; }

echo "TAP version 13"
check "suspend to mem with pm_test=core" '[ "$(get suspend_rc)" = 0 ]'
check "the wall clock moved on by the sleep ($(get wall_slept) s)" '[ "$(get wall_slept)" -ge 4 ]'
at=$(get after_time); wn=$(get wall_now)
check "IDs after resume read as wall time (ID $at, wall $wn)" \
	'[ -n "$at" ] && [ $((wn - at)) -le 1 ] && [ $((at - wn)) -le 1 ]'
check "and sort after the ones before" '[ "$(get after)" -gt "$(get before)" ]'
check "QEMU migrated the running guest to a file" '[ $migrated = yes ]'
check "the restored VM's node ID is revoked" '[ "$(get restored_node)" = unassigned ]'
check "with a kernel log line" \
	'get restored_log | grep -q "revoked (VM fork or snapshot restore detected)"'
check "the restored VM issues nothing" \
	'get restored_read | grep -q "Cannot assign requested address"'
check "until an administrator assigns a node ID" 'get reassigned | grep -q " node=9 "'
if [ $fail -ne 0 ]; then
	for f in "$out"/console*.log "$out"/qemu*.err; do
		echo "# --- $f (last 15 lines)"
		tail -n 15 "$f" 2>/dev/null | tr -d '\r' | sed 's/^/# /'
	done
	ls -l "$out" | sed 's/^/# /'
fi
tap_end
