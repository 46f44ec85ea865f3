#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Output the docs show, checked for shape: every non-blank line of
# EXPECTED must be a line of standard input, with every run of letters and
# digits that holds a digit standing for any such run (a number, a hex or
# base32 ID, a piece of a UUID or a time) and every run of blanks for any
# blanks (leading and trailing blanks ignored). Lines the docs leave out are not checked.
#   COMMAND | tests/lib/same-shape.sh EXPECTED
# Prints each line not found, then what was read; exit status 1 if any.
set -uo pipefail
actual=$(cat)
bad=0
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
	if ! printf '%s\n' "$actual" | grep -Eqx -- "[[:space:]]*$re[[:space:]]*"; then
		echo "not in the output: $line"
		bad=1
	fi
done < "$1"
if [ "$bad" -ne 0 ]; then
	echo "the output was:"
	printf '%s\n' "$actual" | tail -n 20 | sed 's/^/  | /'
fi
[ "$bad" -eq 0 ]
