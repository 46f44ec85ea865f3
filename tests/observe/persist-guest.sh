#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (tests/qemu/vm.sh): tests/observe/persist.py against
# each module given, NAME=KO (this tree's, and mutants that must fail:
# tests/observe/races.sh builds them), into $UIDGEN_VM_OUT/persist-NAME.tap
# and a "NAME pass|fail" line each in persist-verdicts.
#   tests/qemu/vm.sh -o build/vm-persist tests/observe/persist-guest.sh this=module/uidgen.ko
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
: > "$OUT/persist-verdicts"
for arg in "$@"; do
	name=${arg%%=*} ko=${arg#*=}
	if timeout -k 10 300 python3 -u tests/observe/persist.py "$ko" /tmp/obs-persist.state \
		> "$OUT/persist-$name.tap" 2>&1 < /dev/null; then
		echo "$name pass" >> "$OUT/persist-verdicts"
	else
		echo "$name fail" >> "$OUT/persist-verdicts"
	fi
done
exit 0
