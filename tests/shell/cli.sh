#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The uidgen CLI against the real device. Run as root in the repository
# with the module loaded and node ID $UIDGEN_NODE assigned.
. tests/shell/lib.sh
U=${UIDGEN_CLI:-userlib/uidgen}
node=${UIDGEN_NODE:?set UIDGEN_NODE}

out=$($U -n 5)
is "-n 5 prints 5 lines" "$(printf '%s\n' "$out" | wc -l)" 5
is "the 5 IDs are distinct" "$(printf '%s\n' "$out" | sort -u | wc -l)" 5
is "IDs are decimal, every one" "$(printf '%s\n' "$out" | grep -Ecx '[0-9]{15,19}')" 5
is "one ID by default" "$($U | wc -l)" 1

UUID_RE='[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'
for f in dec hex b32 uuid ulid; do
	id=$($U -f $f)
	case $f in
	hex) like "hex is 0x and 16 hex digits" "$id" '^0x[0-9a-f]{16}$' ;;
	b32) like "b32 is 13 Crockford digits" "$id" '^[0-7][0-9A-HJKMNP-TV-Z]{12}$' ;;
	dec) like "dec is digits" "$id" '^[0-9]+$' ;;
	uuid) like "uuid is a UUIDv7" "$id" "^$UUID_RE\$" ;;
	ulid) like "ulid is 26 Crockford digits" "$id" '^[0-7][0-9A-HJKMNP-TV-Z]{25}$' ;;
	esac
	d=$($U decode "$id")
	like "decode $f: node, a time of today, the ID, the UUID" "$d" \
		"^$id time=$(date -u +%Y-%m-%d)T[0-9:.]{12}Z node=$node slot=[0-9]+ seq=[0-9]+ id=[0-9]+ uuid=$UUID_RE\$"
