#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-install, for real, for a kernel this machine does not run
# (Debian's 6.12, whose headers are installed): DKMS builds and installs
# the module into /lib/modules/KVER/updates/dkms/; a VM booting that
# kernel loads it with plain modprobe and mints IDs; make dkms-uninstall
# removes it again. Needs root (it changes /usr/src, /var/lib/dkms and
# /lib/modules/KVER, and puts them back).
#
#   tests/dkms.sh [-k KVER] [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
host_opts 6.12 "$@" || exit
host_out dkms
version=$(make -s version)

echo "TAP version 13"
check "the version comes from module/internal.h ($version)" \
	'grep -q "UIDGEN_VERSION_STR[[:space:]]*\"$version\"" module/internal.h'
check "not the running kernel" '[ "$(uname -r)" != "$kver" ]'
make -s dkms-uninstall > /dev/null 2>&1
check "make dkms-install KVER=$kver" 'make -s dkms-install KVER="$kver"'
check "dkms says installed" 'dkms status -m uidgen -v "$version" -k "$kver" | grep ": installed" > /dev/null'
check "source in /usr/src/uidgen-$version" '[ -f "/usr/src/uidgen-$version/dkms.conf" ]'
check "module in updates/dkms" 'ls /lib/modules/"$kver"/updates/dkms/uidgen.ko*'

cat > "$out/job.sh" <<'JOB'
set -u
modprobe uidgen && echo "RESULT modprobe ok"
userlib/uidgen set-node 5 --new > /dev/null && echo "RESULT set-node ok"
echo "RESULT path $(modinfo -n uidgen)"
echo "RESULT version $(cat /sys/module/uidgen/version)"
echo "RESULT id $(userlib/uidgen decode "$(userlib/uidgen)")"
rmmod uidgen && echo "RESULT rmmod ok"
JOB
vm_job
check "in a $kver VM, modprobe loads it" '[ "$(get modprobe)" = ok ]'
check "from updates/dkms" 'get path | grep -q "^/lib/modules/$kver/updates/dkms/uidgen.ko"'
check "set-node 5 --new" '[ "$(get set-node)" = ok ]'
check "version $version" '[ "$(get version)" = "$version" ]'
check "it mints IDs under node 5" 'get id | grep -q " node=5 "'
check "rmmod" '[ "$(get rmmod)" = ok ]'
check "the VM finished, its kernel log clean" vm_ok

check "make dkms-uninstall" 'make -s dkms-uninstall'
check "dkms knows it no more" '[ -z "$(dkms status -m uidgen)" ]'
check "the module is gone" '! ls /lib/modules/"$kver"/updates/dkms/uidgen.ko* 2>/dev/null'
check "and its source" '[ ! -e "/usr/src/uidgen-$version" ]'
tap_end
