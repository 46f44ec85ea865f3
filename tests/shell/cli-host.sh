#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The uidgen CLI where no device is needed (make check's host suite
# cli-host; tests/shell/cli.sh is the suite against the device): each
# subcommand's own options, help, usage errors, decode, a file that is not
# the device, and what it says with no module loaded. Exact messages and
# exit statuses. Run in the repository, after make userlib.
. tests/shell/lib.sh
U=${UIDGEN_CLI:-userlib/uidgen}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"

# fails DESC RC MESSAGE ARGS...: 'uidgen ARGS' exits RC and the last line
# it writes to standard error is MESSAGE.
fails() {
	_d=$1; _rc=$2; _m=$3; shift 3
	_e=$($U "$@" 2>&1 > /dev/null); _r=$?
	is "$_d: exits $_rc" "$_r" "$_rc"
	is "$_d: says so" "$(printf '%s\n' "$_e" | tail -n 1)" "$_m"
}

# --- Each subcommand has its own options (issues 18, 19.2) -------------------
fails "--new before decode" 2 \
	"uidgen: decode takes no --new (an option of set-node): see 'uidgen decode --help'" \
	--new decode 123
fails "decode -n" 2 \
	"uidgen: decode takes no -n (an option of printing IDs): see 'uidgen decode --help'" \
	decode -n 5 123
fails "-n 2 --new" 2 \
	"uidgen: printing IDs takes no --new (an option of set-node): see 'uidgen --help'" \
	-n 2 --new
fails "info --floor" 2 \
	"uidgen: info takes no --floor (an option of set-node): see 'uidgen info --help'" \
	info --floor 5
fails "stats -n" 2 \
	"uidgen: stats takes no -n (an option of printing IDs): see 'uidgen stats --help'" \
	stats -n 3
fails "info -f" 2 \
	"uidgen: info takes no -f (an option of printing IDs, decode and observe): see 'uidgen info --help'" \
	info -f hex
fails "revoke-node --state" 2 \
	"uidgen: revoke-node takes no --state (an option of set-node): see 'uidgen revoke-node --help'" \
	revoke-node --state "$tmp/st"
fails "set-node --ahead-ms" 2 \
	"uidgen: set-node takes no --ahead-ms (an option of state restore and state keep): see 'uidgen set-node --help'" \
	set-node 7 --new --ahead-ms 5
fails "state save --ahead-ms" 2 \
	"uidgen: state save takes no --ahead-ms (an option of state restore and state keep): see 'uidgen state save --help'" \
	state save "$tmp/st" --ahead-ms 5
fails "state restore --every-ms" 2 \
	"uidgen: state restore takes no --every-ms (an option of state keep): see 'uidgen state restore --help'" \
	state restore "$tmp/st" --every-ms 5
fails "an option no command has" 2 \
	"uidgen: decode takes no --bogus (no command does): see 'uidgen decode --help'" \
	decode --bogus 1
fails "an unknown short option" 2 \
	"uidgen: printing IDs takes no -z (no command does): see 'uidgen --help'" \
	-z
fails "a value for an option that takes none" 2 \
	"uidgen: set-node: --new takes no value: see 'uidgen set-node --help'" \
	set-node 7 --new=1
fails "decode -f with no value" 2 \
	"uidgen: decode: -f needs a value: see 'uidgen decode --help'" \
	decode 1 -f
fails "-n with no value" 2 "uidgen: -n needs a value: see 'uidgen --help'" -n
fails "-f oct" 2 "uidgen: -f 'oct': unknown format: give dec, hex, b32, uuid or ulid" -f oct
# --- An option given twice is refused, saying which (19 review) ------------
fails "-n 5 -n 6" 2 \
	"uidgen: -n (--count) given twice ('5', then '6'): give it once: see 'uidgen --help'" \
	-n 5 -n 6
fails "--count 5 -n 6: the same option" 2 \
	"uidgen: -n (--count) given twice ('5', then '6'): give it once: see 'uidgen --help'" \
	--count 5 -n 6
fails "decode -f hex -f dec" 2 \
	"uidgen: decode: -f (--format) given twice ('hex', then 'dec'): give it once: see 'uidgen decode --help'" \
	decode -f hex 1 -f dec
fails "-d twice" 2 \
	"uidgen: info: -d (--device) given twice ('$tmp/a', then '$tmp/b'): give it once: see 'uidgen info --help'" \
	-d "$tmp/a" info -d "$tmp/b"
fails "set-node --new --new" 2 \
	"uidgen: set-node: --new given twice: give it once: see 'uidgen set-node --help'" \
	set-node 7 --new --new
fails "set-node --floor twice" 2 \
	"uidgen: set-node: --floor given twice ('1', then '2'): give it once: see 'uidgen set-node --help'" \
	set-node 7 --floor 1 --floor 2
# (timeout: a state keep that took it would wait for the device)
U0=$U; U="timeout 5 $U"
fails "state keep --every-ms twice" 2 \
	"uidgen: state keep: --every-ms given twice ('5', then '6'): give it once: see 'uidgen state keep --help'" \
	state keep "$tmp/st" --every-ms 5 --every-ms 6
U=$U0
fails "state restore --ahead-ms twice (the first one bad too)" 2 \
	"uidgen: state restore: --ahead-ms given twice ('0', then '5'): give it once: see 'uidgen state restore --help'" \
	state restore "$tmp/st" --ahead-ms 0 --ahead-ms=5

fails "decode -f oct" 2 \
	"uidgen: -f 'oct': unknown format: give auto, dec, hex, b32, uuid or ulid" decode -f oct 1
# -d, -h and -V are every command's, before or after it.
is "-d before decode" "$($U -d "$tmp/none" decode 123 2>/dev/null | cut -d' ' -f1-5)" \
	"123 time=2026-01-01T00:00:00.000Z node=0 slot=0 seq=123"
is "-d after decode" "$($U decode 123 --device "$tmp/none" 2>/dev/null | cut -d' ' -f1-5)" \
	"123 time=2026-01-01T00:00:00.000Z node=0 slot=0 seq=123"
is "-V with a command" "$($U info -V)" "$($U --version)"
like "--version" "$($U --version)" '^uidgen [0-9]+\.[0-9]+'

# An abbreviation means the same before and after the command: --f is
# --format for decode and printing IDs (--floor's too, for set-node), and
# its value is never taken for the command word.
D1=01a22b21-6ca0-7000-8e10-000000000000
is "--f before decode: its value is no command word" \
	"$($U --f uuid decode $D1 2>&1 | tail -n 1)" "$($U decode --f uuid $D1 2>&1 | tail -n 1)"
is "--f before decode: as after it, exit 0" "$($U --f uuid decode $D1 > /dev/null 2>&1; echo $?)" 0
is "--fo before and after -n: the same" \
	"$($U --fo hex -d "$tmp/none" -n 1 2>&1; echo $?)" "$($U -n 1 -d "$tmp/none" --fo hex 2>&1; echo $?)"
fails "--fl before set-node is --floor" 2 \
	"uidgen: --floor 'x': not a Unix time in ms, in decimal" --fl x set-node 7