done
# An ID, its UUID (as decode prints it) and its ULID decode alike.
id=$($U)
d=$($U decode "$id")
u=${d##*uuid=}
is "decode of its UUID gives the ID's parts and UUID" "$($U decode "$u" | cut -d' ' -f2-)" "${d#* }"
is "-f uuid reads it too" "$($U decode -f uuid "$u" | cut -d' ' -f2-)" "${d#* }"
is "decode of its UUID prints the ID (id=)" "$($U decode "$u" | sed 's/.* id=\([0-9]*\) .*/\1/')" "$id"
err=$($U decode -f uuid "$id" 2>&1); rc=$?
is "decode -f uuid of the ID itself exits 2" "$rc" 2
is "and says what -f uuid reads" "$err" \
	"uidgen: $id: not a UUID (36 or 32 hex digits) or ULID (26 Crockford base32 digits), which -f uuid reads; without -f, decode reads each ID by its form"
is "a known ID's UUID and ULID (default layout)" \
	"$($U -d /nonexistent decode 120772217587765248 01M8NJ2V50E008W40000000000 01A22B21-6CA0-7000-8E10-000000000000 2>/dev/null | cut -d' ' -f2- | sort -u)" \
	"time=2026-11-30T06:25:40.512Z node=7 slot=1 seq=0 id=120772217587765248 uuid=01a22b21-6ca0-7000-8e10-000000000000"
err=$($U -d /nonexistent decode 3f2504e0-4f89-41d3-9a0c-0305e82c3301 2>&1); rc=$?
is "decode of a random (v4) UUID exits 2" "$rc" 2
is "and says it is a version 4 UUID, not one uidgen made" "$(printf '%s\n' "$err" | tail -n 1)" \
	"uidgen: 3f2504e0-4f89-41d3-9a0c-0305e82c3301: a version 4 UUID (its 13th hex digit), and uidgen's are version 7 (8 with UIDGEN_UUID_V8): not one uidgen made; decode what 'uidgen -f uuid' or uidgen_to_uuid() printed"

# One ID in three spellings decodes to one set of parts.
id=$($U)
hex=$(printf '%016x' "$id")
p1=$($U decode "$id" | cut -d' ' -f2-)
p2=$($U decode "0x$hex" | cut -d' ' -f2-)
is "decimal and hex decode alike" "$p2" "$p1"
is "--format=hex for decode" "$($U decode -f hex "$hex" | cut -d' ' -f2-)" "$p1"

# The time in an ID is now, to within a second.
now=$(date +%s)
t=$($U decode "$($U)" | sed 's/.*time=\([^ ]*\).*/\1/')
t=$(date -u -d "$t" +%s)
ok "decoded time is within 2 s of now" between $((t - now)) -2 2

# A known ID (default layout): every field.
is "decode a known ID" "$($U decode 120687119160971264)" \
	"120687119160971264 time=2026-11-30T00:47:31.466Z node=7 slot=1 seq=0 id=120687119160971264 uuid=01a229eb-d68a-7000-8e10-000000000000"

err=$($U decode nonsense 2>&1); rc=$?
is "decode garbage exits 2" "$rc" 2
like "decode garbage says why" "$err" "'nonsense': not an ID: character 1 \('n'\) is not a decimal digit; decode reads "
err=$($U decode 9223372036854775808 2>&1); rc=$?
is "decode of a sign-bit number exits 2" "$rc" 2
like "and says why" "$err" "too large: an ID has 63 bits, at most 9223372036854775807"

info=$($U info)
like "info shows the node" "$info" "^node_id: +$node\$"
like "info shows the layout" "$info" \
	"^layout: +timestamp $(cat /sys/module/uidgen/parameters/ts_bits) \| node $(cat /sys/module/uidgen/parameters/node_bits) \| slot"
like "info shows the epoch" "$info" "^epoch: +$(cat /sys/module/uidgen/parameters/epoch_ms) ms"

# The JS-safe line (issue 29): the device's layout says what --layout
# says of the same parameters, without the device; tests/shell/jssafe.sh
# runs under the JS-safe layout itself.
P=/sys/module/uidgen/parameters
js=$(printf '%s\n' "$info" | grep '^js-safe:')
is "info's js-safe line is --layout's of the loaded parameters" "$js" \
	"$($U -d /nonexistent info --layout "$(cat $P/ts_bits)/$(cat $P/node_bits)/$(cat $P/slot_bits)/$(cat $P/seq_bits)" \
		--tick-us "$(cat $P/tick_us)" --epoch-ms "$(cat $P/epoch_ms)" | grep '^js-safe:')"
like "and it is one of the two lines" "$js" \
	'^js-safe:   (yes, until [-0-9T:.]+Z: every ID made before then is below 2\^53, exact as a JavaScript number|no, IDs made since [-0-9T:.]+Z are 2\^53 or more: send them to JavaScript as strings)$'

$U -n abc > /dev/null 2>&1; is "-n abc exits 2" "$?" 2
$U -f oct > /dev/null 2>&1; is "unknown format exits 2" "$?" 2
$U frobnicate > /dev/null 2>&1; is "unknown command exits 2" "$?" 2
is "--help exits 0" "$($U --help > /dev/null; echo $?)" 0
like "--help shows usage" "$($U --help)" "^Usage: uidgen"
err=$($U -d /nonexistent 2>&1); rc=$?
is "missing device exits 1" "$rc" 1
like "and names it" "$err" "/nonexistent: No such file or directory"
like "and says the module is loaded but that is not its device" "$err" \
	"^uidgen: the uidgen module is loaded, but /nonexistent is not its device: give its device with -d PATH \(default /dev/uid\)\$"
err=$($U -d /dev/null 2>&1); rc=$?
is "-d /dev/null exits 1" "$rc" 1
is "and says it is not a uidgen device" "$err" \
	"uidgen: /dev/null: not a uidgen device (Inappropriate ioctl for device): give the uidgen device with -d PATH (default /dev/uid)"
# Options of another command are refused before anything is done.
issued0=$(cat /sys/class/misc/uid/issued)
err=$($U -n 2 --new 2>&1); rc=$?
is "-n 2 --new exits 2" "$rc" 2
is "and says --new is set-node's" "$err" \
	"uidgen: printing IDs takes no --new (an option of set-node): see 'uidgen --help'"
is "and mints nothing" "$(cat /sys/class/misc/uid/issued)" "$issued0"
for c in "info --floor 5" "stats -n 3" "decode -n 5 123" "--new decode 123" "revoke-node --new"; do
	$U $c > /dev/null 2>&1; is "$c exits 2" "$?" 2
done
like "the node ID is still there" "$($U info)" "^node_id: +$node\$"
err=$($U info extra 2>&1); rc=$?
is "info extra exits 2" "$rc" 2
is "and says info takes no arguments" "$err" "uidgen: info takes no arguments ('extra'): see 'uidgen info --help'"

D=/sys/class/misc/uid
is "set-node with the same node and its floor" \
	"$($U set-node "$node" --floor "$(stat_of high_water_ms)" > /dev/null 2>&1; echo $?)" 0
err=$($U set-node $((node ^ 1)) --new 2>&1); rc=$?
is "set-node with another node exits 1" "$rc" 1
like "and says one is active" "$err" "another node ID is already active"
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups $U set-node "$node" --new 2>&1); rc=$?
is "set-node as nobody exits 1" "$rc" 1
like "with EPERM" "$err" "Operation not permitted"
like "and says to run it as root" "$err" "^uidgen: this needs CAP_SYS_ADMIN: run it as root\$"
is "nobody can read IDs" "$(setpriv --reuid=65534 --regid=65534 --clear-groups $U -n 3 | wc -l)" 3

