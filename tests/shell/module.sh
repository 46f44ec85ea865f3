#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Loading, parameters, sysfs and unloading. Run as root in the repository
# with the module not loaded; leaves it unloaded. The module loads with no
# node ID: each load that mints assigns one with the CLI, as the units do.
. tests/shell/lib.sh
KO=${UIDGEN_KO:-module/uidgen.ko}
U=userlib/uidgen
P=/sys/module/uidgen/parameters

# put FILE VALUE: write VALUE to FILE; print the error's text, if any,
# whether the open failed (a read-only file, or one that is not there: no
# file can be made in sysfs) or the write did.
put() {
	printf '%s\n' "$2" | dd of="$1" 2>&1 >/dev/null |
		sed -n 's/^dd: \(error writing\|failed to open\) .*: //p'
}

# assign NODE: set-node NODE --new, quietly (the tests' own node IDs).
assign() {
	$U set-node "$1" --new > /dev/null
}

# refuse "PARAMS" "message the kernel log must show"
refuse() {
	dmesg -C
	# shellcheck disable=SC2086
	insmod $KO $1 2>/dev/null
	rc=$?
	is "refused: $1" "$rc" 1
	like "log for $1" "$(dmesg | grep uidgen | tail -n 1)" "$2"
	[ ! -e /dev/uid ] || { rmmod uidgen; echo "# it loaded"; }
}

refuse "seq_bits=13" \
	"uidgen: invalid layout: ts_bits=41 \+ node_bits=5 \+ slot_bits=5 \+ seq_bits=13 = 64, must be 63"
refuse "ts_bits=19 seq_bits=34" "uidgen: invalid layout: ts_bits=19 is out of range, allowed 20..60"
refuse "ts_bits=61 seq_bits=2 node_bits=0 slot_bits=0" \
	"uidgen: invalid layout: ts_bits=61 is out of range, allowed 20..60"
refuse "slot_bits=11 seq_bits=6" "uidgen: invalid layout: slot_bits=11 is out of range, allowed 0..10"
refuse "node_bits=21 seq_bits=0 ts_bits=37 slot_bits=5" \
	"uidgen: invalid layout: node_bits=21 is out of range, allowed 0..20"
refuse "seq_bits=0 ts_bits=53" "uidgen: invalid layout: seq_bits=0 is out of range, allowed 1..30"
refuse "tick_us=0" "uidgen: invalid layout: tick_us=0 is out of range, allowed 1..60000000"
refuse "tick_us=60000001" "uidgen: invalid layout: tick_us=60000001 is out of range"
refuse "epoch_ms=99999999999999" \
	"uidgen: epoch_ms=99999999999999 is after the wall clock \([0-9]+ ms\): the timestamp would be negative"
refuse "ts_bits=20 seq_bits=33 slot_bits=0 tick_us=1" "uidgen: invalid layout: seq_bits=33"
refuse "ts_bits=20 node_bits=13 slot_bits=0 seq_bits=30 tick_us=1" \
	"uidgen: timestamp field exhausted: ts_bits=20 ticks of 1 us from epoch_ms=1767225600000 ended at 1767225601049 ms"

refuse "max_borrow_ticks=1000001" "uidgen: .1000001. invalid for parameter .max_borrow_ticks"

# Borrowing is set at load and stays; a floor comes with the assignment:
# the first ID is past it.
floor=$(( $(date +%s%3N) + 3600000 ))
ok "loads with max_borrow_ticks=3" insmod $KO max_borrow_ticks=3
is "sysfs max_borrow_ticks" "$(cat $P/max_borrow_ticks)" 3
is "which root cannot change" "$(put $P/max_borrow_ticks 0)" "Permission denied"
is "sysfs max_borrow_ticks still" "$(cat $P/max_borrow_ticks)" 3
ok "set-node 1 with a floor an hour ahead" $U set-node 1 --floor $floor
t=$(date -u -d "$($U decode "$($U)" | sed 's/.*time=\([^ ]*\).*/\1/')" +%s%3N)
ok "the first ID is after the floor ($t > $floor)" [ "$t" -gt "$floor" ]
ok "unloads" rmmod uidgen

# Layouts other than the default load and mint IDs that decode right.
for layout in "slot_bits=0 seq_bits=17" "ts_bits=51 node_bits=0 slot_bits=2 seq_bits=10 tick_us=1" \
	"ts_bits=33 node_bits=10 slot_bits=0 seq_bits=20 tick_us=100000 epoch_ms=1700000000000"; do
	node=0
	case $layout in *node_bits=0*) ;; *) node=5 ;; esac
	ok "loads: $layout" insmod $KO $layout
	ok "assigns node $node: $layout" assign $node
	for kv in $layout; do
		is "sysfs ${kv%%=*}" "$(cat $P/${kv%%=*})" "${kv#*=}"
	done
	now=$(date +%s)
	d=$($U decode "$($U)")
	like "decodes: $layout" "$d" "node=$node slot=[0-9]+ seq=[0-9]+( id=[0-9]+)?( uuid=[0-9a-f-]{36})?\$"
	t=$(date -u -d "$(echo "$d" | sed 's/.*time=\([^ ]*\).*/\1/')" +%s)
	ok "time within a tick of now: $layout" between $((t - now)) -2 2
	is "10000 distinct IDs: $layout" "$($U -n 10000 | sort -u | wc -l)" 10000
	ok "unloads: $layout" rmmod uidgen