fails "--f for a command with neither --format nor --floor" 2 \
	"uidgen: info takes no --f (short for --format, an option of printing IDs, decode and observe, --floor, an option of set-node, or --force, an option of revoke-node): see 'uidgen info --help'" \
	info --f x
fails "state keep --ahead-ms 0" 2 \
	"uidgen: state keep needs --ahead-ms above 0: the kernel issues nothing past the grant, and a grant of now would stop it at once; leave it out for the default, 60000" \
	state keep "$tmp/st" --ahead-ms 0
fails "state keep --every-ms not below --ahead-ms" 2 \
	"uidgen: state keep needs --every-ms (500) below --ahead-ms (400), so the grant is raised before it runs out" \
	state keep "$tmp/st" --ahead-ms 400 --every-ms 500

# A state file in a directory that does not exist (typed by hand before
# uidgen-state.service made /var/lib/uidgen): which, and what to do.
for c in restore save keep; do
	fails "state $c FILE in a missing directory" 1 \
		"uidgen: $tmp/nodir: no such directory for the state file $tmp/nodir/st: create it (mkdir -p $tmp/nodir; uidgen-state.service's StateDirectory= makes /var/lib/uidgen)" \
		state $c "$tmp/nodir/st"
done

# --- help (19.6, 19.8) ---------------------------------------------------------
is "uidgen help exits 0" "$($U help > /dev/null; echo $?)" 0
is "uidgen help is uidgen --help" "$($U help)" "$($U --help)"
is "--help's first line" "$($U --help | head -n 1)" \
	"Usage: uidgen [-d DEVICE] [-n COUNT] [-f dec|hex|b32|uuid|ulid|public] [--key F]"
like "--help names 'uidgen help COMMAND'" "$($U --help)" "uidgen help COMMAND"
for c in decode observe info set-node revoke-node stats "state restore" "state keep" "state save" help; do
	# $c unquoted: "state restore" is two words.
	h=$($U $c --help); rc=$?
	is "$c --help exits 0" "$rc" 0
	like "$c --help: its usage" "$(printf '%s\n' "$h" | head -n 1)" "^Usage: uidgen (\[-d DEVICE\] )?$c( |\$)"
	is "uidgen help $c is $c --help" "$($U help $c)" "$h"
done
h=$($U help state)
like "help state: restore" "$h" "^Usage: uidgen \[-d DEVICE\] state restore FILE \[--ahead-ms MS\]\$"
like "help state: keep" "$h" "^ +uidgen \[-d DEVICE\] state keep FILE \[--ahead-ms MS\] \[--every-ms MS\]\$"
like "help state: save" "$h" "^ +uidgen \[-d DEVICE\] state save FILE\$"
is "state --help is help state" "$($U state --help)" "$h"
# Every help text, of every command: no line over 80 columns.
for c in "" help decode observe info set-node revoke-node stats state "state restore" \
	"state keep" "state save"; do
	long=$($U $c --help | awk 'length > 80 { print length ": " $0 }')
	is "uidgen${c:+ $c} --help: no line over 80 columns" "$long" ""
done
like "decode --help: -f auto" "$($U decode --help)" "^  -f, --format FMT +how to read the IDs: auto \(default"
like "set-node --help: --new" "$($U set-node --help)" "^  --new +"
fails "help of an unknown command" 2 \
	"uidgen: help: unknown command 'bogus': the commands are decode, observe, info, set-node, revoke-node, stats, state, keygen and help; see 'uidgen --help'" \
	help bogus
fails "help of an unknown state command" 2 \
	"uidgen: help: unknown command 'state bogus': state save, state restore or state keep; see 'uidgen help state'" \
	help state bogus
fails "help of two commands" 2 \
	"uidgen: help takes one command ('stats' is one too many): see 'uidgen --help'" \
	help info stats
# state restore refuses --ahead-ms 0, and its help says so (no "0: no grant limit").
for h in "$($U --help)" "$($U state restore --help)" "$($U state keep --help)"; do
	is "help says nothing of '0: no grant limit'" "$(printf '%s\n' "$h" | grep -c 'no grant limit')" 0
done
like "state restore --help: 0 is refused" "$($U state restore --help)" \
	"^  --ahead-ms MS +.*\(default 60000, 1 to 3600000; 0 is refused"
fails "state restore --ahead-ms 0" 2 \
	"uidgen: state restore needs --ahead-ms above 0: with no grant the kernel would issue past what $tmp/st holds, and a crash could repeat IDs; leave it out for the default, 60000" \
	state restore "$tmp/st" --ahead-ms 0

fails "state restore --ahead-ms 2^64-1" 2 \
	"uidgen: --ahead-ms '18446744073709551615': too large, at most 3600000" \
	state restore "$tmp/st" --ahead-ms 18446744073709551615

# --- Usage errors name the next step (19.8) --------------------------------
fails "unknown command" 2 \
	"uidgen: unknown command 'frobnicate': the commands are decode, observe, info, set-node, revoke-node, stats, state, keygen and help; see 'uidgen --help'" \
	frobnicate
for c in info stats revoke-node; do
	fails "$c extra" 2 "uidgen: $c takes no arguments ('extra'): see 'uidgen $c --help'" $c extra
done
fails "state alone" 2 "uidgen: state needs save, restore or keep, then FILE: see 'uidgen help state'" state
fails "state frob" 2 \
	"uidgen: state: unknown command 'frob': state save, state restore or state keep; see 'uidgen help state'" \
	state frob "$tmp/st"
fails "state restore with no FILE" 2 \
	"uidgen: state restore needs FILE, the state file: see 'uidgen state restore --help'" \
	state restore
for c in save restore keep; do
	fails "state $c with an empty FILE" 2 \
		"uidgen: state $c: FILE is empty: name the state file (the units use /var/lib/uidgen/state): see 'uidgen state $c --help'" \
		state $c ''
done
fails "state keep with two FILEs" 2 \
	"uidgen: state keep takes one FILE ('b' is one too many): see 'uidgen state keep --help'" \
	state keep a b
fails "set-node with no node ID" 2 \
	"uidgen: set-node needs exactly one node ID: see 'uidgen set-node --help'" set-node --new
fails "decode with no ID" 2 "uidgen: decode needs at least one ID: see 'uidgen decode --help'" decode

# --- decode (19.7, 19.8) -----------------------------------------------------
D="$U -d $tmp/none decode"
is "decode of a UUID prints the ID" "$($D 01A22B21-6CA0-7000-8E10-000000000000 2>/dev/null)" \
	"01A22B21-6CA0-7000-8E10-000000000000 time=2026-11-30T06:25:40.512Z node=7 slot=1 seq=0 id=120772217587765248 uuid=01a22b21-6ca0-7000-8e10-000000000000"
is "decode of a ULID prints the ID" "$($D 01M8NJ2V50E008W40000000000 2>/dev/null)" \
	"01M8NJ2V50E008W40000000000 time=2026-11-30T06:25:40.512Z node=7 slot=1 seq=0 id=120772217587765248 uuid=01a22b21-6ca0-7000-8e10-000000000000"
