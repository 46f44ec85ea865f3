# SPDX-License-Identifier: GPL-2.0
# Sourced by the uidgen-lease suites: a real etcd cluster of 3 members on
# this machine's loopback, clients on 127.0.0.1:2379N and peers on
# 127.0.0.1:2380N (N = 1, 2, 3). QEMU guests with user networking reach
# the clients at 10.0.2.2:2379N. A suite that must not share those ports
# with another (tests/fleet-quickstart.sh: 2479N, 2480N) sets
# etcd_client_port and etcd_peer_port (the prefixes, default 2379 and
# 2380) before etcd_start.
#
#   etcd_start DIR [tls]   start it (data and logs in DIR; with tls, a CA,
#                          server and client certificates made with openssl
#                          in DIR/pki, client certificates required)
#   etcd_stop              stop every member
#   etcd_kill N / etcd_run N   SIGKILL member N / start it again
#   etcd_leader            the number N of the leader
#   ectl ARGS...           etcdctl against the cluster
#   ectl_at EPS ARGS...    etcdctl against the endpoints EPS alone (a
#                          second --endpoints to ectl adds to the first)
# Needs $repo; sets $etcd_dir, $etcd_eps (the clients, comma-separated).

etcd_scheme=http
etcd_tls=
etcd_pids=()
etcd_client_port=${etcd_client_port:-2379}
etcd_peer_port=${etcd_peer_port:-2380}

etcd_pki() {
	local p=$1
	mkdir -p "$p"
	(
		cd "$p" || exit 1
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=uidgen-test-ca \
			-keyout ca.key -out ca.pem 2>/dev/null || exit 1
		printf 'subjectAltName=IP:127.0.0.1,IP:10.0.2.2,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' > server.ext
		openssl req -newkey rsa:2048 -nodes -subj /CN=etcd-server -keyout server.key -out server.csr 2>/dev/null &&
		openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
			-extfile server.ext -out server.pem 2>/dev/null || exit 1
		# No CommonName: etcd's JSON gateway refuses a client
		# certificate that has one when --client-cert-auth is on
		# (CVE-2018-16886, etcd-io/etcd#10366); the user comes from
		# the password.
		printf 'extendedKeyUsage=clientAuth\n' > client.ext
		openssl req -newkey rsa:2048 -nodes -subj /O=uidgen-client -keyout client.key -out client.csr 2>/dev/null &&
		openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
			-extfile client.ext -out client.pem 2>/dev/null || exit 1
		# A CA nobody trusts, for the negative test.
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca \
			-keyout other.key -out other.pem 2>/dev/null
	)
}

# The members' peer URLs, as --initial-cluster takes them.
etcd_peers() {
	local i cluster=
	for i in 1 2 3; do
		cluster="${cluster:+$cluster,}m$i=$etcd_scheme://127.0.0.1:$etcd_peer_port$i"
	done
	echo "$cluster"
}

# etcd_up WHO: start every member and wait until the cluster answers.
etcd_up() {
	local i tries
	for i in 1 2 3; do
		etcd_run "$i"
	done
	for tries in $(seq 100); do
		ectl endpoint health > /dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "$1: the cluster did not come up: see $etcd_dir/m*.log" >&2
	return 1
}

etcd_run() {
	local n=$1 cluster i tlsopts=()
	cluster=$(etcd_peers)
	if [ -n "$etcd_tls" ]; then
		tlsopts=(--cert-file "$etcd_dir/pki/server.pem" --key-file "$etcd_dir/pki/server.key"
			--trusted-ca-file "$etcd_dir/pki/ca.pem" --client-cert-auth
			--peer-cert-file "$etcd_dir/pki/server.pem" --peer-key-file "$etcd_dir/pki/server.key"
			--peer-trusted-ca-file "$etcd_dir/pki/ca.pem" --peer-client-cert-auth)
	fi
	etcd --name "m$n" --data-dir "$etcd_dir/m$n" \
		--listen-client-urls "$etcd_scheme://127.0.0.1:$etcd_client_port$n" \
		--advertise-client-urls "$etcd_scheme://127.0.0.1:$etcd_client_port$n" \
		--listen-peer-urls "$etcd_scheme://127.0.0.1:$etcd_peer_port$n" \
		--initial-advertise-peer-urls "$etcd_scheme://127.0.0.1:$etcd_peer_port$n" \
		--initial-cluster "$cluster" --initial-cluster-state new \
		--initial-cluster-token uidgen-test \
		--heartbeat-interval 100 --election-timeout 1000 \
		"${tlsopts[@]}" >> "$etcd_dir/m$n.log" 2>&1 &
	etcd_pids[$n]=$!
}