done

# A timestamp field that runs out while loaded: EOVERFLOW, never a wrap.
# 2^20 ticks of 1 s, with the epoch set so that about 4 s are left.
now_ms=$(date +%s%3N)
ok "loads with 4 s of timestamp left" insmod $KO ts_bits=20 node_bits=13 \
	slot_bits=0 seq_bits=30 tick_us=1000000 min_life_days=0 \
	epoch_ms=$((now_ms - (1048576 - 4) * 1000))
assign 1
is "stats exhausts_at_ms" "$(stat_of exhausts_at_ms)" \
	$((now_ms - (1048576 - 4) * 1000 + 1048576 * 1000))
ok "mints while time is left" $U
sleep 5
err=$($U 2>&1); rc=$?
is "exhausted: the CLI fails" "$rc" 1
like "with EOVERFLOW" "$err" "Value too large for defined data type"
ok "unloads" rmmod uidgen

# Too little life left: refused below min_life_days, a warning under a year.
# 2^30 ms is 12.4 days; with the epoch 2 days ago, 10 days are left.
now_ms=$(date +%s%3N)
short="ts_bits=30 seq_bits=23 epoch_ms=$((now_ms - 2 * 86400000))"
refuse "$short" "uidgen: timestamp field runs out at [0-9]+ ms, in 10 days: less than min_life_days=30"
ok "loads with min_life_days=5" insmod $KO $short min_life_days=5
like "and uidgen info warns" "$($U info 2>&1 > /dev/null)" \
	"^uidgen: warning: the timestamp field runs out in 10 days \(at [-0-9T:.]+Z\): plan a new layout or epoch\$"
like "and uidgen stats too" "$($U stats 2>&1 > /dev/null)" \
	"^uidgen: warning: the timestamp field runs out in 10 days \(at [-0-9T:.]+Z\): plan a new layout or epoch\$"
ok "unloads" rmmod uidgen

# /dev/uid is a misc device: major 10, its sysfs directory the misc
# class's. devtmpfs makes it root:root 0444 (the udev rule the packages
# install keeps that mode and gives it the group uidgen: the install and
# deb suites check it); no parameter sets its mode or group.

# nobody_reads GID [GROUP]: as uid 65534 with that group (and supplementary
# group), read one ID; prints the exit status and the output.
nobody_reads() {
	if [ -n "$2" ]; then groups="--groups=$2"; else groups=--clear-groups; fi
	out=$(setpriv --reuid=65534 --regid="$1" "$groups" $U 2>&1)
	echo "$? $out"
}

dmesg -C
ok "loads" insmod $KO
is "a load logs nothing" "$(dmesg | grep -c uidgen)" 0
assign 1
is "/dev/uid is root:root 0444" "$(stat -c '%F %U:%G %a' /dev/uid)" \
	"character special file root:root 444"
is "a misc device: major 10" "$(stat -c '%t' /dev/uid)" a
is "/sys/class/misc/uid is its directory" "$(cat /sys/class/misc/uid/dev)" \
	"10:$(printf %d 0x"$(stat -c '%T' /dev/uid)")"
is "named uid in the misc class" "$(basename "$(readlink -f /sys/class/misc/uid/subsystem)")" misc
ok "no class of its own" [ ! -e /sys/class/uidgen ]
is "no dev_mode or dev_gid parameter" "$(ls $P | grep -c '^dev_')" 0
like "nobody reads an ID" "$(nobody_reads 65534)" "^0 [0-9]+\$"
# What a rule with GROUP and MODE="0440" makes of it.
chgrp 4242 /dev/uid && chmod 0440 /dev/uid
like "at root:4242 0440, the group reads an ID" "$(nobody_reads 4242)" "^0 [0-9]+\$"
like "a supplementary member reads an ID" "$(nobody_reads 65534 4242)" "^0 [0-9]+\$"
like "others get EACCES" "$(nobody_reads 65534)" "^1 .*Permission denied"
like "and the CLI says how to let them in" "$(nobody_reads 65534)" \
	"the device's mode and group leave you out: udev sets them, from 60-uidgen.rules \\(see uid\\(4\\)\\)"
