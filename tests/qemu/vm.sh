#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a throwaway VM and run one job script inside it.
#
#   tests/qemu/vm.sh [-k KVER] [-o OUTDIR] [-t TIMEOUT] JOB [ARGS...]
#
# The guest is one of Debian's kernels (/boot/vmlinuz-KVER) under QEMU TCG
# with 2 CPUs. A tiny busybox initramfs mounts this machine's root
# read-only over 9p and chroots into it, so the guest runs the very
# binaries built here; OUTDIR is shared read-write and seen as /mnt
# (nosuid, nodev; what the job leaves there setuid, setgid or a device
# node is taken away after it).
# JOB runs as root in the guest with the repository as working directory;
# $UIDGEN_KO (default module/uidgen.ko) says which build of the module to
# load, for a kernel other than the one module/ was built for; $VM_KERNEL
# boots a kernel built elsewhere instead (see below).
# $VM_QEMU_ARGS (split on blanks) go to QEMU as they are, e.g.
# "-rtc base=2026-11-30T09:00:00" for a guest whose clock is behind.
#
# The guest's CPU is tests/lib/tcg.sh's: its random pool is ready before
# the second CPU starts (why, there).
# The guest's init writes OUTDIR/crng-at-boot, the kernel's "crng init
# done" line if it is there when the job starts; vm.sh says so if not.
#
# VM_NET=1 gives the guest a virtio-net NIC on QEMU's user network (the
# host is 10.0.2.2; the job configures the link itself); VM_SMP sets the
# CPU count (default 2); VM_QEMU_ARGS adds QEMU options (e.g. -rtc base=);
# VM_APPEND adds kernel arguments after the usual ones (a later
# clocksource= wins over clocksource=tsc; tests/observe/pingpong.sh says
# why it takes the HPET).
#
# A guest whose kernel dies before the job starts, or has not started it
# after $VM_BOOT_TIMEOUT seconds (default 300; a boot takes 3 to 10), is
# booted once more: Debian's kernel under TCG very rarely oopses in
# boot-time code patching (see above). "Started" is OUTDIR/started, which
# the guest writes just before the job (it powers off if it cannot):
# before it, nothing of uidgen has run and the module is not loaded. vm.sh
# says so on stderr with the end of that console, appends the console to
# OUTDIR/console-died.log and a line to OUTDIR/boot-retried (kept when a
# caller boots the same OUTDIR again); make check and check-cluster name
# those VMs in their summaries. A guest that dies after the job started
# is never booted again, and a second death is a failure.
#
# Exit status: the job's own, or 124 on timeout, or 125 if the kernel log
# shows a warning, oops or BUG (the log is in OUTDIR/dmesg.txt either way);
# on 124 the end of the console is printed on stderr.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/tests/lib/tcg.sh"
kver=${KVER:-}
out=
timeout=${VM_TIMEOUT:-900}
while getopts "k:o:t:" opt; do
	case $opt in
	k) kver=$OPTARG ;;
	o) out=$OPTARG ;;
	t) timeout=$OPTARG ;;
	*) echo "usage: $0 [-k KVER] [-o OUTDIR] [-t TIMEOUT] JOB [ARGS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$0: no job given" >&2; exit 2; }
[ -n "$kver" ] || kver=$("$repo/tests/qemu/kver.sh" 6.1)
out=${out:-$repo/build/vm-$kver}
job=$(realpath "$1"); shift

# $VM_KERNEL: a kernel built elsewhere (a bzImage with virtio-pci, 9p and
# its virtio transport built in, e.g. tests/upstream-full.sh's), booted in
# place of Debian's; its initramfs loads no modules.
if [ -n "${VM_KERNEL:-}" ]; then
	kernel=$VM_KERNEL
	kver=built-in
else
	kernel=/boot/vmlinuz-$kver
fi
[ -r "$kernel" ] || { echo "$0: $kernel not found (apt-get install linux-image-...)" >&2; exit 2; }

