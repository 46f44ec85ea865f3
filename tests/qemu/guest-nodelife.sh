#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One boot of one machine in tests/nodelife.sh: the packaged path, run the
# way systemd would run it. Runs as root in the test VM, with:
#   $1  DEST   a 'make install DESTDIR' root: the module, the CLI and the
#              systemd units under test (today's or an older tree's)
#   $2  TAG    names this boot's ID files: /mnt/ids-TAG-N
#   $3...      steps, in order:
#     up        an application starts reading IDs first (two readers,
#               retrying while the device is missing or has no node ID);
#               the module is loaded with modprobe and the options in
#               /run/modprobe.d/uidgen.conf; the units start (restore
#               assigns the state file's node ID with its floor);
#               the readers mint until each has $NL_IDS/2 IDs, borrowing
#               up to max_borrow_ticks ahead of the clock (the layout has
#               2 IDs a tick per slot, so they reach the ceiling)
#     first     as up, for the very first start of the node ID ever: the
#               administrator's one-off 'uidgen set-node 7 --new' (when
#               the CLI has it) before the units start
#     reload    an upgrade reload under load: the readers start on the old
#               load, then the units stop, rmmod (retried while a reader
#               holds the device), then as up
#     at=MS     wait until this machine's wall clock reads MS (Unix ms):
#               the VM boots with its RTC well behind (QEMU -rtc base),
#               this puts the next load exactly where the test wants it
#     down      a clean stop: the units stop (uidgen-state saves)
#     crash     power off now, saving nothing
# /mnt persists across the boots of one machine; the state file lives there.
set -u
DEST=$1
TAG=$2
shift 2
N=${NL_IDS:-40000}
CLI=$DEST/usr/local/bin/uidgen
# stat_of NAME: the value of NAME in 'uidgen stats' (the node state and the
# high water are INFO's, not sysfs files).
stat_of() { "$CLI" stats 2> /dev/null | awk -v k="$1" '$1 == k { print $2; exit }'; }
UNITS=$DEST/usr/local/lib/systemd/system
export PATH="$DEST/usr/local/bin:$PATH"
STATE=/mnt/state/uidgen.state
load=0

echo "RESULT job_wall_s $(date +%s)"
# Under TCG on a busy host the guest's TSC calibration can be far off and
# its clocks run at another rate: compare 5 s of this clock with the
# host's (the mtime of a file written on /mnt is the host's). A boot whose
# clock runs at less than half or more than twice the host's tests
# nothing: stop before anything is issued; nodelife.sh boots it again.
echo > /mnt/.clock; h0=$(stat -c %Y /mnt/.clock); g0=$(date +%s)
sleep 5
echo > /mnt/.clock; h1=$(stat -c %Y /mnt/.clock); g1=$(date +%s)
if [ $((g1 - g0)) -gt $((2 * (h1 - h0) + 2)) ] ||
   [ $((2 * (g1 - g0) + 2)) -lt $((h1 - h0)) ]; then
	echo "RESULT retry clock: $((g1 - g0)) s here were $((h1 - h0)) s on the host"
	exit 0
fi
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# The guest's / is this machine's, read-only: modprobe.d options go to
# /run/modprobe.d (read by modprobe like /etc/modprobe.d), the units'
# settings to a fresh /etc/default. The layout only: the node ID is the
# state file's (an older tree's module, with a node_id parameter, gets it
# here too).
mkdir -p /run/modprobe.d /mnt/state
nodeopt=
modinfo -b "$DEST" -F parm uidgen 2>/dev/null | grep -q '^node_id:' && nodeopt=node_id=7
cat > /run/modprobe.d/uidgen.conf <<EOF
options uidgen $nodeopt ts_bits=52 seq_bits=1 max_borrow_ticks=1000
EOF
mount -t tmpfs tmpfs /etc/default
# A short grant window, renewed every second: a load reads for longer than
# restore's first grant, so the IDs a crash must not repeat are covered
# only by what 'state keep' persisted (a persister that raised the grant
# without writing the file would show here as repeats).
cat > /etc/default/uidgen <<EOF
UIDGEN_STATE=$STATE
UIDGEN_AHEAD_MS=3000
UIDGEN_EVERY_MS=1000
EOF

# unit_key UNIT KEY: the unit file's KEY= values, one a line.
unit_key() { sed -n "s/^$2=//p" "$UNITS/$1" 2>/dev/null; }

