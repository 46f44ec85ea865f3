#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel (PREEMPT, lockdep, KASAN, UBSAN, kmemleak, usercopy
# fault injection) with a userspace of its own: busybox, static test
# binaries and uidgen.ko in an initramfs. It is the KUnit kernel's config
# with modules enabled and uidgen as a module, built next to it in
# $UIDGEN_KUNIT_CACHE/build-mod (the KUnit kernel needs uidgen built in).
#
# Runs the copy-fault selftest (fail-nth) and the fault selftest, loads
# and unloads the module 100 times with readers between, unloads it 50
# times under parameter writes, then asks kmemleak for leaks. Any KASAN,
# lockdep, UBSAN or WARNING report, or a leak with uidgen in its
# backtrace, fails the run.
#
# With -k kcsan (make check-kcsan) the same kernel is built with KCSAN in
# place of KASAN (the two cannot share a kernel) in build-kcsan, and runs
# the concurrency, node and fault selftests instead: any data race KCSAN
# reports in uidgen fails it.
#
#   tests/qemu/debug-vm.sh [-k kcsan] [-o OUTDIR]  (after tests/kunit/run.sh)
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${UIDGEN_KUNIT_CACHE:-/var/cache/uidgen-kunit}
variant=kasan
out=
while getopts "k:o:" opt; do
	case $opt in
	k) variant=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-k kcsan] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
out=${out:-$repo/build/debug-vm-$variant}
src=$(ls -d "$cache"/linux-source-6.12* 2>/dev/null | tail -n 1)
[ -n "$src" ] && [ -r "$cache/build/.config" ] ||
	{ echo "debug-vm.sh: run tests/kunit/run.sh first" >&2; exit 1; }

case $variant in
kasan)	mod=$cache/build-mod; extra= ;;
kcsan)	mod=$cache/build-kcsan
	extra="-d KASAN -d DEBUG_KMEMLEAK -e KCSAN -e KCSAN_STRICT -e KCSAN_REPORT_ONCE_IN_MS"
	;;
*)	echo "debug-vm.sh: -k kasan or -k kcsan" >&2; exit 2 ;;
esac
if [ ! -r "$mod/.config" ] || [ "$cache/build/.config" -nt "$mod/.config" ]; then
	mkdir -p "$mod"
	cp "$cache/build/.config" "$mod/.config"
	# shellcheck disable=SC2086
	"$src/scripts/config" --file "$mod/.config" -e MODULES -e MODULE_UNLOAD \
		-m UIDGEN -d UIDGEN_KUNIT_TEST $extra
	[ "$variant" = kcsan ] && "$src/scripts/config" --file "$mod/.config" \
		--set-val KCSAN_REPORT_ONCE_IN_MS 0
	make -s -C "$src" O="$mod" olddefconfig || exit 1
	if [ "$variant" = kcsan ] && ! grep -q '^CONFIG_KCSAN=y' "$mod/.config"; then
		echo "debug-vm.sh: this compiler cannot build KCSAN" >&2; exit 1
	fi
fi
echo "debug-vm: building $mod"
make -s -C "$src" O="$mod" -j"$(nproc)" bzImage modules > "$mod/build.log" 2>&1 ||
	{ tail -n 30 "$mod/build.log"; exit 1; }
kernel=$mod/arch/x86/boot/bzImage
ko=$mod/drivers/misc/uidgen/uidgen.ko
[ -r "$ko" ] || { echo "debug-vm.sh: $ko not built" >&2; exit 1; }

rm -rf "$out"
. "$repo/tests/lib/initramfs.sh"
. "$repo/tests/lib/tcg.sh"
initramfs_begin "$out" "$ko" || exit 1
make -s -C "$repo/selftests" uidgen_usercopy_test_static uidgen_fault_test_static \
	uidgen_test_static uidgen_node_test_static uidgen_life_test_static || exit 1
for t in usercopy fault "" node life; do
	cp "$repo/selftests/uidgen_${t:+${t}_}test_static" "$out/root/bin/${t:-device}_test"
done
cat >> "$out/root/init" <<INIT
mount -t debugfs debugfs /sys/kernel/debug
echo 1 > /proc/sys/kernel/printk
echo "== debug-vm: up \$(uname -r)"
VARIANT=$variant
INIT
cat >> "$out/root/init" <<'INIT'
if [ "$VARIANT" = kcsan ]; then
	# Every path that races: concurrent minting (the device suite's
	# concurrency test), node changes under load, the node's life.
	insmod /uidgen.ko
	uidgen set-node 1 --new > /dev/null
	UIDGEN_NODE=1 device_test
	UIDGEN_NODE=1 fault_test --disruptive
	rmmod uidgen
	insmod /uidgen.ko
	node_test
	rmmod uidgen
	insmod /uidgen.ko
	life_test
	rmmod uidgen
	echo "== debug-vm: kmemleak"
	echo "== debug-vm: dmesg"
	dmesg
	echo "== debug-vm: done"
	reboot -f
