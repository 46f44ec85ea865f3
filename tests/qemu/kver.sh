#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the newest installed Debian kernel version of a series (6.1, 6.12)
# that has both its image and its headers.
series=${1:-6.1}
for f in $(ls -v /boot/vmlinuz-"$series".*-amd64 2>/dev/null); do
	v=${f#/boot/vmlinuz-}
	[ -d "/usr/src/linux-headers-$v" ] && best=$v
done
[ -n "${best:-}" ] || { echo "kver.sh: no $series kernel with headers installed" >&2; exit 1; }
echo "$best"
