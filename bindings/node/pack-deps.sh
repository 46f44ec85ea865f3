#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# npm pack's prepack step: copies libuidgen's sources (userlib/) and the
# uapi header into deps/, so that the packed package builds its addon
# (build.sh) with no checkout of the tree. postpack removes deps/ again:
# in the tree, userlib/ is the one copy. Outside the tree (deps/ already
# unpacked) it does nothing.
set -eu
cd "$(dirname "$0")"
top=../..
[ -e "$top/userlib/libuidgen.c" ] || exit 0
rm -rf deps
mkdir -p deps/linux
for f in libuidgen.c public.c uidgen.h internal.h; do
	cp "$top/userlib/$f" deps/
done
cp "$top/uapi/linux/uidgen.h" deps/linux/
