#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user's own machine, run (tests/system/; bash, sourced or run): one
# guest of tests/system/image.sh's disk under QEMU TCG (tests/lib/tcg.sh's
# CPU), 2 CPUs, booted from the image's own kernel and initrd, systemd as
# PID 1. A run is a directory RUN holding the guest's disk (a qcow2
# overlay over the cached base image: what the guest writes survives its
# reboots, resets and power-offs within the run, never the base), an ssh
# key made for the run, the forwarded loopback port, QEMU's QMP socket,
# its pid and the serial console (console.log, every boot of the run).
# The guest's network is QEMU's user network with restrict=on: it reaches
# nothing, the host's ssh reaches it through the forwarded port.
#
#   machine.sh start RUN [QEMU-ARGS...]  a new run: disk, key; boot
#   machine.sh boot RUN [QEMU-ARGS...]   power on again (after kill or stop)
#   machine.sh ssh RUN COMMAND...        run COMMAND as root in the guest
#   machine.sh put RUN FILE DEST         copy a host file into the guest
#   machine.sh reboot RUN                systemctl reboot, wait for the boot
#   machine.sh reset RUN                 hard reset (QMP system_reset), wait
#   machine.sh kill RUN                  pull the plug (SIGKILL to QEMU)
#   machine.sh stop RUN                  poweroff, wait for QEMU to end
#   machine.sh kernel RUN KVER           boot the guest's own KVER from now on
#
# QEMU boots the kernel directly (no bootloader in the image): the image's
# (image.sh's vmlinuz, initrd.img), or the one `kernel` copied from the
# guest's /boot into RUN, as GRUB would boot the newest after an upgrade.
# QEMU keeps the kernel it started with over reboots and resets: a new one
# takes a power-off (stop) and a boot.
#
# start, boot, reboot and reset return once root's ssh answers in the new
# boot (a boot_id not seen before in the run); they print the seconds
# from power-on (or reset) to that login, and append a line to RUN/boots
# (m_wait). The ssh key reaches the guest in fw_cfg (image.sh's
# uidgen-test-key.service). QEMU-ARGS go to QEMU as they are (e.g.
# -rtc base=2026-11-30T09:00:00 for a clock behind); $MACHINE_BOOT_TIMEOUT
# (default 1200) bounds a boot. Exit status 1 with the end of the console
# on stderr when a boot does not come up.
set -euo pipefail
machine_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$machine_dir/../lib/tcg.sh"
# tcg.sh's machine, its two vCPUs run by one host thread (thread=single):
# with a thread each (MTTCG), the second boot of a run on a loaded host
# (load 9 to 13 on 2 cores) hung in udev: both vCPUs in soft lockups in
# udev workers, growing from 21 s to 133 s, and RCU stalls.
# And the guest's clocks run on its instruction count (-icount
# shift=auto, sleep=on: an idle guest's clock catches up with the host's):
# with them tied to the host's (its TSC), a guest starved by a loaded
# host (load 12 to 17 on 2 cores, four TCG guests of other runs) saw
# its vCPUs "stuck": the second boot of a run logged soft lockups of 45
# to 71 s in modprobe and udev, RCU stalls, and never reached its login
# in 600 s. With icount the same host load gives a slow boot (348 s to
# the login at load 17), no lockup and no stall, and the guest's wall
# clock still the host's (within seconds).
machine_tcg=("${tcg_args[@]}" -icount shift=auto,sleep=on)
machine_tcg[1]+=,thread=single

m_ssh_opts() {
	local run=$1
	echo -i "$run/key" -p "$(cat "$run/port")" -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes \
		-o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=6
}

# m_ssh RUN COMMAND...: COMMAND's status, or 255 if ssh could not.
m_ssh() {
	local run=$1
	shift
	# shellcheck disable=SC2046
	ssh $(m_ssh_opts "$run") root@127.0.0.1 "$@"
}

m_put() {
	m_ssh "$1" "cat > '$3'" < "$2"
}

m_console_end() {
	tail -n 30 "$1/console.log" | tr -d '\r' | sed 's/^/machine.sh: | /' >&2
}

