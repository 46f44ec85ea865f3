#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: build everything, boot Debian's kernel under QEMU, run every
# suite in it, print one line per suite and "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

kver=${KVER:-$(tests/qemu/kver.sh 6.1)} || exit 1
out=$repo/build/check-$kver
rm -rf "$out"
mkdir -p "$out"

start=$(date +%s)
tests/qemu/vm.sh -k "$kver" -o "$out" tests/qemu/guest-check.sh
vmrc=$?
vm_s=$(( $(date +%s) - start ))

# Suspend/resume and snapshot restore, in VMs of their own.
tests/qemu/snapshot.sh -k "$kver" -o "$out/snapshot" > "$out/snapshot.log" 2>&1
src=$?
cat "$out/snapshot.log"
line=$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$out/snapshot.log")
spass=$(echo "$line" | sed -n 's/^# Totals: pass:\([0-9]*\).*/\1/p')
sfail=$(echo "$line" | sed -n 's/.* fail:\([0-9]*\).*/\1/p')
[ -n "$line" ] || { spass=0; sfail=1; }
[ "$src" -eq 0 ] || [ "${sfail:-0}" -gt 0 ] || sfail=1
echo "snapshot ${spass:-0} ${sfail:-1}" >> "$out/summary.txt"

# KUnit on the debug kernel (built once into the cache, then incremental).
kstart=$(date +%s)
tests/kunit/run.sh > "$out/kunit.log" 2>&1
krc=$?
tail -n 25 "$out/kunit.log"
line=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$out/kunit.log" | tail -n 1)
kpass=$(echo "$line" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
kfail=$(echo "$line" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
kskip=$(echo "$line" | sed -n 's/.*skipped: \([0-9]*\).*/\1/p')
kpass=${kpass:-0}
kfail=$(( ${kfail:-0} + ${kskip:-0} ))
if [ -z "$line" ] || [ "$krc" -ne 0 ]; then
	[ "$kfail" -gt 0 ] || kfail=1
fi
echo "kunit $kpass $kfail" >> "$out/summary.txt"

# The same debug kernel with a userspace: fail-nth copies, kmemleak.
tests/qemu/debug-vm.sh -o "$out/debug-vm" > "$out/debug-vm.log" 2>&1
drc=$?
cat "$out/debug-vm.log"
line=$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$out/debug-vm.log" | tail -n 1)
dpass=$(echo "$line" | sed -n 's/^# Totals: pass:\([0-9]*\).*/\1/p')
dfail=$(echo "$line" | sed -n 's/.* fail:\([0-9]*\).*/\1/p')
[ -n "$line" ] || { dpass=0; dfail=1; }
[ "$drc" -eq 0 ] || [ "${dfail:-0}" -gt 0 ] || dfail=1
echo "debug-vm ${dpass:-0} ${dfail:-1}" >> "$out/summary.txt"
kunit_s=$(( $(date +%s) - kstart ))

echo
echo "== summary ($kver, QEMU TCG: VM suites ${vm_s} s, debug kernel ${kunit_s} s; logs in $out)"
total_pass=0
total_fail=0
if [ -s "$out/summary.txt" ]; then
	while read -r name pass fail; do
		printf '%-16s %s passed, %s failed\n' "$name:" "$pass" "$fail"
		total_pass=$((total_pass + pass))
		total_fail=$((total_fail + fail))
	done < "$out/summary.txt"
fi
expected=14
have=$(wc -l < "$out/summary.txt" 2>/dev/null || echo 0)
if [ "$have" -ne "$expected" ]; then
	echo "vm: only $have of $expected suites reported"
	total_fail=$((total_fail + expected - have))
fi
if [ "$vmrc" -ne 0 ]; then
	echo "vm: exit $vmrc (124 timeout, 125 kernel warning/oops: see $out/kernel-problems.txt)"
	total_fail=$((total_fail + 1))
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
