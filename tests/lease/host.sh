#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# uidgen-lease against a real 3-member etcd on this machine's loopback,
# with the device stand-in (--device-sim): claims, the third agent
# waiting, hand-over with the floor, preference for the last ID, SIGSTOP
# (the device stops before etcd frees the ID), SIGKILL and restart, a
# missing floor refused, the etcd leader killed, then TLS with client
# certificates and user/password. Every run ends with the global check
# (check.py) over etcd's history and every stand-in's log.
#
#   tests/lease/host.sh [-o OUTDIR]
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
. tests/lib/etcd.sh
out=
while getopts "o:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
kver=host
host_out lease
make -s -C lease || exit 1
agent=$repo/lease/uidgen-lease
declare -A apid

# start NAME CLUSTER NODE_BITS [-o K=V]...: an agent for machine NAME with
# its stand-in in $out/NAME.sim, log $out/NAME.log.
start() {
	local name=$1 cl=$2 bits=$3
	shift 3
	# one log per run: waitlog must not match an earlier run's lines
	[ ! -e "$out/$name.log" ] || mv "$out/$name.log" "$out/$name.$(date +%s%N).log"
	"$agent" -c /dev/null --device-sim "$out/$name.sim" -o endpoints="$etcd_eps" \
		-o cluster="$cl" -o machine_id="$name" -o sim_node_bits="$bits" \
		-o ttl=5 -o margin_ms=1000 -o timeout_ms=1000 -o retry_ms=200 "$@" \
		>> "$out/$name.log" 2>&1 &
	apid[$name]=$!
}
stop() { kill -TERM "${apid[$1]}" 2>/dev/null; wait "${apid[$1]}"; }
# waitlog NAME REGEX [SECONDS]: until the agent's log matches.
waitlog() {
	local i
	for i in $(seq $((${3:-15} * 10))); do
		grep -Eq "$2" "$out/$1.log" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "no '$2' in $1.log:"; tail -n 5 "$out/$1.log"
	return 1
}
node_of() { sed -n 's/.*node \([0-9]*\): in force.*/\1/p' "$out/$1.log" | tail -n 1; }
# simlast NAME EVENT FIELD: FIELD (or "time") of NAME's last EVENT in its stand-in log.
simlast() {
	grep -E " $2 " "$out/$1.sim.log" | tail -n 1 | tr ' ' '\n' |
		if [ "$3" = time ]; then head -n 1; else sed -n "s/^$3=//p"; fi
}
boot_ns() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))'; }
cleanup() {
	for p in "${apid[@]}"; do kill -KILL "$p" 2>/dev/null; done
	[ -z "${wpid:-}" ] || kill "$wpid" 2>/dev/null
	etcd_stop
}
trap cleanup EXIT

echo "TAP version 13"
check "a 3-member etcd on 127.0.0.1:2379N" 'etcd_start "$out/etcd"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
tests/lease/watch.py "$etcd_eps" /uidgen/ "$out/watch.txt" 2>> "$out/watch.err" &
wpid=$!

# node_bits=1: two IDs, three machines.
start A t 1
waitlog A "in force" > /dev/null
start B t 1
waitlog B "in force" > /dev/null
start C t 1
check "two agents get the two node IDs" \
	'waitlog A "in force" && waitlog B "in force" && [ "$(node_of A)$(node_of B)" = 01 ] || [ "$(node_of A)$(node_of B)" = 10 ]'
check "the third is told all are held, and installs nothing" \
	'waitlog C "all 2 node IDs are held" && ! grep -q install "$out/C.sim.log"'
check "the deadline is TTL x (1 - rate) - margin after the keepalive" \
	'grep -q "deadline in 3\.99[0-9] s" "$out/A.log"'
a_node=$(node_of A)
stop A
check "A on SIGTERM: revoked in the device, then released in etcd" \
	'grep -A1 "revoked in the device (shutdown)" "$out/A.log" | grep -q "released in etcd"'
check "C takes A's node ID" 'waitlog C "in force" && [ "$(node_of C)" = "$a_node" ]'
check "with A's last grant as its floor" \
	'[ "$(simlast C install floor)" = "$(simlast A revoke grant)" ] && [ "$(simlast C install floor)" -gt 0 ]'