is "decode of a hex ID prints it in decimal" "$($D 0x01ad11b1280e1000 2>/dev/null | sed 's/.* id=\([0-9]*\) .*/\1/')" \
	"120772217587765248"
id=$($D 01a22b21-6ca0-7000-8e10-000000000000 2>/dev/null | sed 's/.* id=\([0-9]*\) .*/\1/')
is "the ID it prints decodes to the same UUID" "$($D "$id" 2>/dev/null | sed 's/.* uuid=//')" \
	"01a22b21-6ca0-7000-8e10-000000000000"
# Each text decode cannot read: what is wrong with it, what it reads;
# exit status 2, as for any argument that is not what a command reads.
READS="decode reads a decimal ID (digits only, at most 9223372036854775807), 0x and up to 16 hex digits, 13 Crockford base32 digits, a UUID (36 or 32 hex digits) or a ULID (26 base32 digits)"
fails "decode abc" 2 "uidgen: 'abc': not an ID: character 1 ('a') is not a decimal digit; $READS" decode abc
fails "decode 0x" 2 "uidgen: '0x': not an ID: 0x and no hex digit after it; $READS" decode 0x
fails "decode ' 123'" 2 "uidgen: ' 123': not an ID: character 1 is a blank; $READS" decode ' 123'
fails "decode 1_000" 2 "uidgen: '1_000': not an ID: character 2 ('_') is not a decimal digit; $READS" decode 1_000
fails "decode of 17 hex digits" 2 "uidgen: '0x123456789abcdef01': not an ID: too large: an ID has 63 bits, at most 9223372036854775807 (0x7fffffffffffffff); $READS" decode 0x123456789abcdef01
fails "decode of 33 hex digits" 2 \
	"uidgen: '0123456789abcdef0123456789abcdef0': not an ID: character 11 ('a') is not a decimal digit; $READS" \
	decode 0123456789abcdef0123456789abcdef0
fails "decode of 2^64" 2 \
	"uidgen: '18446744073709551616': not an ID: too large: an ID has 63 bits, at most 9223372036854775807 (0x7fffffffffffffff); $READS" \
	decode 18446744073709551616
fails "decode of 2^63" 2 \
	"uidgen: '9223372036854775808': not an ID: too large: an ID has 63 bits, at most 9223372036854775807 (0x7fffffffffffffff); $READS" \
	decode 9223372036854775808
fails "decode of a ULID not from uidgen" 2 \
	"uidgen: 7ZZZZZZZZZZZZZZZZZZZZZZZZZ: a ULID, but not one uidgen made: as a UUID its version (the 13th hex digit) is 15, and uidgen's are 7 (8 with UIDGEN_UUID_V8); decode what 'uidgen -f ulid' or uidgen_to_uuid() printed" \
	decode 7ZZZZZZZZZZZZZZZZZZZZZZZZZ
fails "decode -f hex zz" 2 \
	"uidgen: zz: not a hex ID (up to 16 hex digits, 0x optional), which -f hex reads; without -f, decode reads each ID by its form" \
	decode -f hex zz
fails "-d ''" 2 "uidgen: -d: the device path is empty: give the uidgen device with -d PATH (default /dev/uid)" -d '' info
fails "set-node abc --new" 2 "uidgen: 'abc': not a decimal node ID (0 to the module's largest, see 'uidgen info')" set-node abc --new
fails "set-node 5 --new --floor 3" 2 \
	"uidgen: set-node: --new and --floor given together: give exactly one of --new, --floor MS and --state FILE, where node ID 5's floor comes from" \
	set-node 5 --new --floor 3
fails "set-node 5 --floor 3 --state F" 2 \
	"uidgen: set-node: --floor and --state given together: give exactly one of --new, --floor MS and --state FILE, where node ID 5's floor comes from" \
	set-node 5 --floor 3 --state "$tmp/st"
fails "set-node -1 --new" 2 \
	"uidgen: '-1': node IDs are 0 to the module's largest (2^node_bits - 1, see 'uidgen info'), in decimal; to take the node ID away, 'uidgen revoke-node'" \
	set-node -1 --new
fails "set-node --new -12" 2 \
	"uidgen: '-12': node IDs are 0 to the module's largest (2^node_bits - 1, see 'uidgen info'), in decimal; to take the node ID away, 'uidgen revoke-node'" \
	set-node --new -12
fails "decode -f uuid of a decimal ID" 2 \
	"uidgen: 120687119160971264: not a UUID (36 or 32 hex digits) or ULID (26 Crockford base32 digits), which -f uuid reads; without -f, decode reads each ID by its form" \
	decode -f uuid 120687119160971264
fails "decode -f ulid of a decimal ID" 2 \
	"uidgen: 120687119160971264: not a UUID (36 or 32 hex digits) or ULID (26 Crockford base32 digits), which -f ulid reads; without -f, decode reads each ID by its form" \
	decode -f ulid 120687119160971264
fails "decode -f dec of a hex ID" 2 \
	"uidgen: 0x10: not a decimal ID, which -f dec reads; without -f, decode reads each ID by its form" \
	decode -f dec 0x10
fails "decode -f hex of a ULID" 2 \
	"uidgen: 01M8NJ2V50E008W40000000000: not a hex ID (up to 16 hex digits, 0x optional), which -f hex reads; without -f, decode reads each ID by its form" \
	decode -f hex 01M8NJ2V50E008W40000000000
fails "decode -f b32 of a UUID" 2 \
	"uidgen: 01a22b21-6ca0-7000-8e10-000000000000: not a base32 ID (13 Crockford base32 digits), which -f b32 reads; without -f, decode reads each ID by its form" \
	decode -f b32 01a22b21-6ca0-7000-8e10-000000000000
fails "decode garbage (auto)" 2 "uidgen: 'nonsense': not an ID: character 1 ('n') is not a decimal digit; $READS" decode nonsense
# A UUID or ULID it cannot decode: which check failed, and what to do.
CHECK="check that it was copied whole"
fails "decode of a UUID one digit short" 2 \
	"uidgen: 01a22b21-6ca0-7000-8e10-00000000000: not a UUID or ULID: 35 characters; a UUID has 36 (8-4-4-4-12 hex digits) or 32 (hex digits only), a ULID 26: $CHECK" \
	decode 01a22b21-6ca0-7000-8e10-00000000000
fails "decode of a UUID with a letter that is no hex digit" 2 \
	"uidgen: 01a22b21-6ca0-7000-8e10-00000000000g: not a UUID: character 36 ('g') is not a hex digit: $CHECK" \
	decode 01a22b21-6ca0-7000-8e10-00000000000g
fails "decode of a UUID with a dash missing" 2 \
	"uidgen: 01a22b21x6ca0-7000-8e10-000000000000: not a UUID: character 9 is 'x', not the '-' of 8-4-4-4-12: $CHECK" \
	decode 01a22b21x6ca0-7000-8e10-000000000000
fails "decode of a ULID with a U" 2 \
	"uidgen: 01M8NJ2V50E008W4000000000U: not a ULID: character 26 ('U') is not a Crockford base32 digit: $CHECK" \
	decode 01M8NJ2V50E008W4000000000U
