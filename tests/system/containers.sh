#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /dev/uid in containers on the user's own machine, the admin guide
# verbatim (Documentation/admin-guide.rst, "Containers"; make
# check-system): the Debian 12 guest of tests/system/machine.sh installs
# make deb's packages (uidgen-tools has the CDI spec, /etc/cdi/uidgen.yaml)
# and Debian's podman (4.3, staged offline in the image by image.sh); an
# image holding only uidgen and its libraries (imported from the guest's
# installed files: there is no registry offline) runs with
# --device uidgen/device=uid, every capability dropped and no privileged
# flag: rootful, then rootless (a user of its own); three containers and
# the host draw IDs at once, all distinct (tests/system/ids-check.py).
#
#   tests/system/containers.sh [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
. tests/system/machine.sh
set +e
out=
while getopts "o:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
kver=guest
host_out system-containers
run=$out/run
. tests/system/lib.sh
trap '[ ! -s "$run/qemu.pid" ] || m_kill "$run"' EXIT
echo "TAP version 13"

install=$(guide_block tests/system/static.sh "apt install linux-headers-")
podman=$(guide_block tests/system/containers.sh "apt install podman")
check "the admin guide's install block (walked by static.sh) and its containers block (by this suite)" \
	'[ -n "$install" ] && [ -n "$podman" ] && cat "$install" "$podman"'
check "make deb" 'make -s deb > "$out/deb.log" 2>&1'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
check "the guest boots (systemd, ssh login)" 'm_start "$run" > "$out/login-0"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
check "the packages installed with the guide's block, node ID 7 active, the CDI spec in /etc/cdi" \
	'sys_put_debs && guide_run install "$install" && m_ssh "$run" "uidgen info; dpkg -S /etc/cdi/uidgen.yaml" > "$out/info" &&
	 cat "$out/info" && grep -q "^node_id: *7$" "$out/info" && grep -qx "uidgen-tools: /etc/cdi/uidgen.yaml" "$out/info"'

# The application's image: uidgen and the libraries it links, nothing else
# (no shell), imported as localhost/uidgen-app.
cat > "$out/mkimage.sh" <<-'MK'
	set -e
	d=$(mktemp -d)
	for f in /usr/bin/uidgen $(ldd /usr/bin/uidgen | awk '$2 == "=>" { print $3 } $1 ~ /^\/lib64\// { print $1 }'); do
		cp --parents -L "$f" "$d"
	done
	tar -C "$d" -c . | podman import -q - localhost/uidgen-app
	rm -r "$d"
	MK
check "the guide's containers block: podman installed (offline), a container draws IDs through the CDI device" \
	'm_put "$run" "$out/mkimage.sh" /root/mkimage.sh && m_ssh "$run" "apt-get install -y -q podman > /dev/null 2>&1; bash /root/mkimage.sh" &&
	 guide_run podman "$podman" && cat "$out/podman.log"'
run_args="--rm --cap-drop=all --security-opt=no-new-privileges --device uidgen/device=uid localhost/uidgen-app"
check "rootful: no capability, not privileged: 1000 IDs of node 7 from the container" \
	'm_ssh "$run" "podman run $run_args /usr/bin/uidgen -f hex -n 1000" > "$out/rootful" &&
	 [ "$(grep -c "^0x[0-9a-f]\{16\}$" "$out/rootful")" = 1000 ] &&
	 m_ssh "$run" "uidgen decode $(head -n 1 "$out/rootful")" | tee /dev/stderr | grep -q " node=7 "'
check "without the CDI device the container has no /dev/uid (the device is what the spec gives)" \
	'm_ssh "$run" "podman run --rm --cap-drop=all localhost/uidgen-app /usr/bin/uidgen -n 1" > "$out/nodev" 2>&1;
	 cat "$out/nodev"; grep -q "/dev/uid: No such file or directory" "$out/nodev"'
mkdir -p "$out/ids"
check "three containers and the host draw 100000 IDs each at once" \
	'm_ssh "$run" "for c in 1 2 3; do podman run $run_args /usr/bin/uidgen -f hex -n 100000 > /root/ids-\$c & done;
		uidgen -f hex -n 100000 > /root/ids-host; wait; wc -l /root/ids-*" > "$out/concurrent" && cat "$out/concurrent" &&
	 for f in 1 2 3 host; do m_ssh "$run" cat /root/ids-$f > "$out/ids/reader-0-$f"; done &&
	 [ "$(cat "$out"/ids/reader-0-* | grep -c "^0x[0-9a-f]\{16\}$")" = 400000 ]'
layout=$(m_ssh "$run" 'cd /sys/module/uidgen/parameters && echo $(cat node_bits slot_bits seq_bits)')
check "the 400000 IDs: all distinct, node ID 7" \
	'python3 tests/system/ids-check.py "$run/boots" "$out/ids" 7 $layout | tee "$out/ids-check.txt"'
# Rootless: a user of its own, its own image store.
check "rootless: a user's podman draws 1000 IDs through the CDI device" \
	'm_ssh "$run" "adduser --disabled-password --gecos app app > /dev/null && loginctl enable-linger app &&
		cp /root/mkimage.sh /home/app/ && chown app /home/app/mkimage.sh &&
		su - app -c \"bash mkimage.sh && podman run $run_args /usr/bin/uidgen -f hex -n 1000\"" > "$out/rootless" 2> "$out/rootless.err";
	 cat "$out/rootless.err"; [ "$(grep -c "^0x[0-9a-f]\{16\}$" "$out/rootless")" = 1000 ]'
check "the guest powers off cleanly" 'm_stop "$run"'
tap_end
