#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/kunit/tree.sh SRC TARBALL: unpack Debian's linux-source-6.12 into
# SRC once (the cache outside the checkout), and link this checkout's
# module/ into it as drivers/misc/uidgen. Idempotent. Used by the KUnit
# harness and by tests/style.sh (Kconfig's answer on a 32-bit kernel).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
src=$1
tarball=$2

mkdir -p "$(dirname "$src")"
if [ ! -e "$src/.uidgen-unpacked" ]; then
	echo "kunit: unpacking $tarball"
	rm -rf "$src"
	tar -xJf "$tarball" -C "$(dirname "$src")"
	touch "$src/.uidgen-unpacked"
fi
ln -sfn "$repo/module" "$src/drivers/misc/uidgen"
grep -q 'uidgen/' "$src/drivers/misc/Makefile" ||
	echo 'obj-$(CONFIG_UIDGEN) += uidgen/' >> "$src/drivers/misc/Makefile"
grep -q 'uidgen/Kconfig' "$src/drivers/misc/Kconfig" ||
	sed -i 's|^endmenu|source "drivers/misc/uidgen/Kconfig"\nendmenu|' "$src/drivers/misc/Kconfig"
