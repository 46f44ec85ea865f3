#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Versions and counts the documentation states, against their one source:
# version.mk (the module's UIDGEN_VERSION_STR) for the manual pages'
# .TH source line ("uidgen V"; section 3's "libuidgen V"), uidgen.pc, the
# Python package, debian/changelog and the README's /usr/src/uidgen-VERSION; debian/control for how many packages
# `make deb` builds, wherever a README, guide, Makefile or test says it in
# words. On the host, nothing built but userlib/uidgen.pc.
#   tests/versions.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
v=$(make -s --no-print-directory version 2>/dev/null)
[ -n "$v" ] || { echo "Bail out! make version printed nothing"; exit 1; }
echo "TAP version 13"
echo "# version.mk: $v"
for m in userlib/man/uidgen.1 man/uid.4 lease/uidgen-cluster.1 lease/uidgen-lease.8; do
	check "$m: .TH says uidgen $v" \
		"th=\$(grep -m1 '^\\.TH' $m); echo \"\$th\"; case \$th in *'\"uidgen $v\"'*) ;; *) false ;; esac"
done
# The section 3 pages (those with a .TH; the rest are .so links).
for m in $(grep -l '^\.TH' man/*.3); do
	check "$m: .TH says libuidgen $v" \
		"th=\$(grep -m1 '^\\.TH' $m); echo \"\$th\"; case \$th in *'\"libuidgen $v\"'*) ;; *) false ;; esac"
done
check "uidgen.pc: Version: $v" \
	'make -s -C userlib uidgen.pc > /dev/null && grep "^Version:" userlib/uidgen.pc && grep -qx "Version: $v" userlib/uidgen.pc'
check "bindings/python/pyproject.toml: version = \"$v\"" \
	'grep "^version" bindings/python/pyproject.toml && grep -qx "version = \"$v\"" bindings/python/pyproject.toml'
check "debian/changelog: the newest entry is $v" \
	'head -n1 debian/changelog && head -n1 debian/changelog | grep -q "^uidgen ($v)"'
check "README.md and Documentation/: every uidgen-X.Y.Z is uidgen-$v" \
	'! grep -noE "uidgen-[0-9]+\.[0-9]+\.[0-9]+" README.md Documentation/*.rst | grep -v "uidgen-$v\$"'
words=(zero one two three four five six seven eight nine ten)
alt=$(IFS='|'; echo "${words[*]}")
np=$(grep -c '^Package:' debian/control)
check "debian/control has $np packages; the docs say ${words[$np]}" \
	'! grep -rniE "\b($alt) (debian )?packages" README.md Documentation/*.rst Makefile tests/*.sh |
		grep -viE "\b${words[$np]} (debian )?packages"'
tap_end
