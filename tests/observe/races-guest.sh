#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM for tests/observe/races.sh: per line of VARIANTS
# ("NAME KO UNIT": a module and a build of libuidgen's tests), a fresh load
# of KO, the observe kselftests race_minting and race_revoke, then UNIT's
# test_observe_race_cache; for this tree ("this") the whole observe suite
# first and the cache race under ThreadSanitizer after. Writes NAME.tap
# and one "NAME TEST pass|fail" line a test to $UIDGEN_VM_OUT/verdicts.
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
: > "$OUT/verdicts"

# verdict NAME TEST COMMAND...: run it into NAME.tap, record its result.
verdict() {
	_n=$1 _t=$2
	shift 2
	echo "# == $_n: $_t: $*" >> "$OUT/$_n.tap"
	if timeout -k 10 300 "$@" >> "$OUT/$_n.tap" 2>&1 < /dev/null; then
		echo "$_n $_t pass" >> "$OUT/verdicts"
	else
		echo "$_n $_t fail" >> "$OUT/verdicts"
	fi
}

load() {
	rmmod uidgen 2>/dev/null
	insmod "$1" || echo "races: insmod $1 failed" >> "$OUT/verdicts"
}

while read -r name ko unit; do
	[ -n "$name" ] || continue
	: > "$OUT/$name.tap"
	if [ "$name" = this ]; then
		load "$ko"
		verdict "$name" observe-suite selftests/uidgen_observe_test
	fi
	load "$ko"
	verdict "$name" race_minting selftests/uidgen_observe_test -t race_minting
	verdict "$name" race_revoke selftests/uidgen_observe_test -t race_revoke
	# The node ID race_revoke left assigned is the cache test's.
	verdict "$name" race_cache env UNIT_ONLY=test_observe_race_cache "$unit"
	if [ "$name" = this ]; then
		verdict "$name" race_cache-tsan env UNIT_ONLY=test_observe_race_cache userlib/tests/unit-tsan
	fi
done < "$1"
rmmod uidgen 2>/dev/null
exit 0
