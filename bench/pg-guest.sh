#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-pg, inside the VM: PostgreSQL 15 (initdb into /tmp, a tmpfs)
# with the uidgen extension, a table per key, N rows inserted by 1, 2 and 8
# pgbench clients (a custom script: INSERT ... SELECT of 1000 rows a
# transaction), then the time-range queries. Every run is repeated ROUNDS
# times, the rounds taken in turns (the key order reversed every other
# round), so that the shared host's slow spells land on one run of every
# key rather than on every run of one. One line per run to
# $UIDGEN_VM_OUT/pg.dat:
#   key clients rows seconds pk_bytes wal_bytes round
# and the query times to pg-query.dat.
# Usage: pg-guest.sh ROWS ROUNDS [CLIENTS [KEYS]] (default "1 2 8", all four)
set -u
ROWS=${1:-1000000}
ROUNDS=${2:-2}
CLIENTS=${3:-1 2 8}
KEYS=${4:-bigserial uidgen uuid_random uuid_uidgen}
OUT=${UIDGEN_VM_OUT:-/tmp}
KO=module/uidgen.ko
PGBIN=$(pg_config --bindir)
T=/tmp/pg
mkdir -p $T/hold-lib $T/hold-ext

rmmod uidgen 2>/dev/null
insmod $KO || exit 1
userlib/uidgen set-node 1 --new > /dev/null || exit 1

# As tests/shell/postgresql.sh: the extension installed into tmpfs copies
# of PostgreSQL's read-only directories.
writable() {
	mount --bind "$1" "$2" && mount -t tmpfs pgtmp "$1" || return
	for f in "$2"/*; do
		if [ -d "$f" ]; then
			mkdir "$1/${f##*/}" && for g in "$f"/*; do ln -s "$g" "$1/${f##*/}/"; done
		else
			ln -s "$f" "$1/"
		fi
	done
}
writable "$(pg_config --pkglibdir)" $T/hold-lib &&
	writable "$(pg_config --sharedir)/extension" $T/hold-ext &&
	make -s -C clients/postgresql install > /dev/null || exit 1
chown postgres: $T
as_pg() { setpriv --reuid=postgres --regid=postgres --clear-groups env HOME=$T "$@"; }
as_pg $PGBIN/initdb -D $T/data -U postgres --auth=trust -E UTF8 --locale=C --no-sync > /dev/null || exit 1
# The data live in RAM (tmpfs): fsync off changes nothing; WAL is still
# written, and measured. Checkpoints are taken by hand between runs.
as_pg $PGBIN/pg_ctl -D $T/data -l $T/server.log -w -t 120 start -o "-k $T -c listen_addresses= \
	-c fsync=off -c shared_buffers=256MB -c max_wal_size=4GB -c checkpoint_timeout=1h \
	-c max_connections=20 -c timezone=UTC" > /dev/null || { cat $T/server.log; exit 1; }
psql() { $PGBIN/psql -X -q -A -t -h $T -U postgres "$@"; }
psql -c "CREATE DATABASE bench" postgres
psql -c "CREATE EXTENSION uidgen" bench

key_def() {
	case $1 in
	bigserial) echo "id bigserial PRIMARY KEY" ;;
	uidgen) echo "id bigint PRIMARY KEY DEFAULT uidgen_next()" ;;
	uuid_random) echo "id uuid PRIMARY KEY DEFAULT gen_random_uuid()" ;;
	uuid_uidgen) echo "id uuid PRIMARY KEY DEFAULT uidgen_to_uuid(uidgen_next())" ;;
	esac
}

