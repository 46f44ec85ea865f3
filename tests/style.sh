#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make style: the kernel's own checkers on every kernel file, from Debian's
# linux-source-6.12 (unpacked once into the KUnit cache): checkpatch
# --strict, kernel-doc, and the uapi header alone as C90, included twice;
# then the module built with W=1 and under sparse (C=2) against both
# Debian kernels' headers, and every userspace file under gcc and clang
# with -Wall -Wextra, where any warning is a finding.
# Prints a "# Totals:" line; exit status 1 on any finding.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
cache=${UIDGEN_KUNIT_CACHE:-/var/cache/uidgen-kunit}
tarball=$(ls -v /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | tail -n 1)
[ -n "$tarball" ] || { echo "style.sh: apt-get install linux-source-6.12" >&2; exit 1; }
src=$cache/$(basename "$tarball" .tar.xz)
tests/kunit/tree.sh "$src" "$tarball" > /dev/null
files=$(git ls-files 'module/*.[ch]' 'module/tests/*.[ch]' 'uapi/linux/*.h')
pass=0
fail=0
check() {	# check NAME COMMAND...: exit 0 with no finding is a pass
	local name=$1 res rc
	shift
	res=$("$@" 2>&1)
	rc=$?
	# checkpatch prints a clean "total:" line even when there is nothing.
	res=$(echo "$res" | grep -v '^total: 0 errors, 0 warnings, 0 checks')
	if [ $rc -eq 0 ] && [ -z "$res" ]; then
		pass=$((pass + 1)); echo "ok - $name"
	else
		fail=$((fail + 1)); echo "not ok - $name"; echo "$res" | sed 's/^/#   /'
	fi
}
for f in $files; do
	check "checkpatch --strict $f" perl "$src/scripts/checkpatch.pl" --no-tree --strict --terse -q -f "$f"
done
check "kernel-doc -none -Wall" perl "$src/scripts/kernel-doc" -none -Wall $files
tmp=$(mktemp -d)
printf '#include <linux/uidgen.h>\n#include <linux/uidgen.h>\nint main(void) { return 0; }\n' > "$tmp/t.c"
check "uapi header: C90, -pedantic, included twice" \
	gcc -std=c90 -pedantic -Wall -Wextra -Werror -Iuapi -o "$tmp/t" "$tmp/t.c"

# build KVER C: the module, out of tree in a scratch copy, with W=1 and
# C=$2 (0: gcc only, 2: sparse on every file); any warning is a finding.
build() {
	local kdir=/usr/src/linux-headers-$1 log
	[ -d "$kdir" ] || { echo "no headers for $1"; return 1; }
	make -s module-source SRCDIR="$tmp/m" || return 1
	log=$(make -C "$kdir" M="$tmp/m" W=1 C="$2" modules 2>&1) || { echo "$log"; return 1; }
	echo "$log" | grep -E 'warning|error|: note:' | grep -v 'Skipping BTF generation'
	return 0
}
# Every userspace file, warning-free under both compilers (the selftests
# need the kernel's kselftest_harness.h, unpacked from linux-source).
make -s -C selftests kselftest/kselftest_harness.h > /dev/null
# The Node.js addon with the N-API headers (libnode-dev) as system headers.
user=$(git ls-files 'userlib/*.c' 'userlib/tests/*.c' 'selftests/*.c' 'bench/*.c' 'lease/*.c' 'tests/lease/*.c' 'bindings/node/src/*.c')
userspace() {	# userspace CC
	local f
	for f in $user; do
		"$1" -std=gnu11 -O2 -Wall -Wextra -Wformat=2 -Wshadow -Werror \
			-D_GNU_SOURCE -DUIDGEN_VERSION=\"0\" -DUIDGEN_MODULE_VERSION=0 -Iuapi -Iuserlib -Iselftests \
			-isystem selftests/kselftest -isystem /usr/include/node $(pkg-config --cflags libcurl json-c) -c -o "$tmp/u.o" "$f" || return 1
	done
}
check "userspace: gcc -Wall -Wextra -Werror" userspace gcc
check "userspace: clang -Wall -Wextra -Werror" userspace clang

