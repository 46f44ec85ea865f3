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
# $SYSTEM_PLAN: the boots after the first, each "reboot", "reset", "kill"
# or "kill-behind" (killed, powered on with the clock 10 minutes behind;
# it stays behind for the boots after it). Default: 10 boots, 5 of them
# ended by a hard reset or a kill: reboot reset kill reset reboot
# kill-behind reset reboot reset. Prints TAP and a "# Totals:" line; exit
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
plan=${SYSTEM_PLAN:-reboot reset kill reset reboot kill-behind reset reboot reset}
behind_min=10
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
# apt's errors come first; its closing warnings come after it has read
# the lists the image keeps (image.sh), which on a loaded host can take
# longer than the timeout: the errors are what shows it fetched nothing.
check "the guest could not have fetched from Debian's archive (apt-get update gets nothing)" \
	'm_ssh "$run" "timeout 60 apt-get -o Acquire::Retries=0 update" > "$out/apt-update.log" 2>&1;
	 cat "$out/apt-update.log"; grep -q "^Err:[0-9]* http://deb.debian.org/" "$out/apt-update.log" &&
	 ! grep -q "^\(Get\|Hit\):" "$out/apt-update.log"'
gkver=$(m_ssh "$run" uname -r)
check "DKMS built and installed uidgen $version for the guest's kernel ($gkver)" \
	'm_ssh "$run" "dkms status uidgen; modinfo -n uidgen" > "$out/dkms-status" && cat "$out/dkms-status" &&
	 grep -qx "uidgen/$version, $gkver, x86_64: installed" "$out/dkms-status" &&
	 grep -q "^/lib/modules/$gkver/updates/dkms/uidgen.ko" "$out/dkms-status"'
check "node ID 7 is active" 'm_ssh "$run" uidgen info > "$out/info" && cat "$out/info" && grep -q "node.*7" "$out/info"'

layout=$(m_ssh "$run" 'cd /sys/module/uidgen/parameters && echo $(cat node_bits slot_bits seq_bits)')

# The test's own service, enabled and started now, as a user would, and
# on the disk (sync) before the plan's first hard reset: a reset a minute
# after it left the unit file and the script empty (ext4's delayed
# allocation, the guest's clock slow under a loaded host), the unit
# masked, and the boot with no service (no .first file, no IDs).
m_put "$run" tests/system/guest/uidgen-test-app /usr/local/bin/uidgen-test-app
m_put "$run" tests/system/guest/uidgen-test-app.service /etc/systemd/system/uidgen-test-app.service
check "the test's service is enabled and started" \
	'm_ssh "$run" "chmod +x /usr/local/bin/uidgen-test-app && systemctl daemon-reload &&
		systemctl enable --now uidgen-test-app.service && sync"'

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
	check "boot $b: the service's first ID came at once ($(head -n 1 "$out/first-$b"))" \
		'grep -Eq "^[0-9.]+ 0x[0-9a-f]{16}$" "$out/first-$b"'
	check "boot $b: uidgen-state.service restored the floor before the service started" \
		'm_ssh "$run" "systemctl show -P ExecMainExitTimestampMonotonic uidgen-state.service;
			systemctl show -P ExecMainStartTimestampMonotonic uidgen-test-app.service;
			systemctl is-active uidgen-state.service uidgen-persist.service uidgen-test-app.service;
			journalctl -b -k -o cat" > "$out/order-$b" && cat "$out/order-$b" &&
		 { read -r s; read -r a; [ "$s" -gt 0 ] && [ "$a" -ge "$s" ]; } < "$out/order-$b" &&
		 [ "$(sed -n 3,5p "$out/order-$b" | tr "\n" " ")" = "active active active " ] &&
		 grep -q "uidgen: node ID 7 assigned (floor [0-9]* ms; grant mode" "$out/order-$b"'
}

# kernel_log_clean WHAT: no warning, oops, BUG or stall in this boot's
# kernel log so far (as tests/qemu/vm.sh's), read before the boot ends.
kernel_log_clean() {
	check "$1: the kernel log shows no warning, oops, BUG or stall" \
		'm_ssh "$run" journalctl -b -k -o cat > "$out/kernel-$n.log" &&
		 grep -q "uidgen: node ID 7 assigned" "$out/kernel-$n.log" &&
		 ! grep -E "WARNING:|BUG:|Oops|general protection fault|Call Trace:|UBSAN:|KASAN:|RCU stall|rcu: INFO|blocked for more than|soft lockup" "$out/kernel-$n.log"'
}

