#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make docs: Documentation/ rendered to HTML with Debian's python3-sphinx and
# the kernel's own kernel-doc extension (from Debian's linux-source-6.12,
# unpacked once into the KUnit cache), so the userspace API reference is
# pulled from uapi/linux/uidgen.h. Warnings are errors.
#
#   tests/docs.sh [OUTDIR]     (default build/docs/html)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/build/docs/html}
cache=${UIDGEN_KUNIT_CACHE:-/var/cache/uidgen-kunit}
tarball=$(ls -v /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | tail -n 1)
[ -n "$tarball" ] || { echo "docs.sh: apt-get install linux-source-6.12" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
src=$cache/$top
for d in scripts Documentation/sphinx; do
	[ -e "$src/$d" ] || { mkdir -p "$cache"; tar -xJf "$tarball" -C "$cache" "$top/$d"; }
done
rm -rf "$out"
UIDGEN_KSRC=$src sphinx-build -q -W -b html "$repo/Documentation" "$out"
echo "docs: $out/index.html"