# Sphinx's warnings go to stderr; the line naming the output is no finding.
docs() { tests/docs.sh "$1" > /dev/null; }
check "make docs: sphinx -W, kernel-doc from the uapi header" docs "$tmp/html"

# 64-bit kernels only, refused cleanly: Kconfig hides CONFIG_UIDGEN on
# i386 (and offers it on x86_64, so the check can tell), and the out-of-tree
# build stops with one line saying why.
kconfig_has_uidgen() {	# kconfig_has_uidgen ARCH
	local o=$tmp/kconfig-$1
	mkdir -p "$o"
	make -s -C "$src" O="$o" ARCH="$1" allnoconfig > /dev/null 2>&1 &&
		"$src/scripts/config" --file "$o/.config" --enable UIDGEN &&
		make -s -C "$src" O="$o" ARCH="$1" olddefconfig > /dev/null 2>&1 &&
		grep -q '^CONFIG_UIDGEN=y' "$o/.config"
}
check "Kconfig offers UIDGEN on x86_64" kconfig_has_uidgen x86_64
check "Kconfig refuses UIDGEN on i386" eval '! kconfig_has_uidgen i386'
refuse32() {
	local log
	make -s module-source SRCDIR="$tmp/m32" || return 1
	log=$(make -C "/usr/src/linux-headers-$(tests/qemu/kver.sh 6.12)" M="$tmp/m32" \
		CONFIG_64BIT= modules 2>&1) && { echo "built for a 32-bit config"; return 1; }
	# Not "echo | grep -q" under pipefail: grep's early exit fails echo.
	grep -q 'uidgen: needs a 64-bit kernel (CONFIG_64BIT); this one is 32-bit' <<< "$log" ||
		{ echo "$log"; return 1; }
}
check "an out-of-tree build for a 32-bit kernel stops, saying why" refuse32
# make clean (and DKMS's CLEAN, the same kbuild command) reads no kernel
# config, so the 64-bit refusal must not fire there: a build, then a clean
# that exits 0 and leaves no uidgen.ko.
kclean() {
	local kdir=/usr/src/linux-headers-$(tests/qemu/kver.sh 6.12) log
	make -s module-source SRCDIR="$tmp/mc" || return 1
	make -s -C "$kdir" M="$tmp/mc" modules > /dev/null 2>&1 || { echo "build failed"; return 1; }
	log=$(make -s -C "$kdir" M="$tmp/mc" clean 2>&1) || { echo "$log"; return 1; }
	[ ! -e "$tmp/mc/module/uidgen.ko" ] || { echo "clean left module/uidgen.ko"; return 1; }
}
check "make clean (kbuild, as DKMS's CLEAN runs it) cleans, exit 0" kclean
# The top-level make clean in a copy of the tree: exit 0, no uidgen.ko, and
# every tracked file still there (kbuild's clean deletes every *.mod, *.a,
# *.o, *.s... under M=, bindings/go/go.mod among them, if M= is the top).
topclean() {
	local t=$tmp/tree log f
	mkdir -p "$t"
	git ls-files -z | xargs -0 cp -a --parents -t "$t" || return 1
	make -s -C "$t" module > /dev/null 2>&1 || { echo "make module failed"; return 1; }
	log=$(make -s -C "$t" clean 2>&1) || { echo "$log"; return 1; }
	[ ! -e "$t/module/uidgen.ko" ] || { echo "clean left module/uidgen.ko"; return 1; }
	for f in $(git ls-files); do
		[ -e "$t/$f" ] || { echo "make clean deleted $f"; return 1; }
	done
}
check "make clean at the top: exit 0, the module gone, every tracked file kept" topclean

for k in $(tests/qemu/kver.sh 6.1) $(tests/qemu/kver.sh 6.12); do
	check "make W=1, $k" build "$k" 0
	check "sparse (make C=2 W=1), $k" build "$k" 2
done
rm -rf "$tmp"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