# m_wait RUN T0: wait for an ssh login in a boot not in RUN/boots (T0:
# the host's time of the power-on, reset or reboot command). Appends
# "BOOT_ID LOGIN KERNEL" to RUN/boots: the seconds from T0 to the login,
# and to the kernel's start (the login's time less the guest's uptime
# then: within an ssh round trip); prints LOGIN.
m_wait() {
	local run=$1 t0=$2 out a b
	local limit=$((${t0%.*} + ${MACHINE_BOOT_TIMEOUT:-1200}))
	while :; do
		a=$(date +%s.%N)
		if out=$(m_ssh "$run" 'cat /proc/sys/kernel/random/boot_id; cut -d" " -f1 /proc/uptime' 2> /dev/null) &&
			b=$(date +%s.%N) && set -- $out && [ $# = 2 ] && ! grep -q "^$1 " "$run/boots"; then
			python3 -c 'import sys; t0, a, b, up = map(float, sys.argv[2:]); print("%s %.1f %.1f" % (sys.argv[1], b - t0, (a + b) / 2 - up - t0))' \
				"$1" "$t0" "$a" "$b" "$2" >> "$run/boots"
			tail -n 1 "$run/boots" | cut -d' ' -f2
			return 0
		fi
		if ! kill -0 "$(cat "$run/qemu.pid" 2> /dev/null)" 2> /dev/null; then
			echo "machine.sh: QEMU ended before the guest came up; the console ended:" >&2
			m_console_end "$run"
			return 1
		fi
		if [ "${a%.*}" -ge "$limit" ]; then
			echo "machine.sh: no ssh login after ${MACHINE_BOOT_TIMEOUT:-1200}s; the console ended:" >&2
			m_console_end "$run"
			return 1
		fi
		sleep 2
	done
}

m_boot() {
	local run=$1 image t0
	shift
	image=$(cat "$run/image")
	[ ! -s "$run/vmlinuz" ] || image=$run
	# A port free now, for QEMU's forward to the guest's ssh.
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > "$run/port"
	rm -f "$run/qemu.pid" "$run/qmp.sock"
	t0=$(date +%s.%N)
	qemu-system-x86_64 "${machine_tcg[@]}" -smp 2 -m 2048 -display none \
		-chardev "file,id=con,path=$run/console.log,append=on" -serial chardev:con -monitor none \
		-drive "file=$run/disk.qcow2,if=virtio,format=qcow2,cache=writeback" \
		-nic "user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:$(cat "$run/port")-:22" \
		-kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 clocksource=tsc tsc=reliable" \
		-fw_cfg "name=opt/uidgen/ssh_key,file=$run/key.pub" \
		-qmp "unix:$run/qmp.sock,server=on,wait=off" \
		-pidfile "$run/qemu.pid" -daemonize "$@" || return 1
	m_wait "$run" "$t0"
}

m_start() {
	local run=$1 image
	shift
	image=$("$machine_dir/image.sh") || return 1
	rm -rf "$run"
	mkdir -p "$run"
	echo "$image" > "$run/image"
	: > "$run/boots"
	: > "$run/console.log"
	qemu-img create -q -f qcow2 -F qcow2 -b "$image/base.qcow2" "$run/disk.qcow2" || return 1
	ssh-keygen -q -t ed25519 -N '' -C "uidgen-system-run" -f "$run/key" || return 1
	m_boot "$run" "$@"
}

m_reboot() {
	local run=$1 t0
	t0=$(date +%s.%N)
	m_ssh "$run" systemctl reboot || true
	m_wait "$run" "$t0"
}

m_reset() {
	local run=$1 t0
	t0=$(date +%s.%N)
	python3 "$machine_dir/../qemu/qmp.py" "$run/qmp.sock" system_reset > /dev/null
	m_wait "$run" "$t0"
}

m_kill() {
	local run=$1 pid
	pid=$(cat "$run/qemu.pid" 2> /dev/null) || return 0
	kill -9 "$pid" 2> /dev/null || true
	while kill -0 "$pid" 2> /dev/null; do sleep 0.2; done
	rm -f "$run/qemu.pid"
}

m_kernel() {
	local run=$1 kver=$2
	m_ssh "$run" "cat /boot/vmlinuz-$kver" > "$run/vmlinuz.new" &&
	m_ssh "$run" "cat /boot/initrd.img-$kver" > "$run/initrd.img.new" &&
	[ -s "$run/vmlinuz.new" ] && [ -s "$run/initrd.img.new" ] || return 1
	mv "$run/initrd.img.new" "$run/initrd.img"
	mv "$run/vmlinuz.new" "$run/vmlinuz"
}

m_stop() {
	local run=$1 pid i
	pid=$(cat "$run/qemu.pid" 2> /dev/null) || return 0
	m_ssh "$run" systemctl poweroff || true
	for _ in $(seq 600); do
		kill -0 "$pid" 2> /dev/null || break
		sleep 1
	done
	kill -0 "$pid" 2> /dev/null && { echo "machine.sh: the guest did not power off in 600s; killed" >&2; m_kill "$run"; return 1; }
	rm -f "$run/qemu.pid"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	cmd=${1:-}
	case $cmd in
	start | boot | ssh | put | reboot | reset | kill | stop | kernel) shift; "m_$cmd" "$@" ;;
	*) echo "usage: $0 start|boot|ssh|put|reboot|reset|kill|stop|kernel RUN [ARGS...]" >&2; exit 2 ;;
	esac
fi
