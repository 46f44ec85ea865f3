#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: every section of bench/uidgen_bench in one VM boot (the
# sections reload the module with the layout they need), then the plot of
# per-ID cost against IDs per call.
#
#   bench/bench.sh [-k KVER] [-o OUTDIR]
#
# A benchmark, not a test: it prints, and fails only if it cannot run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/tests/lib/host-suite.sh"
host_opts 6.1 "$@" || exit
out=${out:-$repo/build/bench}
mkdir -p "$out"

echo "== uidgen bench, $(date -u +%Y-%m-%d), kernel $kver, QEMU TCG, 2 vCPUs on $(nproc) host CPUs"
"$repo/tests/qemu/vm.sh" -k "$kver" -o "$out" "$repo/bench/guest.sh" |
	sed -n '/^== cost/,$p' | grep -v '^\[ *[0-9.]*\]'

png=$out/per-id-cost.png
gnuplot <<GP
set terminal pngcairo size 900,560 font "sans,11"
set output "$png"
set title "uidgen: cost per ID against IDs per call ($kver, QEMU TCG)"
set xlabel "IDs per call"
set ylabel "ns per ID (guest clock)"
set logscale xy
set grid
set key top right
plot "$out/curve.dat" using 1:2 with linespoints title "read()", \
     "" using 1:3 with linespoints title "ioctl BATCH", \
     "" using 1:4 with linespoints title "ioctl RESERVE + minting in userspace"
GP
echo "== plot: $png"
