#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb, for real: build the five Debian packages, lintian them, install
# them on this machine with dpkg, let the kernel's DKMS hook build the
# module for a kernel this machine does not run (Debian's 6.12, as on a
# kernel upgrade), boot that kernel and use the packaged module, CLI and
# library; then purge them and check nothing is left. Needs root.
#
#   tests/deb.sh [-k KVER] [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
host_opts 6.12 "$@" || exit
host_out deb-test
version=$(make -s version)
pkgs="uidgen-dkms libuidgen2 libuidgen-dev uidgen-tools postgresql-15-uidgen"
libdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# The library's own version (userlib/Makefile), not the module's.
libver=$(sed -n 's/^LIBVER := //p' userlib/Makefile)
deb=build/deb
# The group uidgen-tools' postinst makes: taken away again with the
# packages if this run made it (a purge leaves system groups, as Debian's
# packages do).
had_group=$(getent group uidgen > /dev/null && echo yes)
purge() {
	dpkg --purge $pkgs > "$out/purge.log" 2>&1
	local rc=$?
	[ -n "$had_group" ] || ! getent group uidgen > /dev/null || delgroup --system --quiet uidgen
	return $rc
}
trap purge EXIT

echo "TAP version 13"
purge
check "debian/changelog has the module's version ($version)" \
	'[ "$(dpkg-parsechangelog -S Version)" = "$version" ]'
check "make deb" 'make -s deb > "$out/build.log" 2>&1'
for p in uidgen-dkms_${version}_all libuidgen2_${version}_amd64 \
	libuidgen-dev_${version}_amd64 uidgen-tools_${version}_amd64 \
	postgresql-15-uidgen_${version}_amd64; do
	check "built $p.deb" '[ -f "$deb/$p.deb" ]'
done
check "lintian: no error or warning" \
	'lintian --fail-on error,warning "$deb/uidgen_${version}_amd64.changes" 2>&1 |
		tee /dev/stderr | { ! grep -q "^[EW]:"; }'

# has PACKAGE FILE...: the package holds each file
has() {
	local p=$1 f
	shift
	dpkg-deb -c "$deb/${p}_${version}_"*.deb | awk '{print $6}' > "$out/$p.list"
	for f; do grep -qx "\.$f" "$out/$p.list" || { echo "no $f"; return 1; }; done
}
check "uidgen-dkms: the module's source and dkms.conf" \
	'has uidgen-dkms /usr/src/uidgen-$version/dkms.conf /usr/src/uidgen-$version/Kbuild \
		/usr/src/uidgen-$version/module/main.c /usr/src/uidgen-$version/module/compat.h \
		/usr/src/uidgen-$version/uapi/linux/uidgen.h'
check "uidgen-dkms depends on dkms, nothing else does" \
	'[[ "$(dpkg-deb -f "$deb"/uidgen-dkms_*.deb Depends)" == dkms* ]] &&
		! grep -l dkms <(dpkg-deb -f "$deb"/lib*.deb "$deb"/uidgen-tools_*.deb Depends)'
check "libuidgen2: the shared library, in the multiarch directory" \
	'has libuidgen2 $libdir/libuidgen.so.2 $libdir/libuidgen.so.$libver'
check "libuidgen2: a symbols file (ABI checked at build)" \
	'dpkg-deb -I "$deb"/libuidgen2_*.deb symbols | grep "uidgen_set_cache@UIDGEN_2.0" > /dev/null'
check "libuidgen-dev: headers, .so, .a, pkg-config, section 3" \
	'has libuidgen-dev /usr/include/uidgen.h /usr/include/linux/uidgen.h $libdir/libuidgen.so \
		$libdir/libuidgen.a $libdir/pkgconfig/uidgen.pc /usr/share/man/man3/uidgen_next.3.gz'