fails "decode of a ULID over 128 bits" 2 \
	"uidgen: 81M8NJ2V50E008W40000000000: not a ULID: its first digit is '8'; a ULID's is 0 to 7 (128 bits): $CHECK" \
	decode 81M8NJ2V50E008W40000000000
fails "decode of a random (v4) UUID" 2 \
	"uidgen: 3f2504e0-4f89-41d3-9a0c-0305e82c3301: a version 4 UUID (its 13th hex digit), and uidgen's are version 7 (8 with UIDGEN_UUID_V8): not one uidgen made; decode what 'uidgen -f uuid' or uidgen_to_uuid() printed" \
	decode 3f2504e0-4f89-41d3-9a0c-0305e82c3301
fails "decode of a UUID of another variant" 2 \
	"uidgen: 01a22b21-6ca0-7000-0e10-000000000000: not an RFC 9562 UUID: its variant (the 17th hex digit, 0) is not 8, 9, a or b, as uidgen's always is: $CHECK" \
	decode 01a22b21-6ca0-7000-0e10-000000000000
MAPS="decode it with the layout it was made under (where that module is loaded, -d its device, or --layout, --tick-us and --epoch-ms), or decode its 64-bit ID"
fails "decode of a UUIDv7 uidgen's view does not map back (its sub-ms fraction)" 2 \
	"uidgen: 01a22b21-6ca0-7001-8e10-000000000000: a UUIDv7, but not one uidgen's view maps back under the layout 41/5/5/12, tick 1000 us, epoch 1767225600000 ms (it has bits set that uidgen's view of an ID never sets): $MAPS" \
	decode 01a22b21-6ca0-7001-8e10-000000000000
fails "decode of a UUIDv7 from before the epoch" 2 \
	"uidgen: 00000000-0001-7000-8000-000000000000: a UUIDv7, but not one uidgen's view maps back under the layout 41/5/5/12, tick 1000 us, epoch 1767225600000 ms (its time is before the epoch or after the layout's last tick): $MAPS" \
	decode 00000000-0001-7000-8000-000000000000

# --- decode: another fleet's layout, help that says what it does (28) -------
# --layout TS/NODE/SLOT/SEQ, --tick-us and --epoch-ms: the layout the IDs
# were made under; the device is not read then, and what they leave out is
# the default's. Property: an ID built from its parts under a layout decodes
# to those parts under it, and its UUID to the ID again.
seed=28
rnd() {	# rnd N: R, a pseudo-random number below N (N <= 2^31), from $seed
	seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
	R=$(( seed % $1 ))
}
for l in 41/5/5/12 43/6/4/10 50/3/2/8 20/20/10/13 60/0/0/3 39/10/0/14 33/0/0/30; do
	IFS=/ read tb nb sb qb <<EOF2
