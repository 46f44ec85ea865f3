#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (as root, in the repository): every suite, each with
# the module loaded the way it needs; --no-clients leaves out the clients'
# suites (python, go, node, postgresql), which need one kernel only. One line per
# suite goes to $UIDGEN_VM_OUT/summary.txt: "NAME PASS FAIL SECONDS".
set -u
OUT=${UIDGEN_VM_OUT:-/tmp}
KO=${UIDGEN_KO:-module/uidgen.ko}
. tests/totals.sh
: > "$OUT/summary.txt"

# suite NAME COMMAND...: run it, keep its log, record its kselftest totals.
# A suite that hangs is killed after $SUITE_TIMEOUT seconds (the longest,
# cli, takes about 190 under TCG), with the processes of its group (not
# those that make a session of their own, such as PostgreSQL's server):
# it fails alone, its log says so, and the suites after it still run.
SUITE_TIMEOUT=${SUITE_TIMEOUT:-600}
suite() {
	echo "== suite $1: $(shift; echo "$*")"
	run_suite "$OUT" "$1" timed_out "$@"
}

# timed_out NAME COMMAND...: COMMAND under timeout, saying so in its log if
# it ran out of time (exit 124 after SIGTERM, 137 after the SIGKILL ten
# seconds on; either only once the time has passed).
timed_out() {
	_name=$1; shift
	_t0=$(date +%s)
	timeout -k 10 "$SUITE_TIMEOUT" "$@" < /dev/null
	_rc=$?
	if { [ "$_rc" -eq 124 ] || [ "$_rc" -eq 137 ]; } &&
		[ $(($(date +%s) - _t0)) -ge "$SUITE_TIMEOUT" ]; then
		echo "guest-check: suite $_name ran out of its ${SUITE_TIMEOUT} s: it hung (killed, exit $_rc)"
	fi
	return "$_rc"
}

load() {
	rmmod uidgen 2>/dev/null
	insmod $KO "$@" || echo "guest-check: insmod $* failed"
}

# load_as NODE PARAM...: load, then assign NODE as new, as the units and
# the CLI do at boot (the module loads with no node ID).
load_as() {
	_node=$1; shift
	load "$@"
	userlib/uidgen set-node "$_node" --new > /dev/null ||
		echo "guest-check: set-node $_node --new failed"
}

mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

# The kselftests from a fresh load, no node ID assigned: each test
# assigns its own and revokes it (as under run_kselftest.sh after boot).
load
suite kselftest selftests/uidgen_test
load
suite kselftest-m32 selftests/uidgen_test_32
load_as 7
export UIDGEN_NODE=7
suite libuidgen userlib/tests/unit
suite libuidgen-asan userlib/tests/unit-asan
suite libuidgen-tsan userlib/tests/unit-tsan
suite cli sh tests/shell/cli.sh

load
suite node selftests/uidgen_node_test
load
suite node-m32 selftests/uidgen_node_test_32
load
suite life selftests/uidgen_life_test
load
suite life-m32 selftests/uidgen_life_test_32
# Observe: a fresh load at the default observe_ahead_ms (500).
load
suite observe selftests/uidgen_observe_test

# One machine-wide slot: the whole device suite again under strict order.
load_as 1 slot_bits=0 seq_bits=17
suite kselftest-1slot selftests/uidgen_test

# Four IDs per 2-second tick: running out, waiting and signals on cue;
# then borrowing, which max_borrow_ticks sets at load.
load_as 2 slot_bits=0 seq_bits=2 ts_bits=56 tick_us=2000000
suite wait selftests/uidgen_wait_test -T borrow
load_as 2 slot_bits=0 seq_bits=2 ts_bits=56 tick_us=2000000 max_borrow_ticks=2
suite wait-borrow selftests/uidgen_wait_test -t borrow

# Faults: clock steps and hotplug (--disruptive: they restore the clock
# and CPU 1), revoke under load, floors; from a fresh load.
load
suite fault selftests/uidgen_fault_test --disruptive

# The clients: the bindings against the device, PostgreSQL's extension
# (pg_regress, the module loaded four ways), the JS-safe layout.
if [ "${1:-}" != --no-clients ]; then
	load_as 7
	UIDGEN_NODE=7 suite python sh tests/shell/python.sh
	UIDGEN_NODE=7 suite go sh tests/shell/go.sh
	UIDGEN_NODE=7 suite nodejs sh tests/shell/node.sh
	rmmod uidgen
	suite postgresql sh tests/shell/postgresql.sh
	# The JS-safe layout, loaded with uidgen.conf.example's line (issue
	# 29): the CLI, Python and Node.js read its IDs exactly.
	load_as 7 $(sed -n 's/^#options uidgen \(ts_bits=.*\)/\1/p' etc/uidgen.conf.example)
	suite jssafe sh tests/shell/jssafe.sh
fi

rmmod uidgen 2>/dev/null
suite module sh tests/shell/module.sh
suite faults sh tests/shell/faults.sh
suite races sh tests/shell/races.sh
# The persister's crash loops: boots (reloads) with crashes, clean stops
# and clock steps against state restore/keep/save (it loads the module
# itself, steps the clock and puts it back). Like the clients, on the
# first kernel only: it tests the CLI's persister, which no kernel
# version changes, and costs minutes.
if [ "${1:-}" != --no-clients ]; then
	rmmod uidgen 2>/dev/null
	suite crashloop python3 tests/shell/crashloop.py
fi
exit 0
