#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unpack kselftest_harness.h and kselftest.h from Debian's linux-source
# package into DIR (default ./kselftest).
set -eu
dir=${1:-kselftest}
tarball=$(ls -v /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)
[ -n "$tarball" ] || { echo "get-harness.sh: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source-6.12)" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
mkdir -p "$dir"
tar -xJf "$tarball" -C "$dir" --strip-components=4 \
	"$top/tools/testing/selftests/kselftest_harness.h" \
	"$top/tools/testing/selftests/kselftest.h"
