#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install, for real: install into a scratch DESTDIR for the test VM's
# kernel, build a program against the installed header and library with
# pkg-config, then in the VM load the module from where install put it
# (modprobe -d) and run the installed CLI and the program against the
# installed libuidgen.so. Finally make uninstall must leave nothing behind
# but depmod's indexes.
#
#   tests/install.sh [-k KVER] [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
host_opts 6.1 "$@" || exit
host_out install
dest=$out/root
prefix=/usr/local

echo "TAP version 13"
check "make install DESTDIR PREFIX KVER" \
	'make -s install DESTDIR="$dest" PREFIX=$prefix KVER="$kver"'
for f in "/lib/modules/$kver/updates/uidgen.ko" \
	"/lib/modules/$kver/modules.dep" \
	$prefix/include/linux/uidgen.h $prefix/include/uidgen.h \
	$prefix/lib/libuidgen.a $prefix/lib/libuidgen.so.2 $prefix/lib/libuidgen.so \
	$prefix/lib/pkgconfig/uidgen.pc $prefix/bin/uidgen \
	$prefix/share/man/man1/uidgen.1 $prefix/share/man/man3/uidgen_next.3 \
	$prefix/share/man/man3/uidgen_set_cache.3 $prefix/share/man/man4/uid.4 \
	$prefix/lib/systemd/system/uidgen-state.service \
	$prefix/share/doc/uidgen/uidgen.conf.example $prefix/lib/udev/rules.d/60-uidgen.rules; do
	check "installed $f" '[ -e "$dest$f" ]'
done
check "the udev rule, as written" 'cmp etc/60-uidgen.rules "$dest$prefix/lib/udev/rules.d/60-uidgen.rules"'
check "which gives /dev/uid to uidgen, readable by all" \
	'[ "$(grep -v "^#" "$dest$prefix/lib/udev/rules.d/60-uidgen.rules")" = "KERNEL==\"uid\", SUBSYSTEM==\"misc\", GROUP=\"uidgen\", MODE=\"0444\"" ]'
check "install-user makes the group uidgen without DESTDIR only (make -n)" \
	'[ "$(make -n -s install-user DESTDIR= PREFIX=$prefix 2>/dev/null | grep -x "getent group uidgen > /dev/null || groupadd --system uidgen")" ] &&
		! make -n -s install-user DESTDIR="$dest" PREFIX=$prefix 2>/dev/null | grep groupadd'
check "depmod indexed it" 'grep -q "^updates/uidgen.ko:" "$dest/lib/modules/$kver/modules.dep"'
check "the units run the installed CLI" \
	'grep -q "ExecStart=$prefix/bin/uidgen state restore" "$dest$prefix/lib/systemd/system/uidgen-state.service"'
check "pkg-config points into the install" \
	'[ "$(PKG_CONFIG_PATH=$dest$prefix/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs uidgen | xargs)" = "-I$dest$prefix/include -L$dest$prefix/lib -luidgen" ]'
check "every man page renders without a warning" \
	'for p in uidgen.1 uidgen_next.3 uidgen_fill.3 uidgen_open.3 uidgen_info.3 uidgen_decode.3 uid.4; do
		r=$(MANPATH=$dest$prefix/share/man MANWIDTH=80 man --warnings "${p%.*}" 2>&1 >/dev/null); [ -z "$r" ] || { echo "$p: $r"; exit 1; }; done'
check "a program builds against the installed header and .so" \
	'gcc -Wall -Werror -o "$out/prog" tests/lib/prog.c $(PKG_CONFIG_PATH=$dest$prefix/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs uidgen)'
check "and needs libuidgen.so.2" 'readelf -d "$out/prog" | grep -q "NEEDED.*libuidgen.so.2"'

# In the VM: udev with the installed rule (/run/udev/rules.d: this
# machine's /etc is the guest's, read-only) and a group uidgen (GID 4243,
# in the guest's own copy of /etc/group), then load from the install, run
# the installed CLI and the program.
cat > "$out/job.sh" <<JOB
set -u
# The job runs chrooted into this machine's root: udevadm ignores
# settle, control and trigger in a chroot unless told otherwise.
export SYSTEMD_IGNORE_CHROOT=1
mkdir -p /run/udev/rules.d
cp "$dest$prefix/lib/udev/rules.d/60-uidgen.rules" /run/udev/rules.d/
{ cat /etc/group; echo uidgen:x:4243:; } > /run/group && mount --bind /run/group /etc/group
/lib/systemd/systemd-udevd --daemon && echo "RESULT udevd ok"
modprobe -d "$dest" uidgen && echo "RESULT modprobe ok"
udevadm settle -t 60
echo "RESULT dev \$(stat -c '%t %u:%g %a' /dev/uid)"
udevadm control --exit
LD_LIBRARY_PATH=$dest$prefix/lib "$dest$prefix/bin/uidgen" set-node 3 --new > /dev/null && echo "RESULT set-node ok"
echo "RESULT path \$(modinfo -b "$dest" -k "$kver" -n uidgen)"
LD_LIBRARY_PATH=$dest$prefix/lib "$dest$prefix/bin/uidgen" info | sed 's/^/RESULT info /'
LD_LIBRARY_PATH=$dest$prefix/lib "$out/prog" | sed 's/^/RESULT prog /'
rmmod uidgen && echo "RESULT rmmod ok"
JOB
vm_job
check "modprobe loads it from DESTDIR" '[ "$(get modprobe)" = ok ]'
check "udevd ran in the VM" '[ "$(get udevd)" = ok ]'
check "/dev/uid: major 10 (misc), root:uidgen 0444, by the rule" '[ "$(get dev)" = "a 0:4243 444" ]'
check "from updates/" \
	'[ "$(get path)" = "$dest/lib/modules/$kver/updates/uidgen.ko" ]'
check "the installed CLI assigns it node ID 3" '[ "$(get set-node)" = ok ]'
check "the installed CLI talks to it" 'get info | grep -q "^node_id: *3$"'
check "the program, on the installed .so, gets IDs" '[ "$(get prog)" = "node=3" ]'
check "rmmod" '[ "$(get rmmod)" = ok ]'
check "the VM finished, its kernel log clean" vm_ok

check "make uninstall" 'make -s uninstall DESTDIR="$dest" PREFIX=$prefix KVER="$kver"'
check "leaves only depmod's indexes" \
	'[ -z "$(find "$dest" \( -type f -o -type l \) ! -path "*/lib/modules/$kver/modules.*")" ]'
tap_end
