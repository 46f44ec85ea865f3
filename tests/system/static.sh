#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static node ID on the user's own machine, the admin guide verbatim
# (make check-system): make deb builds the packages; a Debian 12 guest
# that boots with systemd (tests/system/machine.sh, offline) installs
# them with the guide's own block (Documentation/admin-guide.rst, "Debian
# packages", marked walked by this suite): apt install ./...deb, DKMS
# builds the module for the guest's kernel, the node ID's first start,
# the units enabled. A service of the test's own
# (tests/system/guest/uidgen-test-app.service, After= and Requires= as
# the guide's "Services that take IDs at boot" says) takes IDs as soon as
# it starts. Then the machine is rebooted, hard reset (QMP system_reset)
# and killed (QEMU's process, the plug pulled) as $SYSTEM_PLAN says,
# while two readers on the host draw IDs from it over ssh; every ID of
# every boot is checked together: no repeat, node ID 7, and every boot's
# IDs after every ID of the boots before it. The note gives the time from
# power-on to the service's first ID.
#
#   tests/system/static.sh [-o OUTDIR]
# $SYSTEM_PLAN: the boots after the first, each "reboot", "reset" or
# "kill" (default: reboot reset). Prints TAP and a "# Totals:" line; exit
# status 1 on any failure. Needs root, QEMU, and the archive for the
# first image build (tests/system/image.sh).
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
host_out system-static
plan=${SYSTEM_PLAN:-reboot reset}
run=$out/run
guide=Documentation/admin-guide.rst
version=$(make -s --no-print-directory version)

cleanup() {
	stop_readers
	[ ! -s "$run/qemu.pid" ] || m_kill "$run"
}
readers=()
stop_readers() {
	local p
	for p in "${readers[@]}"; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
	readers=()
}
trap cleanup EXIT

echo "TAP version 13"

# The guide's block this suite walks: the install, from its apt line.
mkdir -p "$out/blocks"
nb=$(awk -f tests/lib/rst-blocks.awk -v f="$guide" -v dir="$out/blocks" -v n=0 "$guide")
install=
for i in $(seq 1 "$nb"); do
	IFS=$'\t' read -r where kind < "$out/blocks/$i.meta"
	[ "$kind" = "walked: tests/system/static.sh" ] || continue
	case $(head -n 1 "$out/blocks/$i.sh") in
	"apt install linux-headers-"*) install=$out/blocks/$i.sh ;;
	esac
done
check "the admin guide's install block is marked walked by this suite" '[ -n "$install" ] && cat "$install"'
check "make deb" 'make -s deb > "$out/deb.log" 2>&1'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }

check "the guest boots (systemd, ssh login)" 'm_start "$run" > "$out/login-0"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }

