#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation/fleet.rst's "Quick start: three servers and an existing
# etcd", walked against a real 3-member etcd on this machine's loopback
# (clients on 127.0.0.1:2479N, peers on 2480N: not tests/lease/host.sh's
# 2379N; etcd_client_port and etcd_peer_port in the environment pick
# others), with the device stand-in (uidgen-lease --device-sim) for each
# machine's /dev/uid:
#
#   step 1's etcdctl block, run as written (ETCDCTL_ENDPOINTS says where
#     etcd is; the passwords on standard input), then what it promises:
#     auth on, the uidgen user may write /uidgen/prod/ and nothing else;
#   "Moving a machine from a static node ID"'s etcdctl put, as written,
#     before any agent starts;
#   step 2: the .deb files it names are those make deb builds, where it
#     says make deb puts them (debian/control's packages, version.mk's
#     version, build/deb/ as in the Makefile);
#   step 5's lease.conf as the agents' configuration, with the test's
#     endpoints and without cacert (this etcd is plain http), and its
#     password-file block, as written but in a scratch directory for
#     /etc/uidgen (the password on standard input): mode 0600, the
#     password on one line;
#   step 6: three agents, a, b and c (host names in UTS namespaces of
#     their own, machine IDs as in the shown output, the stand-in with the
#     module's default node_bits, 5), run as the unit runs them; each logs
#     the lines step 6's comment shows;
#   step 7: uidgen-cluster's output has the shown output's shape, line by
#     line (tests/lib/same-shape.sh), and what the text says of it: one
#     line per machine, GRANT ahead of now and moving, TOKEN fixed, TTL
#     within ttl.
# The blocks are those tests/docs-blocks.sh marks "walked" by this file.
#
#   tests/fleet-quickstart.sh [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
# The ports: 2479N and 2480N unless the caller says (a second run beside
# make check's: etcd_client_port=261 etcd_peer_port=262, ports 261N, 262N).
etcd_client_port=${etcd_client_port:-2479}
etcd_peer_port=${etcd_peer_port:-2480}
. tests/lib/etcd.sh
out=
while getopts "o:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
kver=host
host_out fleet-quickstart
make -s -C lease > "$out/make.log" 2>&1 || { cat "$out/make.log"; exit 1; }
doc=Documentation/fleet.rst

# The quick start's blocks (from its title to the next one).
mkdir -p "$out/blocks"
nb=$(awk -f tests/lib/rst-blocks.awk -v f="$doc" -v dir="$out/blocks" -v n=0 "$doc")
qs=$(grep -n '^Quick start: three servers and an existing etcd$' "$doc" | cut -d: -f1)
qe=$(awk -v s="${qs:-0}" 'NR > s + 1 && /^====/ { print NR - 1; exit }' "$doc")
walked=()
move=
enable=
for i in $(seq 1 "$nb"); do
	IFS=$'\t' read -r where kind < "$out/blocks/$i.meta"
	line=${where##*:}
	[ -n "$qs" ] && [ "$line" -gt "$qs" ] && [ "$line" -lt "$qe" ] || continue
	[ "$kind" != "walked: tests/fleet-quickstart.sh" ] || walked+=("$out/blocks/$i.sh")
	case $(head -n 1 "$out/blocks/$i.sh") in
	"systemctl stop uidgen-state"*) move=$out/blocks/$i.sh ;;
	"systemctl enable --now uidgen-lease"*) enable=$out/blocks/$i.sh ;;
	esac
done

apid=()
cleanup() {
	for p in "${apid[@]}"; do kill -KILL "$p" 2>/dev/null; done
	etcd_stop
}
trap cleanup EXIT

echo "TAP version 13"
check "the quick start has its four walked blocks (etcdctl, lease.conf, the password file, uidgen-cluster's output)" \
	'[ ${#walked[@]} = 4 ] && head -n 1 "${walked[@]}" &&
	 grep -q "^etcdctl " "${walked[0]}" && grep -q "^endpoints = " "${walked[1]}" &&
	 grep -q "/etc/uidgen/etcd-password" "${walked[2]}" && grep -q "^NODE " "${walked[3]}"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
etcdctl_block=${walked[0]}
conf_block=${walked[1]}
pwfile_block=${walked[2]}
shown=${walked[3]}