# unit_env UNIT: its Environment= and EnvironmentFile= settings, exported.
unit_env() {
	for e in $(unit_key "$1" Environment); do export "${e?}"; done
	f=$(unit_key "$1" EnvironmentFile)
	f=${f#-}
	if [ -n "$f" ] && [ -r "$f" ]; then
		set -a
		. "$f"
		set +a
	fi
}

# unit_run UNIT KEY [&]: run its ExecStart/ExecStop lines, with the
# installed CLI and its ${VARS}; a leading - ignores failure, as systemd
# does. With a third argument, in the background (Type=simple); the PID
# goes to /tmp/UNIT.pid.
unit_run() {
	unit_key "$1" "$2" | while read -r line; do
		ign=
		case $line in -*) ign=1; line=${line#-} ;; esac
		# Their state directory is this machine's /mnt/state (an older
		# tree's units name /var/lib/uidgen/state, read-only here).
		line=$(echo "$line" | sed -e "s|/usr/local/bin/uidgen|$CLI|" \
			-e "s|/var/lib/uidgen/state|$STATE|")
		echo "# $1 $2: $line"
		if [ $# -eq 3 ]; then
			( unit_env "$1"; eval "exec $line" ) > "/mnt/$TAG-$1.log" 2>&1 &
			echo $! > "/tmp/$1.pid"
		else
			( unit_env "$1"; eval "$line" ) || [ -n "$ign" ] ||
				echo "RESULT unitfail $1 $2"
		fi
	done
}

units_start() {
	unit_run uidgen-state.service ExecStart
	[ -e "$UNITS/uidgen-persist.service" ] &&
		unit_run uidgen-persist.service ExecStart bg
	# Today's main: a timer saves 60 s ahead every 30 s.
	if [ -e "$UNITS/uidgen-state-save.timer" ]; then
		( while sleep 30; do unit_run uidgen-state-save.service ExecStart; done ) &
		echo $! > /tmp/timer.pid
	fi
}

units_stop() {
	for p in /tmp/uidgen-persist.service.pid /tmp/timer.pid; do
		[ -e $p ] || continue
		pid=$(cat $p)
		kill -TERM "$pid" 2>/dev/null
		# Not this shell's child: wait the way systemd does, by watching.
		while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
		rm -f $p
	done
	unit_run uidgen-state.service ExecStop
}

# reader FILE COUNT: an application that wants COUNT IDs, from the moment
# the device exists, retrying what fails.
reader() {
	: > "$1"
	fails=0
	t0=$(cut -d. -f1 /proc/uptime)
	while [ "$(wc -l < "$1")" -lt "$2" ]; do
		# Never a hang: give up after 3 minutes.
		[ $(( $(cut -d. -f1 /proc/uptime) - t0 )) -lt 180 ] || break
		left=$(( $2 - $(wc -l < "$1") ))
		[ $left -le 4096 ] || left=4096
		if [ -e /dev/uid ] && "$CLI" -n $left >> "$1" 2>> "$1.err"; then
			:
		else
			fails=$((fails + 1))
			sleep 0.02
		fi
	done
	echo "$fails" > "$1.fails"
}

# burst FILE: read IDs into FILE until /tmp/burst.stop exists.
burst() {
	while [ ! -e /tmp/burst.stop ]; do
		"$CLI" -n 4096 >> "$1" 2>/dev/null || sleep 0.02
	done
}

up() {
	load=$((load + 1))
	f=/tmp/ids-$TAG-$load
	reader "$f.a" $((N / 2)) &
	r1=$!
	reader "$f.b" $((N / 2)) &
	r2=$!
	if [ "${1:-}" = reload ]; then
		sleep 0.5
		units_stop
		i=0
		until rmmod uidgen 2>/dev/null || [ $i -ge 500 ]; do
			sleep 0.01; i=$((i + 1))
		done
		[ -e /sys/module/uidgen ] && echo "RESULT rmmod failed"
	fi
	echo "RESULT load_wall_s $(date +%s)"
	modprobe -d "$DEST" uidgen || echo "RESULT modprobe failed"
	echo "RESULT node_state_at_load $(stat_of node_state)"
	if [ "${1:-}" = first ] && "$CLI" --help | grep -q -- --new; then
		"$CLI" set-node 7 --new
	fi
	units_start
	# The ceiling: how far ahead of the clock the slots ran.
	peak=0
	while kill -0 $r1 2>/dev/null || kill -0 $r2 2>/dev/null; do
		a=$(( $(stat_of high_water_ms) - $(cat /sys/class/misc/uid/now_ms) ))
		[ $a -gt $peak ] && peak=$a
		sleep 0.1
	done
	wait $r1 $r2
	# A slow guest (TCG on a loaded host) may not have outrun the clock
	# to the ceiling with its COUNT IDs: read on, up to 20 s more, until
	# it has (those IDs are checked with the others, not counted).
	: > "$f.c"
	: > "$f.d"
	if [ $peak -lt 900 ]; then
		rm -f /tmp/burst.stop
		burst "$f.c" &
		b1=$!
		burst "$f.d" &
		b2=$!
		t0=$(cut -d. -f1 /proc/uptime)
		while [ $peak -lt 900 ] && [ $(( $(cut -d. -f1 /proc/uptime) - t0 )) -lt 20 ]; do
			a=$(( $(stat_of high_water_ms) - $(cat /sys/class/misc/uid/now_ms) ))
			[ $a -gt $peak ] && peak=$a
			sleep 0.1
		done
		touch /tmp/burst.stop
		wait $b1 $b2
	fi
	echo "RESULT ahead_ms $TAG-$load $peak"
	echo "RESULT ids $TAG-$load $(cat "$f".a "$f".b | wc -l) failed_reads $(( $(cat "$f".a.fails) + $(cat "$f".b.fails) ))"
	cp "$f".a "$f".b "$f".c "$f".d /mnt/
	"$CLI" stats | sed "s/^/RESULT stats $TAG-$load /"
	cat /mnt/state/uidgen.state 2>/dev/null | sed "s/^/RESULT state $TAG-$load /"
	sync
}

for step in "$@"; do
	echo "== nodelife $TAG: $step"
	case $step in
	first) up first ;;
	up) up ;;
	reload) up reload ;;
	at=*)
		ms=${step#at=}
		now=$(date +%s%3N)
		echo "RESULT at_late_ms $((now - ms))"
		if [ "$now" -ge "$ms" ]; then
			# The boot took longer than the RTC's margin: not behind.
			echo "RESULT retry late"
			exit 0
		fi
		sleep "$(echo "$ms $now" | awk '{ printf "%.3f", ($1 - $2) / 1000 }')"
		;;
	down) units_stop ;;
	crash)
		# What the VM's init does at the end, then power off at once:
		# the units never stop, nothing is saved.
		sync
		echo 0 > /mnt/rc
		dmesg > /mnt/dmesg.txt
		sync
		echo o > /proc/sysrq-trigger
		sleep 30
		;;
	esac
done
dmesg | grep uidgen | sed 's/^/RESULT dmesg /'
exit 0