check "uidgen-tools: CLI, sections 1 and 4, units, udev rule, metrics script and timer, CDI spec, modprobe.d example" \
	'has uidgen-tools /usr/bin/uidgen /usr/share/man/man1/uidgen.1.gz /usr/share/man/man4/uid.4.gz \
		/usr/lib/udev/rules.d/60-uidgen.rules \
		/lib/systemd/system/uidgen-state.service /lib/systemd/system/uidgen-persist.service \
		/usr/sbin/uidgen-metrics /usr/share/man/man8/uidgen-metrics.8.gz /lib/systemd/system/uidgen-metrics.service \
		/lib/systemd/system/uidgen-metrics.timer /etc/cdi/uidgen.yaml \
		/usr/share/doc/uidgen-tools/examples/uidgen.conf.example'
check "postgresql-15-uidgen: the extension where PostgreSQL 15 looks" \
	'has postgresql-15-uidgen /usr/lib/postgresql/15/lib/uidgen.so \
		/usr/share/postgresql/15/extension/uidgen.control \
		/usr/share/postgresql/15/extension/uidgen--1.0.sql'
check "postgresql-15-uidgen depends on postgresql-15 and libuidgen2 (no rpath)" \
	'dpkg-deb -f "$deb"/postgresql-15-uidgen_*.deb Depends | grep "postgresql-15, .*libuidgen2 (>= $version)" > /dev/null &&
		dpkg-deb -x "$deb"/postgresql-15-uidgen_*.deb "$out/pg" &&
		! readelf -d "$out/pg/usr/lib/postgresql/15/lib/uidgen.so" | grep -i -E "rpath|runpath"'

check "dpkg -i installs all five" \
	'dpkg -i "$deb"/{uidgen-dkms_*_all,libuidgen2_*_amd64,libuidgen-dev_*_amd64,uidgen-tools_*_amd64,postgresql-15-uidgen_*_amd64}.deb'
# (grep without -q: an early exit would be a SIGPIPE, and pipefail is on)
installed() { dkms status -m uidgen -v "$version" -k "$kver" | grep ": installed" > /dev/null; }
check "dpkg -i had DKMS build it for $kver" 'installed'
check "take it off $kver, as if $kver came later" \
	'dkms remove -m uidgen -v "$version" -k "$kver" && ! installed &&
		! ls /lib/modules/"$kver"/updates/dkms/uidgen.ko* 2>/dev/null'
check "dpkg -i made the system group uidgen" \
	'gid=$(getent group uidgen | cut -d: -f3) && [ "$gid" -gt 0 ] && [ "$gid" -lt 1000 ]'
check "uidgen-tools depends on adduser, for it" \
	'dpkg-deb -f "$deb"/uidgen-tools_*.deb Depends | grep -E "(^|, )adduser(,|$)" > /dev/null'
check "the units are installed but not enabled" \
	'[ "$(systemctl is-enabled uidgen-state.service uidgen-persist.service uidgen-metrics.timer | xargs)" = "disabled disabled disabled" ]'
check "the kernel's DKMS hook builds it for $kver" \
	'/etc/kernel/postinst.d/dkms "$kver" && installed'
check "uidgen --version" '[ "$(uidgen --version)" = "uidgen $version" ]'
check "pkg-config finds libuidgen in $libdir" \
	'[ "$(pkg-config --cflags --libs uidgen | xargs)" = "-luidgen" ] &&
		[ "$(pkg-config --variable=libdir uidgen)" = "$libdir" ]'
check "a program builds against the packaged header and .so" \
	'gcc -Wall -Werror -o "$out/prog" tests/lib/prog.c $(pkg-config --cflags --libs uidgen) &&
		so=$(ldd "$out/prog" | awk "/libuidgen.so.2 =>/ {print \$3}") &&
		[ "$(readlink -f "$so")" = "$libdir/libuidgen.so.$libver" ]'