$l
EOF2
	for t in 1 2 3 4 5; do
		tw=$tb; [ "$tw" -gt 30 ] && tw=30
		rnd $((1 << tw)); tick=$R; rnd $((1 << nb)); node=$R; rnd $((1 << sb)); slot=$R
		rnd $((1 << (qb > 30 ? 30 : qb))); seq=$R
		id=$(( (tick << (nb + sb + qb)) | (node << (sb + qb)) | (slot << qb) | seq ))
		rnd 2000; tus=$((R + 1)); rnd 100000000; ems=$((1700000000000 + R))
		out=$($U -d "$tmp/none" decode --layout $l --tick-us $tus --epoch-ms $ems $id 2>"$tmp/err")
		is "--layout $l: ID $id decodes to its parts" "$(printf '%s\n' "$out" | cut -d' ' -f3-6)" \
			"node=$node slot=$slot seq=$seq id=$id"
		is "--layout $l: nothing on standard error" "$(cat "$tmp/err")" ""
		u=${out##* uuid=}
		is "--layout $l: its UUID $u decodes to it" \
			"$($U decode --layout $l --tick-us $tus --epoch-ms $ems "$u" 2>&1 | cut -d' ' -f6)" "id=$id"
	done
done
# One known ID of another fleet: layout 43/6/4/10, 2 ms ticks, epoch
# 2023-11-14T22:13:20Z; tick 1000, node 33, slot 5, seq 7.
is "--layout 43/6/4/10 --tick-us 2000 --epoch-ms 1700000000000: every field" \
	"$($U decode --layout 43/6/4/10 --tick-us 2000 --epoch-ms 1700000000000 1049121799 | cut -d' ' -f1-6)" \
	"1049121799 time=2023-11-14T22:13:22.000Z node=33 slot=5 seq=7 id=1049121799"
is "--epoch-ms alone: the default layout and tick, that epoch" \
	"$($U decode --epoch-ms 0 $((1 << 22 | 4095)) 2>&1 | cut -d' ' -f2-5)" "time=1970-01-01T00:00:00.001Z node=0 slot=0 seq=4095"
is "--tick-us alone" "$($U decode --tick-us 1000000 --layout 41/5/5/12 $((1 << 22)) 2>&1 | cut -d' ' -f2)" \
	"time=2026-01-01T00:00:01.000Z"
is "--layout: -d is not read" "$($U -d /dev/null decode --layout 41/5/5/12 1 2>&1 | cut -d' ' -f1-5)" \
	"1 time=2026-01-01T00:00:00.000Z node=0 slot=0 seq=1"
fails "--layout with three widths" 2 \
	"uidgen: --layout '41/5/5': not a layout: give the four field widths in bits as TS/NODE/SLOT/SEQ: the timestamp, node, slot and sequence that 'uidgen info' shows where the IDs were made (the default is 41/5/5/12)" \
	decode --layout 41/5/5 1
for bad in 41/5/5/12/0 41/5/5/x 41//5/12 /41/5/5/12 41/5/5/12/ "41/5/5/ 12" 41/5/5/-12 ""; do
	fails "--layout '$bad'" 2 \
		"uidgen: --layout '$bad': not a layout: give the four field widths in bits as TS/NODE/SLOT/SEQ: the timestamp, node, slot and sequence that 'uidgen info' shows where the IDs were made (the default is 41/5/5/12)" \
		decode --layout "$bad" 1
done
fails "--layout whose widths add up to 64" 2 \
	"uidgen: --layout '41/5/5/13': its widths add up to 64 bits, and an ID's add up to 63: give the four that 'uidgen info' shows where the IDs were made" \
	decode --layout 41/5/5/13 1
fails "--layout with no timestamp bit" 2 \
	"uidgen: --layout '0/21/21/21': no ID has this layout: the timestamp field has at least 1 bit, and node, slot and sequence at most 31 each" \
	decode --layout 0/21/21/21 1
fails "--layout with a 32-bit sequence" 2 \
	"uidgen: --layout '31/0/0/32': no ID has this layout: the timestamp field has at least 1 bit, and node, slot and sequence at most 31 each" \
	decode --layout 31/0/0/32 1
fails "--tick-us 0" 2 "uidgen: --tick-us '0': must be at least 1" decode --tick-us 0 1
fails "--tick-us x" 2 "uidgen: --tick-us 'x': not a tick length in us, in decimal" decode --tick-us x 1
fails "--tick-us too long" 2 "uidgen: --tick-us '60000001': too large, at most 60000000" decode --tick-us 60000001 1
fails "--epoch-ms x" 2 "uidgen: --epoch-ms 'x': not a Unix time in ms, in decimal" decode --epoch-ms x 1
fails "--epoch-ms past 64 bits of ns" 2 "uidgen: --epoch-ms '18446744073710': too large, at most 18446744073709" \
	decode --epoch-ms 18446744073710 1
fails "--layout twice" 2 \
	"uidgen: decode: --layout given twice ('41/5/5/12', then '43/6/4/10'): give it once: see 'uidgen decode --help'" \
	decode --layout 41/5/5/12 --layout 43/6/4/10 1
fails "printing IDs --epoch-ms" 2 \
	"uidgen: printing IDs takes no --epoch-ms (an option of decode and info): see 'uidgen --help'" --epoch-ms 5
# --- info --layout: a layout's trade and its JS-safe line, no device (issue 29)
# The line's date is the start of ID 2^53's tick; before it every ID is
# below 2^53. The JS-safe preset (admin guide) is 51/5/2/5, 1 ms.
jsl() { $U -d "$tmp/none" info "$@" | grep '^js-safe:'; }
is "info --layout 51/5/2/5: js-safe until 2095, the default's last tick" "$(jsl --layout 51/5/2/5)" \
	"js-safe:   yes, until 2095-09-07T15:47:35.552Z: every ID made before then is below 2^53, exact as a JavaScript number"
is "info --layout 51/5/2/5: the whole layout, device not read" "$($U -d "$tmp/none" info --layout 51/5/2/5 | grep -v '^js-safe:')" \
"layout:    timestamp 51 | node 5 | slot 2 | sequence 5 bits
slots:     4
tick:      1000 us, up to 32 IDs per tick per slot
epoch:     1767225600000 ms (2026-01-01T00:00:00.000Z)
last tick: 73382-09-11T20:14:45.247Z"
is "info --layout 48/5/3/7 --tick-us 10000: until 2113" "$(jsl --layout 48/5/3/7 --tick-us 10000)" \
	"js-safe:   yes, until 2113-02-08T13:44:29.440Z: every ID made before then is below 2^53, exact as a JavaScript number"
is "the default layout is not: its IDs passed 2^53 24.9 days after the epoch" "$(jsl --layout 41/5/5/12)" \
	"js-safe:   no, IDs made since 2026-01-25T20:31:23.648Z are 2^53 or more: send them to JavaScript as strings"
is "--epoch-ms alone: the default layout from that epoch" "$(jsl --epoch-ms 0)" \
	"js-safe:   no, IDs made since 1970-01-25T20:31:23.648Z are 2^53 or more: send them to JavaScript as strings"
# The property, for every layout of 12 low bits or more: the date is when
# decode first shows ID 2^53's time, and ID 2^53 - 1 falls before it.
for l in 51/5/2/5 50/6/2/5 51/4/2/6 45/8/5/5 41/5/5/12 48/5/3/7; do
	w=$(jsl --layout $l | sed -E 's/.* (until|since) ([^ :]+:[^ ]+Z)[: ].*/\2/')
	t53=$($U decode --layout $l 9007199254740992 | sed -E 's/.* time=([^ ]+) .*/\1/')
	t53m=$($U decode --layout $l 9007199254740991 | sed -E 's/.* time=([^ ]+) .*/\1/')
	is "$l: the js-safe date is ID 2^53's tick" "$w" "$t53"
	ok "$l: ID 2^53 - 1's tick is before it" [ "$t53m" \< "$t53" ]
done
fails "info --layout that is no layout" 2 \
	"uidgen: --layout '41/5/5/13': its widths add up to 64 bits, and an ID's add up to 63: give the four that 'uidgen info' shows where the IDs were made" \
	info --layout 41/5/5/13
h=$($U decode --help)
like "decode --help: --layout" "$h" "^  --layout TS/N/S/Q +"
like "decode --help: --tick-us" "$h" "^  --tick-us US +"
like "decode --help: --epoch-ms" "$h" "^  --epoch-ms MS +"
# The default layout's note: once, and only when an ID was decoded with it.
NOTE="uidgen: $tmp/none is not available; decoding with the default layout 41/5/5/12, tick 1000 us, epoch 1767225600000 ms (--layout, --tick-us and --epoch-ms give another)"
is "decode 1 2 3 with no device: the note, once" "$($U -d "$tmp/none" decode 1 2 3 2>&1 > /dev/null)" "$NOTE"
is "decode x y with no device: no note, nothing decoded" \
	"$($U -d "$tmp/none" decode x 0x 2>&1 > /dev/null | grep -c 'not available')" 0
is "decode x 1 with no device: the error, then the note for 1" \
	"$($U -d "$tmp/none" decode x 1 2>&1 > /dev/null | cut -c1-40)" "uidgen: 'x': not an ID: character 1 ('x'
${NOTE%"${NOTE#????????????????????????????????????????}"}"
# Auto-detection as --help says it: 36 or 32 characters a UUID, 26 a
# ULID, digits only or not; 13 b32 unless all digits; else decimal.
like "decode --help: what auto reads" "$(printf '%s\n' "$h" | tr -s ' \n' '  ')" \
	"auto \(default: 0x.. is hex, 36 or 32 characters a UUID, 26 a ULID, 13 b32 unless all digits, else decimal\)"
fails "decode of 32 decimal digits: a UUID" 2 \
	"uidgen: 12345678901234567890123456789012: a version 3 UUID (its 13th hex digit), and uidgen's are version 7 (8 with UIDGEN_UUID_V8): not one uidgen made; decode what 'uidgen -f uuid' or uidgen_to_uuid() printed" \
	decode 12345678901234567890123456789012
is "decode of 26 decimal digits: a ULID" \
	"$($U -d "$tmp/none" decode 01234567890123456789012345 2>&1 | tail -n 1 | cut -d: -f2-3)" \
	" 01234567890123456789012345: a ULID, but not one uidgen made"
is "decode of 12 base32 digits: read as decimal, as --help says" \
	"$($U -d "$tmp/none" decode 0000000000Z1 2>&1 | tail -n 1 | cut -d';' -f1)" \
	"uidgen: '0000000000Z1': not an ID: character 11 ('Z') is not a decimal digit"
# "0x and up to 16 hex digits": 17, even 0-led, is refused (16 are read).
fails "decode of 17 hex digits, the first 0" 2 \
	"uidgen: '0x00000000000000001': not an ID: 17 hex digits, at most 16; $READS" decode 0x00000000000000001
fails "decode -f hex of 17 hex digits, the first 0" 2 \
	"uidgen: 00000000000000001: not a hex ID (up to 16 hex digits, 0x optional), which -f hex reads; without -f, decode reads each ID by its form" \
	decode -f hex 00000000000000001
is "decode of 16 hex digits: read" "$($U -d "$tmp/none" decode 0x0000000000000001 2>/dev/null | cut -d' ' -f5-6)" \
	"seq=1 id=1"
# A --floor too large is too large, not "not a Unix time".
fails "--floor 2^63" 2 "uidgen: --floor '9223372036854775808': too large, at most 9223372036854775807" \
	set-node 7 --floor 9223372036854775808
fails "--floor of 20 digits" 2 "uidgen: --floor '99999999999999999999': too large, at most 9223372036854775807" \
	set-node 7 --floor 99999999999999999999

# --- observe (issue 30): usage, and IDs read as decode reads them ------------
fails "observe with no ID" 2 "uidgen: observe needs an ID: see 'uidgen observe --help'" observe
fails "observe of two IDs" 2 \
	"uidgen: observe takes one ID ('2' is one too many): see 'uidgen observe --help'" observe 1 2
fails "observe -n" 2 \
	"uidgen: observe takes no -n (an option of printing IDs): see 'uidgen observe --help'" observe -n 3 1
fails "observe --layout: the layout is the device's" 2 \
	"uidgen: observe takes no --layout (an option of decode and info): see 'uidgen observe --help'" \
	observe --layout 41/5/5/12 1
fails "observe -f oct" 2 "uidgen: -f 'oct': unknown format: give auto, dec, hex, b32, uuid or ulid" observe -f oct 1
fails "observe -f public" 2 "uidgen: -f 'public': unknown format: give auto, dec, hex, b32, uuid or ulid" \
	observe -f public 1
fails "observe -f with no value" 2 "uidgen: observe: -f needs a value: see 'uidgen observe --help'" observe 1 -f
fails "observe -f twice" 2 \
	"uidgen: observe: -f (--format) given twice ('hex', then 'dec'): give it once: see 'uidgen observe --help'" \
	observe -f hex 1 -f dec
fails "observe --key with -f" 2 "uidgen: observe --key reads a public token: it takes no -f" \
	observe --key "$tmp/k" -f hex 1
fails "-d /dev/null observe 5" 1 \
	"uidgen: /dev/null: not a uidgen device (Inappropriate ioctl for device): give the uidgen device with -d PATH (default /dev/uid)" \
	-d /dev/null observe 5
# Every text decode refuses, observe refuses with decode's message (what
# it reads, "observe reads"), exit 2, before it needs the device.
OREADS="observe reads a decimal ID (digits only, at most 9223372036854775807), 0x and up to 16 hex digits, 13 Crockford base32 digits, a UUID (36 or 32 hex digits) or a ULID (26 base32 digits)"
for bad in abc 0x ' 123' 1_000 0x123456789abcdef01 18446744073709551616 9223372036854775808 \
	0x00000000000000001 0123456789abcdef0123456789abcdef0 '' 7ZZZZZZZZZZZZZZZZZZZZZZZZZ \
	01a22b21-6ca0-7000-8e10-00000000000 01a22b21-6ca0-7000-8e10-00000000000g \
	01a22b21x6ca0-7000-8e10-000000000000 01M8NJ2V50E008W4000000000U 81M8NJ2V50E008W40000000000 \
	3f2504e0-4f89-41d3-9a0c-0305e82c3301 01a22b21-6ca0-7000-0e10-000000000000 \
	"-f hex zz" "-f uuid 120687119160971264" "-f dec 0x10" "-f b32 01a22b21-6ca0-7000-8e10-000000000000"; do
	case $bad in -f*) set -- $bad ;; *) set -- "$bad" ;; esac
	want=$($U -d "$tmp/none" decode "$@" 2>&1 > /dev/null | tail -n 1 | sed "s/; decode reads .*/; $OREADS/; s/without -f, decode reads/without -f, observe reads/")
	fails "observe '$bad' with no device: decode's message" 2 "$want" -d "$tmp/none" observe "$@"
