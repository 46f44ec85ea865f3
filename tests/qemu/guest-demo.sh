#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo, inside the VM, as root: README.md's "First use" lines (its
# docs-test: module block), read from README.md and run as written, each
# shown with what it prints (sudo is the command itself: this is root;
# after a line that loads the module or assigns its node ID, the kernel's
# lines); then the device node, other formats and uidgen stats.
set -e
sudo() { "$@"; }
lines=$(awk '
	/^## First use/ { s = 1; next }
	s && /^## / { exit }
	s && /<!-- docs-test: module -->/ { m = 1; next }
	m && /^```/ { if (b) exit; b = 1; next }
	b { print }' README.md)
[ -n "$lines" ] || { echo "make demo: README.md has no \"First use\" block marked docs-test: module" >&2; exit 1; }
while IFS= read -r l <&3; do
	echo "\$ $(printf '%s\n' "$l" | sed 's/[[:space:]]\{2,\}#.*$//')"
	eval "$l"
	case $l in
	*insmod*|*modprobe*|*set-node*) dmesg --notime | grep uidgen | sed 's/^/  kernel: /' ;;
	esac
done 3<<LINES
$lines
LINES
U=userlib/uidgen
echo "\$ ls -l --time-style=+ /dev/uid"
ls -l --time-style=+ /dev/uid
echo "\$ $U -n 3 --format b32"
$U -n 3 --format b32
echo "\$ $U -n 3 --format uuid"
$U -n 3 --format uuid
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
echo "\$ $U stats"
$U stats
