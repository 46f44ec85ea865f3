#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user's own machine's disk (tests/system/; bash): a Debian 12 guest
# that boots with systemd as PID 1, built once from Debian's archive with
# mmdebstrap and cached outside the checkout, in
# $UIDGEN_SYSTEM_CACHE/<hash of this script>/ (default
# /var/cache/uidgen-system): a change to this script (the recipe) builds
# a new one. It holds what installing the .debs of `make deb` needs
# offline: the kernel (linux-image-amd64, 6.1), its headers, dkms and
# build-essential, so the guest never reaches the archive. It also has,
# downloaded but not installed (in apt's cache, with apt's lists, so that
# a plain `apt install NAME` works offline as it would online), what the
# other suites install as a user would: Debian 12's 6.12 kernel and its
# headers (linux-image-6.12-amd64, bookworm-security; upgrade.sh),
# prometheus-node-exporter and curl (metrics.sh), podman (containers.sh).
#
#   tests/system/image.sh        prints the image's directory, building it
#                                first if it is not there (minutes)
#
# The directory holds base.qcow2 (one ext4 filesystem, no partition
# table, root=/dev/vda), vmlinuz and initrd.img (the image's own /boot,
# for QEMU's direct kernel boot), kver, build.log and build-seconds.
# Root logs in over ssh with the key QEMU passes in fw_cfg as
# opt/uidgen/ssh_key (tests/system/machine.sh), read at every boot by the
# image's uidgen-test-key.service; the serial console is ttyS0.
# Needs root (mmdebstrap's root mode) and the archive (the host's apt
# sources name deb.debian.org; $UIDGEN_SYSTEM_MIRROR overrides).
set -euo pipefail
[ "${1:-}" != --customize ] || { shift; customize_mode=1; }
# Downloaded into the image's apt cache, not installed (see above).
staged="linux-image-6.12-amd64 linux-headers-6.12-amd64 prometheus-node-exporter curl podman"
here=$(cd "$(dirname "$0")" && pwd)
cache=${UIDGEN_SYSTEM_CACHE:-/var/cache/uidgen-system}
mirror=${UIDGEN_SYSTEM_MIRROR:-http://deb.debian.org/debian}
security=${UIDGEN_SYSTEM_SECURITY:-http://deb.debian.org/debian-security}
# customize ROOT: the image's own files, written into the tree before it
# becomes a disk (mmdebstrap's customize hook runs image.sh --customize).
customize() {
	local r=$1
	echo uidgen-guest > "$r/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tuidgen-guest\n' > "$r/etc/hosts"
	echo '/dev/vda / ext4 errors=remount-ro 0 1' > "$r/etc/fstab"
	cat > "$r/etc/systemd/network/80-uidgen-dhcp.network" <<-'NET'
	[Match]
	Name=en*
	[Network]
	DHCP=yes
	NET
	cat > "$r/etc/systemd/system/uidgen-test-key.service" <<-'UNIT'
	# tests/system/image.sh: root's ssh key for this run, from QEMU's fw_cfg
	[Unit]
	Description=uidgen test harness: root's ssh key from QEMU's fw_cfg
	Before=ssh.service
	[Service]
	Type=oneshot
	ExecStart=/sbin/modprobe qemu_fw_cfg
	ExecStart=/bin/sh -c 'umask 077 && mkdir -p /root/.ssh && cat /sys/firmware/qemu_fw_cfg/by_name/opt/uidgen/ssh_key/raw > /root/.ssh/authorized_keys'
	[Install]
	WantedBy=multi-user.target
	UNIT
	chroot "$r" systemctl enable systemd-networkd.service uidgen-test-key.service ssh.service
	# Nothing reaches for the network or spends the CPU on its own.
	chroot "$r" systemctl mask apt-daily.timer apt-daily-upgrade.timer man-db.timer \
		e2scrub_all.timer fstrim.timer
	chroot "$r" passwd -d root > /dev/null   # the serial console, for a look by hand
	# The staged packages: apt's cache holds them and nothing else (the
	# bootstrap's own .debs go first); mmdebstrap keeps lists and cache
	# (--skip=cleanup/apt). With their Recommends, as a user's apt install
	# takes them (mmdebstrap's apt does not: node-exporter's install failed
	# offline for prometheus-node-exporter-collectors and smartmontools).
	chroot "$r" apt-get clean
	chroot "$r" apt-get install -y --download-only -o APT::Install-Recommends=true $staged
	rm -f "$r/etc/resolv.conf"
}
if [ -n "${customize_mode:-}" ]; then
	customize "$1"
	exit
fi

hash=$(sha256sum "$here/image.sh" | cut -c1-16)
dir=$cache/$hash
if [ -s "$dir/base.qcow2" ]; then
	echo "$dir"
	exit 0
fi
command -v mmdebstrap > /dev/null || { echo "$0: no mmdebstrap (apt-get install mmdebstrap)" >&2; exit 2; }
mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9
[ ! -s "$dir/base.qcow2" ] || { echo "$dir"; exit 0; }
tmp=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
echo "image.sh: building the guest's disk in $tmp (a few minutes; log: $tmp/build.log)" >&2

pkgs=systemd-sysv,udev,kmod,dbus,openssh-server,iproute2,procps,less
pkgs+=,linux-image-amd64,linux-headers-amd64,initramfs-tools,zstd
pkgs+=,dkms,build-essential,adduser,libcurl4,libjson-c5

mmdebstrap --mode=root --format=directory --variant=minbase --include="$pkgs" --skip=cleanup/apt \
	--customize-hook="$here/image.sh --customize \"\$1\"" \
	bookworm "$tmp/root" \
	"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
	"deb $security bookworm-security main" > "$tmp/build.log" 2>&1 ||
	{ echo "$0: mmdebstrap failed; the end of $tmp/build.log:" >&2; tail -n 30 "$tmp/build.log" >&2; trap - EXIT; exit 1; }

kver=$(basename "$(ls -d "$tmp"/root/lib/modules/* | sort -V | tail -n 1)")
cp "$tmp/root/boot/vmlinuz-$kver" "$tmp/vmlinuz"
cp "$tmp/root/boot/initrd.img-$kver" "$tmp/initrd.img"
echo "$kver" > "$tmp/kver"
mke2fs -q -t ext4 -L uidgen-root -d "$tmp/root" "$tmp/root.raw" 8G >> "$tmp/build.log" 2>&1
rm -rf "$tmp/root"
qemu-img convert -O qcow2 "$tmp/root.raw" "$tmp/base.qcow2"
rm -f "$tmp/root.raw"
echo $(($(date +%s) - start)) > "$tmp/build-seconds"
mv "$tmp" "$dir"
trap - EXIT
echo "image.sh: built $dir in $(cat "$dir/build-seconds")s, kernel $kver, $(du -h "$dir/base.qcow2" | cut -f1)" >&2
echo "$dir"
