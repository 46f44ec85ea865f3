#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel upgrade and the packages' removal on the user's own machine,
# the admin guide verbatim (Documentation/admin-guide.rst; make
# check-system): the Debian 12 guest of
# tests/system/machine.sh, on Debian's 6.1 kernel, installs make deb's
# packages with the guide's block and takes IDs; then the guide's
# "A new kernel" block installs Debian 12's 6.12 kernel and its headers
# (linux-image-6.12-amd64, staged offline in the image by image.sh): DKMS
# builds uidgen for it; the machine powers off and boots 6.12 (the newest,
# as GRUB would: QEMU boots it directly); the module loads,
# uidgen-state.service restores the floor, and every ID of 6.12 sorts
# after every ID of 6.1 (tests/system/ids-check.py: no repeat, node 7).
# Then the guide's "Removing the packages" block: the floor saved, the
# module unloaded, the packages purged; nothing of theirs is left
# (dpkg -S, /lib/modules of both kernels, DKMS's tree, the units) but
# what the guide says stays, and the next boot is clean.
#
#   tests/system/upgrade.sh [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
. tests/system/machine.sh
set +e
out=
while getopts "o:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
kver=guest
host_out system-upgrade
run=$out/run
. tests/system/lib.sh
trap '[ ! -s "$run/qemu.pid" ] || m_kill "$run"' EXIT
echo "TAP version 13"

install=$(guide_block tests/system/static.sh "apt install linux-headers-")
upgrade=$(guide_block tests/system/upgrade.sh "apt install linux-image-6.12")
remove=$(guide_block tests/system/upgrade.sh "systemctl disable")
check "the admin guide's install block (walked by static.sh), its new-kernel and removal blocks (by this suite)" \
	'[ -n "$install" ] && [ -n "$upgrade" ] && [ -n "$remove" ] && cat "$install" "$upgrade" "$remove"'
check "make deb" 'make -s deb > "$out/deb.log" 2>&1'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
check "the guest boots (systemd, ssh login)" 'm_start "$run" > "$out/login-0"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
old=$(m_ssh "$run" uname -r)
check "the packages installed with the guide's block on $old" \
	'sys_put_debs && guide_run install "$install"'
check "DKMS built uidgen $version for $old; node ID 7 active" \
	'm_ssh "$run" "dkms status uidgen; uidgen info" > "$out/dkms-0" && cat "$out/dkms-0" &&
	 grep -qx "uidgen/$version, $old, x86_64: installed" "$out/dkms-0" && grep -q "^node_id: *7$" "$out/dkms-0"'
mkdir -p "$out/ids"
check "boot 0 ($old): 20000 IDs" 'sys_draw "$out/ids/reader-0-1" 20000'
layout=$(m_ssh "$run" 'cd /sys/module/uidgen/parameters && echo $(cat node_bits slot_bits seq_bits)')
read -r tick_us epoch_ms < <(m_ssh "$run" 'cd /sys/module/uidgen/parameters && echo $(cat tick_us epoch_ms)')

# The new kernel, the guide's way; DKMS builds for it on the way in.
check "the guide's new-kernel block: Debian 12's 6.12 kernel and headers installed (offline, from the image's apt cache)" \
	'guide_run upgrade "$upgrade"'
new=$(m_ssh "$run" "ls /lib/modules | grep '^6\.12\.' | sort -V | tail -n 1")
check "DKMS built and installed uidgen $version for the new kernel ($new) too" \
	'm_ssh "$run" "dkms status uidgen; modinfo -k $new -n uidgen; modinfo -k $new -F vermagic uidgen" > "$out/dkms-1" &&
	 cat "$out/dkms-1" && [ -n "$new" ] &&
	 grep -qx "uidgen/$version, $new, x86_64: installed" "$out/dkms-1" &&
	 grep -qx "uidgen/$version, $old, x86_64: installed" "$out/dkms-1" &&
	 grep -q "^/lib/modules/$new/updates/dkms/uidgen.ko" "$out/dkms-1" &&
	 grep -q "^$new " "$out/dkms-1"'
check "boot 0: 20000 more IDs, then the machine powers off (the floor saved)" \
	'sys_draw "$out/ids/reader-0-2" 20000 && m_stop "$run"'
check "boot 1: the machine boots $new (the newest kernel in /boot, as GRUB would)" \
	'm_kernel "$run" "$new" && m_boot "$run" > "$out/login-1" && [ "$(m_ssh "$run" uname -r)" = "$new" ]'
check "boot 1 ($new): the module loaded at boot from DKMS's tree, the floor restored, node ID 7, the units active" \
	'm_ssh "$run" "uname -r; cat /sys/module/uidgen/version; modinfo -n uidgen; uidgen info;
		systemctl is-active uidgen-state.service uidgen-persist.service; journalctl -b -k -o cat | grep uidgen:" > "$out/boot-1" &&
	 cat "$out/boot-1" && grep -qx "$version" "$out/boot-1" &&
	 grep -q "^/lib/modules/$new/updates/dkms/uidgen.ko" "$out/boot-1" && grep -q "^node_id: *7$" "$out/boot-1" &&
	 [ "$(grep -cx active "$out/boot-1")" = 2 ] &&
	 grep -q "uidgen: node ID 7 assigned (floor [1-9][0-9]* ms" "$out/boot-1"'