ok "root reads" $U
ok "unloads" rmmod uidgen
ok "a node made again is 0444 once more" sh -c \
	"insmod $KO && [ \"\$(stat -c '%u:%g %a' /dev/uid)\" = '0:0 444' ]"
ok "unloads" rmmod uidgen

# A modprobe.d line from 1.4 with dev_mode or dev_gid: the kernel ignores
# the parameter it does not know, and says so.
dmesg -C
ok "loads with dev_mode=0440 dev_gid=4242" insmod $KO dev_mode=0440 dev_gid=4242
like "the kernel says it ignores dev_mode" "$(dmesg | grep uidgen)" "uidgen: unknown parameter 'dev_mode' ignored"
like "and dev_gid" "$(dmesg | grep uidgen)" "uidgen: unknown parameter 'dev_gid' ignored"
is "/dev/uid is root:root 0444 all the same" "$(stat -c '%u:%g %a' /dev/uid)" "0:0 444"
ok "unloads" rmmod uidgen

# The node ID is no parameter: node_id=, node_new= and floor_ms= at load
# are unknown to the module (the kernel ignores them, saying so), and it
# loads with no node ID, whatever they say.
dmesg -C
floor=$(( $(date +%s%3N) - 1000 ))
ok "loads with node_id=7 node_new=1 floor_ms=$floor" insmod $KO node_id=7 node_new=1 floor_ms=$floor
like "the kernel ignores node_id" "$(dmesg | grep uidgen)" "uidgen: unknown parameter 'node_id' ignored"
is "no node ID" "$(stat_of node_state)" none
like "info: unassigned" "$($U info)" "^node_id: +unassigned "
err=$($U 2>&1)
like "a read fails with EADDRNOTAVAIL" "$err" "Cannot assign requested address"
ok "unloads" rmmod uidgen

# Without them: the device loads, issues nothing until a node ID is
# assigned through the ioctl (set-node), which no parameter can do.
dmesg -C
ok "loads without parameters" insmod $KO
is "and logs nothing" "$(dmesg | grep -c uidgen)" 0
err=$($U 2>&1)
like "the CLI explains" "$err" "Cannot assign requested address"
like "and how to fix it" "$err" "set-node N"
for f in node_id floor_ms node_new; do
	ok "no parameter $f" [ ! -e $P/$f ]
	is "and root cannot make one" "$(put $P/$f 9)" "Permission denied"
done
is "still no node ID" "$(stat_of node_state)" none
ok "set-node 9 --new" assign 9
like "log says node 9" "$(dmesg | grep uidgen | tail -n 1)" "uidgen: node ID 9 assigned \(new"
is "node_state" "$(stat_of node_state)" active
like "IDs carry node 9" "$($U decode "$($U)")" "node=9 "
err=$($U set-node 010 --new 2>&1)
like "node IDs are decimal: 010 is ten, and busy" "$err" "Device or resource busy"
# A reader that reaches the grant waits, counted, never logged: any
# reader can get there, as often as it likes.
$U revoke-node
printf 'node_id=9\nfloor_ms=%s\n' "$(date +%s%3N)" > /tmp/module.state
ok "restore with a grant 1 ms ahead" $U state restore /tmp/module.state --ahead-ms 1
dmesg -C
timeout 3 $U -n 100000 > /dev/null 2>&1
is "a read past the grant waits (killed by timeout)" "$?" 124
ok "the wait is counted" [ "$(cat /sys/class/misc/uid/grant_waits)" -gt 0 ]
is "and not logged" "$(dmesg | grep -c uidgen)" 0
rm -f /tmp/module.state

# Unloading: refused while an fd is open, fine once closed.
exec 3< /dev/uid
rmmod uidgen 2>/dev/null
is "rmmod refused while open" "$?" 1
ok "still loaded" [ -c /dev/uid ]
exec 3<&-
ok "rmmod once closed" rmmod uidgen
ok "/dev/uid gone" [ ! -e /dev/uid ]
err=$($U 2>&1)
is "the CLI then fails" "$?" 1
like "with ENOENT" "$err" "^uidgen: /dev/uid: No such file or directory"
like "and says to load the module" "$err" \
	"^uidgen: the uidgen module is not loaded: as root, 'modprobe uidgen', then 'uidgen set-node N --new' for a node ID that has never issued an ID, else 'uidgen state restore FILE'"
like "and stats says so too" "$($U stats 2>&1)" "^uidgen: the uidgen module is not loaded: "

# Load, mint, unload, 20 times over.
i=0; bad=0
while [ $i -lt 20 ]; do
	insmod $KO || bad=$((bad + 1))
	assign $((i % 32)) || bad=$((bad + 1))
	[ "$($U -n 100 | sort -u | wc -l)" = 100 ] || bad=$((bad + 1))
	rmmod uidgen || bad=$((bad + 1))
	i=$((i + 1))
done
is "20 load/mint/unload cycles" "$bad" 0

done_testing
