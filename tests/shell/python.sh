#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Python binding (bindings/python) in the VM: `pip install` offline (the
# guest has no network) from a copy of the source, with Debian's setuptools
# and wheel (--no-build-isolation: an isolated build would fetch setuptools
# from PyPI), into /tmp; then its unittest tests, on the installed copy,
# against the real device (node ID $UIDGEN_NODE assigned after load).
# Run as root in the repository; tests/lib/idref built (make tests).
set -u
PY=/usr/bin/python3
T=/tmp/py
rm -rf $T && mkdir -p $T && cp -r bindings/python $T/src
if ! $PY -m pip install -q --no-index --no-build-isolation --target $T/site $T/src; then
	echo "# pip install --no-index --no-build-isolation failed"
fi
UIDGEN_PIP_TARGET=$T/site UIDGEN_REPO=$PWD PYTHONPATH=$T/site PYTHONDONTWRITEBYTECODE=1 \
	$PY bindings/python/tests/test_uidgen.py 2>&1
