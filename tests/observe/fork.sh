#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 30: observe racing a VM fork. A VM that runs from its initramfs
# alone (a 9p root cannot migrate; as tests/qemu/snapshot.sh) with a
# vmgenid device: node ID 6 assigned, then fork-guest (fork-guest.c, one
# process that keeps its libuidgen handle and cache throughout) caches a
# run, observes an ID 300 ms ahead and caches a run above it. QEMU
# migrates the running guest to a file; a second QEMU starts from it with
# a new VM generation ID. Checked in the copy: the fork revoke fences
# whatever was observed (node ID revoked, the run cached before refused,
# EADDRNOTAVAIL, the fence moved), the observed ID is still on the page,
# an observe with no node ID in force is taken, and once node 9 is
# assigned the next ID is above everything observed and minted before.
#
#   tests/observe/fork.sh [-k KVER] [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
. "$repo/tests/lib/host-suite.sh"
host_opts 6.1 "$@" || exit
host_out observe-fork
. "$repo/tests/lib/initramfs.sh"
. "$repo/tests/lib/tcg.sh"
make -s -C userlib libuidgen.a || exit 1
cc -static -O2 -Wall -Wextra -D_GNU_SOURCE -Iuapi -Iuserlib -o "$out/fork-guest" \
	tests/observe/fork-guest.c userlib/libuidgen.a -lpthread || exit 1
initramfs_begin "$out" "$repo/module/uidgen.ko" || exit 1
cp "$out/fork-guest" "$out/root/fork-guest"
cat >> "$out/root/init" <<'INIT'
echo 3 > /proc/sys/kernel/printk
echo "== fork-vm: up"
insmod /uidgen.ko
uidgen set-node 6 --new > /dev/null
/fork-guest
echo "RESULT restored_log $(dmesg | grep 'uidgen: node ID 6 revoked')"
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

qmp() { "$repo/tests/qemu/qmp.py" "$@"; }

migrated=no
status=
qemu 1
q1=$!
if wait_for "$out/console1.log" "ready for snapshot" 300 $q1; then
	# As snapshot.sh: QEMU 7.2 has no file: URI, and its exec: child may
	# still be writing when QEMU says the migration is done.
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
for _ in $(seq 120); do
	[ -e "$out/snapshot.bin" ] && break
	sleep 0.5
done
[ "$status" = completed ] && [ -e "$out/snapshot.bin" ] && migrated=yes
if [ $migrated = yes ]; then
	qemu 2 -incoming "exec:cat $out/snapshot.bin"
	q2=$!
	wait_for "$out/console2.log" "fork-guest: done" 300 $q2
	sleep 1
	kill $q2 2>/dev/null
	wait $q2 2>/dev/null
fi

# get NAME [N]: the value on console N's (default: the copy's, 2) RESULT line.
get() { sed -n "s/^RESULT $1 //p" "$out/console${2:-2}.log" | tr -d '\r' | head -n 1; }
gt() { [ -n "$1" ] && [ -n "$2" ] && python3 -c "import sys; sys.exit(0 if $1 > $2 else 1)"; }

x=$(get x 1) a=$(get a 1) b=$(get b 1) c=$(get c 1)
echo "TAP version 13"
check "the original observed an ID 300 ms ahead" '[ "$(get observe_before 1)" = 0 ]'
check "its next ID is above it, the run cached before cut" 'gt "$b" "$x" && ! gt "$a" "$x"'
check "QEMU migrated the running guest to a file" '[ $migrated = yes ]'
check "the copy's node ID is revoked at the fork" '[ "$(get restored_node)" = unassigned ]'
check "with a kernel log line" 'get restored_log | grep -q "revoked (VM fork or snapshot restore detected)"'
check "the fence moved" '[ "$(get fence_after)" != "$(get fence_before 1)" ]'
check "the run cached above the observed ID is refused (EADDRNOTAVAIL)" '[ "$(get cached_next)" = "-99 0" ]'
check "the page still holds the observed ID" '[ "$(get page_observed)" = "$x" ]'
check "an observe with no node ID in force is taken" '[ "$(get observe_unassigned)" = 0 ]'
check "node 9 assigned in the copy" '[ "$(get reassign)" = 0 ]'
e=$(get e) e=${e#0 }
check "its next ID is node 9's and above all observed and minted before" \
	'[ "$(get e)" = "0 $e" ] && [ "$(get e_node)" = 9 ] && gt "$e" "$x" && gt "$e" "$(get y)" && gt "$e" "$c"'
if [ $fail -ne 0 ]; then
	for f in "$out"/console*.log "$out"/qemu*.err; do
		echo "# --- $f (last 15 lines)"
		tail -n 15 "$f" 2>/dev/null | tr -d '\r' | sed 's/^/# /'
	done
fi
tap_end
