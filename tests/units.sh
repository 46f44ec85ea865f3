#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd units, every one of systemd/, read on the host (no systemd
# as PID 1 needed): the units (all need /dev/uid) load the module
# themselves or start after one that does (modprobe@uidgen,
# with /etc/modprobe.d's options) and never skip silently on a missing
# module (a ConditionPathExists= that is false is a skip, not a failure,
# and then nothing mints after a reboot); systemd-analyze verify finds no
# key or value it cannot parse.
#   tests/units.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "TAP version 13"
# Every unit of systemd/ runs uidgen against /dev/uid (uidgen-metrics
# only reads it, below).
units=$(cd systemd && ls *.service | sed 's/\.service$//' | paste -sd' ')
check "the units read are every unit of systemd/ (uidgen-state, uidgen-persist, uidgen-lease among them)" \
	'echo $units; for u in uidgen-state uidgen-persist uidgen-lease; do echo " $units " | grep -q " $u "; done'
# loads_module UNIT: Wants= and After= modprobe@uidgen.service, or
# Requires= and After= a unit of systemd/ that does.
loads_module() {
	local f=systemd/$1.service d
	grep -q '^Wants=.*modprobe@uidgen\.service' "$f" && grep -q '^After=.*modprobe@uidgen\.service' "$f" && return 0
	for d in $(sed -n 's/^Requires=//p' "$f"); do
		d=${d%.service}
		[ -f "systemd/$d.service" ] && [ "$d" != "$1" ] &&
			grep -q "^After=.*\b$d\.service" "$f" && loads_module "$d" && return 0
	done
	return 1
}
for u in $units; do
	f=systemd/$u.service
	check "$u: no silent skip on a missing module (any Condition*= on it)" \
		"! grep -n '^Condition[A-Za-z]*=.*\\(/sys/module/uidgen\\|/dev/uid\\)' $f"
	# uidgen-metrics observes: a missing module is what it reports
	# (uidgen_up 0, tests/system/metrics.sh), never a module it loads.
	if [ "$u" = uidgen-metrics ]; then
		check "$u: never loads the module (no modprobe@uidgen.service, no unit that does)" \
			"! grep -n '^\\(Wants\\|Requires\\|After\\)=' $f"
		continue
	fi
	check "$u: the module is loaded first (Wants= and After= modprobe@uidgen.service, or Requires= and After= a unit that does)" \
		"loads_module $u"
done
# uidgen-lease exits 3 when etcd went back in time; the unit must not
# start it again against that store by itself.
check "uidgen-lease: exit 3 (etcd went back in time) is not restarted" \
	"grep -q '^RestartPreventExitStatus=3\$' systemd/uidgen-lease.service && grep -q 'r == -ESTALE ? 3' lease/main.c"
# uidgen-lease at shutdown: ExecStop hands the node over (SIGUSR1) when the
# system is stopping, and waits for the agent to exit; on a plain stop or
# restart it sends nothing (SIGTERM then leaves the node for adoption).
# exec_stop STATE: run the unit's ExecStop (its sh -c script, systemd's
# $$ unescaped) with systemctl is-system-running saying STATE and MAINPID
# a process that logs the signals it gets; prints what it got.
exec_stop() {
	local script pid
	script=$(sed -n "s/^ExecStop=\/bin\/sh -c '\(.*\)'\$/\1/p" systemd/uidgen-lease.service | sed 's/\$\$/$/g')
	[ -n "$script" ] || { echo "no ExecStop=/bin/sh -c '...' line"; return 1; }
	mkdir -p "$out/bin"
	printf '#!/bin/sh\n[ "$1" = is-system-running ] && echo %s\n' "$1" > "$out/bin/systemctl"
	chmod +x "$out/bin/systemctl"
	rm -f "$out/got"
	sh -c 'trap "echo USR1 >> $0/got; exit 0" USR1; trap "echo TERM >> $0/got; exit 0" TERM; while :; do sleep 0.05; done' "$out" &
	pid=$!
	sleep 0.3
	PATH=$out/bin:$PATH MAINPID=$pid timeout 10 sh -c "$script"
	echo "ExecStop exit $?; alive after: $(kill -0 $pid 2>/dev/null && echo yes || echo no); got: $(cat "$out/got" 2>/dev/null)"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
}
check "uidgen-lease: at shutdown (stopping), ExecStop hands over (SIGUSR1) and waits for the agent to exit" \
	'r=$(exec_stop stopping); echo "$r"; [ "$r" = "ExecStop exit 0; alive after: no; got: USR1" ]'
check "uidgen-lease: on a stop or restart (running), ExecStop sends nothing (SIGTERM leaves the node for adoption)" \
	'r=$(exec_stop running); echo "$r"; [ "$r" = "ExecStop exit 0; alive after: yes; got: " ]'
if command -v systemd-analyze > /dev/null; then
	for f in systemd/*.service; do
		# Binaries not installed here and man pages are no finding.
		check "systemd-analyze verify $f: nothing it cannot parse" \
			"! systemd-analyze verify $f 2>&1 | grep -v -e 'is not executable' -e \"Command 'man \" | grep ."
	done
fi
tap_end