# Step 2: the packages it names, where it says make deb puts them.
v=$(make -s --no-print-directory version 2>/dev/null)
step2=$(awk -v s="$qs" -v e="$qe" 'NR > s && NR < e' "$doc" | sed -n '/^2\. /,/^3\. /p')
check "step 2 says where make deb puts the packages (build/deb/, as the Makefile's deb target)" \
	'printf "%s\n" "$step2" | tr "\n" " " | grep -q "puts them in the tree.s \`\`build/deb/\`\`" &&
	 sed -n "/^deb:/,/^\$/p" Makefile | grep -q "cd build/deb/uidgen-\$(VERSION) && dpkg-buildpackage"'
for p in uidgen-dkms_${v}_all libuidgen2_${v}_amd64 uidgen-tools_${v}_amd64; do
	check "step 2 names $p.deb, and debian/control builds ${p%%_*}" \
		'printf "%s\n" "$step2" | grep -q "\./$p\.deb" && grep -qx "Package: ${p%%_*}" debian/control'
done

check "a 3-member etcd on 127.0.0.1:${etcd_client_port}N" 'etcd_start "$out/etcd"'
export ETCDCTL_ENDPOINTS=$etcd_eps ETCDCTL_API=3
rootpw=root-secret
pw=uidgen-secret

# Step 1, as written. "etcdctl user add" asks twice for each password.
check "step 1: the etcdctl block, as written" \
	'printf "%s\n" "$rootpw" "$rootpw" "$pw" "$pw" | bash -e -o pipefail "$etcdctl_block"'
check "auth is on: without a user, etcd refuses" \
	'! etcdctl --dial-timeout 2s get /uidgen/prod/x'
check "the uidgen user may write under /uidgen/prod/" \
	'etcdctl --user "uidgen:$pw" put /uidgen/prod/probe x && etcdctl --user "uidgen:$pw" del /uidgen/prod/probe'
check "and nowhere else (/uidgen/other/)" \
	'! etcdctl --user "uidgen:$pw" put /uidgen/other/probe x 2>&1 | tee /dev/stderr | grep -q OK'

# "Moving a machine from a static node ID": its etcdctl line, before any
# agent starts (the rest needs systemd and a static node's state file).
check "moving from a static node ID: its etcdctl put, as written (the password asked for)" \
	'[ -n "$move" ] && l=$(grep "^etcdctl " "$move") && echo "$l" && echo "$pw" | bash -e -c "$l" &&
	 [ "$(etcdctl --user "uidgen:$pw" get /uidgen/prod/floor/7 --print-value-only)" = 1796034902875 ]'
# Taken out again, so that every agent below claims a new ID, as step 6's
# comment shows ("floor NEW"); an agent that drew node 7 would log its floor.
etcdctl --user "uidgen:$pw" del /uidgen/prod/floor/7 > /dev/null

# Step 5: lease.conf with the test's endpoints, cacert left out (http).
check "step 5: lease.conf has the keys the walk knows (endpoints cluster cacert user password_file)" \
	'[ "$(sed -n "s/^\([a-z_]*\) = .*/\1/p" "$conf_block" | paste -sd" ")" = "endpoints cluster cacert user password_file" ]'
sed -e "s|^endpoints = .*|endpoints = $etcd_eps|" -e '/^cacert = /d' \
	-e "s|^password_file = /etc/uidgen/|password_file = $out/etc-uidgen/|" "$conf_block" > "$out/lease.conf"
# Step 5's password file, as written, /etc/uidgen being $out/etc-uidgen.
check "step 5: the password-file block, as written (in bash, the password on standard input)" \
	'sed "s|/etc/uidgen|$out/etc-uidgen|g" "$pwfile_block" > "$out/pwfile.sh" &&
	 echo "$pw" | bash -e -o pipefail "$out/pwfile.sh"'
check "the password file: mode 0600, the password on one line, where lease.conf says" \
	'[ "$(stat -c %a "$out/etc-uidgen/etcd-password")" = 600 ] &&
	 [ "$(cat "$out/etc-uidgen/etcd-password")" = "$pw" ] &&
	 [ "$(wc -l < "$out/etc-uidgen/etcd-password")" = 1 ] &&
	 grep -qx "password_file = $out/etc-uidgen/etcd-password" "$out/lease.conf"'

