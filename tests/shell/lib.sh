# SPDX-License-Identifier: GPL-2.0
# A few TAP helpers for the shell suites. Source it; call done_testing last.
_pass=0
_fail=0
_n=0

ok() {	# ok DESCRIPTION COMMAND...: the command must succeed
	_desc=$1; shift
	_n=$((_n + 1))
	if "$@"; then
		_pass=$((_pass + 1)); echo "ok $_n $_desc"
	else
		_fail=$((_fail + 1)); echo "not ok $_n $_desc"
	fi
}

is() {	# is DESCRIPTION GOT WANT
	_n=$((_n + 1))
	if [ "$2" = "$3" ]; then
		_pass=$((_pass + 1)); echo "ok $_n $1"
	else
		_fail=$((_fail + 1)); echo "not ok $_n $1"
		echo "#   got:  '$2'"; echo "#   want: '$3'"
	fi
}

between() {	# between N LOW HIGH: LOW <= N <= HIGH, for ok; one command
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

like() {	# like DESCRIPTION GOT EXTENDED-REGEX
	_n=$((_n + 1))
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		_pass=$((_pass + 1)); echo "ok $_n $1"
	else
		_fail=$((_fail + 1)); echo "not ok $_n $1"
		echo "#   got:  '$2'"; echo "#   want match: '$3'"
	fi
}

# stat_of NAME: the value 'uidgen stats' prints for NAME: the node's
# state, grant, deadline, token and high water are INFO's (the CLI asks
# it), not sysfs files.
stat_of() {
	${U:-userlib/uidgen} stats | awk -v k="$1" '$1 == k { print $2; exit }'
}

done_testing() {
	echo "# Totals: pass:$_pass fail:$_fail xfail:0 xpass:0 skip:0 error:0"
	[ "$_fail" -eq 0 ]
}