# In the VM (this machine's root, read-only): the packaged module under
# udev with the packaged rule, /dev/uid readable by all; then the rule
# overridden (/run/udev/rules.d here, /etc/udev/rules.d on a real
# machine) with MODE="0440", the node to the group alone; the packaged
# CLI and library.
gid=$(getent group uidgen | cut -d: -f3)
cat > "$out/job.sh" <<JOB
set -u
# The job runs chrooted into this machine's root: udevadm ignores
# settle, control and trigger in a chroot unless told otherwise.
export SYSTEMD_IGNORE_CHROOT=1
/lib/systemd/systemd-udevd --daemon && echo "RESULT udevd ok"
modprobe uidgen && echo "RESULT modprobe ok"
udevadm settle -t 60
uidgen set-node 6 --new > /dev/null && echo "RESULT set-node ok"
echo "RESULT path \$(modinfo -n uidgen)"
echo "RESULT dev \$(stat -c '%t %U:%G %a' /dev/uid)"
echo "RESULT nobody \$(setpriv --reuid=65534 --regid=65534 --clear-groups "$out/prog")"
mkdir -p /run/udev/rules.d
sed 's/MODE="0444"/MODE="0440"/' /usr/lib/udev/rules.d/60-uidgen.rules > /run/udev/rules.d/60-uidgen.rules
udevadm control --reload
udevadm trigger --action=add --subsystem-match=misc --sysname-match=uid
udevadm settle -t 60
echo "RESULT dev2 \$(stat -c '%U:%G %a' /dev/uid)"
echo "RESULT cli \$(uidgen decode "\$(uidgen)")"
echo "RESULT prog \$(setpriv --reuid=65534 --regid=$gid --clear-groups "$out/prog")"
echo "RESULT others \$(setpriv --reuid=65534 --regid=65534 --clear-groups "$out/prog"; echo rc=\$?)"
udevadm control --exit
rmmod uidgen && echo "RESULT rmmod ok"
JOB
vm_job
check "in a $kver VM, udevd ran" '[ "$(get udevd)" = ok ]'
check "modprobe loads the DKMS-built module" '[ "$(get modprobe)" = ok ]'
check "from updates/dkms" 'get path | grep -q "^/lib/modules/$kver/updates/dkms/uidgen.ko"'
check "the packaged CLI assigns node ID 6" '[ "$(get set-node)" = ok ]'
check "/dev/uid: major 10 (misc), root:uidgen 0444 by the packaged rule" '[ "$(get dev)" = "a root:uidgen 444" ]'
check "nobody, in no group, gets IDs" '[ "$(get nobody)" = "node=6" ]'
check "a rule of the same name with MODE=0440 makes it root:uidgen 0440" '[ "$(get dev2)" = "root:uidgen 440" ]'
check "the packaged CLI gets IDs under node 6" 'get cli | grep -q " node=6 "'
check "the program, on the packaged .so, as group uidgen" '[ "$(get prog)" = "node=6" ]'
check "and others get nothing" '[ "$(get others)" = "rc=1" ]'
check "rmmod" '[ "$(get rmmod)" = ok ]'
check "the VM finished, its kernel log clean" vm_ok

check "the installed extension resolves libuidgen.so.2 from libuidgen2" \
	'[ "$(ldd /usr/lib/postgresql/15/lib/uidgen.so | awk "/libuidgen.so.2 =>/ {print \$3}" | xargs readlink -f)" = "$libdir/libuidgen.so.$libver" ]'
check "dpkg --purge removes all five" 'purge && ! dpkg -s $pkgs 2> /dev/null | grep "^Status: install" > /dev/null'
check "dkms knows it no more" '[ -z "$(dkms status -m uidgen)" ]'
check "the module is gone" '! ls /lib/modules/"$kver"/updates/dkms/uidgen.ko* 2>/dev/null'
check "and its source, CLI and library" \
	'[ ! -e "/usr/src/uidgen-$version" ] && [ ! -e /usr/bin/uidgen ] && [ ! -e "$libdir/libuidgen.so.2" ]'
trap - EXIT
tap_end
