#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The JS-safe layout (issue 29; admin guide, "IDs for JavaScript: the
# JS-safe layout"), against the device: the module loaded with the options
# line of etc/uidgen.conf.example (as make check's guest loads it) and node
# ID $UIDGEN_NODE assigned. uidgen info says so, exactly; every ID is below
# 2^53 and survives JSON.parse() as a number (node, when there is one) and
# Python's float. Run as root in the repository.
. tests/shell/lib.sh
U=${UIDGEN_CLI:-userlib/uidgen}
node=${UIDGEN_NODE:?set UIDGEN_NODE}
P=/sys/module/uidgen/parameters
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The example's line, as documented, is what is loaded.
line=$(sed -n 's/^#\(options uidgen ts_bits=.*\)/\1/p' etc/uidgen.conf.example)
is "uidgen.conf.example has the preset's line" "$line" \
	"options uidgen ts_bits=51 node_bits=5 slot_bits=2 seq_bits=5"
for kv in ${line#options uidgen }; do
	is "loaded with ${kv%%=*} as the example's line" "$(cat $P/${kv%%=*})" "${kv#*=}"
done
is "tick and epoch are the default's" "$(cat $P/tick_us) $(cat $P/epoch_ms)" "1000 1767225600000"

info=$($U info)
is "info: the layout" "$(printf '%s\n' "$info" | grep '^layout:')" \
	"layout:    timestamp 51 | node 5 | slot 2 | sequence 5 bits"
is "info: JS-safe until the default layout's last tick" "$(printf '%s\n' "$info" | grep '^js-safe:')" \
	"js-safe:   yes, until 2095-09-07T15:47:35.552Z: every ID made before then is below 2^53, exact as a JavaScript number"

# 100000 IDs, through read() (uidgen -n) and the cached uidgen_next()
# (decode has none; the unit test's cache is libuidgen's): each below 2^53.
$U -n 100000 > "$tmp/ids"
is "100000 IDs" "$(wc -l < "$tmp/ids")" 100000
is "all distinct" "$(sort -u "$tmp/ids" | wc -l)" 100000
is "none is 2^53 or more (9007199254740992)" \
	"$(awk 'length($0) > 16 || (length($0) == 16 && $0 > "9007199254740991")' "$tmp/ids" | wc -l)" 0
like "and they are this node's" "$($U decode "$(tail -n 1 "$tmp/ids")")" " node=$node slot=[0-3] seq=[0-9]+ "
# The property JavaScript needs: as a JSON number each comes back exact.
is "Python: float(id) is exact for every one" \
	"$(python3 -c 'import sys; print(sum(int(float(l)) != int(l) for l in sys.stdin))' < "$tmp/ids")" 0
if command -v node > /dev/null; then
	is "node: JSON.parse(id) is exact for every one" \
		"$(node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
			console.log(l.filter(s => String(JSON.parse(s)) !== s).length)' "$tmp/ids")" 0
	# The test can fail: 2^53 + 1 does not survive.
	is "node: JSON.parse(2^53 + 1) is not exact" \
		"$(node -e 'console.log(String(JSON.parse("9007199254740993")))')" 9007199254740992
fi
# The layout's rate: 4 slots of 32 IDs a tick, so 100000 distinct IDs of
# this node span at least 100000 / 128 = 782 ticks (1 ms each; the tick is
# the ID shifted right by node + slot + seq = 12 bits).
lo=$(sort -n "$tmp/ids" | head -n 1); hi=$(sort -n "$tmp/ids" | tail -n 1)
ok "100000 IDs span at least 782 ticks (32 a tick a slot): $(( (hi >> 12) - (lo >> 12) + 1 ))" \
	[ $(( (hi >> 12) - (lo >> 12) + 1 )) -ge 782 ]

done_testing