check "A's revoke came before C's install" '[ "$(simlast A revoke time)" -lt "$(simlast C install time)" ]'
check "uidgen-cluster lists the holders, machine and token" \
	'lease/uidgen-cluster -c /dev/null -o endpoints="$etcd_eps" -o cluster=t > "$out/cluster.txt" &&
	 cat "$out/cluster.txt" && [ "$(grep -c "^[01] " "$out/cluster.txt")" = 2 ] &&
	 grep -q "^$a_node *C " "$out/cluster.txt" &&
	 [ "$(awk "\$2 == \"C\" { print \$6 }" "$out/cluster.txt")" = "$(simlast C install token)" ]'
# no_url PROG [-o ...]: endpoints with no URL in them: exit 2, saying so.
no_url() {
	local err rc
	err=$(lease/"$1" -c /dev/null -o endpoints=, -o cluster=t "${@:2}" 2>&1 > /dev/null)
	rc=$?
	echo "exit $rc: $err"
	[ "$rc" = 2 ] && [ "$err" = "$1: endpoints ',': no URL" ]
}
check "uidgen-lease: endpoints with no URL, exit 2 saying so" \
	'no_url uidgen-lease -o machine_id=0123456789abcdef0123456789abcdef'
check "uidgen-cluster: the same" 'no_url uidgen-cluster'

# SIGSTOP the holder: its device must stop before etcd frees the ID, and
# the waiting agent may take it only after.
start A t 1
waitlog A "all 2 node IDs are held"
kill -STOP "${apid[C]}"
stop_ns=$(boot_ns)
check "SIGSTOP C: A takes C's ID once etcd expired it" 'waitlog A "in force" 20 && [ "$(node_of A)" = "$a_node" ]'
kill -CONT "${apid[C]}"
check "C, continued, finds its deadline passed (or its lease gone) and revokes" \
	'waitlog C "revoked in the device \((deadline passed|claim lost)\)"'
c_deadline=$(simlast C "(install|renew)" deadline)
a_install=$(simlast A install time)
echo "# SIGSTOP at $stop_ns: C's device deadline $(( (c_deadline - stop_ns) / 1000000 )) ms later, A's install $(( (a_install - stop_ns) / 1000000 )) ms later"
check "C's deadline came before A's install" '[ "$c_deadline" -lt "$a_install" ]'

# SIGKILL and restart: the new agent adopts the claim.
b_tok=$(simlast B install token)
kill -KILL "${apid[B]}"
wait "${apid[B]}" 2>/dev/null
start B t 1
check "SIGKILL B and restart: it adopts its claim, same token" \
	'waitlog B "adopted from the previous run \(token $b_tok\)"'
check "and its node never left the stand-in (no expire, no revoke)" \
	'! grep -Eq " (expire|revoke) .*token=$b_tok " "$out/B.sim.log"'

# Preference: 16 IDs; stop and start again: the same ID.
start P pref 4
waitlog P "in force" > /dev/null
p_node=$(node_of P)
stop P
start P pref 4
check "restarted, a machine takes the ID it held last" \
	'waitlog P "node $p_node: claimed .*the ID this machine held last"'
stop P

# A floor key gone for an ID that was claimed before: refused, loudly.
start Q lost 1
start R lost 1
waitlog Q "in force" > /dev/null
waitlog R "in force" > /dev/null
q_node=$(node_of Q)
stop Q
ectl del "/uidgen/lost/floor/$q_node" > /dev/null
start S lost 1
check "a claimed ID whose floor key is gone is refused" \
	'waitlog S "node $q_node was claimed before .* is gone: refusing it" && sleep 1 && ! grep -q install "$out/S.sim.log" 2>/dev/null'
stop S
stop R

