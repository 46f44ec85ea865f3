#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-compare (and the second half of make bench): this tree's
# benchmark rows against a baseline release's, in one VM boot.
#
#   bench/compare.sh [-b REV] [-k KVER] [-o OUTDIR] [-r ROUNDS] [-B | -T]
#
# The baseline (default: tag v1.4.0; with no such tag, b251b5b, the commit
# the tree's other 1.4.0 comparisons use) is exported with git archive into
# /var/cache/uidgen-bench/COMMIT (outside the checkout; $UIDGEN_BENCH_CACHE
# moves it) and its module, libuidgen and bench/uidgen_bench built there
# for KVER (default: the newest 6.1 kernel), once: a later run reuses them.
# -B builds the baseline and stops (no VM); -T prints the table again from
# the turns' files a run left in OUTDIR.
# This tree's module, library, CLI and bench binary must be built already
# (make bench-compare does that).
#
# In the VM (bench/compare-guest.sh) the two sides take turns, baseline
# first, ROUNDS times each (default 3): each turn loads its own module its
# own way and runs its own uidgen_bench's cost and scale sections. Each
# row's figure per side is its best (least ns per ID) over the turns; the
# table gives both, the ratio this/baseline and the spread of the turns.
# Rows are matched by name; a row only one side has is listed as such.
#
# A benchmark, not a test: it prints, and fails only if it cannot run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

base_rev=
base_note=
rounds=3
kver=
out=
build_only=
table_only=
while getopts "b:k:o:r:BT" opt; do
	case $opt in
	b) base_rev=$OPTARG ;;
	k) kver=$OPTARG ;;
	o) out=$OPTARG ;;
	r) rounds=$OPTARG ;;
	B) build_only=1 ;;
	T) table_only=1 ;;
	*) echo "usage: $0 [-b REV] [-k KVER] [-o OUTDIR] [-r ROUNDS] [-B | -T]" >&2; exit 2 ;;
	esac
done
[ "$rounds" -ge 1 ] 2>/dev/null || { echo "$0: -r wants a count, not '$rounds'" >&2; exit 2; }
[ -n "$kver" ] || kver=$(tests/qemu/kver.sh 6.1)
out=${out:-$repo/build/bench-compare-$kver}
kdir=/usr/src/linux-headers-$kver

# The baseline's commit (the cache's key).
if [ -z "$base_rev" ]; then
	if git rev-parse -q --verify 'v1.4.0^{commit}' > /dev/null; then
		base_rev=v1.4.0
	else
		base_rev=b251b5ba13e5a1178f57ba1a3a909e4f0e323d12
		base_note=" (no tag v1.4.0 here)"
	fi
fi
commit=$(git rev-parse -q --verify "$base_rev^{commit}") ||
	{ echo "$0: no commit '$base_rev'" >&2; exit 2; }
version=$(git show "$commit:module/internal.h" 2>/dev/null |
	sed -n 's/^#define UIDGEN_VERSION_STR[[:space:]]*"\(.*\)"/\1/p')
cache=${UIDGEN_BENCH_CACHE:-/var/cache/uidgen-bench}
base=$cache/$commit/$kver

