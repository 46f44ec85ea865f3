#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Go binding (bindings/go) in the VM: its test binary, built on the host
# with `go test -c` (make tests: Go 1.19 from Debian, no compiler run under
# TCG), against the real device (node ID $UIDGEN_NODE assigned after load).
# Counts "--- PASS"/"--- FAIL"/"--- SKIP" into a "# Totals:" line (a skip
# is a failure; UIDGEN_REQUIRE_DEVICE=1 makes a missing /dev/uid one too,
# not a skip). Run as root in the repository.
set -u
out=$(UIDGEN_REPO=$PWD UIDGEN_REQUIRE_DEVICE=1 ./bindings/go/uidgen.test -test.v -test.count=1 2>&1)
rc=$?
echo "$out"
pass=$(echo "$out" | grep -c -- '^--- PASS')
fail=$(echo "$out" | grep -c -E -- '^--- (FAIL|SKIP)')
[ $rc -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
