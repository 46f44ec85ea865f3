#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The parts a newcomer builds on their own, each in a fresh clone of this
# tree with nothing built first: the PostgreSQL extension (make -C
# clients/postgresql) links libuidgen in statically, with no RUNPATH into
# the checkout and no libuidgen.so needed at run time.
#   tests/standalone.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0
fail=0
n=0
check() {	# check DESCRIPTION COMMAND (eval'd)
	n=$((n + 1))
	if eval "$2" > "$out/check.log" 2>&1; then
		pass=$((pass + 1)); echo "ok $n $1"
	else
		fail=$((fail + 1)); echo "not ok $n $1"; echo "#   $2"
		sed 's/^/#   /' "$out/check.log" | tail -n 20
	fi
}
# A fresh clone: the files git tracks or would (the working tree's, so
# that uncommitted changes are tested too), nothing built.
t=$out/clone
mkdir -p "$t"
git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$t"

echo "TAP version 13"
check "make -C clients/postgresql in a fresh clone" 'make -C "$t/clients/postgresql"'
so=$t/clients/postgresql/uidgen.so
check "uidgen.so: no RPATH or RUNPATH" \
	'[ -e "$so" ] && ! readelf -d "$t/clients/postgresql/uidgen.so" | grep -E "RPATH|RUNPATH"'
check "uidgen.so: libuidgen linked in (no libuidgen.so.1 needed)" \
	'! readelf -d "$t/clients/postgresql/uidgen.so" | grep -F "libuidgen.so" &&
	 nm -D --defined-only "$t/clients/postgresql/uidgen.so" | grep -qw uidgen_next_sql'
check "uidgen.so: exports none of libuidgen's own symbols" \
	'[ -e "$so" ] && ! nm -D --defined-only "$t/clients/postgresql/uidgen.so" | grep -E " uidgen_(next|open|close|fill)$"'
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