fi
insmod /uidgen.ko
uidgen set-node 1 --new > /dev/null
usercopy_test
# Clock steps, CPU hotplug, revoke under load (the fence and the node lock
# under lockdep), floors.
UIDGEN_NODE=1 fault_test --disruptive
rmmod uidgen
# Load, mint, unload, 100 times.
i=0; bad=0
while [ $i -lt 100 ]; do
	insmod /uidgen.ko || bad=$((bad + 1))
	uidgen set-node $((i % 32)) --new > /dev/null || bad=$((bad + 1))
	[ "$(uidgen -n 1000 | sort -u | wc -l)" = 1000 ] || bad=$((bad + 1))
	rmmod uidgen || bad=$((bad + 1))
	i=$((i + 1))
done
echo "RELOAD cycles=$i bad=$bad"
# Unload while parameter reads (and writes, all refused: every parameter
# is read-only) hammer the sysfs files, which outlive uidgen_exit():
# nothing may touch freed memory (KASAN).
i=0; bad=0
while [ $i -lt 50 ]; do
	insmod /uidgen.ko || bad=$((bad + 1))
	uidgen set-node 2 --new > /dev/null || bad=$((bad + 1))
	( while :; do cat /sys/module/uidgen/parameters/*; echo 5 > /sys/module/uidgen/parameters/max_borrow_ticks; done ) > /dev/null 2>&1 &
	w=$!
	rmmod uidgen || bad=$((bad + 1))
	kill $w; wait $w
	i=$((i + 1))
done
echo "RACES cycles=$i bad=$bad"
echo "== debug-vm: kmemleak"
echo scan > /sys/kernel/debug/kmemleak
sleep 6
echo scan > /sys/kernel/debug/kmemleak
cat /sys/kernel/debug/kmemleak
echo "== debug-vm: dmesg"
dmesg
echo "== debug-vm: done"
reboot -f
INIT
initramfs_end "$out"

timeout -k 10 600 qemu-system-x86_64 "${tcg_args[@]}" -smp 2 -m 2048 -display none \
	-no-reboot -nic none -kernel "$kernel" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 clocksource=tsc tsc=reliable panic=-1 kunit.enable=0" \
	-serial file:"$out/console.log" < /dev/null
tr -d '\r' < "$out/console.log" > "$out/console.txt"

sed -n '/== debug-vm: up/,/== debug-vm: kmemleak/p' "$out/console.txt" | grep -E '^(ok|not ok|#)'
# Every selftest's totals, skipped and errored tests counted as failures.
. "$repo/tests/totals.sh"
set -- $(sum_totals "$out/console.txt")
pass=$1
fail=$2
want=2
[ "$variant" = kcsan ] && want=4
[ "$3" -eq $want ] || { fail=$((fail + 1)); echo "not ok - only $3 of $want selftests finished"; }

# The plain debug kernel also reloads, races unloads, looks for leaks.
if [ "$variant" = kasan ]; then
	if grep -q "^RELOAD cycles=100 bad=0" "$out/console.txt"; then
		echo "ok - 100 load/mint/unload cycles"
		pass=$((pass + 1))
	else
		echo "not ok - 100 load/mint/unload cycles: $(grep '^RELOAD' "$out/console.txt")"
		fail=$((fail + 1))
	fi
	if grep -q "^RACES cycles=50 bad=0" "$out/console.txt"; then
		echo "ok - 50 unloads under parameter reads and refused writes"
		pass=$((pass + 1))
	else
		echo "not ok - 50 unloads under parameter reads and refused writes: $(grep '^RACES' "$out/console.txt")"
		fail=$((fail + 1))
	fi
	sed -n '/== debug-vm: kmemleak/,/== debug-vm: dmesg/p' "$out/console.txt" > "$out/kmemleak.txt"
	if grep -q uidgen "$out/kmemleak.txt"; then
		echo "not ok - kmemleak reports a leak from uidgen (see $out/kmemleak.txt)"
		fail=$((fail + 1))
	else
		echo "ok - kmemleak: no leak from uidgen after all that"
		pass=$((pass + 1))
	fi
fi
sed -n '/== debug-vm: dmesg/,/== debug-vm: done/p' "$out/console.txt" > "$out/dmesg.txt"
# Not "Call Trace": every fault injected on purpose prints one. KCSAN's
# reports count where they name uidgen: the rest of the kernel's known
# races are not ours to fail on (all of them are kept in dmesg.txt).
grep -v 'BUG: KCSAN: data-race in' "$out/dmesg.txt" |
	grep -E 'BUG:|WARNING:|KASAN|UBSAN|possible .* lock|circular locking|Oops|general protection' \
	> "$out/kernel-problems.txt"
grep -E 'BUG: KCSAN: data-race in .*uidgen' "$out/dmesg.txt" >> "$out/kernel-problems.txt"
if [ -s "$out/kernel-problems.txt" ]; then
	echo "not ok - the debug kernel reported problems:"
	sed 's/^/#   /' "$out/kernel-problems.txt" | head -n 40
	fail=$((fail + 1))
else
	echo "ok - no KASAN, KCSAN, lockdep, UBSAN or WARNING report"
	pass=$((pass + 1))
fi
grep -q "== debug-vm: done" "$out/console.txt" || { echo "not ok - the VM did not finish"; fail=$((fail + 1)); }
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
