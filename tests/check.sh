#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: boot Debian's 6.1 kernel under QEMU and run every suite in
# it; build the module for Debian's 6.12 kernel and run the same suites in
# that; then the VMs of their own (snapshot) and the debug kernel (KUnit,
# debug-vm); print one line per suite and "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

kver=${KVER:-$(tests/qemu/kver.sh 6.1)} || exit 1
out=$repo/build/check-$kver
rm -rf "$out"
mkdir -p "$out"

. tests/totals.sh

# The host suites that need no VM, no kernel build and no clock of their
# own run beside the first VM: most of its suites keep one of QEMU's two
# vCPU threads busy, and this machine has two cores. Their output and
# lines are kept apart (the guest writes summary.txt) and added after it.
bg=$out/beside
mkdir -p "$bg"
: > "$bg/summary.txt"
(
	# The UUID/ULID mapping's property test (libuidgen, no device;
	# ASan+UBSan).
	run_suite "$bg" uuid userlib/tests/uuid
	# The public form (libuidgen, no device; ASan+UBSan): SipHash's
	# reference vectors, the token's, round trips, permutation, avalanche,
	# order, refusals, the key file.
	run_suite "$bg" public userlib/tests/public
	# The CLI where no device is needed: each command's options, help,
	# usage errors, decode, a file that is not the device, no module.
	run_suite "$bg" cli-host tests/shell/cli-host.sh
	# uidgen-lease and uidgen-cluster without etcd or device: lease.conf
	# checked at start, options, version, a missing device.
	run_suite "$bg" lease-tools tests/lease/tools.sh
	# The Node.js binding as an npm package: npm pack, an offline install
	# of the tarball that builds its addon, its host tests.
	run_suite "$bg" node-pack tests/shell/node-pack.sh
	# Which kernel make builds for and make install installs into (make -n).
	run_suite "$bg" kdir tests/kdir.sh
	# The parts a newcomer builds alone, in a fresh clone (the PostgreSQL
	# extension: static libuidgen, no RUNPATH).
	run_suite "$bg" standalone tests/standalone.sh
	# Versions (version.mk) and package counts (debian/control) the docs
	# state.
	run_suite "$bg" versions tests/versions.sh
	# The systemd units, read on the host: they load the module, never skip.
	run_suite "$bg" units tests/units.sh
	# docs-blocks itself, against documents written to break it (root
	# prompts, sudo, commands off its allow-list, a && b mid-block,
	# indented and ~~~ fences, output nobody compares, nothing to check).
	run_suite "$bg" docs-blocks-test tests/docs-blocks-test.sh
	# The node rules' table (module/tests/noderules_cases.h) against the
	# build of module/noderules.c that uidgen-lease's device stand-in
	# uses; KUnit runs the same table against the module's.
	run_suite "$bg" rules lease/tests/rules
	# The fleet protocol's Promela model, checked exhaustively by spin:
	# today's protocol must show its counterexamples, the new one none but
	# the two limits it names (a restore with agents running, a clone
	# between claim and install) (~2 min of one core).
	run_suite "$bg" model model/check.sh
	# The counting above (tests/totals.sh) against canned logs, and vm.sh
	# against a fake QEMU.
	run_suite "$bg" harness tests/totals-test.sh
	run_suite "$bg" vm-retry tests/qemu/vm-test.sh
) > "$bg/output.log" 2>&1 &
bgpid=$!

start=$(date +%s)
# Every suite in one VM: the sanitizer builds of libuidgen (unit-asan,
# unit-tsan) alone take a few minutes under TCG, so more than vm.sh's
# default 900 s.
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
tests/qemu/vm.sh -k "$kver" -o "$out" tests/qemu/guest-check.sh
vmrc=$?
rc61=$vmrc
wait "$bgpid"
cat "$bg/output.log"
cat "$bg/summary.txt" >> "$out/summary.txt"

