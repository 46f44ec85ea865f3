#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Node.js binding as an npm package, on the host (no device needed):
# npm pack of a copy of bindings/node (prepack puts libuidgen's sources in
# the tarball's deps/), npm install --offline of the tarball into an empty
# project (its install script builds the addon from deps/ with cc and
# /usr/include/node; nothing is fetched), then the installed package's
# host tests on its addon. TAP, and a "# Totals:" line. The VM suite node
# runs npm test with the device.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export npm_config_cache=$T/npm-cache npm_config_update_notifier=false
n=0
pass=0
fail=0
check() {
	n=$((n + 1))
	if eval "$2" > "$T/check.log" 2>&1; then
		pass=$((pass + 1)); echo "ok $n $1"
	else
		fail=$((fail + 1)); echo "not ok $n $1"; sed 's/^/#   /' "$T/check.log" | tail -n 30
	fi
}
mkdir -p "$T/b/bindings/node" "$T/b/userlib" "$T/b/uapi/linux" "$T/inst"
cp -r "$repo/bindings/node/." "$T/b/bindings/node/"
rm -rf "$T/b/bindings/node/build" "$T/b/bindings/node/deps" "$T/b/bindings/node/node_modules"
cp "$repo"/userlib/*.c "$repo"/userlib/*.h "$T/b/userlib/"
cp "$repo/uapi/linux/uidgen.h" "$T/b/uapi/linux/"
check "npm is installed (tests/setup.sh installs it)" 'command -v npm'
check "npm pack" 'cd "$T/b/bindings/node" && npm pack --offline --pack-destination "$T"'
check "the tarball holds the package and libuidgen's sources, no build" \
	'tar -tzf "$T"/uidgen-*.tgz | sort > "$T/list" && cat "$T/list" &&
	 for f in package.json README.md build.sh lib/index.js lib/public.js lib/errors.js src/uidgen_node.c \
		deps/libuidgen.c deps/public.c deps/uidgen.h deps/internal.h deps/linux/uidgen.h \
		test/host.test.js test/device.test.js; do grep -qx "package/$f" "$T/list" || exit 1; done &&
	 ! grep -q "^package/build/" "$T/list"'
check "npm pack leaves no deps/ behind (postpack)" '[ ! -e "$T/b/bindings/node/deps" ]'
check "npm install --offline of the tarball builds the addon from it" \
	'cd "$T/inst" && npm install --offline --no-audit --no-fund --foreground-scripts "$T"/uidgen-*.tgz &&
	 [ -f node_modules/uidgen/build/uidgen.node ]'
check "the installed package loads its addon" \
	'cd "$T/inst" && UIDGEN_NODE_BACKEND=addon node -e "const u = require(\"uidgen\"); if (u.backend !== \"addon\") process.exit(1)"'
check "the installed package's host tests pass on its addon" \
	'cd "$T/inst/node_modules/uidgen" && UIDGEN_REPO="$repo" UIDGEN_NODE_BACKEND=addon node --test test/host.test.js > "$T/t.log" 2>&1;
	 rc=$?; cat "$T/t.log"; [ $rc -eq 0 ] && grep -qx "# fail 0" "$T/t.log" && grep -qx "# skipped 0" "$T/t.log" &&
	 ! grep -qx "# pass 0" "$T/t.log"'
check "without N-API headers the install still succeeds, on the pure-JS fallback" \
	'mkdir -p "$T/inst2" && cd "$T/inst2" && NODE_INCLUDE=/nonexistent npm install --offline --no-audit --no-fund --foreground-scripts "$T"/uidgen-*.tgz > "$T/i2.log" 2>&1;
	 rc=$?; cat "$T/i2.log"; [ $rc -eq 0 ] && grep -q "the native addon was not built: no N-API headers in /nonexistent" "$T/i2.log" &&
	 [ ! -e node_modules/uidgen/build/uidgen.node ] &&
	 node -e "const u = require(\"uidgen\"); if (u.backend !== \"js\") process.exit(1)"'
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
