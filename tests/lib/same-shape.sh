#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Output the docs show, checked for shape: every non-blank line of
# EXPECTED must be a line of standard input, with every run of digits
# standing for any number and every run of blanks for any blanks (leading
# and trailing blanks ignored). Lines the docs leave out are not checked.
#   COMMAND | tests/lib/same-shape.sh EXPECTED
# Prints each line not found, then what was read; exit status 1 if any.
set -uo pipefail
actual=$(cat)
bad=0
while IFS= read -r line; do
	line=$(printf '%s' "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
	[ -n "$line" ] || continue
	re=$(printf '%s' "$line" | sed -e 's#[][\\.*^$+?(){}|/]#\\&#g' \
		-e 's/[0-9][0-9]*/[0-9]+/g' -e 's/[[:space:]][[:space:]]*/[[:space:]]+/g')
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
