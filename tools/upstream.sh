#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make upstream: this checkout's module as a kernel patch series for
# Debian's linux-source-6.12 (drivers/misc/uidgen/, the uapi header, the
# API document, the kselftests, MAINTAINERS), written by tools/upstream.py
# into OUTDIR (default build/upstream) as git format-patch files. Apply
# them to a kernel tree with git am.
#
#   tools/upstream.sh [-o OUTDIR]   write the series
#   tools/upstream.sh -t            print the pristine tree's path only
#
# The pristine tree is a git repository of the unpacked tarball, tagged
# "pristine", cached outside the checkout in $UIDGEN_UPSTREAM_CACHE
# (default /var/cache/uidgen-upstream), keyed by the tarball's name, size
# and time: the first run unpacks and commits it (about 1.5 minutes),
# later ones reuse it. Making the series touches neither its work tree nor
# its refs (tests/upstream.sh applies and builds there, under the lock).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/build/upstream
tree_only=
while getopts "o:t" opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) tree_only=1 ;;
	*) echo "usage: $0 [-o OUTDIR] [-t]" >&2; exit 2 ;;
	esac
done
cache=${UIDGEN_UPSTREAM_CACHE:-/var/cache/uidgen-upstream}
tarball=$(ls -v /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | tail -n 1)
[ -n "$tarball" ] || { echo "upstream.sh: apt-get install linux-source-6.12" >&2; exit 1; }
name=$(basename "$tarball" .tar.xz)
src=$cache/$name
stamp="$(basename "$tarball") $(stat -c '%s %Y' "$tarball")"

mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9
if [ "$(cat "$src/.git/uidgen-pristine" 2>/dev/null)" != "$stamp" ]; then
	echo "upstream: unpacking $tarball into $src (once)" >&2
	rm -rf "$src"
	tar -xJf "$tarball" -C "$cache"
	# Debian's top-level .gitignore ignores everything: add it all (-f).
	git -C "$src" init -q
	git -C "$src" add -f -A .
	git -C "$src" -c user.name=pristine -c user.email=pristine@localhost \
		commit -q -m "$name: the tarball, as unpacked"
	git -C "$src" tag pristine
	echo "$stamp" > "$src/.git/uidgen-pristine"
fi
flock -u 9
if [ -n "$tree_only" ]; then
	echo "$src"
	exit 0
fi
python3 "$repo/tools/upstream.py" --repo "$repo" --ksrc "$src" --base pristine \
	--base-name "Debian's $name ($(basename "$tarball"))" --out "$out"
