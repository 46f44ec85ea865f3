# SPDX-License-Identifier: GPL-2.0
# The host harness the lease suites share (tests/lease/host.sh, break17.sh,
# break17-open.sh, early-signals.sh): uidgen-lease agents with the device stand-in against
# the 3-member etcd of tests/lib/etcd.sh ($etcd_eps). The caller sets
# $agent (the uidgen-lease to run), $out (each agent's files) and
# declares the associative array apid (NAME -> pid).
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
# kill_agents: SIGKILL every agent start() started (a stopped one too),
# for the suites' exit traps.
kill_agents() {
	local p
	for p in "${apid[@]}"; do kill -KILL "$p" 2>/dev/null; done
}
# stop NAME: a hand-over (SIGUSR1: revoke, then release in etcd);
# SIGTERM leaves the node for the next start to adopt (the case below).
stop() { kill -USR1 "${apid[$1]}" 2>/dev/null; wait "${apid[$1]}"; }
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
# proxy_up PORT: until the fault proxy listens there (python under load
# can take over a second to start: an agent started before would find the
# port closed, move to its next endpoint and never meet the proxy's rule).
proxy_up() {
	local i
	for i in $(seq 100); do
		(exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return 0
		sleep 0.1
	done
	echo "fault proxy on $1 did not come up" >&2
	return 1
}
