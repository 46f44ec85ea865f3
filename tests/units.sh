#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd units, read on the host (no systemd as PID 1 needed): the
# units that need /dev/uid load the module themselves (modprobe@uidgen,
# with /etc/modprobe.d's options) and never skip silently on a missing
# module (a ConditionPathExists= that is false is a skip, not a failure,
# and then nothing mints after a reboot); systemd-analyze verify finds no
# key or value it cannot parse.
#   tests/units.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "TAP version 13"
for u in uidgen-state uidgen-lease; do
	f=systemd/$u.service
	check "$u: no silent skip on a missing module (any Condition*= on it)" \
		"! grep -n '^Condition[A-Za-z]*=.*\\(/sys/module/uidgen\\|/dev/uid\\)' $f"
	check "$u: loads the module first (Wants= and After= modprobe@uidgen.service)" \
		"grep -q '^Wants=.*modprobe@uidgen\\.service' $f && grep -q '^After=.*modprobe@uidgen\\.service' $f"
done
# uidgen-lease exits 3 when etcd went back in time; the unit must not
# start it again against that store by itself.
check "uidgen-lease: exit 3 (etcd went back in time) is not restarted" \
	"grep -q '^RestartPreventExitStatus=3\$' systemd/uidgen-lease.service && grep -q 'r == -ESTALE ? 3' lease/main.c"
if command -v systemd-analyze > /dev/null; then
	for f in systemd/*.service; do
		# Binaries not installed here and man pages are no finding.
		check "systemd-analyze verify $f: nothing it cannot parse" \
			"! systemd-analyze verify $f 2>&1 | grep -v -e 'is not executable' -e \"Command 'man \" | grep ."
	done
fi
tap_end
