#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Output the docs show, checked for shape: the non-blank lines of EXPECTED
# must be lines of standard input, in the same order (each one after the
# line the one before it matched: three lines shown are three lines
# printed), with every run of letters and digits that holds a digit
# standing for any such run (a number, a hex or base32 ID, a piece of a
# UUID or a time) and every run of blanks for any blanks (leading and
# trailing blanks ignored). Lines the docs leave out are not checked.
# With --any-order, each shown line may be any line of the output (for
# output whose order is not fixed, such as holders of random node IDs).
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
	re=$(printf '%s\n' "$line" | awk '{
		out = ""; s = $0
		while (s != "") {
			if (match(s, /^[0-9A-Za-z]+/)) {
				w = substr(s, 1, RLENGTH)
				out = out (w ~ /[0-9]/ ? "[0-9A-Za-z]+" : w)
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