# etcdctl_via EPS DIAL COMMAND ARGS...: etcdctl through EPS alone, with
# the cluster's TLS and user, and those timeouts: ectl's for the suites'
# commands, ectl_at's short ones for probing a cluster that lost a member.
etcdctl_via() {
	local eps=$1 dial=$2 cmd=$3 tlsopts=()
	shift 3
	[ -z "$etcd_tls" ] || tlsopts=(--cacert "$etcd_dir/pki/ca.pem" --cert "$etcd_dir/pki/client.pem" --key "$etcd_dir/pki/client.key")
	ETCDCTL_API=3 etcdctl --endpoints "$eps" --dial-timeout "$dial" --command-timeout "$cmd" \
		"${tlsopts[@]}" ${etcd_user:+--user "$etcd_user"} "$@"
}
ectl() { etcdctl_via "$etcd_eps" 2s 5s "$@"; }
ectl_at() { etcdctl_via "$1" 1s 2s "${@:2}"; }

# etcd_kill_leader: SIGKILL the leader, set $leader to its number N and
# $etcd_others to the other two clients (as $etcd_eps); fails with both
# empty if no member says it leads. etcd_answers EPS
# SECONDS: until a write through EPS alone is answered; prints the ms it
# took, fails after SECONDS.
etcd_kill_leader() {
	etcd_others=
	leader=$(etcd_leader)
	[ -n "$leader" ] && [ -n "${etcd_pids[$leader]:-}" ] || { leader=; return 1; }
	etcd_others=$(echo "$etcd_eps" | tr , "\n" | grep -v ":$etcd_client_port$leader\$" | paste -sd,)
	etcd_kill "$leader" || :
}
etcd_answers() {
	local t0 i
	t0=$(date +%s%N)
	for i in $(seq $(($2 * 10))); do
		if ectl_at "$1" put /probe x > /dev/null 2>&1; then
			echo $((($(date +%s%N) - t0) / 1000000))
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# Another etcd on our ports would answer in our cluster's place: refuse.
etcd_ports_free() {
	local p
	for p in "$etcd_client_port"{1,2,3} "$etcd_peer_port"{1,2,3}; do
		if (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then
			echo "etcd: 127.0.0.1:$p is in use (another etcd, or a suite still running?): stop it first" >&2
			return 1
		fi
	done
}

etcd_start() {
	local i
	etcd_dir=$1
	etcd_tls=${2:-}
	mkdir -p "$etcd_dir"
	etcd_scheme=http
	[ -z "$etcd_tls" ] || { etcd_scheme=https; etcd_pki "$etcd_dir/pki" || return 1; }
	etcd_eps=
	for i in 1 2 3; do
		etcd_eps="${etcd_eps:+$etcd_eps,}$etcd_scheme://127.0.0.1:$etcd_client_port$i"
	done
	etcd_ports_free || return 1
	etcd_up etcd_start
}

etcd_kill() {
	kill -KILL "${etcd_pids[$1]}" 2>/dev/null
	wait "${etcd_pids[$1]}" 2>/dev/null
}

etcd_stop() {
	local i
	for i in 1 2 3; do
		[ -z "${etcd_pids[$i]:-}" ] || etcd_kill "$i"
	done
}

etcd_leader() {
	ectl endpoint status -w json 2>/dev/null | python3 -c '
import json, sys
for s in json.load(sys.stdin):
    if s["Status"]["header"]["member_id"] == s["Status"]["leader"]:
        print(s["Endpoint"][-1])'
}

# etcd_snapshot FILE: a snapshot of member 1. etcd_restore FILE: stop
# every member, restore each from FILE (same names, peers and cluster
# token: the same cluster and member IDs) and start them again.
etcd_snapshot() {
	ETCDCTL_API=3 etcdctl --endpoints "$etcd_scheme://127.0.0.1:${etcd_client_port}1" snapshot save "$1" > /dev/null 2>&1
}
etcd_restore() {
	local i cluster
	cluster=$(etcd_peers)
	etcd_stop
	etcd_ports_free || return 1
	for i in 1 2 3; do
		rm -rf "$etcd_dir/m$i"
		ETCDCTL_API=3 etcdctl snapshot restore "$1" --name "m$i" --data-dir "$etcd_dir/m$i" \
			--initial-cluster "$cluster" --initial-cluster-token uidgen-test \
			--initial-advertise-peer-urls "$etcd_scheme://127.0.0.1:$etcd_peer_port$i" > /dev/null 2>&1 || return 1
	done
	etcd_up etcd_restore
}
