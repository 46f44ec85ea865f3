# SPDX-License-Identifier: GPL-2.0
# Sourced by the VM suites that boot from an initramfs of their own
# (tests/qemu/snapshot.sh, tests/qemu/debug-vm.sh). Needs $repo.

# initramfs_begin DIR KO: DIR/root/ with busybox, the static uidgen CLI as
# /bin/uidgen and KO as /uidgen.ko, and the start of DIR/root/init: busybox
# applets, /proc, /sys and /dev mounted. Append the rest of the init
# script (cat >> DIR/root/init), then call initramfs_end DIR.
initramfs_begin() {
	mkdir -p "$1/root/bin"
	make -s -C "$repo/userlib" uidgen-static || return 1
	cp /bin/busybox "$1/root/bin/"
	cp "$repo/userlib/uidgen-static" "$1/root/bin/uidgen"
	cp "$2" "$1/root/uidgen.ko"
	cat > "$1/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
INIT
}

# initramfs_end DIR: DIR/initramfs.cpio.gz from DIR/root/.
initramfs_end() {
	chmod +x "$1/root/init"
	(cd "$1/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$1/initramfs.cpio.gz"
}
