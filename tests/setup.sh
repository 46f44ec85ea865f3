#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install, with apt, whatever building and testing uidgen needs and this
# machine lacks. Safe to run again: it installs nothing that is present.
#   tests/setup.sh          everything make check needs
#   tests/setup.sh --demo   only what make demo needs (README.md lists it;
#                           tests/versions.sh checks the two agree): no
#                           second kernel, no service that starts
set -eu
# make demo: build the module (for the VM's kernel), libuidgen, the CLI
# and uidgen-lease (make all), and boot that kernel under QEMU (vm.sh).
demo_pkgs="make gcc libc6-dev pkg-config libcurl4-openssl-dev libjson-c-dev
kmod cpio gzip util-linux busybox-static qemu-system-x86
linux-image-amd64 linux-headers-amd64"
pkgs="make gcc libc6-dev gcc-multilib kmod cpio gzip xz-utils util-linux
linux-image-amd64 linux-headers-amd64 linux-image-6.12-amd64 linux-headers-6.12-amd64
qemu-system-x86 busybox-static qemu-utils mmdebstrap openssh-client
linux-source-6.12 python3 flex bison bc libelf-dev libssl-dev uuid-dev gnuplot-nox sparse valgrind
clang pkg-config man-db dkms python3-sphinx debhelper dh-dkms dpkg-dev lintian
build-essential git systemd spin python3-ply python3-git
libcurl4-openssl-dev libjson-c-dev etcd-server etcd-client openssl iproute2
postgresql-15 postgresql-server-dev-15 golang-go python3-pip python3-setuptools python3-wheel
${UIDGEN_EXTRA_PKGS:-}"
# Node.js for bindings/node: Debian's nodejs, its N-API headers (libnode-dev,
# /usr/include/node) and npm; each only where the machine has none, as a
# Node.js from elsewhere (NodeSource's, with its own npm and headers)
# conflicts with Debian's packages.
command -v node > /dev/null || pkgs="$pkgs nodejs"
[ -e /usr/include/node/node_api.h ] || pkgs="$pkgs libnode-dev"
command -v npm > /dev/null || pkgs="$pkgs npm"
[ "${1:-}" != --demo ] || pkgs=$demo_pkgs
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "setup: installing:$missing"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