# --- observe (issue 30), at the default bound (observe_ahead_ms=500) -----------
# ahead MS: an ID of node 3, slot 1, sequence 5 whose time is MS ms after
# this machine's wall clock (ticks of a ms: the default layout's). The
# bound is against the wall clock (the ID clock's anchor), not against the
# lead earlier observes left, so each is reckoned from the wall clock.
set -- $($U info | sed -n 's/^layout: *timestamp [0-9]* | node \([0-9]*\) | slot \([0-9]*\) | sequence \([0-9]*\) bits$/\1 \2 \3/p')
nb=$1 sb=$2 qb=$3
epoch=$($U info | sed -n 's/^epoch: *\([0-9]*\) ms.*/\1/p')
like "observe: the layout's tick is a ms (what ahead counts in)" "$($U info)" "tick: +1000 us"
ahead() { echo $(( ($(date +%s%3N) - epoch + $1) << (nb + sb + qb) | 3 << (sb + qb) | 1 << qb | 5 )); }
moved=$(cat $D/observe_moved); refused=$(cat $D/observe_refused)
is "observe_ahead_ms is the default, 500" "$(cat /sys/module/uidgen/parameters/observe_ahead_ms)" 500
# An ID from a tick already past moves nothing (and is no error).
old=$($U)
sleep 0.01
is "observe of an ID already minted: exit 0, nothing printed" "$($U observe "$old" 2>&1; echo $?)" 0
is "which moved nothing (observe_moved as it was)" "$(cat $D/observe_moved)" "$moved"
# Refused: 10 s ahead, over the 500 ms: exit 1, counted, the clock not
# moved (the next ID, minted at once, below it), how far ahead and what to
# do said. (10 s, not just over the bound: a busy host can stop this
# guest for seconds between two commands.)
far=$(ahead 10000)
err=$($U observe "$far" 2>&1); rc=$?
next=$($U)
is "observe of an ID 10 s ahead: exit 1" "$rc" 1
is "observe 10 s ahead: the errno first" "$(printf '%s\n' "$err" | head -n 1)" \
	"uidgen: observe: Numerical argument out of domain"
like "observe 10 s ahead: says how far, and what to check" "$(printf '%s\n' "$err" | tail -n +2)" \
	"^uidgen: ID $far is more than observe_ahead_ms \\(500 ms\\) ahead of this machine's clock \\(its time, [-0-9T:.]+Z, is [0-9]+ ms after this machine's\\): refused and counted \\(observe_refused in /sys/class/misc/uid/\\), nothing changed; check both machines' clocks \\(timedatectl, chronyc tracking\\), or load the module with a larger observe_ahead_ms if their offset is known to be larger\$"
# How far: 10000 ms less the time from 'ahead' to the message (a process
# or two under TCG).
ms=$(printf '%s\n' "$err" | sed -n 's/.* is \([0-9]*\) ms after this machine.s.*/\1/p')
ok "observe 10 s ahead: it says $ms ms ahead (10000 less the time since)" between "${ms:-0}" 5000 10000
is "observe 10 s ahead: counted (observe_refused + 1)" "$(cat $D/observe_refused)" $((refused + 1))
is "observe 10 s ahead: moved nothing (observe_moved as it was)" "$(cat $D/observe_moved)" "$moved"
ok "observe 10 s ahead: the next ID ($next) is still below it ($far)" test "$next" -lt "$far"
like "stats shows observe_refused" "$($U stats)" "^observe_refused +$((refused + 1))\$"
like "stats shows observe_moved" "$($U stats)" "^observe_moved +$moved\$"
# observe needs no privilege beyond the open device: nobody may, as it may
# read IDs.
is "observe as nobody: exit 0" \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups $U observe "$($U)" 2>&1; echo $?)" 0
# A UUID that is well formed but maps to no ID of this layout.
err=$($U observe 01a22b21-6ca0-7001-8e10-000000000000 2>&1); rc=$?
is "observe of a UUIDv7 no ID of this layout has: exit 2" "$rc" 2
like "and says so, with the layout" "$err" "a UUIDv7, but not one uidgen's view maps back under the layout 41/5/5/12"

# --- Hostile input (issue 11) -------------------------------------------------
# Node IDs are decimal: a leading 0 is not octal, 0x is not hex.
for bad in 0x7 " 7" +7 7x "" 4294967296 4294967295; do
	err=$($U set-node "$bad" 2>&1); rc=$?
	is "set-node '$bad' exits 2" "$rc" 2
	like "set-node '$bad' says the node ID must be decimal" "$err" "': not a decimal node ID"
done
$U revoke-node
$U set-node 010 --new > /dev/null 2>&1
like "set-node 010 assigns node 10, not 8 (octal)" "$($U info)" "^node_id: +10\$"
$U revoke-node
$U set-node "$node" --floor "$(stat_of high_water_ms)" > /dev/null 2>&1
like "and the suite's node is back" "$($U info)" "^node_id: +$node\$"
# With no node ID in force, set-node assigns the one typed; with one in
# force, another is refused (EBUSY) and the one in force is left as it was.
err=$($U set-node "$((node ^ 1))" --new 2>&1); rc=$?
is "set-node of another node ID than the one in force exits 1" "$rc" 1
like "and says to revoke first" "$err" "another node ID is already active: revoke it first \('uidgen revoke-node'\)"
like "and the node ID in force is left as it was" "$($U info)" "^node_id: +$node\$"

# The public form (issue 29): -f public --key prints tokens that decode
# --key opens to IDs of this node, in the order they were printed.
k=$(mktemp -u /tmp/cli-keys.XXXXXX)
$U keygen "$k" > /dev/null
toks=$($U -n 5 -f public --key "$k")
is "-f public prints 5 tokens of 13 characters" "$(printf '%s\n' "$toks" | grep -c '^[0-9A-Za-z]\{13\}$')" 5
ids=$($U decode --key "$k" $toks | sed 's/.* id=\([0-9]*\) .*/\1/')
is "decode --key opens them to 5 IDs" "$(printf '%s\n' "$ids" | grep -c '^[0-9]\+$')" 5
is "IDs of this node" "$($U decode --key "$k" $toks | grep -c " node=$node ")" 5
is "in the order they were minted" "$(printf '%s\n' "$ids" | sort -n -c 2>&1 && echo sorted)" sorted
rm -f "$k"