b=0
echo "0 start" > "$out/plan"
for step in $plan; do
	kernel_log_clean "boot $b"
	start_readers "$b"
	sleep 10
	b=$((b + 1))
	echo "$b $step" >> "$out/plan"
	case $step in
	reboot) check "boot $b: reboot while readers run" 'm_reboot "$run" > "$out/login-$b"' ;;
	reset) check "boot $b: hard reset (system_reset) while readers run" 'm_reset "$run" > "$out/login-$b"' ;;
	kill) check "boot $b: QEMU killed while readers run, powered on again" \
		'm_kill "$run" && m_boot "$run" > "$out/login-$b"' ;;
	kill-behind) behind=$(date -u -d "-$behind_min min" +%FT%T)
		check "boot $b: QEMU killed while readers run, powered on with the clock $behind_min minutes behind ($behind)" \
		'm_kill "$run" && m_boot "$run" -rtc "base=$behind" > "$out/login-$b"' ;;
	*) echo "$0: unknown step '$step' in SYSTEM_PLAN" >&2; exit 2 ;;
	esac
	stop_readers
	[ "$fail" -eq 0 ] || { tap_end; exit 1; }
	boot_checks "$b"
done
start_readers "$b"
sleep 10
stop_readers

kernel_log_clean "boot $b (the last)"

# The ordering is what keeps the service from starting before its IDs are
# safe: with the restore held up 20 s (a drop-in's ExecStartPre), the
# service without After= and Requires= starts first and finds no ID to
# take (ENOENT or EADDRNOTAVAIL); with them it waits, and its first ID
# comes after the restore.
m_ssh "$run" 'mkdir -p /etc/systemd/system/uidgen-state.service.d &&
	printf "[Service]\nExecStartPre=/bin/sleep 20\n" > /etc/systemd/system/uidgen-state.service.d/slow.conf'
sed '/^After=uidgen-state.service$/d; /^Requires=uidgen-state.service$/d' \
	tests/system/guest/uidgen-test-app.service > "$out/unordered.service"
m_put "$run" "$out/unordered.service" /etc/systemd/system/uidgen-test-app.service
for order in without with; do
	b=$((b + 1))
	echo "$b reboot ($order the ordering)" >> "$out/plan"
	check "boot $b: reboot, the restore held up 20 s, the service $order After=/Requires=" \
		'm_ssh "$run" systemctl daemon-reload && m_reboot "$run" > "$out/login-$b"'
	id=$(sed -n "$((b + 1))p" "$run/boots" | cut -d' ' -f1)
	for i in $(seq 120); do
		m_ssh "$run" "cat /var/lib/uidgen-test/$id.first" > "$out/first-$b" 2> /dev/null && break
		sleep 1
	done
	if [ $order = without ]; then
		unordered_boot=$id
		check "boot $b: without the ordering the service started first and had no ID ($(head -n 1 "$out/first-$b"))" \
			'grep -Eq "^failed [0-9.]+ uidgen: .*(No such file or directory|Cannot assign requested address)" "$out/first-$b"'
		m_put "$run" tests/system/guest/uidgen-test-app.service /etc/systemd/system/uidgen-test-app.service
	else
		check "boot $b: with it the service waited for the restore and had its first ID ($(head -n 1 "$out/first-$b"))" \
			'grep -Eq "^[0-9.]+ 0x[0-9a-f]{16}$" "$out/first-$b" &&
			 m_ssh "$run" "systemctl show -P ExecMainExitTimestampMonotonic uidgen-state.service;
				systemctl show -P ExecMainStartTimestampMonotonic uidgen-test-app.service" > "$out/order-$b" &&
			 { read -r s; read -r a; [ "$s" -gt 20000000 ] && [ "$a" -ge "$s" ]; } < "$out/order-$b"'
	fi
done
m_ssh "$run" rm -r /etc/systemd/system/uidgen-state.service.d
# Every ID the service wrote, by boot.
# A file the power-off cut may end in NULs (ext4: its size was on disk,
# its last blocks not) and no newline: the NULs go, each file ends a line.
m_ssh "$run" 'cd /var/lib/uidgen-test && for f in *.ids; do { tr -d "\0" < "$f"; echo; } | sed "/^\$/d; s/^/${f%.ids} /"; done' > "$out/ids/app"
check "the guest powers off cleanly" 'm_stop "$run"'

# The boot whose service had no ID (and no reader ran) has none to check.
grep -v "^${unordered_boot:-none} " "$run/boots" > "$out/boots-checked"
check "all IDs of all boots: no repeat, node ID 7, each boot's after the boots before it" \
	'python3 tests/system/ids-check.py "$out/boots-checked" "$out/ids" 7 $layout | tee "$out/ids-check.txt"'

# The note: boot to first ID.
while read -r b step; do
	read -r _ login kstart < <(sed -n "$((b + 1))p" "$run/boots")
	up=
	[ ! -e "$out/first-$b" ] || read -r up _ < "$out/first-$b"
	[[ $up =~ ^[0-9.]+$ ]] || continue
	printf '# boot %s (%s): login %ss after it; kernel start +%ss, first ID at uptime %ss: %.1fs from %s to the first ID\n' \
		"$b" "$step" "$login" "$kstart" "$up" "$(echo "$kstart + $up" | bc)" \
		"$(case $step in reboot*) echo "the reboot command" ;; *) echo "power-on" ;; esac)"
done < "$out/plan"
tap_end