# The initramfs depends only on the kernel version and this script.
initrd=$repo/build/initramfs-$kver.cpio.gz
if [ ! -s "$initrd" ] || [ "$initrd" -ot "$0" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
	cp /bin/busybox "$tmp/bin/busybox"
	: > "$tmp/modules.order"
	[ "$kver" = built-in ] ||
	for m in virtio_pci 9pnet_virtio 9p virtio_net; do
		modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r ko; do
		cp "$ko" "$tmp/lib/modules/"
		basename "$ko" >> "$tmp/modules.order"
	done
	cat > "$tmp/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in $(cat /modules.order); do insmod "/lib/modules/$m"; done
R=/newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot $R
mount -t 9p -o trans=virtio,version=9p2000.L,nosuid,nodev,msize=262144 out $R/mnt
# The repository may live under a directory the tmpfs mounts below hide
# (/tmp, /root, /run): hold on to it and put it back on top.
repo=$(cat $R/mnt/.repo)
mkdir -p /hold
mount --bind "$R$repo" /hold
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
mount -t tmpfs shm $R/dev/shm
mount -t tmpfs tmp $R/tmp
mount -t tmpfs run $R/run
mount -t tmpfs root $R/root
mkdir -p "$R$repo"
mount --move /hold "$R$repo"
# Anything parsed from the console comes after this marker line.
echo "== uidgen-vm: guest up, $(uname -r), $(nproc) CPUs"
dmesg | grep -m 1 'crng init done' > $R/mnt/crng-at-boot
echo up > $R/mnt/started || { echo o > /proc/sysrq-trigger; sleep 10; }
chroot $R /bin/sh -c 'cd "$(cat /mnt/.repo)" && exec /bin/sh /mnt/.job' < /dev/console > /dev/console 2>&1
echo $? > $R/mnt/rc
chroot $R dmesg > $R/mnt/dmesg.txt
sync
umount $R/mnt
echo "== uidgen-vm: guest done"
echo o > /proc/sysrq-trigger
sleep 10
INIT
	chmod +x "$tmp/init"
	mkdir -p "$repo/build"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp.$$"
	mv "$initrd.tmp.$$" "$initrd"
	rm -rf "$tmp"
	trap - EXIT
fi

mkdir -p "$out"
rm -f "$out/rc" "$out/started" "$out/crng-at-boot" "$out/dmesg.txt" "$out/console.log" "$out/qemu.pid"
cp "$job" "$out/job.sh"
echo "$repo" > "$out/.repo"
{
	echo "set -e"
	printf 'export UIDGEN_VM_OUT=/mnt UIDGEN_KVER=%q UIDGEN_KO=%q\n' "$kver" "${UIDGEN_KO:-module/uidgen.ko}"
	printf '%q ' sh /mnt/job.sh "$@"
	echo
} > "$out/.job"

# boot: one run of the guest, its console in $out/console.log; QEMU is
# killed if the job has not started after $VM_BOOT_TIMEOUT seconds.
boot() {
	local t=0
	rm -f "$out/qemu.pid"
	(
		while [ ! -e "$out/started" ] && [ "$t" -lt "${VM_BOOT_TIMEOUT:-300}" ]; do
			sleep 1
			t=$((t + 1))
		done
		[ -e "$out/started" ] || [ ! -s "$out/qemu.pid" ] ||
			kill "$(cat "$out/qemu.pid")" 2> /dev/null || true
	) &
	local watch=$!
	timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
		-pidfile "$out/qemu.pid" "${tcg_args[@]}" -smp "${VM_SMP:-2}" -m 2048 -nographic -no-reboot \
		$([ "${VM_NET:-0}" = 1 ] && echo "-nic user,model=virtio-net-pci" || echo "-nic none") \
		${VM_QEMU_ARGS:-} \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 clocksource=tsc tsc=reliable panic=-1 quiet loglevel=4${VM_APPEND:+ $VM_APPEND}" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$out",mount_tag=out,security_model=none,multidevs=remap \
		< /dev/null 2>&1 | tee "$out/console.log" |
		sed -u -n '/== uidgen-vm: guest up/,${s/.*== uidgen-vm: guest up/== uidgen-vm: guest up/;p}' || true
	kill "$watch" 2> /dev/null || true
	wait "$watch" 2> /dev/null || true
}

# console_end: the last lines of the console, for a failure's report.
console_end() {
	tail -n 30 "$out/console.log" | tr -d '\r' | sed 's/^/vm.sh: | /' >&2
}

# An interrupt (Ctrl-C) ends vm.sh, never starts a second boot.
trap 'exit 130' INT
boot
if [ ! -e "$out/started" ]; then
	echo "vm.sh: the guest's kernel did not reach the job (nothing of uidgen ran); booting it once more. Its console ended:" >&2
	console_end
	cat "$out/console.log" >> "$out/console-died.log"
	echo "$(date -u +%FT%TZ) $kver: died before the job, booted again" >> "$out/boot-retried"
	boot
fi

# OUTDIR is shared with security_model=none: a job, root in the guest,
# can leave setuid or setgid files and device nodes there, real ones on
# this machine. None outlives the run (the guest's mount is nosuid and
# nodev, which only holds in the guest).
find "$out" -xdev \( -type b -o -type c \) -delete 2> /dev/null
find "$out" -xdev -type f -perm /6000 -exec chmod ug-s {} + 2> /dev/null

[ ! -e "$out/started" ] || [ -s "$out/crng-at-boot" ] ||
	echo "vm.sh: the guest's random pool was not ready when the job started (no RDRAND?): it flips later, which TCG can crash on (see tests/lib/tcg.sh)" >&2

if [ ! -s "$out/rc" ]; then
	echo "vm.sh: the guest did not finish (a crash, no job after ${VM_BOOT_TIMEOUT:-300}s, or the ${timeout}s timeout): see $out/console.log; it ended:" >&2
	console_end
	exit 124
fi
rc=$(cat "$out/rc")
# A warning, oops or BUG fails the run even if every test passed.
if grep -E 'WARNING:|BUG:|Oops|general protection fault|Call Trace:|UBSAN:|KASAN:|kmemleak|RCU stall|rcu: INFO|blocked for more than' \
	"$out/dmesg.txt" > "$out/kernel-problems.txt"; then
	echo "vm.sh: kernel log shows problems:" >&2
	cat "$out/kernel-problems.txt" >&2
	exit 125
fi
exit "$rc"
