#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-pg: PostgreSQL 15 in a VM with the module loaded, N rows
# (default 1,000,000) inserted by 1, 2 and 8 pgbench clients into a table
# keyed by bigserial, uidgen_next(), gen_random_uuid() and
# uidgen_to_uuid(uidgen_next()); rows/s, primary-key index size and WAL
# bytes, each also as a ratio to bigserial's from the same run; then a
# time-range query by the key alone against one by a timestamp column.
# Prints the table; writes it and a plot (Documentation/bench-pg.png).
#
#   bench/pg.sh [-k KVER] [-o OUTDIR] [-n ROWS] [-r ROUNDS] [-c CLIENTS] [-K KEYS] [-p]
#
# -p only makes the table and plot again from OUTDIR's data.
# Each figure is the best of ROUNDS (default 2) runs taken in turns; the
# sizes are the last round's.
#
# A benchmark, not a test: it prints, and fails only if it cannot run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rows=1000000
rounds=2
clients="1 2 8"
keys="bigserial uidgen uuid_random uuid_uidgen"
post=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) rows=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-p) post=1; shift ;;
	-c) clients=$2; shift 2 ;;
	-K) keys=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
. "$repo/tests/lib/host-suite.sh"
host_opts 6.1 "${args[@]}" || exit
out=${out:-$repo/build/bench-pg}
mkdir -p "$out"

if [ -z "$post" ]; then
	echo "== uidgen bench-pg, $(date -u +%Y-%m-%d), kernel $kver, QEMU TCG, 2 vCPUs on $(nproc) host CPUs, PostgreSQL $(pg_config --version | awk '{print $2}'), $rows rows, best of $rounds rounds" |
		tee "$out/header.txt"
	VM_TIMEOUT=${VM_TIMEOUT:-3600} "$repo/tests/qemu/vm.sh" -k "$kver" -o "$out" "$repo/bench/pg-guest.sh" "$rows" "$rounds" "$clients" "$keys" > "$out/vm.log" 2>&1 ||
		{ tail -n 40 "$out/vm.log"; exit 1; }
else
	cat "$out/header.txt" 2>/dev/null
	rows=$(awk 'NR == 1 { print $3 }' "$out/pg.dat")
fi

# key clients rows seconds pk_bytes wal_bytes -> the table, ratios to the
# bigserial row with the same number of clients.
# Best rate of the rounds; sizes and WAL from the last round.
awk '{ id = $1 " " $2; if (!(id in seen)) { seen[id] = 1; k[++n] = $1; c[n] = $2; at[id] = n }
       i = at[id]; rate = $3 / $4; if (rate > r[i]) r[i] = rate; pk[i] = $5; wal[i] = $6 }
     END {
	for (i = 1; i <= n; i++) if (k[i] == "bigserial") { br[c[i]] = r[i]; bpk[c[i]] = pk[i]; bwal[c[i]] = wal[i] }
	printf "| key | clients | rows/s | ratio | PK index MB | ratio | WAL MB | ratio |\n"
	printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= n; i++)
		printf "| %s | %d | %.0f | %.2f | %.1f | %.2f | %.1f | %.2f |\n", k[i], c[i], r[i],
			r[i] / br[c[i]], pk[i] / 1048576, pk[i] / bpk[c[i]], wal[i] / 1048576, wal[i] / bwal[c[i]]
	for (i = 1; i <= n; i++)
		printf "%s %d %.0f %.3f %.3f %.3f\n", k[i], c[i], r[i], r[i] / br[c[i]],
			pk[i] / bpk[c[i]], wal[i] / bwal[c[i]] > "'"$out/ratios.dat"'"
     }' "$out/pg.dat" | tee "$out/table.md"
echo
echo "| time-range query (8-client tables, middle tenth of the load) | rows | best of 5, ms | plan |"
echo "|---|---:|---:|---|"
awk -F'|' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$out/pg-query.dat" | tee "$out/query.md"
awk '{ printf "\nA timestamp index costs: %.1f MB on bigserial'"'"'s table, %.1f MB on random UUIDs'"'"'\n", $2 / 1048576, $3 / 1048576 }' "$out/pg-tsindex.dat"

png=$out/bench-pg.png
gnuplot <<GP
set terminal pngcairo size 1100,440 font "sans,10" noenhanced
set output "$png"
set multiplot layout 1,3 title "uidgen bench-pg: $rows rows, PostgreSQL 15 in a $kver VM (QEMU TCG); ratio to bigserial, same run"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:*]
set offsets graph 0, graph 0, graph 0.08, graph 0
set grid ytics
set key outside bottom center horizontal
set xtics ("1 client" 0, "2 clients" 1, "8 clients" 2)
do for [col in "4 5 6"] {
	set title (col eq "4" ? "insert rate (rows/s)" : col eq "5" ? "primary-key index size" : "WAL bytes")
	plot for [k in "bigserial uidgen uuid_random uuid_uidgen"] "< grep '^".k." ' $out/ratios.dat" using int(col) title k
}
unset multiplot
GP
cp "$png" "$repo/Documentation/bench-pg.png"
echo "== plot: $png (copied to Documentation/bench-pg.png)"
