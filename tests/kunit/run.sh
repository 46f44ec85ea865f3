#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the uidgen KUnit suite on a debug kernel (KASAN, lockdep, UBSAN,
# kmemleak, PREEMPT) built from Debian's linux-source-6.12, under QEMU
# with 2 CPUs, the way WireGuard's harness does: module/ is linked into
# the tree as drivers/misc/uidgen.
#
# The tree and its build are cached in $UIDGEN_KUNIT_CACHE (default
# /var/cache/uidgen-kunit), outside the checkout: the first build takes
# about 20 minutes on 2 cores, later ones only rebuild what changed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${UIDGEN_KUNIT_CACHE:-/var/cache/uidgen-kunit}
tarball=$(ls -v /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | tail -n 1)
[ -n "$tarball" ] || { echo "run.sh: apt-get install linux-source-6.12" >&2; exit 1; }
src=$cache/$(basename "$tarball" .tar.xz)

"$repo/tests/kunit/tree.sh" "$src" "$tarball"

cd "$src"
exec python3 tools/testing/kunit/kunit.py "${KUNIT_CMD:-run}" \
	--arch=x86_64 --build_dir="$cache/build" --jobs="$(nproc)" \
	--kunitconfig="$repo/module/tests/.kunitconfig" \
	--qemu_args="-smp 2" --kernel_args="clocksource=tsc tsc=reliable" \
	--timeout=900 "$@"
