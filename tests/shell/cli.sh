#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The uidgen CLI against the real device. Run as root in the repository
# with the module loaded with node_id=$UIDGEN_NODE.
. tests/shell/lib.sh
U=userlib/uidgen
node=${UIDGEN_NODE:?set UIDGEN_NODE}

out=$($U -n 5)
is "-n 5 prints 5 lines" "$(printf '%s\n' "$out" | wc -l)" 5
is "the 5 IDs are distinct" "$(printf '%s\n' "$out" | sort -u | wc -l)" 5
is "IDs are decimal, every one" "$(printf '%s\n' "$out" | grep -Ecx '[0-9]{15,19}')" 5
is "one ID by default" "$($U | wc -l)" 1

for f in dec hex b32; do
	id=$($U -f $f)
	case $f in
	hex) like "hex is 0x and 16 hex digits" "$id" '^0x[0-9a-f]{16}$' ;;
	b32) like "b32 is 13 Crockford digits" "$id" '^[0-7][0-9A-HJKMNP-TV-Z]{12}$' ;;
	dec) like "dec is digits" "$id" '^[0-9]+$' ;;
	esac
	d=$($U decode "$id")
	like "decode $f: node and a time of today" "$d" \
		"^$id time=$(date -u +%Y-%m-%d)T[0-9:.]{12}Z node=$node slot=[0-9]+ seq=[0-9]+\$"
done

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
	"120687119160971264 time=2026-11-30T00:47:31.466Z node=7 slot=1 seq=0"

err=$($U decode nonsense 2>&1); rc=$?
is "decode garbage exits 1" "$rc" 1
like "decode garbage says why" "$err" "nonsense: not a uidgen ID \(Invalid argument\)"
err=$($U decode 9223372036854775808 2>&1); rc=$?
is "decode of a sign-bit number exits 1" "$rc" 1
like "and says why" "$err" "Numerical result out of range"

info=$($U info)
like "info shows the node" "$info" "^node_id: +$node\$"
like "info shows the layout" "$info" \
	"^layout: +timestamp $(cat /sys/module/uidgen/parameters/ts_bits) \| node $(cat /sys/module/uidgen/parameters/node_bits) \| slot"
like "info shows the epoch" "$info" "^epoch: +$(cat /sys/module/uidgen/parameters/epoch_ms) ms"

$U -n abc > /dev/null 2>&1; is "-n abc exits 2" "$?" 2
$U -f oct > /dev/null 2>&1; is "unknown format exits 2" "$?" 2
$U frobnicate > /dev/null 2>&1; is "unknown command exits 2" "$?" 2
is "--help exits 0" "$($U --help > /dev/null; echo $?)" 0
like "--help shows usage" "$($U --help)" "^Usage: uidgen"
err=$($U -d /nonexistent 2>&1); rc=$?
is "missing device exits 1" "$rc" 1
like "and names it" "$err" "/nonexistent: No such file or directory"

is "set-node with the same node" "$($U set-node "$node" 2>&1; echo $?)" 0
err=$($U set-node $((node ^ 1)) 2>&1); rc=$?
is "set-node with another node exits 1" "$rc" 1
like "and says it is assigned" "$err" "already assigned"
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups $U set-node "$node" 2>&1); rc=$?
is "set-node as nobody exits 1" "$rc" 1
like "with EPERM" "$err" "Operation not permitted"
is "nobody can read IDs" "$(setpriv --reuid=65534 --regid=65534 --clear-groups $U -n 3 | wc -l)" 3

done_testing