echo "INSERT INTO t (v) SELECT g FROM generate_series(1, 1000) g;" > $T/insert.sql
: > "$OUT/pg.dat"
keys=$KEYS
rkeys=$(echo "$KEYS" | tr ' ' '\n' | tac | xargs)
last=$(echo "$CLIENTS" | awk '{print $NF}')
for round in $(seq 1 "$ROUNDS"); do
for c in $CLIENTS; do
	[ $((round % 2)) -eq 1 ] && ks=$keys || ks=$rkeys
	for k in $ks; do
		psql -c "DROP TABLE IF EXISTS t; CREATE TABLE t ($(key_def $k), ts timestamptz NOT NULL DEFAULT clock_timestamp(), v int NOT NULL); CHECKPOINT" bench
		lsn0=$(psql -c "SELECT pg_current_wal_insert_lsn()" bench)
		t0=$(date +%s%N)
		$PGBIN/pgbench -n -h $T -U postgres -c $c -j $c -t $((ROWS / 1000 / c)) -f $T/insert.sql bench \
			> $T/pgbench-$k-$c.log 2>&1 || { cat $T/pgbench-$k-$c.log; exit 1; }
		t1=$(date +%s%N)
		set -- $(psql -F ' ' -c "SELECT count(*), pg_relation_size('t_pkey'),
			pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn0') FROM t" bench)
		echo "$k $c $1 $(echo "$t0 $t1" | awk '{printf "%.3f", ($2 - $1) / 1e9}') $2 $3 $round" | tee -a "$OUT/pg.dat"
		if [ "$c" -eq "$last" ] && [ "$round" -eq "$ROUNDS" ]; then
			psql -c "ALTER TABLE t RENAME TO t_$k; ALTER INDEX t_pkey RENAME TO t_${k}_pkey" bench
		fi
	done
done
done

# Time ranges on the 8-client tables: the middle tenth of each table's own
# load. By the key alone for uidgen's keys; by the timestamp column (which
# then needs an index of its own) for bigserial and random UUIDs.
# (One statement a psql -c: VACUUM cannot run inside the transaction a
# multi-statement -c makes.)
for k in bigserial uuid_random; do
	case " $KEYS " in
	*" $k "*) psql -c "CREATE INDEX t_${k}_ts ON t_$k (ts)" bench || exit 1 ;;
	esac
done
psql -c "VACUUM ANALYZE" bench
q() {	# q NAME TABLE WHERE: best of 5 runs in ms (EXPLAIN ANALYZE), with $r1, $r2
	case " $KEYS " in *" ${2#t_} "*) ;; *) return 0 ;; esac
	set -- "$1" "$2" "$3" $(psql -F ' ' -c "SELECT min(ts) + (max(ts) - min(ts)) * 0.45,
		min(ts) + (max(ts) - min(ts)) * 0.55 FROM $2" bench)
	r1="$4 $5"; r2="$6 $7"
	sql="SELECT count(*) FROM $2 WHERE $(eval echo "\"$3\"")"
	best=$(for i in 1 2 3 4 5; do
		psql -c "EXPLAIN (ANALYZE, TIMING OFF) $sql" bench | sed -n 's/^Execution Time: \([0-9.]*\) ms/\1/p'
	done | sort -n | head -n 1)
	plan=$(psql -c "EXPLAIN (COSTS OFF) $sql" bench | grep -m 1 Scan | sed 's/^[ >-]*//; s/  */ /g')
	echo "$1|$(psql -c "$sql" bench)|$best|$plan" | tee -a "$OUT/pg-query.dat"
}
: > "$OUT/pg-query.dat"
q "bigserial, by ts (indexed)" t_bigserial "ts >= '\$r1' AND ts < '\$r2'"
q "uidgen, by the key alone" t_uidgen "id >= uidgen_min_id('\$r1') AND id < uidgen_min_id('\$r2')"
q "uidgen, by ts (no index)" t_uidgen "ts >= '\$r1' AND ts < '\$r2'"
q "uuid_random, by ts (indexed)" t_uuid_random "ts >= '\$r1' AND ts < '\$r2'"
q "uuid_uidgen, by the key alone" t_uuid_uidgen "id >= uidgen_to_uuid(uidgen_min_id('\$r1')) AND id < uidgen_to_uuid(uidgen_min_id('\$r2'))"
psql -F ' ' -c "SELECT 'ts_index', coalesce(pg_relation_size(to_regclass('t_bigserial_ts')), 0),
	coalesce(pg_relation_size(to_regclass('t_uuid_random_ts')), 0)" bench | tee "$OUT/pg-tsindex.dat"
as_pg $PGBIN/pg_ctl -D $T/data -w stop > /dev/null
rmmod uidgen
