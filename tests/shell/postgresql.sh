#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The PostgreSQL extension (clients/postgresql) against a real PostgreSQL 15
# and the real module, in the VM: `make install` (into tmpfs copies of
# PostgreSQL's library and extension directories, the guest's / being
# read-only), initdb into /tmp as the postgres user, then pg_regress with
# the module loaded five ways: default layout and node 7; another layout;
# no node ID; four IDs per 10-second tick (waits, statement_timeout); no
# module. Each pg_regress
# test is one TAP result, plus the set-up steps and "no backend crashed".
#
# Run as root in the repository, the module unloaded; clients/postgresql
# built on the host (make tests). Sourced helpers: tests/shell/lib.sh.
. tests/shell/lib.sh
KO=${UIDGEN_KO:-module/uidgen.ko}
U=userlib/uidgen
PGBIN=$(pg_config --bindir)
REGRESS=$(dirname "$(pg_config --pgxs)")/../test/regress/pg_regress
T=/tmp/pg
mkdir -p $T/hold-lib $T/hold-ext

# writable DIR HOLD: a tmpfs over DIR holding links to what was there
# (directories one level down made too: make install adds bitcode/uidgen).
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
ok "PostgreSQL's pkglibdir and extension directory made writable" \
	eval 'writable "$(pg_config --pkglibdir)" $T/hold-lib &&
		writable "$(pg_config --sharedir)/extension" $T/hold-ext'
ok "make install (clients/postgresql)" \
	eval 'make -s -C clients/postgresql install > $T/install.log 2>&1 ||
		{ cat $T/install.log; false; }'
ok "installed: uidgen.so, uidgen.control, uidgen--1.0.sql, uidgen--1.1.sql, uidgen--1.0--1.1.sql" \
	test -f "$(pg_config --pkglibdir)/uidgen.so" -a \
		-f "$(pg_config --sharedir)/extension/uidgen.control" -a \
		-f "$(pg_config --sharedir)/extension/uidgen--1.0.sql" -a \
		-f "$(pg_config --sharedir)/extension/uidgen--1.1.sql" -a \
		-f "$(pg_config --sharedir)/extension/uidgen--1.0--1.1.sql"

chown postgres: $T
as_pg() { setpriv --reuid=postgres --regid=postgres --clear-groups env HOME=$T "$@"; }
ok "initdb as postgres into /tmp" \
	eval 'as_pg $PGBIN/initdb -D $T/data -U postgres --auth=trust -E UTF8 \
		--locale=C --no-sync > $T/initdb.log 2>&1 || { cat $T/initdb.log; false; }'
ok "the server starts" \
	eval 'as_pg $PGBIN/pg_ctl -D $T/data -l $T/server.log -w -t 120 start \
		-o "-k $T -c listen_addresses= -c fsync=off -c timezone=UTC -c uidgen.public_key_file=$T/public.keys" > /dev/null ||
		{ cat $T/server.log; false; }'

# regress NAME TEST...: pg_regress those tests; one TAP line per test.
regress() {
	name=$1; shift
	# A hang (a wait nothing cancels) is a failure, not a stuck suite.
	timeout 180 "$REGRESS" --inputdir=clients/postgresql --outputdir=$T/$name \
		--bindir="$PGBIN" --host=$T --user=postgres \
		--load-extension=uidgen "$@" > $T/$name.log 2>&1
	for t in "$@"; do
		line=$(grep -E "^(test| ) *$t +\.\.\. " $T/$name.log)
		case $line in
		*"... ok"*) ok "pg_regress $t" true ;;
		*) ok "pg_regress $t" false
		   echo "# $line"
		   [ -f $T/$name/regression.diffs ] && sed 's/^/#   /' $T/$name/regression.diffs ;;
		esac
	done
}

# unload: rmmod, waiting for the backends that held /dev/uid to exit.
unload() {
	i=0
	while lsmod | grep -q '^uidgen ' && ! rmmod uidgen 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 50 ] || return 1
		sleep 0.2
	done
}

unload
insmod "$KO" && $U set-node 7 --new > /dev/null
regress default uidgen uidgen_uuid uidgen_observe
unload
insmod "$KO" ts_bits=50 node_bits=3 slot_bits=2 seq_bits=8 \
	tick_us=250 epoch_ms=1735689600000 && $U set-node 3 --new > /dev/null
regress layout uidgen_layout
unload
insmod "$KO"
regress nonode uidgen_nonode
unload
insmod "$KO" slot_bits=0 seq_bits=2 ts_bits=56 tick_us=10000000 &&
	$U set-node 2 --new > /dev/null
regress wait uidgen_wait
unload
# The public form and IDs in JSON need no module (the key file: uidgen.public_key_file,
# set at the server's start above; the test writes the file).
regress nomodule uidgen_nomodule uidgen_public uidgen_json

ok "no backend crashed (server log)" \
	eval '! grep -E "terminated by signal|server process .* was terminated|PANIC" $T/server.log'
ok "the server stops cleanly" \
	eval 'as_pg $PGBIN/pg_ctl -D $T/data -w -t 60 stop > /dev/null'
done_testing
