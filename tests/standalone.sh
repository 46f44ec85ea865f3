#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The parts a newcomer builds on their own, each in a fresh clone of this
# tree with nothing built first: the PostgreSQL extension (make -C
# clients/postgresql) links libuidgen in statically, with no RUNPATH into
# the checkout and no libuidgen.so needed at run time; the Go binding's
# `go test` with no device skips the device tests, saying why, and fails
# them with UIDGEN_REQUIRE_DEVICE=1 (as the VM suite sets it); a module of
# one's own uses the binding through a replace directive, as its README
# says. (Skipped where /dev/uid exists: that is the VM suites' part.)
#   tests/standalone.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
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
check "uidgen.so: libuidgen linked in (no libuidgen.so.2 needed)" \
	'! readelf -d "$t/clients/postgresql/uidgen.so" | grep -F "libuidgen.so" &&
	 nm -D --defined-only "$t/clients/postgresql/uidgen.so" | grep -qw uidgen_next_sql'
check "uidgen.so: exports none of libuidgen's own symbols" \
	'[ -e "$so" ] && ! nm -D --defined-only "$t/clients/postgresql/uidgen.so" | grep -E " uidgen_(next|open|close|fill)$"'
# Go as the Makefile runs it (GO_ENV): no proxy, Debian's toolchain.
goenv="GOCACHE=$out/go-cache GOPATH=$out/go GOFLAGS=-mod=mod GOTOOLCHAIN=local GOPROXY=off"
gotest() { (cd "$t/bindings/go" && env $goenv "$@" go test -v -count=1 . > "$out/go.log" 2>&1); }
if [ ! -e /dev/uid ]; then
	check "go test without /dev/uid: passes, the device tests skipped" \
		'gotest; rc=$?; cat "$out/go.log"; [ $rc -eq 0 ] && ! grep -q -- "^--- FAIL" "$out/go.log" &&
		 grep -q -- "^--- SKIP: TestNext" "$out/go.log"'
	check "go test without /dev/uid: each skip says why" \
		'gotest; grep -B1 -- "^--- SKIP: TestNext" "$out/go.log" | grep -q "no /dev/uid"'
	check "go test without /dev/uid, UIDGEN_REQUIRE_DEVICE=1: the device tests fail" \
		'! gotest UIDGEN_REQUIRE_DEVICE=1 && grep -q -- "^--- FAIL: TestNext" "$out/go.log" &&
		 ! grep -q -- "^--- SKIP" "$out/go.log"'
fi
# bindings/go/README.md's recipe, word for word (a module of one's own).
gomod() {
	local m=$out/myapp
	mkdir -p "$m"
	printf 'package main\n\nimport (\n\t"fmt"\n\n\t"example.org/uidgen"\n)\n\nfunc main() {\n\tid, err := uidgen.Next()\n\tfmt.Println(id, err)\n}\n' > "$m/main.go"
	(cd "$m" && env $goenv go mod init myapp &&
		env $goenv go mod edit -require=example.org/uidgen@v0.0.0 -replace=example.org/uidgen="$t/bindings/go" &&
		env $goenv go build -o myapp . && ./myapp)
}
check "a module of one's own builds against bindings/go (replace directive)" gomod

tap_end
