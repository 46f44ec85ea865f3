#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs a command contained, for tests/docs-blocks.sh's host blocks: in
# mount, PID, network, IPC and UTS namespaces of its own (unshare), with
# empty /tmp, /var/tmp, /dev/shm and /run/lock of its own (tmpfs, gone
# when it ends), no network (a loopback that is down: nothing on this
# machine's loopback is reachable), only its own processes to see or
# signal, and, when started as root, as nobody (uid and gid 65534, no
# other groups). DIR, the scratch directory the command may write, stays
# as it is (also when it lies under /tmp); so does, read-only, the tree
# this script is in (the runner's own, e.g. a clone under /tmp, whose
# tests/lib/same-shape.sh a contained block runs); every other file system
# is read-only (but /proc, /sys, /dev and the new tmpfs ones). Not root: the same namespaces
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
# DIR a mount of its own, then every other mount but /proc, /sys and /dev
# read-only: nothing but DIR is writable, not even what nobody owns
# elsewhere (another run's scratch copy). A remount keeps the flags the
# mount has (a user namespace may not drop nosuid, nodev or noexec).
mount --no-canonicalize --bind "$dir" "$dir" || die "cannot bind $dir"
while read -r _ _ _ _ mp opts _; do
	mp=$(printf '%b' "${mp//\\/\\0}")
	case $mp in
	"$dir"|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue ;;
	esac
	case ,$opts, in *,ro,*) continue ;; esac
	keep=ro
	for o in nosuid nodev noexec; do
		case ,$opts, in *,$o,*) keep=$keep,$o ;; esac
	done
	mount --no-canonicalize -o "remount,bind,$keep" "$mp" || die "cannot make $mp read-only"
done < <(tac /proc/self/mountinfo)
# The working directory, if in DIR, into DIR's own (writable) mount.
cd -- "$PWD" 2> /dev/null || die "cannot enter $PWD again"
exec 9< "$dir" || die "cannot open $dir"
tree=$(cd -- "$(dirname -- "$0")/../.." && pwd -P) || die "cannot find the tree $0 is in"
exec 8< "$tree" || die "cannot open $tree"
# The flags a read-only bind of the tree keeps (a user namespace may not
# drop nosuid, nodev or noexec).
tree_ro=ro
for o in $(findmnt -n -o VFS-OPTIONS -T "$tree" | tr , ' '); do
	case $o in nosuid|nodev|noexec) tree_ro=$tree_ro,$o ;; esac
done
for d in /tmp /var/tmp /dev/shm /run/lock; do
	[ -d "$d" ] || continue
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$d" || die "cannot mount a tmpfs on $d"
	case $tree/ in
	"$d"/*)	# the runner's tree was under it: put it back, read-only
		mkdir -p "$tree" && mount --no-canonicalize --bind /proc/self/fd/8 "$tree" &&
			mount --no-canonicalize -o "remount,bind,$tree_ro" "$tree" ||
			die "cannot keep $tree" ;;
	esac
	case $dir/ in
	"$d"/*)	# the scratch directory was under it: put it back
		mkdir -p "$dir" && mount --no-canonicalize --bind /proc/self/fd/9 "$dir" ||
			die "cannot keep $dir" ;;
	esac
done
exec 9<&- 8<&-
if [ "$uid" -eq 0 ]; then
	exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
fi
exec "$@"
