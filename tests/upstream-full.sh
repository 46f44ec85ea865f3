#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The upstream suite's long half (make check-upstream-full; not in make
# check): make upstream's series in a kernel built from it. On a tree of
# its own (a clone of tools/upstream.sh's pristine tree) with the series
# applied: the whole kernel with CONFIG_UIDGEN=y (x86_64 defconfig, with
# KUnit and uidgen's KUnit tests built in, and what the kselftests' config
# asks for), drivers/misc/uidgen/ with W=1 as =y, no warning from the
# build; make htmldocs of Documentation/userspace-api/ with no warning
# (and the ABI file parsed by get_abi.pl without one); then that kernel
# booted under QEMU (tests/qemu/vm.sh with VM_KERNEL), where
# run_kselftest.sh runs the series' kselftests, installed by
# "make -C tools/testing/selftests TARGETS=drivers/misc/uidgen install":
# every test passes or skips. The KUnit suites are built in but not run
# at boot (KUNIT_DEFAULT_ENABLED off: under TCG they would hold the boot
# for minutes); tests/kunit/run.sh runs them.
# TAP with a "# Totals:" line; exit 1 on any failure.
#
#   tests/upstream-full.sh [-o OUTDIR]
#
# Cost: the first run builds the whole kernel, about 60 minutes on this
# 2-core machine under load (the build directory is cached next to the
# tree, keyed by the tarball and the configuration); later runs rebuild
# drivers/misc/uidgen/ and relink (2 to 4 minutes; $b/.uidgen-key
# says which tarball and configuration the build directory is for), htmldocs of
# userspace-api takes 2 to 3 minutes, the guest 5 to 10.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
. tests/lib/host-suite.sh
host_opts 6.12 "$@" || exit 2
kver=${kver:-6.12}
host_out upstream-full
out=$(cd "$out" && pwd)
series=$out/series
pristine=$(tools/upstream.sh -t) || exit 1
cache=$(dirname "$pristine")/full
src=$cache/$(basename "$pristine")
export PATH=/usr/bin:$PATH

check "make upstream writes a cover letter and its patches" \
	'tools/upstream.sh -o "$series" && ls "$series"/0001-*.patch'
patches=$(ls "$series"/000[1-9]*.patch "$series"/00[1-9]*.patch 2>/dev/null | sort -u)
[ -n "$patches" ] || { tap_end; exit 1; }

mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9
# The tree: a clone of the pristine one (its objects shared), made once.
# git checkout rewrites only the files that differ, so the kernel build
# below recompiles only what the series touches.
tree() {
	if [ ! -d "$src/.git" ]; then
		git clone -q --shared "$pristine" "$src" || return 1
	fi
	git -C "$src" am --abort > /dev/null 2>&1
	git -C "$src" checkout -q -f --detach pristine && git -C "$src" clean -q -f -d -x &&
		git -C "$src" -c user.name=upstream -c user.email=upstream@localhost \
			am -q --whitespace=error-all $patches
}
check "the series applies to a tree of its own ($src)" tree

