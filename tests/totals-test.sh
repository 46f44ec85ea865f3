#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The counting in tests/totals.sh against canned logs: a suite that ran no
# test, skips, errors, KUnit crashes and a missing suite all count as
# failures. Host only, no VM.  tests/totals-test.sh [TOTALS_SH]
. tests/shell/lib.sh
. "${1:-tests/totals.sh}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t() {	# t RC LINES...: totals of a log holding LINES, exit status RC
	_rc=$1; shift
	printf '%s\n' "$@" > "$tmp/log"
	totals "$tmp/log" "$_rc"
}
is "totals: all passed" "$(t 0 '# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:0 error:0')" "3 0"
is "totals: ran no test, exit 0" "$(t 0 '# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0')" "0 1"
is "totals: skips and errors fail" "$(t 0 '# Totals: pass:3 fail:1 xfail:0 xpass:0 skip:2 error:1')" "3 4"
is "totals: no totals line" "$(t 0 'ok 1 x')" "0 1"
is "totals: exit 1, nothing failed" "$(t 1 '# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:0 error:0')" "3 1"
is "totals: the last line counts" "$(t 0 '# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0' \
	'# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0')" "2 0"

printf '%s\n' 'ok 1 a' '# Totals: pass:5 fail:0 xfail:0 xpass:0 skip:1 error:0' 'noise' \
	'# Totals: pass:7 fail:1 xfail:0 xpass:0 skip:0 error:2' > "$tmp/console"
is "sum_totals: skip and error of every run (debug-vm)" "$(sum_totals "$tmp/console")" "12 4 2"
: > "$tmp/empty"
is "sum_totals: no run" "$(sum_totals "$tmp/empty")" "0 0 0"

is "kunit: all passed" "$(kunit_totals '[10:00:00] Testing complete. Ran 42 tests: passed: 42')" "42 0"
is "kunit: crashed and errors fail" \
	"$(kunit_totals '[10:00:00] Testing complete. Ran 42 tests: passed: 40, crashed: 1, errors: 1')" "40 2"
is "kunit: failed and skipped fail" \
	"$(kunit_totals 'Testing complete. Ran 42 tests: passed: 39, failed: 1, crashed: 1, skipped: 1')" "39 3"
is "kunit: no summary line" "$(kunit_totals '')" "0 1"
is "kunit: ran no test" "$(kunit_totals 'Testing complete. Ran 0 tests: ')" "0 0"

printf '%s\n' 'a 3 0' 'b 0 0' 'c 2 1' 'stray 1 0' > "$tmp/summary"
summarize "$tmp/summary" a b c d > "$tmp/out"
is "summarize: total (stray not counted as passed)" "$(tail -n 1 "$tmp/out")" "total 5 4"
like "summarize: a suite that ran no test" "$(cat "$tmp/out")" '^b: +ran no test$'
like "summarize: a missing suite" "$(cat "$tmp/out")" '^d: +missing'
like "summarize: a suite not in the list" "$(cat "$tmp/out")" '^stray: +not in the expected list'
printf '%s\n' 'a 3 0' 'c 2 1' > "$tmp/summary"
summarize "$tmp/summary" a c > "$tmp/out"
is "summarize: all named and run" "$(tail -n 1 "$tmp/out")" "total 5 1"
printf '%s\n' 'a 3 0 12' 'c 2 1' > "$tmp/summary"
summarize "$tmp/summary" a c > "$tmp/out"
is "summarize: a suite's time, where run_suite gave one" "$(head -n 1 "$tmp/out")" "a:                    3 passed, 0 failed (12 s)"
is "summarize: and none where not" "$(sed -n 2p "$tmp/out")" "c:                    2 passed, 1 failed"
is "summarize: the time is not a count" "$(tail -n 1 "$tmp/out")" "total 5 1"
mkdir -p "$tmp/rs"; : > "$tmp/rs/summary.txt"
run_suite "$tmp/rs" slow sh -c 'sleep 1; echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"' > /dev/null
like "run_suite: records how long the suite ran" "$(cat "$tmp/rs/summary.txt")" '^slow 1 0 [1-9][0-9]*$'
printf '%s\n' 'a 3 0' 'c 2 0' 'a 0 3' > "$tmp/summary"
summarize "$tmp/summary" a c > "$tmp/out"
like "summarize: a suite reported twice" "$(cat "$tmp/out")" '^a: +reported more than once$'
is "summarize: and that fails" "$(tail -n 1 "$tmp/out")" "total 5 1"
done_testing