# A node ID held under a fencing token (as uidgen-lease holds it) is the
# token's: revoke-node without one is refused and says who holds it;
# --force revokes it. The assignment is UIDGEN_IOC_ASSIGN made by hand
# (struct uidgen_assign: size, flags, node, reserved, floor, grant,
# deadline, token), with the floor the suite's high water.
assign_token() {	# assign_token NODE FLOOR_MS TOKEN
	/usr/bin/python3 -c '
import fcntl, os, struct, sys
node, floor_ms, token = (int(a) for a in sys.argv[1:4])
req = bytearray(struct.pack("=IIIIQQQQ", 48, 0, node, 0, floor_ms * 1000000, 0, 0, token))
fd = os.open("/dev/uid", os.O_RDONLY)
fcntl.ioctl(fd, 0xB904, req)' "$@"
}
# --force first: the suites before this one may have left a higher token.
$U revoke-node --force
ok "a node ID assigned under token 5" assign_token "$node" "$(stat_of high_water_ms)" 5
err=$($U revoke-node 2>&1); rc=$?
is "revoke-node of a tokened node ID exits 1" "$rc" 1
like "and says who holds it and what to do" "$err" "node ID $node is held under fencing token 5 \(uidgen-lease keeps it\): stop uidgen-lease to give it up, or 'uidgen revoke-node --force'"
like "and the node ID is left in force" "$($U info)" "^node_id: +$node\$"
ok "revoke-node --force revokes it" $U revoke-node --force
like "and nothing is in force" "$($U info)" "^node_id: +unassigned"
# The token is forgotten: a lower one is taken again.
ok "after --force a lower token is taken" assign_token "$node" "$(stat_of high_water_ms)" 2
ok "and revoke-node --force ends it" $U revoke-node --force
$U set-node "$node" --floor "$(stat_of high_water_ms)" > /dev/null 2>&1
like "and the suite's node is back, untokened" "$($U info)" "^node_id: +$node\$"

# decode: a text of digits is decimal at every length a decimal ID has
# (26 and 32 are a ULID's and a UUID's); base32 only when it cannot be
# decimal. Every length 1..19, against the arithmetic
# of the default layout (41/5/5/12, 1 ms tick) and in all three spellings.
b32() {	# b32 ID: 13 Crockford base32 digits
	_s=""; _k=12
	while [ $_k -ge 0 ]; do
		_d=$(( ($1 >> (5 * _k)) & 31 ))
		_s=$_s$(printf '%s' 0123456789ABCDEFGHJKMNPQRSTVWXYZ | cut -c$((_d + 1)))
		_k=$((_k - 1))
	done
	echo "$_s"
}
digits=9223372036854775807
L=1
while [ $L -le 19 ]; do
	id=$(printf '%s' $digits | cut -c1-$L)
	ms=$(( (id >> 22) + 1767225600000 ))
	want="time=$(date -u -d @$((ms / 1000)) +%Y-%m-%dT%H:%M:%S).$(printf %03d $((ms % 1000)))Z node=$(( (id >> 17) & 31 )) slot=$(( (id >> 12) & 31 )) seq=$((id & 4095))"
	got=$($U -d /nonexistent decode "$id" 2>/dev/null | cut -d' ' -f2-5)
	is "decode a $L-digit decimal ID" "$got" "$want"
	got=$($U -d /nonexistent decode "$(printf 0x%016x "$id")" 2>/dev/null | cut -d' ' -f2-5)
	is "its hex spelling decodes alike ($L digits)" "$got" "$want"
	# A base32 text of digits only reads as decimal unless -f b32 says so.
	got=$($U -d /nonexistent decode -f b32 "$(b32 "$id")" 2>/dev/null | cut -d' ' -f2-5)
	is "its b32 spelling decodes alike with -f b32 ($L digits)" "$got" "$want"
	case $(b32 "$id") in
	*[A-Z]*) is "and with auto ($L digits)" \
		"$($U -d /nonexistent decode "$(b32 "$id")" 2>/dev/null | cut -d' ' -f2-5)" "$want" ;;
	esac
	L=$((L + 1))
done
is "decode -f b32 still reads 13 digits as base32" \
	"$($U -d /nonexistent decode -f b32 0000000000001 2>/dev/null | cut -d' ' -f2-5)" \
	"time=2026-01-01T00:00:00.000Z node=0 slot=0 seq=1"

# -n: a count of at least 1, in decimal; nothing else.
for bad in " -1" -1 0 +5 " 5" 5x 18446744073709551616; do
	err=$(timeout 20 $U -n "$bad" 2>&1 > /dev/null); rc=$?
	is "-n '$bad' exits 2" "$rc" 2
	like "-n '$bad' says why" "$err" "-n '.*': (not a count in decimal|must be at least 1|too large)"
done