# The same suites on Debian's 6.12 kernel, with the module built for it
# (W=1, warnings are errors) in a tree of its own.
kver12=$(tests/qemu/kver.sh 6.12)
kmod12=$repo/build/kmod-$kver12
b12=$(date +%s)
make -s module-source SRCDIR="$kmod12"
if make -C "/usr/src/linux-headers-$kver12" M="$kmod12" W=1 KCFLAGS=-Werror modules \
	> "$out/build-6.12.log" 2>&1; then
	echo "build-6.12 1 0 $(( $(date +%s) - b12 ))" >> "$out/summary.txt"
	mkdir -p "$out/6.12"
	UIDGEN_KO=${kmod12#"$repo"/}/module/uidgen.ko \
		tests/qemu/vm.sh -k "$kver12" -o "$out/6.12" tests/qemu/guest-check.sh --no-clients
	rc12=$?
	[ "$rc12" -eq 0 ] || vmrc=$rc12
	sed 's|^|6.12/|' "$out/6.12/summary.txt" >> "$out/summary.txt"
else
	cat "$out/build-6.12.log"
	echo "build-6.12 0 1" >> "$out/summary.txt"
fi
vm_s=$(( $(date +%s) - start ))

# host_suite NAME COMMAND...: run a suite that prints kselftest-style
# "# Totals:" itself and record its totals.
host_suite() {
	run_suite "$out" "$@"
}

# Suspend/resume and snapshot restore, in VMs of their own.
host_suite snapshot tests/qemu/snapshot.sh -k "$kver" -o "$out/snapshot"

# A node ID's life, the packaged way (modprobe.d, the units' commands):
# reload, reboot with the clock behind, crash, move to another VM, each
# borrowing at the ceiling; every ID of every load checked together.
host_suite nodelife tests/nodelife.sh -k "$kver" -o "$out/nodelife"

# Causal order across machines (issue 30): two 1-CPU VMs whose wall
# clocks are 2 s apart pass an ID back and forth through a relay on this
# machine, without observe, with it, and at the default bound: 2,000 round
# trips a phase here (about 3 minutes; make check-observe runs the issue's
# 10,000, about 8).
host_suite pingpong tests/observe/pingpong.sh -n 2000 -k "$kver" -o "$out/pingpong"

# make install into a scratch root; the module loads from there in a VM.
host_suite install tests/install.sh -k "$kver" -o "$out/install"

# make dkms-install for the 6.12 kernel (not the one this machine runs),
# loaded with plain modprobe in a 6.12 VM, then make dkms-uninstall.
host_suite dkms tests/dkms.sh -k "$kver12" -o "$out/dkms"

# make deb: the five packages, lintian, dpkg -i, the kernel's DKMS hook
# for 6.12, a 6.12 VM using them, dpkg --purge.
host_suite deb tests/deb.sh -k "$kver12" -o "$out/deb"

# The kernel's own checkers on every kernel file.
host_suite style tests/style.sh

# make upstream's patch series: applied to the pristine linux-source-6.12,
# checkpatch --strict, W=1 and sparse in-tree, headers, kselftests.
host_suite upstream tests/upstream.sh -o "$out/upstream"

# Every command block of README.md, the admin guide, fleet.rst and
# design.rst, run as written: on the host in a scratch copy, the module's in a VM, shown
# output checked for shape; the rest counted as unrun, with reasons.
host_suite docs-blocks tests/docs-blocks.sh

# uidgen-lease's suites (the device stand-in and a real etcd: host.sh,
# break17.sh, fleet-quickstart.sh; then the VM cluster) are make
# check-cluster's, which CI runs too.

# KUnit on the debug kernel (built once into the cache, then incremental).
kstart=$(date +%s)
tests/kunit/run.sh > "$out/kunit.log" 2>&1
krc=$?
tail -n 25 "$out/kunit.log"
line=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$out/kunit.log" | tail -n 1)
set -- $(kunit_totals "$line")
kpass=$1
kfail=$2
if [ "$krc" -ne 0 ] && [ "$kfail" -eq 0 ]; then
	kfail=1
fi
echo "kunit $kpass $kfail $(( $(date +%s) - kstart ))" >> "$out/summary.txt"

# The debug config with uidgen as a module, booted with a userspace:
# fail-nth copies, the fault suite, 100 reloads, kmemleak.
host_suite debug-vm tests/qemu/debug-vm.sh -o "$out/debug-vm"
kunit_s=$(( $(date +%s) - kstart ))

echo
echo "== summary ($kver and $kver12, QEMU TCG: VM suites ${vm_s} s, debug kernel ${kunit_s} s; logs in $out)"
# Every suite, by name: one that never reported, or ran no test, fails;
# so does one reported but not named here. A new suite is added here.
# The clients' suites (python, go, nodejs, postgresql, jssafe) and crashloop
# run on the first kernel only.
vm_suites="kselftest kselftest-m32 libuidgen libuidgen-asan libuidgen-tsan cli
	node node-m32 life life-m32 observe kselftest-1slot wait wait-borrow fault module faults races"
expected="$vm_suites python go nodejs postgresql jssafe crashloop build-6.12 $(for s in $vm_suites; do echo "6.12/$s"; done)
	snapshot nodelife pingpong install dkms deb uuid public rules cli-host node-pack lease-tools style upstream kdir standalone versions units docs-blocks docs-blocks-test model harness vm-retry kunit debug-vm"
summarize "$out/summary.txt" $expected > "$out/summary-by-name.txt"
sed '$d' "$out/summary-by-name.txt"
set -- $(tail -n 1 "$out/summary-by-name.txt")
total_pass=$2
total_fail=$3
# vm_report KVER RC DIR: for a VM that failed, its exit, the suite it was
# in, and the end of its console (a guest that died or hung mid-suite
# leaves the rest of its suites missing above).
vm_report() {
	[ "$2" -ne 0 ] || return 0
	case $2 in
	124) _why="it did not finish: a crash, a hang or the ${VM_TIMEOUT}s timeout" ;;
	125) _why="the kernel log shows a warning or oops: $3/kernel-problems.txt" ;;
	*) _why="the job's own status" ;;
	esac
	_in=$(tr -d '\r' < "$3/console.log" 2>/dev/null | sed -n 's/^== suite \([^:]*\):.*/\1/p' | tail -n 1)
	_in=${_in:+, the last suite it started: $_in (its log so far: $3/$_in.log)}
	[ "$2" -ne 125 ] || _in=
	echo "vm $1: exit $2 ($_why)$_in; its console ($3/console.log) ended:"
	tail -n 12 "$3/console.log" 2>/dev/null | tr -d '\r' | sed 's/^/  | /'
}
if [ "$vmrc" -ne 0 ]; then
	vm_report "$kver" "$rc61" "$out"
	vm_report "$kver12" "${rc12:-0}" "$out/6.12"
	total_fail=$((total_fail + 1))
fi
boot_retries "$out"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
