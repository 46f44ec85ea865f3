#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The upstream suite: make upstream's patch series against Debian's
# linux-source-6.12, as a kernel maintainer would take it. It applies with
# git am to the pristine tree (tools/upstream.sh's cache), passes
# checkpatch --strict patch by patch, carries none of the out-of-tree
# compat, and builds: every patch on its own (=m with its KUnit tests,
# W=1, no function without a caller), then the whole series' driver as =m
# and as =y with W=1 and under sparse; make headers installs the uapi
# header, the kselftests build with lib.mk and skip (exit 4) without
# /dev/uid. The whole kernel =y, htmldocs and a guest booted from the
# tree are tests/upstream-full.sh's (make check-upstream-full).
# kselftest TAP with a "# Totals:" line; exit 1 on any failure.
#
#   tests/upstream.sh [-o OUTDIR]
#
# Cost: the pristine tree (unpack and commit, about 1.5 minutes) and the
# configured build directory (x86_64 defconfig, modules_prepare, make
# headers: about 2 minutes) are made once and cached next to the tree,
# keyed by the tarball and the configuration. A warm run builds the
# driver eight times (each patch, then =m, sparse and =y): measured at
# 6.5 to 12 minutes under a load of 19 on 2 cores, of which 4 to 9 the
# patch-by-patch builds. The tree is left pristine afterwards.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
. tests/lib/host-suite.sh
host_opts 6.12 "$@" || exit 2
kver=${kver:-6.12}
host_out upstream
out=$(cd "$out" && pwd)
series=$out/series
src=$(tools/upstream.sh -t) || exit 1
cache=$(dirname "$src")
# spdxcheck.py, which checkpatch runs, needs Debian's python3-ply and
# python3-git: the system python, not one earlier in PATH.
export PATH=/usr/bin:$PATH

check "make upstream writes a cover letter and its patches" \
	'tools/upstream.sh -o "$series" && ls "$series"/0000-cover-letter.patch && ls "$series"/0001-*.patch'
patches=$(ls "$series"/000[1-9]*.patch "$series"/00[1-9]*.patch 2>/dev/null | sort -u)
[ -n "$patches" ] || { tap_end; exit 1; }

# The out-of-tree build's compat stays out: no compat.h, no UIDGEN_HAVE_*
# define and no header probe in any patch.
no_compat() {
	! grep -nE '"compat\.h"|module/compat|UIDGEN_HAVE_|UIDGEN_DEVNODE_CONST|\$\(shell' $patches
}
check "no out-of-tree compat in the series (compat.h, UIDGEN_HAVE_*, \$(shell grep))" no_compat

# The kernel tree is shared by every run on this machine: one at a time,
# and back to pristine whatever happens.
exec 9> "$cache/.lock"
flock 9
pristine() {
	git -C "$src" am --abort > /dev/null 2>&1
	git -C "$src" checkout -q -f --detach pristine && git -C "$src" clean -q -f -d -x
}
trap pristine EXIT
pristine
check "git am applies the series to $(basename "$src") (no whitespace error)" \
	'git -C "$src" -c user.name=upstream -c user.email=upstream@localhost am -q --whitespace=error-all $patches'