# A failed write stops minting within a chunk: count what the kernel issued.
issued() { cat /sys/class/misc/uid/issued; }
before=$(issued)
err=$($U -n 3000000 2>&1 > /dev/full); rc=$?
minted=$(( $(issued) - before ))
echo "# -n 3000000 > /dev/full minted $minted IDs"
is "-n 3000000 > /dev/full exits 1" "$rc" 1
is "and says why, as coreutils do" "$err" "uidgen: write error: No space left on device"
ok "and stops after the first chunk ($minted IDs minted)" [ "$minted" -le 2048 ]
before=$(issued)
first=$( (trap '' PIPE; $U -n 3000000 2> /tmp/cli-pipe.err; echo $? > /tmp/cli-pipe.rc) | head -n 1)
minted=$(( $(issued) - before ))
echo "# -n 3000000 | head -1, SIGPIPE ignored, minted $minted IDs"
like "| head -1 gets an ID" "$first" '^[0-9]+$'
is "with SIGPIPE ignored the writer exits 1" "$(cat /tmp/cli-pipe.rc)" 1
is "and says why, as coreutils do" "$(cat /tmp/cli-pipe.err)" "uidgen: write error: Broken pipe"
# The pipe's 64 KiB take about 3 chunks of 1024 IDs before head exits.
ok "and stops within a few chunks ($minted IDs minted)" [ "$minted" -le 8192 ]

# state: checked numbers.
# (state restore: state save takes no --ahead-ms, and now says so.)
err=$($U state restore /tmp/cli.state --ahead-ms 18446744073709551615 2>&1); rc=$?
is "state restore --ahead-ms 2^64-1 exits 2" "$rc" 2
like "and says why" "$err" "--ahead-ms '18446744073709551615': "
# refused WHAT MESSAGE: state restore of /tmp/cli.state exits 1, saying so.
refused() {
	err=$($U state restore /tmp/cli.state 2>&1); rc=$?
	is "state restore of $1 exits 1" "$rc" 1
	like "and names the line, saying why" "$err" "$2"
}
printf 'floor_ms=-1\n' > /tmp/cli.state
refused "floor_ms=-1" "/tmp/cli.state:1: 'floor_ms=-1': not a decimal number"
# Strict: a second line for a key is an error, never "the last one wins"
# (the first, higher floor would be lost), and so are a NUL byte, a CR and
# a file too big to be a state file.
printf 'node_id=1\nfloor_ms=2000000000000\nfloor_ms=1\n' > /tmp/cli.state
refused "two floor_ms= lines" "/tmp/cli.state:3: 'floor_ms=1': a second floor_ms= line\$"
printf 'node_id=1\nnode_id=2\nfloor_ms=1\n' > /tmp/cli.state
refused "two node_id= lines" "/tmp/cli.state:2: 'node_id=2': a second node_id= line\$"
printf 'node_id=1\nfloor_ms=1\0009\n' > /tmp/cli.state
refused "a line with a NUL byte" "/tmp/cli.state:2: 'floor_ms=1': a NUL byte in the line\$"
printf 'node_id=1\r\nfloor_ms=1\r\n' > /tmp/cli.state
refused "DOS line endings" "/tmp/cli.state:1: 'node_id=1': a CR at the end"
{ printf 'node_id=1\nfloor_ms=1\n'; head -c 5000 /dev/zero | tr '\0' '#'; } > /tmp/cli.state
refused "a 5 kB file" "/tmp/cli.state: longer than 4096 bytes: not a state file\$"

# --- The node ID's life (issue 10): floors, grants, the persister -------------
st=/tmp/cli-node.state
rm -f $st $st.tmp
err=$($U set-node "$node" 2>&1); rc=$?
is "set-node without a floor source exits 2" "$rc" 2
like "and says why" "$err" "needs where node ID $node's floor comes from"
like "and what to give" "$err" "--state FILE"
is "set-node --new --floor: one source only" "$($U set-node "$node" --new --floor 1 > /dev/null 2>&1; echo $?)" 2
stats=$($U stats)
like "stats: node active" "$stats" "^node_state +active\$"
like "stats: grant mode off" "$stats" "^grant mode +off: no grant limit"
like "stats: the clock offset" "$stats" "^clock_offset_ms +-?[0-9]+\$"
# A floor 1 s ahead of the ID clock (a predecessor's grant, say; less the
# time set-node takes to start under TCG, up to 0.5 s): stats shows the
# lead, and it heals within the load at 1/16 of real time (16 s for 1 s),
# falling all the way, back to the load's own offset (0 but for the anchor's
# rounding).
offset() { $U stats | sed -n 's/^clock_offset_ms  *//p'; }
was=$(offset)
is "set-node --floor 1 s ahead of the ID clock" \
	"$($U set-node "$node" --floor $(($(cat $D/now_ms) + 1000)) > /dev/null 2>&1; echo $?)" 0
lead=$(offset)
ok "stats: clock_offset_ms is the lead, 500..1001 ms past $was ($lead)" \
	[ $((lead - was)) -ge 500 -a $((lead - was)) -le 1001 ]
prev=$lead rises=0 i=0
while [ $i -lt $(((lead - was) * 16 / 1000 + 2)) ]; do
	sleep 1
	o=$(offset)
	[ "$o" -le $((prev + 1)) ] || rises=$((rises + 1))
	prev=$o i=$((i + 1))
done
is "stats: the lead falls, never rising ($lead .. $prev ms in $i s)" "$rises" 0
ok "stats: clock_offset_ms back to $was +-1 16 times the lead later ($prev)" \
	[ $((prev - was)) -ge -1 -a $((prev - was)) -le 1 ]