done
is "observe of an empty ID says it is empty" "$($U observe '' 2>&1)" "uidgen: '': not an ID: it is empty; $OREADS"
# What decode reads, observe reads: each spelling of an ID (decimal, hex,
# base32, and -f's) gets as far as the device, whose absence it then says
# first (exit 1, as any failure; what to do follows it); a UUID or ULID
# needs the device's layout first. Base32 that starts 0X is hex to auto
# (decode --help: "0x.. is hex"): -f b32 reads it.
# missing DESC ARGS...: 'uidgen -d $tmp/none ARGS' exits 1, its first line
# on standard error the device's ENOENT.
missing() {
	_d=$1; shift
	_e=$($U -d "$tmp/none" "$@" 2>&1 > /dev/null); _r=$?
	is "$_d: exits 1" "$_r" 1
	is "$_d: says the device is missing" "$(printf '%s\n' "$_e" | head -n 1)" \
		"uidgen: $tmp/none: No such file or directory"
}
b32() {	# b32 ID: its 13 Crockford base32 digits
	_v=$1; _o=
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
		_o=$(printf '%s' 0123456789ABCDEFGHJKMNPQRSTVWXYZ | cut -c$(( (_v & 31) + 1 )))$_o
		_v=$((_v >> 5))
	done
	printf '%s\n' "$_o"
}
is "b32 (this test's) agrees with decode" "$($U -d "$tmp/none" decode "$(b32 120772217587765248)" 2>/dev/null | cut -d' ' -f6)" \
	"id=120772217587765248"
seed=30
bad=0
for t in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	rnd 2147483647; hi=$R; rnd 2147483647; id=$(( (hi << 32 | R) & 0x7fffffffffffffff ))
	[ "$t" = 1 ] && id=0
	[ "$t" = 2 ] && id=9223372036854775807
	b=$(b32 "$id"); case $b in 0[Xx]*) b="-f b32 $b" ;; esac
	for form in "$id" "$(printf '0x%x' "$id")" "$(printf '0X%016X' "$id")" "$b" \
		"-f dec $id" "-f hex $(printf '%x' "$id")" "-f b32 $(b32 "$id")" \
		"$(printf '%s' "$b" | tr 'A-Z' 'a-z')"; do
		set -- $form
		out=$($U -d "$tmp/none" observe "$@" 2>&1); rc=$?
		if [ "$rc" != 1 ] || [ "$(printf '%s\n' "$out" | head -n 1)" != "uidgen: $tmp/none: No such file or directory" ]; then
			bad=$((bad + 1)); echo "# observe $form: exit $rc, $out"
		fi
	done
done
is "observe reads 20 IDs in 8 spellings each, then says the device is missing (exit 1)" "$bad" 0
for u in 01a22b21-6ca0-7000-8e10-000000000000 01A22B216CA070008E10000000000000 01M8NJ2V50E008W40000000000 \
	"-f uuid 01M8NJ2V50E008W40000000000"; do
	missing "observe $u with no device: the device, whose layout reads it" observe $u
done
# A public token (--key): opened with the file's keys, before the device.
$U keygen "$tmp/okeys" > /dev/null
t=$(echo 120772217587765248 | tests/lib/idref -k "$tmp/okeys" | cut -d' ' -f3,4)
missing "observe --key TOKEN: opened, then the device" observe --key "$tmp/okeys" "${t% *}"
missing "observe --key DECIMAL-TOKEN: opened, then the device" observe --key "$tmp/okeys" "${t#* }"
fails "observe --key of a text that is no token" 2 \
	"uidgen: abc: not a public token: 13 characters of 0-9A-Za-z, its 11-character short code, or the token in decimal" \
	-d "$tmp/none" observe --key "$tmp/okeys" abc
