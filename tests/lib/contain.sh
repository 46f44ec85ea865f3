#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs a command contained, for tests/docs-blocks.sh's host blocks: in
# mount, PID, network, IPC and UTS namespaces of its own (unshare), with
# empty /tmp, /var/tmp, /dev/shm and /run/lock of its own (tmpfs, gone
# when it ends), no network (a loopback that is down: nothing on this
# machine's loopback is reachable), only its own processes to see or
# signal, and, when started as root, as nobody (uid and gid 65534, no
# other groups). DIR, the scratch directory the command may write, stays
# as it is (also when it lies under /tmp). Not root: the same namespaces
# in a user namespace of its own, as the caller. An allowed command that
# runs another (awk's system(), python3 -c, sed's e, make) is contained
# as much as the block itself.
#   tests/lib/contain.sh DIR COMMAND...
# Exit status: COMMAND's; 125 if it cannot be contained (then it never
# runs).
set -u
if [ "${1:-}" != --inside ]; then
	[ $# -ge 2 ] || { echo "usage: tests/lib/contain.sh DIR COMMAND..." >&2; exit 125; }
	user=()
	[ "$(id -u)" -eq 0 ] || user=(--user --map-root-user)
	exec unshare "${user[@]}" --mount --propagation private --pid --fork --kill-child \
		--mount-proc --net --ipc --uts -- "$0" --inside "$(id -u)" "$@"
	echo "tests/lib/contain.sh: unshare failed: not running the command" >&2
	exit 125
fi
shift
uid=$1 dir=$2
shift 2
die() { echo "tests/lib/contain.sh: $*: not running the command" >&2; exit 125; }
exec 9< "$dir" || die "cannot open $dir"
for d in /tmp /var/tmp /dev/shm /run/lock; do
	[ -d "$d" ] || continue
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$d" || die "cannot mount a tmpfs on $d"
	case $dir/ in
	"$d"/*)	# the scratch directory was under it: put it back
		mkdir -p "$dir" && mount --no-canonicalize --bind /proc/self/fd/9 "$dir" ||
			die "cannot keep $dir" ;;
	esac
done
exec 9<&-
if [ "$uid" -eq 0 ]; then
	exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
fi
exec "$@"