like "stats: grant_waits" "$stats" "^grant_waits +[0-9]+\$"
# stats is -d's device's: a node of the same device elsewhere shows the
# same node ID and counters; a file that is not the device is refused.
st_tmp=$(mktemp -d)
mknod "$st_tmp/uid" c "$(stat -c '%t' /dev/uid | xargs -I{} printf '%d' 0x{})" \
	"$(stat -c '%T' /dev/uid | xargs -I{} printf '%d' 0x{})"
like "stats -d a node of the device elsewhere: its node ID" "$($U stats -d "$st_tmp/uid")" "^node_id +$node\$"
is "stats -d /dev/null: refused, exit 1" "$($U stats -d /dev/null > /dev/null 2>&1; echo $?)" 1
like "stats -d /dev/null: not a uidgen device" "$($U stats -d /dev/null 2>&1)" "/dev/null: not a uidgen device"
rm -rf "$st_tmp"

# A clean stop: the fence first, then the exact high water.
$U -n 1000 > /dev/null
out=$($U state save $st); rc=$?
is "state save exits 0" "$rc" 0
like "state save revokes the node ID" "$($U info)" "^node_id: +unassigned"
is "and saves the exact high water as the floor" "$(sed -n 's/^floor_ms=//p' $st)" "$(stat_of high_water_ms)"
is "with the node ID" "$(sed -n 's/^node_id=//p' $st)" "$node"
floor=$(sed -n 's/^floor_ms=//p' $st)
like "save says so" "$out" "^node ID $node revoked; saved node_id=$node floor_ms=$floor to $st\$"
is "save with no node active leaves the file" "$($U state save $st; sed -n 's/^floor_ms=//p' $st)" \
	"no node ID active: $st left as it is
$floor"

# No node ID (as after a load): nothing is issued, with one errno.
err=$($U 2>&1); rc=$?
is "no node ID issues nothing" "$rc" 1
like "the read fails with EADDRNOTAVAIL" "$err" "Cannot assign requested address"
like "and the CLI says what to run" "$err" "no node ID is active: as root, run 'uidgen state restore FILE', or 'uidgen set-node N --new'"
like "stats: no node" "$($U stats)" "^node_state +none\$"
like "info: unassigned" "$($U info)" "^node_id: +unassigned "
# The state file names its node ID: restore never takes it from elsewhere.
printf 'floor_ms=%s\n' "$floor" > /tmp/cli-other.state
err=$($U state restore /tmp/cli-other.state 2>&1); rc=$?
is "restore of a file with no node_id= exits 1" "$rc" 1
like "and says what is missing" "$err" "has no node_id= line: it does not say which node ID its floor is for"
like "and assigns nothing" "$($U info)" "^node_id: +unassigned "
printf 'node_id=%s\nfloor_ms=%s\n' $((node ^ 1)) "$floor" > /tmp/cli-other.state
$U set-node "$node" --state $st > /dev/null
err=$($U state restore /tmp/cli-other.state 2>&1); rc=$?
is "restore of another node ID's file, one active, exits 1" "$rc" 1
like "and says whose it is" "$err" "is node ID $((node ^ 1))'s state, but node ID $node is active"
err=$($U set-node "$node" --state /tmp/cli-other.state 2>&1); rc=$?
is "set-node N --state of another node ID's file exits 1" "$rc" 1
like "and names both" "$err" "holds the floor of node ID $((node ^ 1)), not $node"
$U revoke-node
# The machine's own state file (the units' UIDGEN_STATE) is its record of
# its node ID and floor: set-node never contradicts it silently.
mine=/tmp/cli-mine.state
printf 'node_id=%s\nfloor_ms=%s\n' $((node ^ 1)) "$floor" > $mine
err=$(UIDGEN_STATE=$mine $U set-node "$node" --new 2>&1); rc=$?
is "set-node of another node ID than the machine's state file's exits 1" "$rc" 1
is "and says whose the file is and what to run" "$err" \
	"uidgen: this machine's state file $mine holds node ID $((node ^ 1)), not $node: if $((node ^ 1)) is this machine's node ID, run 'uidgen state restore $mine'; if not, move the file away first (it is node ID $((node ^ 1))'s history)"
like "and assigns nothing" "$($U info)" "^node_id: +unassigned "
printf 'node_id=%s\nfloor_ms=%s\n' "$node" "$floor" > $mine
err=$(UIDGEN_STATE=$mine $U set-node "$node" --new 2>&1); rc=$?
is "set-node N --new when the state file holds N's floor exits 1" "$rc" 1
like "and says it has issued" "$err" "holds node ID $node's floor, $floor ms: it has issued IDs, and --new could repeat them"
err=$(UIDGEN_STATE=$mine $U set-node "$node" --floor $((floor - 1)) 2>&1); rc=$?
is "set-node N --floor below the file's exits 1" "$rc" 1
like "and says so" "$err" "and a lower floor could repeat them"
like "still nothing assigned" "$($U info)" "^node_id: +unassigned "
ok "set-node N --floor at the file's floor is fine" \
	sh -c "UIDGEN_STATE=$mine $U set-node $node --floor $floor > /dev/null"
$U revoke-node
rm -f $mine

