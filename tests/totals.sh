# SPDX-License-Identifier: GPL-2.0
# totals LOG RC: print "PASS FAIL" for a run that wrote a kselftest
# "# Totals:" line to LOG and exited with RC. Sourced by tests/check.sh
# (host) and tests/qemu/guest-check.sh (guest); POSIX sh.
# No totals line means the runner died: a failure, never a pass. Skipped
# and errored tests count as failures. A non-zero exit with no failure
# counted is one failure.
totals() {
	_t=$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$1" | tail -n 1)
	if [ -z "$_t" ]; then
		echo "0 1"
		return
	fi
	_pass=$(echo "$_t" | sed -n 's/^# Totals: pass:\([0-9]*\).*/\1/p')
	_fail=$(echo "$_t" | sed -n 's/.* fail:\([0-9]*\).*/\1/p')
	_skip=$(echo "$_t" | sed -n 's/.* skip:\([0-9]*\).*/\1/p')
	_err=$(echo "$_t" | sed -n 's/.* error:\([0-9]*\).*/\1/p')
	_fail=$((_fail + ${_skip:-0} + ${_err:-0}))
	[ "$2" -eq 0 ] || [ "$_fail" -gt 0 ] || _fail=1
	echo "$_pass $_fail"
}
