#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Python binding (bindings/python) in the VM: `pip install` offline (the
# guest has no network) of the wheel `make clients` built on the host
# (build/py-wheel: pip wheel from setup.py with Debian's setuptools, the C
# extension uidgen._native built against this tree's libuidgen; no compiler
# runs under TCG), into /tmp. Then its unittest tests, on the installed
# copy, against the real device (node ID $UIDGEN_NODE assigned after load),
# with the C extension (UIDGEN_REQUIRE_NATIVE=1: one that did not build or
# import is a failure), then the classes that use next() (Device, Native)
# again forced to pure Python (UIDGEN_PURE_PYTHON=1). The last "# Totals:"
# line adds up both runs.
# Run as root in the repository; tests/lib/idref built (make tests).
set -u
PY=/usr/bin/python3
T=/tmp/py
rm -rf $T && mkdir -p $T
set -- build/py-wheel/uidgen-*.whl
if [ ! -f "$1" ]; then
	echo "# no wheel in build/py-wheel: make clients builds it"
elif ! $PY -m pip install -q --no-index --target $T/site "$1"; then
	echo "# pip install --no-index $1 failed"
fi
# run VAR=VALUE... -- [TEST CLASS...]
run() {
	_env=
	while [ "$1" != -- ]; do _env="$_env $1"; shift; done
	shift
	env $_env UIDGEN_PIP_TARGET=$T/site UIDGEN_REPO=$PWD PYTHONPATH=$T/site PYTHONDONTWRITEBYTECODE=1 \
		$PY bindings/python/tests/test_uidgen.py "$@" 2>&1
}
rc=0
echo "# with the C extension"
out1=$(run UIDGEN_REQUIRE_NATIVE=1 --) || rc=1
echo "$out1"
# Only the classes next() changes again: the rest is the same code.
echo "# pure Python (UIDGEN_PURE_PYTHON=1): Device, Native"
out2=$(run UIDGEN_PURE_PYTHON=1 -- Device Native) || rc=1
echo "$out2"
. tests/totals.sh
# counts OUTPUT: "PASS FAIL" of its last Totals line (skip and error are
# failures); no Totals line (the run died) is one failure.
counts() {
	_l=$(echo "$1" | grep '^# Totals: pass:' | tail -n 1)
	if [ -n "$_l" ]; then totals_line "$_l"; else echo "0 1"; fi
}
set -- $(counts "$out1") $(counts "$out2")
echo "# both runs"
echo "# Totals: pass:$(($1 + $3)) fail:$(($2 + $4)) xfail:0 xpass:0 skip:0 error:0"
exit $rc