# A state file whose floor is two days ahead (a clock or a file that is
# wrong) is refused (EDOM), says what to do, and is left as it was: a
# retry once the clock is right finds the same floor, not one further on.
far=$(( $(date +%s%3N) + 2 * 86400000 ))
printf 'node_id=%s\nfloor_ms=%s\n' "$node" "$far" > /tmp/cli-far.state
err=$($U state restore /tmp/cli-far.state --ahead-ms 20000 2>&1); rc=$?
is "restore of a floor two days ahead exits 1" "$rc" 1
like "and says what to do" "$err" "the floor is more than 24 hours ahead of this machine's clock: check the clock"
is "and leaves the file as it was" "$(sed -n 's/^floor_ms=//p' /tmp/cli-far.state)" "$far"
like "and assigns nothing" "$($U info)" "^node_id: +unassigned "
rm -f /tmp/cli-far.state

# Restore: persist a grant mark ahead, then node + floor + grant at once.
# 20 s ahead: room for a slow VM to get through the checks below before
# the grant is reached.
out=$($U state restore $st --ahead-ms 20000); rc=$?
is "state restore assigns the file's node ID" "$rc" 0
grant=$(sed -n 's/^floor_ms=//p' $st)
like "with the file's floor and a grant" "$out" "^node ID $node active, floor $floor ms, grant $grant ms\$"
ok "the grant was persisted as the next floor first ($grant > $floor)" [ "$grant" -gt "$floor" ]
stats=$($U stats)
like "stats: the floor" "$stats" "^floor_ms +$floor \\("
# The kernel shows the end of the tick the grant is in (1 ms ticks here).
like "stats: the grant" "$stats" "^grant_ms +$((grant + 1)) \\("
like "stats: grant mode on" "$stats" "^grant mode +on: no tick after grant_ms"
id=$(timeout 10 $U)
ok "IDs start above the floor" [ $(( (id >> 22) + 1767225600000 )) -gt "$floor" ]

# No persister: at the grant, callers wait (never issue past it).
w0=$(cat $D/grant_waits)
i=0
until [ "$(cat $D/now_ms)" -gt $((grant + 1)) ] || [ $i -ge 300 ]; do
	sleep 0.2; i=$((i + 1))
done
timeout 2 $U > /dev/null 2>&1; rc=$?
is "at the grant with no persister, a reader waits" "$rc" 124
ok "grant_waits counts it" [ "$(cat $D/grant_waits)" -gt "$w0" ]

# The persister: persist, then raise the grant; a waiting reader goes on.
$U state keep $st --ahead-ms 3000 --every-ms 500 > /tmp/cli-keep.log 2>&1 &
keep=$!
is "with 'state keep' running, reads go on" "$(timeout 10 $U -n 3 | wc -l)" 3
bad=0; i=0
while [ $i -lt 20 ]; do
	g=$($U stats | sed -n 's/^grant_ms *\([0-9]*\).*/\1/p')
	f=$(sed -n 's/^floor_ms=//p' $st)
	[ "$g" -le $((f + 1)) ] || bad=$((bad + 1))
	sleep 0.1; i=$((i + 1))
done
is "the kernel's grant never passes the persisted floor (20 looks)" "$bad" 0
ok "the grant moves on with the clock" [ "$(sed -n 's/^floor_ms=//p' $st)" -gt "$grant" ]
kill -TERM $keep; wait $keep; rc=$?
is "state keep exits 0 on SIGTERM" "$rc" 0
like "and says so" "$(cat /tmp/cli-keep.log)" "^stopped; "
like "it said grant mode is on" "$(cat /tmp/cli-keep.log)" "^node ID $node: grant mode on"

# A persister that cannot persist never raises the grant.
g0=$($U stats | sed -n 's/^grant_ms *\([0-9]*\).*/\1/p')
$U state keep /proc/cli.state --ahead-ms 3000 --every-ms 500 > /tmp/cli-keep2.log 2>&1 &
keep=$!
sleep 1.5
kill -TERM $keep 2>/dev/null; wait $keep
# It cannot even make its lock beside the file there: it stops at once.
like "keep says it cannot persist there" "$(cat /tmp/cli-keep2.log)" \
	"(persisting to /proc/cli.state: .*; grant left at $g0 ms|^uidgen: /proc/cli.state: No such file or directory)"
is "and the kernel's grant is where it was" "$($U stats | sed -n 's/^grant_ms *\([0-9]*\).*/\1/p')" "$g0"

# set-node --state: the floor from the file, in one call.
$U state save $st > /dev/null
floor=$(sed -n 's/^floor_ms=//p' $st)
like "set-node --state FILE" "$($U set-node "$node" --state $st)" "^node ID $node active, floor $floor ms\$"
like "stats: no grant (grant mode off) after a revoke and a new assign" "$($U stats)" "^grant_ms +0 \\(none\\)"
err=$($U set-node $((node ^ 1)) --state $st 2>&1); rc=$?
is "set-node --state with another node's file exits 1" "$rc" 1
like "and says whose" "$err" "holds the floor of node ID $node, not $((node ^ 1))"
rm -f $st
$U revoke-node
err=$($U state restore $st 2>&1); rc=$?
is "restore with no file and no node exits 1" "$rc" 1
like "and says what a first start needs" "$err" "set-node N --new"
$U set-node "$node" --floor "$(stat_of high_water_ms)" > /dev/null
err=$($U state restore $st --ahead-ms 0 2>&1); rc=$?
is "restore with --ahead-ms 0 is refused (no grant: a crash could repeat)" "$rc" 2
like "and says why" "$err" "needs --ahead-ms above 0"
like "restore with no file, node active: starts the file" "$($U state restore $st --ahead-ms 5000)" \
	"^no $st yet; node ID $node is active: started it, grant [0-9]+ ms\$"
