#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Which kernel `make` builds for and `make install` installs into, on the
# host with make -n (nothing is built or installed). UNAME_R stands in for
# the running kernel's release: one with no headers here ("none"), and one
# with headers (the test VM's 6.1). With no headers for the running
# kernel, make says it builds against another kernel's headers, and
# install (and dkms-install) refuse that kernel's tree unless KVER or KDIR
# is given (make uninstall too); given either, the other follows it. make
# clean with no headers at all still cleans (a copy of the tree).
#   tests/kdir.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
check() {	# check DESCRIPTION COMMAND (eval'd; $log: make's stdout+stderr)
	n=$((n + 1))
	if eval "$2" > "$out/check.log" 2>&1; then
		pass=$((pass + 1)); echo "ok $n $1"
	else
		fail=$((fail + 1)); echo "not ok $n $1"; echo "#   $2"
		sed 's/^/#   /' "$out/check.log" | tail -n 20 | cut -c1-300
		sed 's/^/#   make: /' "$out/make.log" | tail -n 20 | cut -c1-300
	fi
}
# mk ARGS...: make -n ARGS, output in $out/make.log, its exit status kept;
# MAKE='echo make': the recursive makes (kbuild, userlib/) are printed,
# not run (make -n runs a $(MAKE) line).
mk() { make -n --no-print-directory MAKE='echo make' "$@" > "$out/make.log" 2>&1; }
has() { grep -qF -- "$1" "$out/make.log"; }

k61=$(tests/qemu/kver.sh 6.1) || exit 1
k612=$(tests/qemu/kver.sh 6.12) || exit 1
none=0.0.0-no-headers
echo "TAP version 13"
check "no headers for the running kernel: make module says so and names the headers used" \
	'mk module UNAME_R=$none && has "no headers for the running kernel $none" &&
	 has "-C /usr/src/linux-headers-$k61 " && has "will not load on this machine"'
check "no headers for the running kernel: make install refuses, naming KVER and KDIR" \
	'! mk install UNAME_R=$none DESTDIR=$out/root && has "KVER=" && has "KDIR=" &&
	 has "/lib/modules/$k61"'
check "no headers for the running kernel: make install-module refuses" \
	'! mk install-module UNAME_R=$none DESTDIR=$out/root && has "refusing"'
check "no headers for the running kernel: make dkms-install refuses" \
	'! mk dkms-install UNAME_R=$none && has "refusing"'
check "make install KVER=<6.1>: builds with its headers, installs into its tree, no warning" \
	'mk install UNAME_R=$none KVER=$k61 DESTDIR=$out/root && has "-C /lib/modules/$k61/build " &&
	 has "$out/root/lib/modules/$k61/updates/uidgen.ko" && ! has "no headers"'
check "make install KDIR=<6.12 headers>: KVER follows it, no warning" \
	'mk install UNAME_R=$none KDIR=/usr/src/linux-headers-$k612 DESTDIR=$out/root &&
	 has "-C /usr/src/linux-headers-$k612 " && has "$out/root/lib/modules/$k612/updates/uidgen.ko" &&
	 ! has "no headers"'
check "a KDIR KVER cannot be read from: make install asks for KVER" \
	'! mk install UNAME_R=$none KDIR=$out DESTDIR=$out/root && has "KVER="'
check "the running kernel has headers: make install uses them and its tree, no warning" \
	'mk install UNAME_R=$k61 DESTDIR=$out/root && has "-C /lib/modules/$k61/build " &&
	 has "$out/root/lib/modules/$k61/updates/uidgen.ko" && ! has "no headers"'
check "no headers for the running kernel: make uninstall refuses too (it would take the module out of another kernel's tree)" \
	'! mk uninstall UNAME_R=$none DESTDIR=$out/root && has "refusing" && has "KVER="'
check "make uninstall KVER=<6.1>: from its tree, no refusal" \
	'mk uninstall UNAME_R=$none KVER=$k61 DESTDIR=$out/root && has "$out/root/lib/modules/$k61/updates/uidgen.ko" && ! has "refusing"'
# make clean for real, in a copy of the tree (the files git tracks or
# would), with no kernel headers at all (KVER_TEST empty: no test kernel's
# either): the userspace is cleaned, the module's products by name.
mkdir -p "$out/tree"
git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$out/tree"
check "no kernel headers at all: make clean exits 0, says the module's part was cleaned without kbuild, removes what make built" \
	'make -s -C "$out/tree/userlib" > /dev/null 2>&1 && [ -x "$out/tree/userlib/uidgen" ] &&
	 touch "$out/tree/module/gen.o" "$out/tree/module/uidgen.ko" "$out/tree/module/.gen.o.cmd" "$out/tree/module/uidgen.mod.c" &&
	 make -C "$out/tree" --no-print-directory clean UNAME_R=$none KVER_TEST= > "$out/make.log" 2>&1 &&
	 has "no kernel headers" && [ ! -e "$out/tree/userlib/uidgen" ] &&
	 [ -z "$(cd "$out/tree" && ls module/*.o module/*.ko module/.*.cmd module/*.mod.c 2>/dev/null)" ]'
check "make -s version prints only the version (no warning on stderr)" \
	'[ "$(make -s --no-print-directory version UNAME_R=$none 2>&1)" = "$(make -s --no-print-directory version 2>/dev/null)" ]'
tap_end