# checkpatch --strict on each patch, in the tree (so that it checks
# MAINTAINERS and the SPDX tags too). A finding passes only if it is one
# of these, each with its reason:
#   volatile, in the selftests' "void *volatile null": a NULL buffer the
#     compiler cannot see, so that read(fd, NULL, 8) is called as written
#     (glibc declares read()'s buffer non-null); nothing else does that.
#   "added, moved or deleted file(s), does MAINTAINERS need updating?",
#     for a patch that adds files without touching MAINTAINERS: checkpatch
#     cannot see that an earlier patch's F: line covers them. Allowed only
#     if every file the patch adds is under an F: line of the UIDGEN entry
#     (the tree is the whole series applied).
allowed() {	# allowed PATCH LINE MESSAGE
	case $3 in
	*"Use of volatile is usually wrong"*)
		sed -n "$2p" "$1" | grep -q 'void \*volatile null = NULL;' ;;
	*"does MAINTAINERS need updating?"*)
		! grep -q '^+++ b/MAINTAINERS' "$1" && maintained "$1" ;;
	*) return 1 ;;
	esac
}
maintained() {	# maintained PATCH: the UIDGEN entry covers every file it adds
	local f fl ok
	fl=$(sed -n '/^UIDGEN UNIQUE ID GENERATOR$/,/^$/s/^F:\t//p' "$src/MAINTAINERS")
	[ -n "$fl" ] || return 1
	for f in $(grep -B3 '^new file mode' "$1" | sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p'); do
		ok=
		for e in $fl; do
			case $f in "$e"|"$e"*) [ "${e%/}" != "$e" ] || [ "$f" = "$e" ] && ok=1 ;; esac
		done
		[ -n "$ok" ] || { echo "not under the UIDGEN entry: $f"; return 1; }
	done
}
# --terse: one line per finding, "PATCH:LINE: ERROR|WARNING|CHECK: ...",
# and a "total:" line only if there is one; anything else it prints (a
# crash, spdxcheck.py's traceback) fails the patch too.
checkpatch() {	# checkpatch PATCH: no finding left once the allowed ones are out
	local res line left=0
	res=$(cd "$src" && perl scripts/checkpatch.pl --strict --terse "$1" 2>&1)
	while IFS= read -r line; do
		case $line in
		"$1":[0-9]*": "[A-Z]*": "*)
			if allowed "$1" "$(echo "${line#"$1":}" | cut -d: -f1)" "$line"; then
				echo "allowed: $line"
				continue
			fi ;;
		total:*|"") continue ;;
		esac
		echo "$line"
		left=$((left + 1))
	done <<< "$res"
	[ "$left" -eq 0 ]
}
for p in $patches; do
	check "checkpatch --strict $(basename "$p")" 'checkpatch "$p"'
done

# The build directory: x86_64 defconfig with CONFIG_UIDGEN=m, prepared
# once per tarball and configuration (the key), reused after.
key=$( (cat "$src/.git/uidgen-pristine"; echo "defconfig UIDGEN=m KUNIT=m UIDGEN_KUNIT_TEST=y") |
	sha1sum | cut -c1-12)
b=$cache/build-$key
kmake() { make -C "$src" O="$b" -j"$(nproc)" "$@"; }
prepare() {
	if [ "$(cat "$b/.uidgen-prepared" 2>/dev/null)" != "$key" ]; then
		rm -rf "$b"
		mkdir -p "$b"
		kmake -s defconfig || return 1
		config_m || return 1
		kmake -s modules_prepare && kmake -s headers || return 1
		echo "$key" > "$b/.uidgen-prepared"
	fi
	config_m && grep -x 'CONFIG_UIDGEN=m' "$b/.config" &&
		grep -x 'CONFIG_UIDGEN_KUNIT_TEST=y' "$b/.config"
}
# UIDGEN=m with its KUnit tests (KUNIT=m); set again after a patch that
# had no uidgen Kconfig, which olddefconfig drops the symbols for.
config_m() {
	"$src/scripts/config" --file "$b/.config" --module KUNIT --module UIDGEN \
		--enable UIDGEN_KUNIT_TEST && kmake -s olddefconfig
}
start=$(date +%s)
check "Kconfig: CONFIG_UIDGEN=m on x86_64 defconfig (build dir $(basename "$b"))" prepare
prep_s=$(( $(date +%s) - start ))

# W=1 and sparse, where any warning is a finding.
nowarn() {	# nowarn COMMAND...: it succeeds and prints no warning
	local log
	log=$("$@" 2>&1) || { echo "$log"; return 1; }
	echo "$log"
	! grep -E 'warning|error' <<< "$log"
}
# Bisectable: each patch builds on its own (=m, W=1, its KUnit tests in),
# with no warning, and every function of drivers/misc/uidgen/ that is not
# static has a caller there (W=1 finds the static ones): no function
# waits for a later patch to be used.
orphans() {	# the driver's non-static functions that nothing in it names
	local d=$src/drivers/misc/uidgen f n
	[ -d "$d" ] || return 0
	for f in "$d"/*.c; do
		sed -nE 's/^[a-z][^(;]*[ *](uidgen_[a-z0-9_]+)\(.*[^;]$/\1/p' "$f" |
			grep -v '^$' | grep -vxf <(sed -nE 's/^static [^(;]*[ *](uidgen_[a-z0-9_]+)\(.*/\1/p' "$f")
	done | sort -u | while read -r n; do
		[ "$(find "$d" -name '*.c' -exec grep -hwE "$n" {} + |
			grep -vE '^ ?(/?\*)' | wc -l)" -gt 1 ] || echo "$n"
	done
}
bisect() {
	local c n=0 left rc=0 top
	top=$(git -C "$src" rev-parse HEAD)
	[ "$(git -C "$src" rev-list --count pristine..HEAD)" -gt 1 ] || { echo "the series is not applied"; return 1; }
	for c in $(git -C "$src" rev-list --reverse pristine..HEAD); do
		n=$((n + 1))
		git -C "$src" checkout -q "$c" || return 1
		[ -d "$src/drivers/misc/uidgen" ] || { echo "patch $n: no driver yet"; continue; }
		config_m > /dev/null || { rc=1; break; }
		if ! nowarn kmake W=1 drivers/misc/uidgen/ > "$out/bisect-$n.log" 2>&1; then
			echo "patch $n: the build fails or warns:"; cat "$out/bisect-$n.log"; rc=1
		else
			echo "patch $n: built, no warning ($(ls "$b"/drivers/misc/uidgen/*.o "$b"/drivers/misc/uidgen/tests/*.o 2>/dev/null | wc -l) objects)"
		fi
		left=$(orphans)
		[ -z "$left" ] || { echo "patch $n: no caller in the driver for: $left"; rc=1; }
	done
	git -C "$src" checkout -q "$top" && config_m > /dev/null
	return $rc
}
start=$(date +%s)
check "every patch builds on its own (=m with KUnit, W=1, no warning) and leaves no function without a caller" bisect
echo "# upstream: patch by patch in $(( $(date +%s) - start ))s"
check "make W=1 drivers/misc/uidgen/: built, no warning" \
	'nowarn kmake W=1 drivers/misc/uidgen/ && ls "$b"/drivers/misc/uidgen/uidgen.o'
