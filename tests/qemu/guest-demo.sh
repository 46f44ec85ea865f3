#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo, inside the VM: load the module, show the device, mint and
# decode a few IDs.
set -e
U=userlib/uidgen
echo "\$ insmod module/uidgen.ko node_id=7 node_new=1"
insmod module/uidgen.ko node_id=7 node_new=1
dmesg | grep uidgen | sed 's/^/  kernel: /'
echo "\$ ls -l /dev/uid"
ls -l /dev/uid
echo "\$ uidgen info"
$U info
echo "\$ uidgen -n 5"
ids=$($U -n 5)
echo "$ids"
echo "\$ uidgen decode <those 5>"
# shellcheck disable=SC2086
$U decode $ids
echo "\$ uidgen -n 3 --format b32"
$U -n 3 --format b32
echo "\$ uidgen -n 3 --format hex"
$U -n 3 --format hex
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "\$ uidgen stats"
$U stats