fails "observe --key of no file" 1 "uidgen: $tmp/none: no such key file: 'uidgen keygen $tmp/none' makes one" \
	observe --key "$tmp/none" 1
h=$($U observe --help)
like "observe --help: its usage" "$(printf '%s\n' "$h" | head -n 1)" \
	"^Usage: uidgen \[-d DEVICE\] observe \[-f auto\|dec\|hex\|b32\|uuid\|ulid\] \[--key F\] ID\$"
like "observe --help: refused ahead of observe_ahead_ms, exit 1" "$(printf '%s\n' "$h" | tr -s ' \n' '  ')" \
	"observe_ahead_ms \(default 500\) ahead of this machine's clock is refused \(exit status 1\)"
like "uidgen --help lists observe" "$($U --help)" "^  observe +make every ID minted from now on greater than ID\$"

# --- Output that cannot be written (28) ---------------------------------------
# Every command that writes checks its output, as coreutils' close_stdout
# does: a full disk, a pipe whose reader has gone (SIGPIPE ignored, as a
# service or a Python subprocess may have it) or a closed standard output
# is exit 1 and "write error", never a silent 0.
# gone ARGS...: 'uidgen ARGS' into a pipe whose reader has already exited,
# SIGPIPE ignored; prints its exit status, then its last line on stderr.
gone() {
	rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
	( trap '' PIPE; read _ < "$tmp/fifo"; $U "$@" 2> "$tmp/gone.err"; echo $? > "$tmp/gone.rc" ) |
		{ exec 0<&-; echo > "$tmp/fifo"; }
	echo "$(cat "$tmp/gone.rc") $(tail -n 1 "$tmp/gone.err")"
}
for c in "decode 1 2 3" "-d $tmp/none decode 1" --help -V --version help "help decode" \
	"help state" "state --help" "decode --help" "info --help" "set-node --help" \
	"revoke-node --help" "observe --help" "stats --help" "state restore --help" "state keep --help" \
	"state save --help" "help --help" "info -V"; do
	err=$($U $c 2>&1 > /dev/full); rc=$?
	is "uidgen $c > /dev/full: exits 1" "$rc" 1
	is "uidgen $c > /dev/full: says so" "$(printf '%s\n' "$err" | tail -n 1)" \
		"uidgen: write error: No space left on device"
	is "uidgen $c into a pipe with no reader: exit 1, says so" "$(gone $c)" \
		"1 uidgen: write error: Broken pipe"
done
err=$($U -V 2>&1 >&-); rc=$?
is "uidgen -V with standard output closed: exits 1" "$rc" 1
is "uidgen -V with standard output closed: says so" "$err" "uidgen: write error: Bad file descriptor"
# Output that could be written is still exit 0, and whole.
is "decode 1 2 3 into a pipe: three lines, exit 0" \
	"$( ($U -d "$tmp/none" decode 1 2 3 2>/dev/null; echo "rc=$?") | cut -d' ' -f1)" "1
2
3
rc=0"
# A bad ID and a write error: the write error's 1 (the output is lost).
err=$($U -d "$tmp/none" decode 1 x 2>&1 > /dev/full); rc=$?
is "decode 1 x > /dev/full: exits 1" "$rc" 1
is "decode 1 x > /dev/full: the bad ID, then the write error" \
	"$(printf '%s\n' "$err" | grep -c "not an ID\|write error")" 2

# --- A file that is not the device (19.8) -----------------------------------
for c in "" info stats revoke-node "decode 1" "observe 1" "set-node 7 --new" "state save $tmp/st"; do
	fails "-d /dev/null $c" 1 \
		"uidgen: /dev/null: not a uidgen device (Inappropriate ioctl for device): give the uidgen device with -d PATH (default /dev/uid)" \
		-d /dev/null $c
done

# --- No module loaded (19.9) ---------------------------------------------------
HINT="uidgen: the uidgen module is not loaded: as root, 'modprobe uidgen', then 'uidgen set-node N --new' for a node ID that has never issued an ID, else 'uidgen state restore FILE' with its state file (what uidgen-state.service does at boot)"
# A tree user (README "First use") has no installed module: the insmod form.
HINT2="uidgen: modprobe finds the module once 'make install' (or a package) has put it in place; from the source tree without that, 'insmod module/uidgen.ko'"
if [ -e /sys/module/uidgen ]; then
	echo "# the uidgen module is loaded here: the no-module checks are left out"
else
	for c in "" info revoke-node "set-node 7 --new" "state save $tmp/st" \
		"state restore $tmp/st" "-d $tmp/none" "observe 1" "observe 0x1f" "observe $D1"; do
		fails "no module: uidgen $c" 1 "$HINT2" $c
		is "no module: uidgen $c: the modprobe form before it" \
			"$($U $c 2>&1 | tail -n 2 | head -n 1)" "$HINT"
	done
	is "no module: the device's error first" "$($U 2>&1 | head -n 1)" \
		"uidgen: /dev/uid: No such file or directory"
	err=$($U stats 2>&1); rc=$?
	is "no module: stats exits 1" "$rc" 1
	is "no module: stats says so and what to do" "$err" "$HINT
$HINT2"
	fails "no module: stats -d a missing file" 1 "$HINT2" stats -d "$tmp/none"
	# state keep waits for the device (its unit may start first), saying
	# what to do; SIGTERM after 2 s ends it.
	err=$(timeout --preserve-status 2 $U state keep "$tmp/st" 2>&1 > /dev/null); rc=$?
	is "no module: state keep waits until stopped (exit 0 on SIGTERM)" "$rc" 0
	is "no module: state keep says it waits" "$(printf '%s\n' "$err" | head -n 1)" \
		"uidgen: /dev/uid: No such file or directory; waiting for it"
	is "no module: state keep says what to do" "$(printf '%s\n' "$err" | tail -n 2)" "$HINT