check "make C=2 W=1 drivers/misc/uidgen/ (sparse): no warning" \
	'nowarn kmake C=2 W=1 drivers/misc/uidgen/'
# =y: the same directory built in, its KUnit tests too (KUNIT=y), W=1 and
# sparse; then back to =m. The whole kernel =y, linked and booted, is
# tests/upstream-full.sh's (make check-upstream-full).
config_y() {
	"$src/scripts/config" --file "$b/.config" --enable KUNIT --enable UIDGEN \
		--enable UIDGEN_KUNIT_TEST && kmake -s olddefconfig &&
		grep -x 'CONFIG_UIDGEN=y' "$b/.config" &&
		grep -x 'CONFIG_UIDGEN_KUNIT_TEST=y' "$b/.config"
}
build_y() {
	local rc
	config_y && nowarn kmake C=2 W=1 drivers/misc/uidgen/ &&
		ar t "$b/drivers/misc/uidgen/built-in.a" | grep -E 'uidgen/(main|tests/gen_kunit)\.o$'
	rc=$?
	config_m > /dev/null
	return $rc
}
check "make C=2 W=1 drivers/misc/uidgen/ as =y (built in, with KUnit; sparse): no warning" build_y
check "make headers: include/uapi/linux/uidgen.h installed (headers_install checks)" \
	'kmake -s headers && grep -q "define UIDGEN_IOC_TYPE" "$b/usr/include/linux/uidgen.h"'
check "kernel-doc -none -Wall on the in-tree header and driver" \
	'nowarn perl "$src/scripts/kernel-doc" -none -Wall "$src"/include/uapi/linux/uidgen.h "$src"/drivers/misc/uidgen/*.[ch]'

# The kselftests with the tree's lib.mk and its installed headers.
st=$src/tools/testing/selftests/drivers/misc/uidgen
progs=$(cd "$st" && ls *.c | sed 's/\.c$//')
kselftests() {
	local t
	mkdir -p "$out/kselftest"
	nowarn make -C "$st" OUTPUT="$out/kselftest" KHDR_INCLUDES="-isystem $b/usr/include" ||
		return 1
	for t in $progs; do
		test -x "$out/kselftest/$t" || { echo "no $t"; return 1; }
	done
}
check "kselftests build with lib.mk, no warning ($(echo $progs | wc -w) programs)" kselftests
# Without /dev/uid (an empty /dev in a mount namespace of its own, so that
# it holds wherever this runs): "1..0 # SKIP", exit status 4, each program.
noskip() {
	local t rc log
	for t in $progs; do
		log=$(unshare -m sh -c 'mount -t tmpfs none /dev && exec "$0"' "$out/kselftest/$t" 2>&1)
		rc=$?
		echo "$t: exit $rc: $log"
		[ "$rc" -eq 4 ] && grep -q '^1\.\.0 # SKIP' <<< "$log" || return 1
	done
}
check "without /dev/uid each kselftest skips (1..0 # SKIP, exit 4)" noskip
echo "# upstream: $(echo $patches | wc -w) patches; build dir ready in ${prep_s}s"
tap_end