# The packages where the guide's block has them (./build/deb/ from /root).
m_ssh "$run" mkdir -p /root/build/deb
for f in build/deb/*_"$version"_*.deb; do
	case $f in *-dbgsym_*) continue ;; esac
	m_put "$run" "$f" "/root/build/deb/$(basename "$f")"
done
m_put "$run" "$install" /root/admin-guide-install.sh
check "the guide's install block, verbatim, as root in /root (apt's question answered y)" \
	'm_ssh "$run" "cd /root && yes | bash -e -x admin-guide-install.sh" > "$out/install.log" 2>&1'
check "the guest could not have fetched from Debian's archive (apt-get update gets nothing)" \
	'm_ssh "$run" "timeout 60 apt-get -o Acquire::Retries=0 update" > "$out/apt-update.log" 2>&1;
	 cat "$out/apt-update.log"; grep -q "^W: Failed to fetch http://deb.debian.org/" "$out/apt-update.log" &&
	 ! grep -q "^Get:" "$out/apt-update.log"'
gkver=$(m_ssh "$run" uname -r)
check "DKMS built and installed uidgen $version for the guest's kernel ($gkver)" \
	'm_ssh "$run" dkms status uidgen | tee /dev/stderr | grep -qx "uidgen/$version, $gkver, x86_64: installed" &&
	 m_ssh "$run" modinfo -n uidgen | grep -q "^/lib/modules/$gkver/updates/dkms/uidgen.ko"'
check "node ID 7 is active" 'm_ssh "$run" uidgen info | tee /dev/stderr | grep -q "node.*7"'

layout=$(m_ssh "$run" 'cd /sys/module/uidgen/parameters && echo $(cat node_bits slot_bits seq_bits)')

# The test's own service, enabled and started now, as a user would.
m_put "$run" tests/system/guest/uidgen-test-app /usr/local/bin/uidgen-test-app
m_put "$run" tests/system/guest/uidgen-test-app.service /etc/systemd/system/uidgen-test-app.service
check "the test's service is enabled and started" \
	'm_ssh "$run" "chmod +x /usr/local/bin/uidgen-test-app && systemctl daemon-reload &&
		systemctl enable --now uidgen-test-app.service"'

# readers: two streams of IDs from the guest to the host, one per CPU.
start_readers() {
	local b=$1 r
	for r in 1 2; do
		( exec ssh $(m_ssh_opts "$run") root@127.0.0.1 \
			'while uidgen -f hex -n 1000; do :; done' ) > "$out/ids/reader-$b-$r" 2> /dev/null &
		readers+=($!)
	done
}
mkdir -p "$out/ids"

# boot_checks N: the service came up in boot N, after the restore.
boot_checks() {
	local b=$1 id i
	id=$(sed -n "$((b + 1))p" "$run/boots" | cut -d' ' -f1)
	for i in $(seq 120); do
		m_ssh "$run" "cat /var/lib/uidgen-test/$id.first" > "$out/first-$b" 2> /dev/null && break
		sleep 1
	done
	check "boot $b: the service's first ID came at once ($(cat "$out/first-$b"))" \
		'grep -Eq "^[0-9.]+ 0x[0-9a-f]{16}$" "$out/first-$b"'
	check "boot $b: uidgen-state.service restored the floor before the service started" \
		'm_ssh "$run" "systemctl show -P ExecMainExitTimestampMonotonic uidgen-state.service;
			systemctl show -P ExecMainStartTimestampMonotonic uidgen-test-app.service;
			systemctl is-active uidgen-state.service uidgen-persist.service uidgen-test-app.service" |
			tee /dev/stderr | { read -r s; read -r a; [ "$s" -gt 0 ] && [ "$a" -ge "$s" ]; } &&
		 m_ssh "$run" journalctl -b -k | grep -q "uidgen: node ID 7 assigned (floor [0-9]* ms; grant mode"'
}

b=0
echo "0 start" > "$out/plan"
for step in $plan; do
	start_readers "$b"
	sleep 10
	b=$((b + 1))
	echo "$b $step" >> "$out/plan"
	case $step in
	reboot) check "boot $b: reboot while readers run" 'm_reboot "$run" > "$out/login-$b"' ;;
	reset) check "boot $b: hard reset (system_reset) while readers run" 'm_reset "$run" > "$out/login-$b"' ;;
	kill) check "boot $b: QEMU killed while readers run, powered on again" \
		'm_kill "$run" && m_boot "$run" > "$out/login-$b"' ;;
	*) echo "$0: unknown step '$step' in SYSTEM_PLAN" >&2; exit 2 ;;
	esac
	stop_readers
	[ "$fail" -eq 0 ] || { tap_end; exit 1; }
	boot_checks "$b"
done
start_readers "$b"
sleep 10
stop_readers

# Every ID the service wrote, by boot.
m_ssh "$run" 'cd /var/lib/uidgen-test && for f in *.ids; do sed "s/^/${f%.ids} /" "$f"; done' > "$out/ids/app"
check "the guest powers off cleanly" 'm_stop "$run"'

check "all IDs of all boots: no repeat, node ID 7, each boot's after the boots before it" \
	'python3 tests/system/ids-check.py "$run/boots" "$out/ids" 7 $layout | tee "$out/ids-check.txt"'

# The note: boot to first ID.
while read -r b step; do
	read -r _ login kstart < <(sed -n "$((b + 1))p" "$run/boots")
	read -r up _ < "$out/first-$b" 2> /dev/null || up=
	[ -n "$up" ] || continue
	printf '# boot %s (%s): login %ss after it; kernel start +%ss, first ID at uptime %ss: %.1fs from %s to the first ID\n' \
		"$b" "$step" "$login" "$kstart" "$up" "$(echo "$kstart + $up" | bc)" \
		"$([ "$step" = reboot ] && echo "the reboot command" || echo "power-on")"
done < "$out/plan"
tap_end