# The etcd leader killed: holders keep their IDs (keepalives fail over).
leader=$(etcd_leader)
before=$(cat "$out"/*.sim.log | grep -c -E " (expire|revoke) ")
etcd_kill "$leader"
sleep 6
check "etcd leader (m$leader) killed: every holder keeps its ID" \
	'[ "$(cat "$out"/*.sim.log | grep -c -E " (expire|revoke) ")" = "$before" ] && [ -n "$(ectl --endpoints "$(echo "$etcd_eps" | tr , "\n" | grep -v ":2379$leader" | paste -sd,)" get /uidgen/t/node/0 --print-value-only)" ]'
etcd_run "$leader"

for m in A B C; do stop "$m"; done
sleep 1
kill "$wpid"
wait "$wpid" 2>/dev/null
wpid=
check "global check: no ID held twice in etcd or the stand-ins, each stopped before etcd freed it" \
	'tests/lease/check.py --watch "$out/watch.txt" $(for f in "$out"/*.sim.log; do echo --sim "$f"; done) | tee "$out/global.txt" &&
	 grep -q "RESULT etcd_held_twice 0" "$out/global.txt" && grep -q "RESULT sim_overlaps 0" "$out/global.txt"'
sed 's/^/# /' "$out/global.txt"

# modrev KEY: its mod_revision, 0 if absent.
modrev() {
	ectl get "$1" -w json | python3 -c 'import json, sys; k = json.load(sys.stdin).get("kvs", []); print(k[0]["mod_revision"] if k else 0)'
}
# The floor never goes down: raised above the holder's grants (as by a
# late retry of a newer grant), its next grants leave it there.
start F floor 0
waitlog F "in force" > /dev/null
hi=$(( $(date +%s%3N) + 1000000000 ))
ectl put /uidgen/floor/floor/0 "$hi" > /dev/null
renews=$(grep -c " renew .*grant=[1-9]" "$out/F.sim.log")
sleep 4
check "a floor above the holder's grant is not lowered by its next grants" \
	'[ "$(grep -c " renew .*grant=[1-9]" "$out/F.sim.log")" -ge $((renews + 2)) ] &&
	 [ "$(ectl get /uidgen/floor/floor/0 --print-value-only)" = "$hi" ]'
# A VM fork or snapshot restore: the copy's kernel revoked the node, its
# agent still has the lease and token. It must write nothing to etcd,
# nor free the original's claim.
n_rev=$(modrev /uidgen/floor/node/0)
f_rev=$(modrev /uidgen/floor/floor/0)
touch "$out/F.sim.fork"
check "the device revoked under the agent (VM fork): it notices" \
	'waitlog F "(no longer in force in the device|renew in the device)" && sleep 0.5'
check "and writes nothing to etcd: claim and floor as they were, the lease left to expire" \
	'[ "$(modrev /uidgen/floor/node/0)" = "$n_rev" ] && [ "$(modrev /uidgen/floor/floor/0)" = "$f_rev" ] &&
	 grep -q "not releasing lease" "$out/F.log"'
stop F

# Two machines with one machine ID (another boot ID): the second leaves
# the first's claim alone, loudly.
echo boot-one > "$out/boot1"
echo boot-two > "$out/boot2"
start D twin 1 -o machine_id=twin -o boot_id_file="$out/boot1"
waitlog D "in force" > /dev/null
d_node=$(node_of D)
start E twin 1 -o machine_id=twin -o boot_id_file="$out/boot2"
check "a second machine with the same machine ID takes the other ID" \
	'waitlog E "in force" && [ "$(node_of E)" != "$d_node" ]'
check "and leaves the first's claim alone, saying why" \
	'waitlog E "two machines share one machine ID" && sleep 3 && ! grep -Eq " (expire|revoke) " "$out/D.sim.log"'
stop E
stop D
# The same boot: a claim left by a killed agent whose device revoked is
# freed at once.
start H twin2 1 -o boot_id_file="$out/boot1"
waitlog H "in force" > /dev/null
h_node=$(node_of H)
kill -KILL "${apid[H]}"
wait "${apid[H]}" 2>/dev/null
touch "$out/H.sim.fork"
start H twin2 1 -o boot_id_file="$out/boot1"
check "killed, its device revoked, restarted in the same boot: its old claim is freed at once" \
	'waitlog H "node $h_node: released this machine.s claim left by a previous run" && waitlog H "node $h_node: in force"'
stop H
etcd_stop

# TLS with client certificates, and user/password.
etcd_start "$out/etcd-tls" tls
ectl user add root:rootpw > /dev/null &&
ectl user grant-role root root > /dev/null &&
ectl role add uidgen > /dev/null &&
ectl role grant-permission uidgen --prefix=true readwrite /uidgen/ > /dev/null &&
ectl user add agent:agentpw > /dev/null &&
ectl user grant-role agent uidgen > /dev/null &&
ectl auth enable > /dev/null
echo agentpw > "$out/pw"
echo wrong > "$out/badpw"
pki=$out/etcd-tls/pki
tlsopts=(-o cacert="$pki/ca.pem" -o cert="$pki/client.pem" -o key="$pki/client.key")
start T tls 1 "${tlsopts[@]}" -o user=agent -o password_file="$out/pw"
check "TLS + client certificate + password: claims" 'waitlog T "in force"'
check "uidgen-cluster over TLS with the same settings" \
	'lease/uidgen-cluster -c /dev/null -o endpoints="$etcd_eps" -o cluster=tls "${tlsopts[@]}" -o user=agent -o password_file="$out/pw" | grep -q "^[01] *T "'
"$agent" -c /dev/null --device-sim "$out/U.sim" -o endpoints="$etcd_eps" -o cluster=tls \
	-o machine_id=U -o sim_node_bits=1 "${tlsopts[@]}" -o user=agent -o password_file="$out/badpw" \
	> "$out/U.log" 2>&1
rc=$?
check "a wrong password: exit 1, saying etcd refused it" \
	'[ $rc -eq 1 ] && grep -q "etcd refused us" "$out/U.log" && grep -q "authentication failed" "$out/U.log"'
start V tls 1 -o cacert="$pki/other.pem" -o cert="$pki/client.pem" -o key="$pki/client.key" \
	-o user=agent -o password_file="$out/pw"
check "a CA that did not sign the servers: nothing claimed, the TLS error logged" \
	'waitlog V "SSL|certificate" && sleep 2 && ! grep -q "in force" "$out/V.log"'
stop V
( cd "$pki" && openssl req -newkey rsa:2048 -nodes -subj /CN=agent -keyout cn.key -out cn.csr 2>/dev/null &&
  openssl x509 -req -in cn.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile client.ext -out cn.pem 2>/dev/null )
"$agent" -c /dev/null --device-sim "$out/W.sim" -o endpoints="$etcd_eps" -o cluster=tls \
	-o machine_id=W -o sim_node_bits=1 -o cacert="$pki/ca.pem" -o cert="$pki/cn.pem" -o key="$pki/cn.key" \
	-o user=agent -o password_file="$out/pw" > "$out/W.log" 2>&1
rc=$?
check "a client certificate with a CommonName: exit 1, saying why the gateway refuses it" \
	'[ $rc -eq 1 ] && grep -q "empty CommonName" "$out/W.log"'
stop T
check "T released its claim on SIGTERM" '[ -z "$(ectl --user root:rootpw get --prefix /uidgen/tls/node/ --keys-only)" ]'
etcd_stop

# Configuration errors.
printf 'endpoints = http://127.0.0.1:1\nttl = 1\n' > "$out/bad.conf"
check "lease.conf: a TTL below 2 s is refused (exit 2)" \
	'"$agent" -c "$out/bad.conf" > "$out/bad.log" 2>&1; [ $? -eq 2 ] && grep -q "ttl = 1: not a number from 2" "$out/bad.log"'
printf 'endpoint = x\n' > "$out/bad2.conf"
check "lease.conf: an unknown key is refused (exit 2)" \
	'"$agent" -c "$out/bad2.conf" > "$out/bad.log" 2>&1; [ $? -eq 2 ] && grep -q "unknown setting .endpoint." "$out/bad.log"'
printf 'endpoints = http://127.0.0.1:1\nttl = 2\nrate_ppm = 500000\nmargin_ms = 1000\n' > "$out/bad3.conf"
check "lease.conf: a margin not below TTL x (1 - rate) is refused (exit 2)" \
	'"$agent" -c "$out/bad3.conf" -o machine_id=x > "$out/bad.log" 2>&1; [ $? -eq 2 ] && grep -q "margin_ms 1000 is not below TTL x (1 - rate_ppm) = 1000 ms" "$out/bad.log"'
check "the shipped lease.conf parses" \
	'"$agent" -c etc/lease.conf.example -o machine_id=x -o device=/nonexistent > "$out/ex.log" 2>&1; grep -q "/nonexistent: No such file" "$out/ex.log"'
tap_end
