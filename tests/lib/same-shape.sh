#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Output the docs show, checked against what was printed: the non-blank
# lines of EXPECTED must be lines of standard input, in the same order
# (each one after the line the one before it matched: three lines shown
# are three lines printed). Every character of a shown line is literal
# (digits too: "exit 0", "node=7", "1.4.0" match only themselves) but
# for two things:
#   - a run of blanks stands for any run of blanks (columns widen with
#     the values in them); leading and trailing blanks are ignored;
#   - a placeholder stands for a value that really varies from run to
#     run, and only for a value of its kind:
#       <n>     a decimal number, perhaps negative (a count, a time in
#               ms, a random node ID, a token, a device number)
#       <id>    a 64-bit ID in decimal
#       <hex>   hex digits
#       <b32>   Crockford base32 digits (an ID's b32 spelling)
#       <uuid>  an 8-4-4-4-12 hex UUID
#       <time>  a UTC time as uidgen prints it (2026-12-01T12:52:04.748Z)
#     Any other <...> is literal text.
# Lines the docs leave out are not checked. With --any-order, each shown
# line may be any line of the output (for output whose order is not
# fixed, such as holders of random node IDs).
#   COMMAND | tests/lib/same-shape.sh [--any-order] EXPECTED
# Prints each line not found, then what was read; exit status 1 if any.
set -uo pipefail
anyorder=0
[ "${1:-}" != --any-order ] || { anyorder=1; shift; }
actual=$(cat)
bad=0
at=0	# the line of the output the last shown line matched
while IFS= read -r line; do
	line=$(printf '%s' "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
	[ -n "$line" ] || continue
	re=$(printf '%s\n' "$line" | LC_ALL=C awk '
	BEGIN {
		ph["n"] = "-?[0-9]+"
		ph["id"] = "[0-9]+"
		ph["hex"] = "[0-9A-Fa-f]+"
		ph["b32"] = "[0-9A-HJKMNP-TV-Z]+"
		ph["uuid"] = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
		ph["time"] = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z"
	}
	{
		out = ""; s = $0
		while (s != "") {
			if (match(s, /^<[a-z0-9]+>/) && (substr(s, 2, RLENGTH - 2) in ph)) {
				out = out "(" ph[substr(s, 2, RLENGTH - 2)] ")"
			} else if (match(s, /^[ \t]+/)) {
				out = out "[[:space:]]+"
			} else {
				RLENGTH = 1
				c = substr(s, 1, 1)
				out = out (index("][\\.*^$+?(){}|", c) ? "\\" c : c)
			}
			s = substr(s, RLENGTH + 1)
		}
		print out
	}')
	hit=$(printf '%s\n' "$actual" | tail -n +$((at + 1)) |
		grep -Enx -m1 -- "[[:space:]]*$re[[:space:]]*" | cut -d: -f1)
	if [ -n "$hit" ]; then
		[ "$anyorder" = 1 ] || at=$((at + hit))
	elif printf '%s\n' "$actual" | grep -Eqx -- "[[:space:]]*$re[[:space:]]*"; then
		echo "not in the output after the line before it (out of order, or shown more times than printed): $line"
		bad=1
	else
		echo "not in the output: $line"
		bad=1
	fi
done < "$1"
if [ "$bad" -ne 0 ]; then
	echo "the output was:"
	printf '%s\n' "$actual" | tail -n 20 | sed 's/^/  | /'
fi
[ "$bad" -eq 0 ]