$HINT2"
	if command -v python3 > /dev/null; then
		err=$(PYTHONPATH=bindings/python python3 -c '
import uidgen
try:
    uidgen.Uidgen("/dev/uid")
except OSError as e:
    print(e)' 2>&1)
		like "no module: Python says to load it, then set-node N --new if new" "$err" \
			"not loaded: as root, modprobe uidgen, then uidgen set-node N --new for a node ID that has never issued an ID, else uidgen state restore FILE"
	fi
fi

echo "1..$_n"
# set-node against this machine's state file (UIDGEN_STATE; the units'),
# read before the device is opened: it never contradicts the file.
printf 'node_id=4\nfloor_ms=100\n' > "$tmp/mine.state"
export UIDGEN_STATE="$tmp/mine.state"
fails "set-node of another node ID than the state file's" 1 \
	"uidgen: this machine's state file $tmp/mine.state holds node ID 4, not 3: if 4 is this machine's node ID, run 'uidgen state restore $tmp/mine.state'; if not, move the file away first (it is node ID 4's history)" \
	set-node 3 --new -d /dev/null
fails "set-node --new of the state file's node ID" 1 \
	"uidgen: this machine's state file $tmp/mine.state holds node ID 4's floor, 100 ms: it has issued IDs, and --new could repeat them; run 'uidgen state restore $tmp/mine.state' (or set-node 4 --state $tmp/mine.state)" \
	set-node 4 --new -d /dev/null
fails "set-node --floor below the state file's" 1 \
	"uidgen: this machine's state file $tmp/mine.state holds node ID 4's floor, 100 ms: it has issued IDs, and a lower floor could repeat them; run 'uidgen state restore $tmp/mine.state' (or set-node 4 --state $tmp/mine.state)" \
	set-node 4 --floor 99 -d /dev/null
fails "set-node --floor at the state file's: on to the device" 1 \
	"uidgen: /dev/null: not a uidgen device (Inappropriate ioctl for device): give the uidgen device with -d PATH (default /dev/uid)" \
	set-node 4 --floor 100 -d /dev/null
printf 'node_id=3\nfloor_ms=5\n' > "$tmp/other.state"
fails "set-node --state of another file: that file is the word" 1 \
	"uidgen: /dev/null: not a uidgen device (Inappropriate ioctl for device): give the uidgen device with -d PATH (default /dev/uid)" \
	set-node 3 --state "$tmp/other.state" -d /dev/null
unset UIDGEN_STATE

# --- The public form (issue 29): keygen, decode --key --------------------------
# Tokens are libuidgen's (tests/lib/idref -k, which make clients builds);
# the CLI must open each to its ID, refuse what is not a token of the file.
k=$tmp/keys
is "keygen of a new file" "$($U keygen "$k")" "key 1 added to $k: new tokens use it; the keys before it still open theirs
$k is new, mode 0640: give it to the group that may read it (chgrp GROUP $k)"
is "which is mode 0640" "$(stat -c %a "$k")" 640
is "keygen again adds key 2" "$($U keygen "$k")" "key 2 added to $k: new tokens use it; the keys before it still open theirs"
is "the file holds two keys" "$(grep -c '^[0-9A-Za-z] [0-9a-f]\{32\}$' "$k")" 2
ids="1 120772217587765248 9223372036854775807 4611686018427387904"
bad=0
for id in $ids; do
	set -- $(echo "$id" | tests/lib/idref -k "$k")
	got=$($U decode --key "$k" "$3" 2>/dev/null | sed 's/.* id=\([0-9]*\) .*/\1/')
	[ "$got" = "$id" ] || bad=$((bad + 1))
	got=$($U decode --key "$k" "$4" 2>/dev/null | sed 's/.* id=\([0-9]*\) .*/\1/')
	[ "$got" = "$id" ] || bad=$((bad + 1))
done
is "decode --key opens libuidgen's tokens, text and decimal, to their IDs" "$bad" 0
# The short code (issue 29): the text's 11 token digits, no key ID, no
# check digit; decode --key reads 11 characters not all digits as one.
bad=0
for id in $ids 0 9007199254740991; do
	set -- $(echo "$id" | tests/lib/idref -k "$k")
	s=$(echo "$id" | tests/lib/idref -k "$k" -S | cut -d' ' -f2)
	[ "$s" = "$(printf '%s' "$3" | cut -c2-12)" ] || bad=$((bad + 1))
	got=$($U decode --key "$k" "$s" 2>/dev/null | sed 's/.* id=\([0-9]*\) .*/\1/')
	[ "$got" = "$id" ] || bad=$((bad + 1))
done
is "decode --key opens libuidgen's short codes, each the text's 11 token digits" "$bad" 0
s=$(echo 120772217587765248 | tests/lib/idref -k "$k" -S | cut -d' ' -f2)
like "a short code's line starts with it" "$($U decode --key "$k" "$s" 2>/dev/null)" \
	"^$s time=2026-[-0-9T:.]+Z node=7 slot=1 seq=0 id=120772217587765248 uuid="
fails "a short code past 2^64 - 1" 2 "uidgen: LygHa16AHYG: not a public token: 13 characters of 0-9A-Za-z, its 11-character short code, or the token in decimal" \
	decode --key "$k" LygHa16AHYG
# 11 digits are a decimal token, as 13 digits are a decimal ID, not b32.
is "11 digits: a decimal token, opened as libuidgen opens the decimal form" "$(echo 12345678901 | tests/lib/idref -k "$k" -O | cut -d' ' -f2-)" \
	"$(r=$($U decode --key "$k" 12345678901 2>/dev/null | sed 's/.* id=\([0-9]*\) .*/\1/'); echo "${r:-error -129}")"
fails "-f short without --key" 2 "uidgen: -f short needs --key FILE, the key file ('uidgen keygen FILE' makes one)" -f short
t=$(echo 120772217587765248 | tests/lib/idref -k "$k" | cut -d' ' -f3)
like "a token's line starts with the token" "$($U decode --key "$k" "$t" 2>/dev/null)" "^$t time=2026-[-0-9T:.]+Z node=7 slot=1 seq=0 id=120772217587765248 uuid="
# A token under key 2 with its first character made key 5's: no such key.
fails "a token of a key the file lacks" 2 "uidgen: 5${t#?}: made under key 5, which $k does not hold" decode --key "$k" "5${t#?}"
# One digit changed: the check digit, or the ID it opens to, refuses it.
t2=$(printf '%s' "$t" | sed 's/^\(..\)./\1z/'); [ "$t2" != "$t" ] || t2=$(printf '%s' "$t" | sed 's/^\(..\)./\1y/')
fails "a token with a digit changed" 2 "uidgen: $t2: not a token of $k's keys (its check fails, or it opens to no ID)" decode --key "$k" "$t2"
fails "a token too short" 2 "uidgen: abc: not a public token: 13 characters of 0-9A-Za-z, its 11-character short code, or the token in decimal" decode --key "$k" abc
fails "decode --key with -f" 2 "uidgen: decode --key reads public tokens: it takes no -f" decode --key "$k" -f hex 1
fails "-f public without --key" 2 "uidgen: -f public needs --key FILE, the key file ('uidgen keygen FILE' makes one)" -f public
fails "--key without -f public" 2 "uidgen: --key is the key file of -f public: give -f public too" --key "$k"
fails "--key of no file" 1 "uidgen: $tmp/none: no such key file: 'uidgen keygen $tmp/none' makes one" -f public --key "$tmp/none"
chmod 644 "$k"
fails "a key file others may read" 1 "uidgen: $k: others may read it, its group write it, or it is neither root's nor yours: keys are secret; chmod 640 $k (and chgrp the group that may read it)" decode --key "$k" "$t"
fails "keygen of such a file" 1 "uidgen: $k: others may read it, its group write it, or it is neither root's nor yours: keys are secret; chmod 640 $k (and chgrp the group that may read it)" keygen "$k"
chmod 640 "$k"
fails "keygen takes one file" 2 "uidgen: keygen takes one FILE, the key file: see 'uidgen keygen --help'" keygen

done_testing