if [ -z "$table_only" ]; then
	for f in module/uidgen.ko userlib/uidgen bench/uidgen_bench; do
		[ -e "$f" ] || { echo "$0: $f not built (make bench-compare builds it)" >&2; exit 2; }
	done

	# The baseline's build, once per commit and kernel: made in a scratch
	# directory beside it and renamed into place, so a build that fails or is
	# interrupted leaves nothing that looks built.
	if [ ! -e "$base/bench/uidgen_bench" ]; then
		mkdir -p "$cache/$commit"
		tmp=$(mktemp -d "$cache/$commit/build.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		echo "== building the baseline $base_rev$base_note ($commit) for $kver in $base"
		git archive "$commit" | tar -x -C "$tmp"
		if ! { nice -n 19 make -C "$tmp" module KDIR="$kdir" &&
		       nice -n 19 make -C "$tmp/userlib" libuidgen.a &&
		       nice -n 19 make -C "$tmp/bench" uidgen_bench; } > "$tmp.log" 2>&1; then
			tail -n 30 "$tmp.log"
			echo "$0: the baseline's build failed (log: $tmp.log)" >&2
			exit 1
		fi
		rm -f "$tmp.log"
		rm -rf "$base"
		mv "$tmp" "$base"
		trap - EXIT
	fi
	[ -z "$build_only" ] || { echo "== baseline $base_rev ($commit) built in $base"; exit 0; }

	rm -rf "$out"
	mkdir -p "$out"
	echo "== uidgen bench, this tree ($(git describe --always --dirty)) against ${version:-?} (${commit:0:12}$base_note)," \
		"$(date -u +%Y-%m-%d), kernel $kver, QEMU TCG, 2 vCPUs on $(nproc) host CPUs, $rounds turns each"
	start=$SECONDS
	rc=0
	tests/qemu/vm.sh -k "$kver" -o "$out" bench/compare-guest.sh "$base" "$rounds" > "$out/vm.log" 2>&1 || rc=$?
	echo "== VM: $((SECONDS - start)) s (vm.sh exit $rc; its output in $out/vm.log)"
	# 125: the turns ran but the kernel log has a warning; say so and
	# still print the table.
	if [ "$rc" -eq 125 ] && [ -e "$out/done" ]; then
		echo "== the kernel log has a warning, oops or BUG: $out/dmesg.txt"
	elif [ "$rc" -ne 0 ] || [ ! -e "$out/done" ]; then
		grep -v '^\[ *[0-9.]*\]' "$out/vm.log" | tail -n 30
		echo "$0: the VM run did not finish" >&2
		exit 1
	fi
fi
grep -h '^# layout' "$out"/base-cost-1.txt "$out"/this-cost-1.txt |
	sed '1s/^# /# baseline: /; 2s/^# /# this tree: /'

# One "side row ns" line per figure: the cost rows as they are (ns per ID),
# the scale rows as ns per ID from their IDs/s (1e9 / rate), 1 and 2
# threads, per layout.
rows() {
	local side=$1 f
	for f in "$out/$side"-cost-*.txt; do
		awk -v side="$side" '!/^#/ && NF >= 4 && $(NF-2) ~ /^[0-9.]+$/ {
			name = $0; sub(/[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]*$/, "", name)
			printf "%s\t%s\t%s\n", side, name, $(NF-2) }' "$f"
	done
	for f in "$out/$side"-scale5-*.txt "$out/$side"-scale0-*.txt; do
		case $f in
		*scale5*) lay="32 slots" ;;
		*) lay="1 slot" ;;
		esac
		awk -v side="$side" -v lay="$lay" '!/^#/ && NF >= 4 && $(NF-1) ~ /^[0-9.]+$/ && $(NF-1) > 0 {
			name = $0; sub(/[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]*$/, "", name)
			printf "%s\tscale %s 1T: %s\t%.2f\n", side, lay, name, 1e9 / $(NF-2)
			printf "%s\tscale %s 2T: %s\t%.2f\n", side, lay, name, 1e9 / $(NF-1) }' "$f"
	done
}
{ rows base; rows this; } > "$out/rows.tsv"

# The table, in the order the rows first appear (the baseline's, then any
# only this tree has). spread: the worst turn's best against the best
# turn's, the larger of the two sides (how far apart turns of one build
# land in this boot).
awk -F'\t' -v bname="${version:-the baseline}" '
	!(($2) in seen) { seen[$2] = 1; order[++n] = $2 }
	{ k = $1 SUBSEP $2
	  if (!(k in lo) || $3 < lo[k]) lo[k] = $3
	  if (!(k in hi) || $3 > hi[k]) hi[k] = $3 }
	END {
		printf "%-60s %11s %11s %7s %7s\n", "row (ns per ID; /dev/zero per 8 B)", "baseline", "this tree", "ratio", "spread"
		for (i = 1; i <= n; i++) {
			r = order[i]; b = "base" SUBSEP r; t = "this" SUBSEP r
			if (!(b in lo)) { printf "%-60s %11s %11.1f %7s   (only this tree)\n", r, "-", lo[t], "-"; continue }
			if (!(t in lo)) { printf "%-60s %11.1f %11s %7s   (only the baseline)\n", r, lo[b], "-", "-"; continue }
			sb = hi[b] / lo[b]; st = hi[t] / lo[t]
			sp = sb > st ? sb : st
			note = lo[t] / lo[b] > 1.05 ? "  > 5% slower" : ""
			printf "%-60s %11.1f %11.1f %7.3f %6.1f%%%s\n", r, lo[b], lo[t], lo[t] / lo[b], 100 * (sp - 1), note
		}
		printf "# ratio: this tree / %s, each side its best turn; > 1 is slower. Rows that do not\n", bname
		printf "# touch /dev/uid (getppid, /dev/zero, getrandom, libuuid, the clock; the userspace\n"
		printf "# Snowflake, but for the uapi fields it reads) run the same code on both sides:\n"
		printf "# their ratios are this boot%ss noise, and where the code landed (below).\n", "\047"
	}' "$out/rows.tsv" | tee "$out/table.txt"

# Under TCG a jump from one 4 KiB page of guest code to another is not
# chained, so a hot loop or function across a page boundary runs slower
# whatever it does: the bench binaries' functions that straddle one (the
# module's land where the loader puts them).
straddle() {
	local addr size type name list=
	while read -r addr size type name; do
		case $type in t|T) ;; *) continue ;; esac
		[ $(((16#$addr) >> 12)) -eq $(((16#$addr + 16#$size - 1) >> 12)) ] ||
			list="$list $name"
	done < <(nm -S "$1" 2>/dev/null)
	echo "${list:- none}"
}
{
	echo "# bench functions across a 4 KiB page: baseline:$(straddle "$base/bench/uidgen_bench");" \
		"this tree:$(straddle bench/uidgen_bench)"
} | tee -a "$out/table.txt"
