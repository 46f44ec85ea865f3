#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the Node.js binding's native addon, build/uidgen.node, with the C
# compiler alone: N-API headers from the system (Debian's libnode-dev puts
# them in /usr/include/node; NODE_INCLUDE names another directory), and
# libuidgen's own sources compiled in (from deps/ in a packed package, from
# the tree's userlib/ and uapi/ in a checkout). Nothing is downloaded:
# node-gyp is never run. `npm install` runs it; so does `npm run build`.
#
#   sh build.sh           build, or say why not and exit 1
#   sh build.sh --if-can  build if the headers and a compiler are there;
#                         else say so and exit 0 (the package then runs on
#                         its pure-JS fallback: lib/index.js)
set -eu
cd "$(dirname "$0")"
soft=0
[ "${1:-}" != --if-can ] || soft=1
CC=${CC:-cc}
inc=${NODE_INCLUDE:-/usr/include/node}

give_up() {
	echo "uidgen: the native addon was not built: $1" >&2
	echo "uidgen: the package works without it, on its pure-JS fallback (one read() of /dev/uid per ID, no observe(); README.md)" >&2
	[ "$soft" -eq 1 ] && exit 0
	exit 1
}

[ -e "$inc/node_api.h" ] ||
	give_up "no N-API headers in $inc (apt-get install libnode-dev, or NODE_INCLUDE=DIR)"
command -v "$CC" > /dev/null 2>&1 || give_up "no C compiler ($CC): apt-get install gcc"
if [ -e deps/libuidgen.c ]; then
	src=deps
	uapi=deps
else
	src=../../userlib
	uapi=../../uapi
fi
[ -e "$src/libuidgen.c" ] || give_up "libuidgen's sources are not in deps/ or ../../userlib"
mkdir -p build
# -fvisibility=hidden: only napi_register_module_v1 is exported, so
# libuidgen's symbols never meet a libuidgen.so loaded in the same process.
# -z nodelete: libuidgen's thread-key destructor stays mapped (as libuidgen.so).
$CC ${CFLAGS:--O2 -g} -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	-D_GNU_SOURCE -I"$inc" -I"$src" -I"$uapi" \
	-Wl,-z,nodelete \
	-o build/uidgen.node.tmp src/uidgen_node.c "$src/libuidgen.c" "$src/public.c" -lpthread ||
	give_up "$CC failed"
mv build/uidgen.node.tmp build/uidgen.node
echo "uidgen: built build/uidgen.node (N-API 8, headers $inc)"
