# SPDX-License-Identifier: GPL-2.0
# Counting test results, for tests/check.sh (host), tests/qemu/guest-check.sh
# (guest), tests/qemu/debug-vm.sh and tests/lease/check-cluster.sh; POSIX
# sh, sourced. tests/totals-test.sh checks these functions against canned
# logs.
#
# totals LOG RC: print "PASS FAIL" for a run that wrote a kselftest
# "# Totals:" line to LOG and exited with RC.
# No totals line means the runner died: a failure, never a pass. Skipped
# and errored tests count as failures. A run that ran no test (pass:0
# fail:0) is one failure, and so is a non-zero exit with no failure counted.
totals() {
	_t=$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$1" | tail -n 1)
	if [ -z "$_t" ]; then
		echo "0 1"
		return
	fi
	set -- "$1" "$2" $(totals_line "$_t")
	_pass=$3
	_fail=$4
	[ $((_pass + _fail)) -gt 0 ] || _fail=1
	[ "$2" -eq 0 ] || [ "$_fail" -gt 0 ] || _fail=1
	echo "$_pass $_fail"
}

# run_suite DIR NAME COMMAND...: run a suite that prints kselftest-style
# "# Totals:" lines, its output kept in DIR/NAME.log and shown, and add
# "NAME PASS FAIL SECONDS" to DIR/summary.txt (SECONDS: how long it ran,
# by this machine's clock; a guest's own under QEMU).
run_suite() {
	_rs_dir=$1
	_rs_name=$2
	shift 2
	_rs_start=$(date +%s)
	"$@" > "$_rs_dir/$_rs_name.log" 2>&1
	_rs_rc=$?
	cat "$_rs_dir/$_rs_name.log"
	echo "$_rs_name $(totals "$_rs_dir/$_rs_name.log" "$_rs_rc") $(( $(date +%s) - _rs_start ))" >> "$_rs_dir/summary.txt"
}

# totals_line LINE: "PASS FAIL" of one "# Totals:" line, where FAIL counts
# fail, skip and error.
totals_line() {
	_p=$(echo "$1" | sed -n 's/^# Totals: pass:\([0-9]*\).*/\1/p')
	_f=$(echo "$1" | sed -n 's/.* fail:\([0-9]*\).*/\1/p')
	_s=$(echo "$1" | sed -n 's/.* skip:\([0-9]*\).*/\1/p')
	_e=$(echo "$1" | sed -n 's/.* error:\([0-9]*\).*/\1/p')
	echo "${_p:-0} $((${_f:-0} + ${_s:-0} + ${_e:-0}))"
}

# sum_totals LOG: "PASS FAIL N" summed over every "# Totals:" line in LOG
# (N of them), skip and error counted as failures.
sum_totals() {
	_sp=0
	_sf=0
	_sn=0
	while IFS= read -r _l; do
		[ -n "$_l" ] || continue
		set -- $(totals_line "$_l")
		_sp=$((_sp + $1))
		_sf=$((_sf + $2))
		_sn=$((_sn + 1))
	done <<SUM
$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$1")
SUM
	echo "$_sp $_sf $_sn"
}

# kunit_totals LINE: "PASS FAIL" from kunit.py's "Testing complete. Ran N
# tests: passed: P, failed: F, crashed: C, skipped: S, errors: E" (it
# prints only the counts that are not 0); failed, crashed, skipped and
# errors all count as failures. No line: "0 1".
kunit_totals() {
	case $1 in
	*"Testing complete. Ran "*) ;;
	*) echo "0 1"; return ;;
	esac
	_kp=$(echo "$1" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
	_kf=0
	for _k in failed crashed skipped errors; do
		_n=$(echo "$1" | sed -n "s/.*$_k: \\([0-9]*\\).*/\\1/p")
		_kf=$((_kf + ${_n:-0}))
	done
	echo "${_kp:-0} $_kf"
}

# summarize SUMMARY NAME...: one line per suite NAME from SUMMARY ("NAME
# PASS FAIL [SECONDS]" lines, the time shown where there is one), then
# "total PASS FAIL" as the last line. A suite
# NAME that never reported, or that ran no test, is one failure; so is a
# suite in SUMMARY that is not named (add it to the expected list).
summarize() {
	_sum=$1
	shift
	_tp=0
	_tf=0
	for _name in "$@"; do
		_line=$(awk -v n="$_name" '$1 == n { print $2, $3; exit }' "$_sum" 2>/dev/null)
		_secs=$(awk -v n="$_name" '$1 == n && $4 != "" { print " (" $4 " s)"; exit }' "$_sum" 2>/dev/null)
		if [ -z "$_line" ]; then
			printf '%-21s missing: it never reported\n' "$_name:"
			_tf=$((_tf + 1))
			continue
		fi
		if [ "$(awk -v n="$_name" '$1 == n' "$_sum" | wc -l)" -gt 1 ]; then
			printf '%-21s reported more than once\n' "$_name:"
			_tf=$((_tf + 1))
		fi
		_p=${_line% *}
		_f=${_line#* }
		if [ $((_p + _f)) -eq 0 ]; then
			printf '%-21s ran no test\n' "$_name:"
			_f=1
		else
			printf '%-21s %s passed, %s failed%s\n' "$_name:" "$_p" "$_f" "$_secs"
		fi
		_tp=$((_tp + _p))
		_tf=$((_tf + _f))
	done
	for _name in $(awk '{ print $1 }' "$_sum" 2>/dev/null); do
		case " $* " in
		*" $_name "*) ;;
		*)
			printf '%-21s not in the expected list of suites\n' "$_name:"
			_tf=$((_tf + 1))
			;;
		esac
	done
	echo "total $_tp $_tf"
}

# boot_retries DIR: one line naming the VMs under DIR that vm.sh booted a
# second time because the first kernel died before the job (nothing, if
# none). Not a failure: what ran, ran once; the line keeps it visible.
boot_retries() {
	_r=$(find "$1" -name boot-retried 2>/dev/null | sort)
	[ -n "$_r" ] || return 0
	echo "VM boots retried (the kernel died before the job): $(echo "$_r" | wc -l):" $(echo "$_r" | sed 's|/boot-retried$||')
}