like "which holds the grant mark" "$(cat $st)" "floor_ms=[0-9]{13}"
# Two keepers of one file: the second is refused. The second starts once
# the first has said it keeps the file (its first round), never on a
# guess of how long that takes: had it taken the lock first, it would keep
# until killed (the timeout) and the first be the one refused.
$U state keep $st --ahead-ms 5000 --every-ms 1000 > /tmp/cli-keep3.log 2>&1 &
k1=$!
i=0
until grep -q "grant mode on" /tmp/cli-keep3.log || [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
like "the first 'state keep' keeps the file" "$(cat /tmp/cli-keep3.log)" "^node ID $node: grant mode on"
err=$(timeout 20 $U state keep $st --ahead-ms 5000 --every-ms 1000 2>&1); rc=$?
kill $k1; wait $k1 2>/dev/null
is "a second 'state keep' of the same file exits 1" "$rc" 1
like "and says another keeps it" "$err" "another 'state keep' is already keeping it"

# --- observe (issue 30): every spelling moves the clock ---------------------
# The module again, with observe_ahead_ms=60000 (what this node ID issued
# kept below by its high water as the floor), so that an ID seconds ahead is
# observed however long a process takes to start here: each spelling
# decode reads, of an ID 10 s and 5 s more for each ahead of the wall
# clock, moves the ID clock (observe_moved + 1 each), and the next ID this
# machine mints (a new process: the CLI) is greater than it. (5 s more
# each: the ID clock, once moved, runs on at 15/16 of real time, and a
# busy host can make a few processes here take seconds.)
b32() {	# b32 ID: its 13 Crockford base32 digits (the shell's own, no process)
	_v=$1; _o=
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
		_r=0123456789ABCDEFGHJKMNPQRSTVWXYZ; _k=$((_v & 31))
		while [ "$_k" -gt 0 ]; do _r=${_r#?}; _k=$((_k - 1)); done
		_o=${_r%"${_r#?}"}$_o
		_v=$((_v >> 5))
	done
	printf '%s\n' "$_o"
}
hw=$(stat_of high_water_ms)
$U revoke-node --force > /dev/null 2>&1
rmmod uidgen
insmod "${UIDGEN_KO:-module/uidgen.ko}" observe_ahead_ms=60000
$U set-node "$node" --floor "$hw" > /dev/null
is "reloaded with observe_ahead_ms=60000" "$(cat /sys/module/uidgen/parameters/observe_ahead_ms)" 60000
moved=$(cat $D/observe_moved); refused=$(cat $D/observe_refused)
n=0
for form in dec hex b32 uuid ulid hex-f b32-f; do
	id=$(ahead $((10000 + n * 5000)))
	case $form in
	dec) text=$id ;;
	hex) text=$(printf '0x%x' "$id") ;;
	hex-f) text="-f hex $(printf '%x' "$id")" ;;
	b32) text=$(b32 "$id"); case $text in 0[Xx]*) text="-f b32 $text" ;; esac ;;
	b32-f) text="-f b32 $(b32 "$id")" ;;
	uuid) text=$($U decode "$id" | sed 's/.* uuid=//') ;;
	ulid) text=$(echo "$id" | tests/lib/idref | cut -d' ' -f9) ;;
	esac
	n=$((n + 1))
	out=$($U observe $text 2>&1); rc=$?
	is "observe $form ($text), $((5 + 5 * n)) s ahead: exit 0, nothing printed" "$out$rc" 0
	is "observe $form: moved the clock (observe_moved + $n)" "$(cat $D/observe_moved)" $((moved + n))
	next=$($U)
	ok "observe $form: the next ID ($next) is greater than the one observed ($id)" test "$next" -gt "$id"
done
is "observe: none refused" "$(cat $D/observe_refused)" "$refused"
lead=$(cat $D/clock_offset_ms)
ok "observe: the ID clock leads the wall clock by about the last ID's 40 s ($lead ms), and no more than the bound" \
	between "$lead" 30000 60001
like "stats shows observe_moved" "$($U stats)" "^observe_moved +$((moved + n))\$"
# An ID as far ahead as observe_ahead_ms and more: refused.
err=$($U observe "$(ahead 120000)" 2>&1); rc=$?
is "observe 120 s ahead, over observe_ahead_ms=60000: exit 1" "$rc" 1
like "and says the bound" "$err" "more than observe_ahead_ms \\(60000 ms\\) ahead of this machine's clock"
is "observe 120 s ahead: counted" "$(cat $D/observe_refused)" $((refused + 1))
is "observe 120 s ahead: moved nothing" "$(cat $D/observe_moved)" $((moved + n))
# Leave the module as this suite found it: the default bound, the node ID
# with its floor.
hw=$(stat_of high_water_ms)
$U revoke-node --force > /dev/null 2>&1
rmmod uidgen
insmod "${UIDGEN_KO:-module/uidgen.ko}"
$U set-node "$node" --floor "$hw" > /dev/null

done_testing