key=$( (cat "$pristine/.git/uidgen-pristine"; echo "defconfig UIDGEN=y full") | sha1sum | cut -c1-12)
b=$cache/build-y
kmake() { make -C "$src" O="$b" -j"$(nproc)" "$@"; }
# What the guest needs built in (virtio-pci, 9p: vm.sh's root), what the
# kselftests' config file asks for, and uidgen with its KUnit tests.
config() {
	if [ "$(cat "$b/.uidgen-key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$b"
		mkdir -p "$b" && kmake -s defconfig && echo "$key" > "$b/.uidgen-key" || return 1
	fi
	"$src/scripts/config" --file "$b/.config" \
		-e VIRTIO_PCI -e NET_9P -e NET_9P_VIRTIO -e 9P_FS -e 9P_FS_POSIX_ACL \
		-e VIRT_DRIVERS -e VMGENID -e DEBUG_FS -e FAULT_INJECTION \
		-e FAULT_INJECTION_USERCOPY -e HOTPLUG_CPU -e TIME_NS -e USERFAULTFD \
		-e KUNIT -d KUNIT_DEFAULT_ENABLED -e UIDGEN -e UIDGEN_KUNIT_TEST \
		-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -e DEBUG_INFO_NONE &&
		kmake -s olddefconfig || return 1
	local s
	for s in UIDGEN UIDGEN_KUNIT_TEST KUNIT VMGENID 9P_FS NET_9P_VIRTIO VIRTIO_PCI \
		FAULT_INJECTION_USERCOPY USERFAULTFD TIME_NS; do
		grep -qx "CONFIG_$s=y" "$b/.config" || { echo "CONFIG_$s is not y"; return 1; }
	done
}
check "Kconfig: CONFIG_UIDGEN=y with its KUnit tests (build dir $b)" config

nowarn() {	# nowarn COMMAND...: it succeeds and prints no warning
	local log
	log=$("$@" 2>&1) || { echo "$log" | tail -n 40; return 1; }
	! grep -E 'warning|error|WARNING|ERROR' <<< "$log"
}
start=$(date +%s)
check "make bzImage: the whole kernel with uidgen built in, no warning" \
	'nowarn kmake -s bzImage && ls "$b/arch/x86/boot/bzImage" && grep -q " uidgen_init" "$b/System.map"'
echo "# upstream-full: kernel built in $(( $(date +%s) - start ))s"
check "make W=1 drivers/misc/uidgen/ as =y: built in, no warning" \
	'nowarn kmake W=1 drivers/misc/uidgen/ && ls "$b"/drivers/misc/uidgen/built-in.a'
check "make C=2 W=1 drivers/misc/uidgen/ as =y (sparse): no warning" \
	'nowarn kmake C=2 W=1 drivers/misc/uidgen/'
# Back to the flags bzImage was built with, so that the kernel booted is
# the one built above (W=1 only adds warnings, but it is rebuilt anyway).
check "make bzImage again after W=1: no warning" 'nowarn kmake -s bzImage'

# htmldocs of the part the series adds to; the ABI file through the tool
# that renders Documentation/ABI (admin-guide's abi pages).
docs() {
	local log
	start=$(date +%s)
	log=$(kmake SPHINXDIRS=userspace-api htmldocs 2>&1) || { echo "$log" | tail -n 30; return 1; }
	echo "$log" > "$out/htmldocs.log"
	echo "# htmldocs in $(( $(date +%s) - start ))s: $(grep -cE 'WARNING|ERROR|warning:|error:' <<< "$log") warnings in all"
	ls "$b/Documentation/output/userspace-api/uidgen.html" || return 1
	# With SPHINXDIRS, references out of userspace-api/ do not resolve
	# (media, netlink: 14 warnings on the pristine tree): those are not
	# the series'. Any in a file it adds or changes is.
	! grep -E 'WARNING|ERROR|warning:|error:' <<< "$log" |
		grep -E 'uidgen|ioctl-number|userspace-api/index'
}
check "make SPHINXDIRS=userspace-api htmldocs: uidgen.html, no warning" docs
abi() {
	local log
	log=$(cd "$src" && perl scripts/get_abi.pl rest --dir Documentation/ABI/testing 2>&1 >/dev/null)
	! grep -i 'uid' <<< "$log"
}
check "get_abi.pl parses Documentation/ABI/testing with no warning on sysfs-class-misc-uid" abi

# The kselftests, installed as run_kselftest.sh expects them.
inst=$out/kselftest
check "make -C tools/testing/selftests TARGETS=drivers/misc/uidgen install" \
	'kmake -s headers && nowarn make -C "$src/tools/testing/selftests" \
		TARGETS=drivers/misc/uidgen KHDR_INCLUDES="-isystem $b/usr/include" \
		INSTALL_PATH="$inst" install && ls "$inst/run_kselftest.sh"'
flock -u 9

# The guest: that kernel, this machine's root (vm.sh), run_kselftest.sh.
cat > "$out/job.sh" <<JOB
echo "== upstream-full: \$(uname -r), uidgen \$(cat /sys/class/misc/uid/dev 2>/dev/null)"
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
echo "== kselftest"
cd "$inst" && ./run_kselftest.sh
JOB
vm() {
	VM_KERNEL=$b/arch/x86/boot/bzImage VM_TIMEOUT=2400 \
		tests/qemu/vm.sh -o "$out/vm" "$out/job.sh" > "$out/vm.log" 2>&1
	local rc=$?
	tr -d '\r' < "$out/vm.log" > "$out/vm.txt"
	grep -E '^(== |# Totals|ok |not ok )' "$out/vm.txt"
	[ $rc -eq 0 ]
}
check "a guest boots the series' kernel and runs run_kselftest.sh" vm

# The runner's line per program: ok, or not ok with "# SKIP" (a skip,
# counted as one); any other not ok fails. Each program's own totals are
# summed where the console has them.
tot() {
	local ok bad skip
	grep -E '^(not )?ok [0-9]+ selftests: ' "$out/vm.txt"
	ok=$(grep -cE '^ok [0-9]+ selftests: ' "$out/vm.txt")
	skip=$(grep -E '^(not )?ok [0-9]+ selftests: ' "$out/vm.txt" | grep -c '# SKIP')
	bad=$(grep -E '^not ok [0-9]+ selftests: ' "$out/vm.txt" | grep -vc '# SKIP')
	echo "# kselftests: $((ok + bad)) programs ok or not, $bad failed, $skip skipped"
	[ "$ok" -gt 0 ] && [ "$bad" -eq 0 ]
}
check "run_kselftest.sh: every uidgen kselftest passes or skips" tot
tap_end