# Step 6: what uidgen-lease.service runs, on a, b and c.
declare -A mid=([a]=0000000000000000000000000000abc1 [b]=0000000000000000000000000000abc2 [c]=0000000000000000000000000000abc3)
for m in a b c; do
	echo "${mid[$m]}" > "$out/$m.machine-id"
	unshare --uts bash -c 'hostname "$1" && shift && exec "$@"' - "$m" \
		lease/uidgen-lease -c "$out/lease.conf" --device-sim "$out/$m.sim" \
		-o machine_id_file="$out/$m.machine-id" -o sim_node_bits=5 > "$out/$m.log" 2>&1 &
	apid[${#apid[@]}]=$!
done
waitlog() {	# waitlog NAME REGEX: within 20 s
	local i
	for i in $(seq 200); do
		grep -Eq -- "$2" "$out/$1.log" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "no '$2' in $1.log:"; tail -n 5 "$out/$1.log"
	return 1
}
# The lines step 6's journalctl comment shows, as shapes.
mapfile -t says < <(grep '^journalctl' "$enable" | grep -o '"[^"]*"' | tr -d '"' |
	sed -e 's/, \.\.\.)$//' -e 's#[][\.*^$+?(){}|/]#\\&#g' -e 's/[0-9][0-9]*/[0-9]+/g')
check "step 6's comment shows the agent's log lines (${#says[@]})" '[ ${#says[@]} -ge 2 ] && printf "%s\n" "${says[@]}"'
for m in a b c; do
	for re in "${says[@]}"; do
		check "step 6: $m logs /$re/" 'waitlog "$m" "$re"'
	done
done

# Step 7: uidgen-cluster with the same configuration file.
check "step 7: uidgen-cluster, exit 0" 'lease/uidgen-cluster -c "$out/lease.conf" > "$out/cluster1.txt"; cat "$out/cluster1.txt"'
# In any order: the lines follow the node IDs, which are random.
check "its output has the shown output's shape, line by line" \
	'tests/lib/same-shape.sh --any-order "$shown" < "$out/cluster1.txt"'
check "one line per machine: 3 holders, 3 node IDs, 3 tokens" \
	'[ "$(tail -n +2 "$out/cluster1.txt" | wc -l)" = 3 ] &&
	 [ "$(tail -n +2 "$out/cluster1.txt" | awk "{ print \$1 }" | sort -u | wc -l)" = 3 ] &&
	 [ "$(tail -n +2 "$out/cluster1.txt" | awk "{ print \$6 }" | sort -u | wc -l)" = 3 ]'
# epoch_ms of an ISO 8601 UTC time
ms() { date -u -d "$1" +%s%3N; }
check "GRANT ahead of now and of SINCE; TTL within ttl (10)" '
	now=$(date +%s%3N)
	tail -n +2 "$out/cluster1.txt" | while read -r node m h since grant token ttl; do
		echo "$node: since $since grant $grant ttl $ttl"
		[ "$(ms "$grant")" -gt "$now" ] && [ "$(ms "$grant")" -gt "$(ms "$since")" ] &&
			[ "$ttl" -ge 0 ] && [ "$ttl" -le 10 ] || exit 1
	done'
sleep 4
check "4 s later: every GRANT has moved, every TOKEN and SINCE is the same" '
	lease/uidgen-cluster -c "$out/lease.conf" > "$out/cluster2.txt" && cat "$out/cluster2.txt" &&
	tail -n +2 "$out/cluster1.txt" | while read -r node m h since grant token ttl; do
		read -r m2 h2 since2 grant2 token2 ttl2 < <(awk -v n="$node" "\$1 == n { \$1 = \"\"; print }" "$out/cluster2.txt")
		[ "$token2" = "$token" ] && [ "$since2" = "$since" ] && [ "$(ms "$grant2")" -gt "$(ms "$grant")" ] || exit 1
	done'

for i in 0 1 2; do
	kill -TERM "${apid[$i]}" 2>/dev/null
done
for m in a b c; do
	check "$m on SIGTERM: left in force for the next start to adopt (no release)" \
		'waitlog "$m" "left in force for the next start to adopt" && ! grep -q "released in etcd" "$out/$m.log"'
done
tap_end