# The floor the state file gave 6.1's successor: at or above 6.1's last ID.
floor=$(sed -n 's/.*uidgen: node ID 7 assigned (floor \([0-9]*\) ms.*/\1/p' "$out/boot-1" | tail -n 1)
last=$(sort "$out/ids/reader-0-1" "$out/ids/reader-0-2" | tail -n 1)
# An ID's time: its timestamp field (above node, slot and sequence) in
# ticks from the epoch.
set -- $layout
t=$(python3 -c 'import sys; i, s, tick, ep = map(int, sys.argv[1:]); print(ep + (i >> s) * tick // 1000)' \
	"$((last))" "$(($1 + $2 + $3))" "$tick_us" "$epoch_ms")
check "boot 1: the floor ($floor ms) is at or above the time of $old's last ID ($last, $t ms)" \
	'[ -n "$floor" ] && [ -n "$t" ] && [ "$floor" -ge "$t" ]'
check "boot 1 ($new): 20000 IDs" 'sys_draw "$out/ids/reader-1-1" 20000'
check "boot 1: the kernel log shows no warning, oops, BUG or stall" \
	'm_ssh "$run" journalctl -b -k -o cat > "$out/kernel-1.log" &&
	 ! grep -E "WARNING:|BUG:|Oops|general protection fault|Call Trace:|UBSAN:|KASAN:|RCU stall|rcu: INFO|blocked for more than|soft lockup" "$out/kernel-1.log"'
check "all IDs of both kernels: no repeat, node ID 7, 6.12's after 6.1's" \
	'python3 tests/system/ids-check.py "$run/boots" "$out/ids" 7 $layout | tee "$out/ids-check.txt"'

# Removal, the guide's way.
check "the guide's removal block: the units stopped (the floor saved), the module unloaded, the packages purged" \
	'guide_run remove "$remove"'
check "the units stopped cleanly: inactive, not failed; the stop saved the floor" \
	'm_ssh "$run" "systemctl is-active uidgen-state.service uidgen-persist.service; systemctl is-failed uidgen-state.service uidgen-persist.service;
		journalctl -b -u uidgen-state.service -o cat" > "$out/stopped" ; cat "$out/stopped";
	 [ "$(sed -n 1,2p "$out/stopped" | xargs)" = "inactive inactive" ] &&
	 ! grep -qx failed "$out/stopped" && grep -q "saved node_id=7 floor_ms=[1-9]" "$out/stopped"'
check "the module is unloaded: no /dev/uid, no /sys/module/uidgen" \
	'm_ssh "$run" "! test -e /dev/uid && ! test -e /sys/module/uidgen"'
check "dpkg knows no uidgen package and no file of one" \
	'm_ssh "$run" "dpkg -l | grep uidgen; dpkg -S uidgen" > "$out/dpkg" 2>&1; cat "$out/dpkg";
	 ! grep -q "^[a-z][a-z] " "$out/dpkg" && grep -q "no path found matching pattern" "$out/dpkg"'
check "no uidgen module in /lib/modules ($old, $new), no DKMS tree, no source, no unit, no udev rule" \
	'm_ssh "$run" "find /lib/modules /var/lib/dkms /usr/src /lib/systemd /etc/systemd /usr/lib/udev /etc/udev /etc/modules-load.d /usr/bin /usr/sbin /usr/lib /usr/include /usr/share -iname \"*uidgen*\"" > "$out/left" ; cat "$out/left"; [ ! -s "$out/left" ]'
last1=$(sort "$out/ids/reader-1-1" | tail -n 1)
t1=$(python3 -c 'import sys; i, s, tick, ep = map(int, sys.argv[1:]); print(ep + (i >> s) * tick // 1000)' \
	"$((last1))" "$(($1 + $2 + $3))" "$tick_us" "$epoch_ms")
check "the state file the stop left holds node ID 7 and a floor at or above $new's last ID ($t1 ms)" \
	'm_ssh "$run" cat /var/lib/uidgen/state > "$out/state" && cat "$out/state" &&
	 f=$(sed -n "s/.*floor_ms=\([0-9]*\).*/\1/p" "$out/state" | head -n 1) && grep -q "node_id=7" "$out/state" &&
	 [ -n "$f" ] && [ "$f" -ge "$t1" ]'
check "what stays is what the guide says: the state file (node ID 7's floor) and the group uidgen" \
	'm_ssh "$run" "ls -A /var/lib/uidgen; getent group uidgen | cut -d: -f1" > "$out/stays"; cat "$out/stays";
	 [ "$(xargs < "$out/stays")" = "state uidgen" ]'
check "boot 2: the machine reboots without uidgen, its boot clean (no failed unit)" \
	'm_reboot "$run" > "$out/login-2" &&
	 for i in $(seq 60); do s=$(m_ssh "$run" systemctl is-system-running); case $s in starting) sleep 2 ;; *) break ;; esac; done;
	 echo "$s"; m_ssh "$run" "systemctl --failed --no-legend; lsmod | grep uidgen"; [ "$s" = running ]'
check "the guest powers off cleanly" 'm_stop "$run"'
read -r _ l0 k0 < <(sed -n 1p "$run/boots")
read -r _ l1 k1 < <(sed -n 2p "$run/boots")
echo "# $old: login ${l0}s after power-on; $new: login ${l1}s after power-on"
tap_end
