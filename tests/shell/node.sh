#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Node.js binding (bindings/node) in the VM, against the real device
# (node ID $UIDGEN_NODE assigned after load), as a user gets it: npm pack
# of a copy of the source (offline: the guest has no network), npm install
# --offline of the tarball (its install script builds the addon with cc
# against /usr/include/node, libuidgen's sources from the tarball), then
# npm test in the installed package on the addon; then the tree's tests on
# the pure-JS fallback. node's own test runner (TAP: "# pass N" ...) is
# counted into a "# Totals:" line; a skipped or cancelled test is a
# failure, and so is a step that fails. Run as root in the repository.
set -u
T=/tmp/nodejs
REPO=$PWD
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

step_failed() {
	echo "# FAIL: $*"
	fail=$((fail + 1))
}

export UIDGEN_REPO=$REPO UIDGEN_REQUIRE_DEVICE=1
# npm's cache and logs in /tmp: the guest's HOME may be the read-only /.
export npm_config_cache=$T/npm-cache npm_config_update_notifier=false
# A copy of the package where pack-deps.sh finds ../../userlib and
# ../../uapi, as in the tree (the tree itself is read-only here).
rm -rf $T && mkdir -p $T/inst $T/b/bindings/node $T/b/userlib $T/b/uapi/linux
cp -r bindings/node/. $T/b/bindings/node/ &&
	rm -rf $T/b/bindings/node/build $T/b/bindings/node/deps $T/b/bindings/node/node_modules &&
	cp userlib/*.c userlib/*.h $T/b/userlib/ && cp uapi/linux/uidgen.h $T/b/uapi/linux/
PKG=$T/b/bindings/node
if ! command -v npm > /dev/null; then
	step_failed "no npm: apt-get install npm (tests/setup.sh installs it)"
elif ! (cd $PKG && npm pack --offline --pack-destination $T > $T/pack.log 2>&1); then
	cat $T/pack.log; step_failed "npm pack"
elif ! tar -tzf $T/uidgen-*.tgz | grep -qx package/deps/libuidgen.c; then
	tar -tzf $T/uidgen-*.tgz; step_failed "npm pack: the tarball has no deps/libuidgen.c"
elif ! (cd $T/inst && npm install --offline --no-audit --no-fund --foreground-scripts $T/uidgen-*.tgz > $T/install.log 2>&1); then
	cat $T/install.log; step_failed "npm install --offline of the tarball"
else
	cat $T/install.log
	echo "== npm test, installed package, addon"
	(cd $T/inst/node_modules/uidgen && UIDGEN_NODE_BACKEND=addon npm test) > $T/addon.log 2>&1
	cat $T/addon.log
	count $T/addon.log
fi
echo "== the tree's tests, pure-JS fallback"
UIDGEN_NODE_BACKEND=js node --test bindings/node/test/host.test.js bindings/node/test/device.test.js \
	> $T/js.log 2>&1
cat $T/js.log
count $T/js.log
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
