#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Node.js binding (bindings/node) in the VM, against the real device
# (node ID $UIDGEN_NODE assigned after load): npm test on the addon that
# make clients built on the host (cc against /usr/include/node; no compiler
# run under TCG, where building it takes minutes), then the same tests on
# the pure-JS fallback. The host suite node-pack (tests/shell/node-pack.sh)
# checks npm pack and an offline install of the tarball, which builds the
# addon from it. node's own test runner (TAP: "# pass N" ...) is counted
# into a "# Totals:" line; a skipped or cancelled test is a failure, and
# so is a run that printed no totals. Run as root in the repository.
set -u
T=/tmp/nodejs
pass=0
fail=0

# count LOG: add a run's "# pass/# fail/# skipped/# cancelled/# todo".
count() {
	_p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$1" | tail -n 1)
	_f=0
	for _k in fail skipped cancelled todo; do
		_n=$(sed -n "s/^# $_k \\([0-9]*\\)\$/\\1/p" "$1" | tail -n 1)
		_f=$((_f + ${_n:-0}))
	done
	[ -n "$_p" ] || { echo "# no totals from node's test runner in $1"; _f=$((_f + 1)); }
	pass=$((pass + ${_p:-0}))
	fail=$((fail + _f))
}

export UIDGEN_REPO=$PWD UIDGEN_REQUIRE_DEVICE=1
# npm's cache and logs in /tmp: the guest's HOME may be the read-only /.
export npm_config_cache=$T/npm-cache npm_config_update_notifier=false
rm -rf $T && mkdir -p $T
if [ ! -f bindings/node/build/uidgen.node ]; then
	echo "# FAIL: no bindings/node/build/uidgen.node: make clients builds it"
	fail=$((fail + 1))
fi
if command -v npm > /dev/null; then
	echo "== npm test, addon"
	(cd bindings/node && UIDGEN_NODE_BACKEND=addon npm test) > $T/addon.log 2>&1
else
	echo "# no npm (tests/setup.sh installs it): node --test, addon"
	UIDGEN_NODE_BACKEND=addon node --test bindings/node/test/host.test.js \
		bindings/node/test/device.test.js > $T/addon.log 2>&1
	fail=$((fail + 1))
fi
cat $T/addon.log
count $T/addon.log
echo "== the same tests, pure-JS fallback"
UIDGEN_NODE_BACKEND=js node --test bindings/node/test/host.test.js bindings/node/test/device.test.js \
	> $T/js.log 2>&1
cat $T/js.log
count $T/js.log
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
