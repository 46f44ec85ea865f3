# SPDX-License-Identifier: GPL-2.0
# Sourced by the suites that run on the host and boot VMs of their own
# (tests/qemu/snapshot.sh, tests/install.sh, tests/dkms.sh, tests/deb.sh,
# bench/bench.sh): their common options and output directory, their TAP
# output and one VM job.
# Needs $repo (and to run from it).

# host_opts SERIES "$@": -k KVER (default: the newest installed kernel of
# SERIES, 6.1 or 6.12) and -o OUTDIR into $kver and $out ($out stays empty
# when not given: each suite has its own default). Fails with 2 on a bad
# option, 1 if no such kernel is installed.
host_opts() {
	local series=$1 opt OPTIND=1
	shift
	kver=
	out=
	while getopts "k:o:" opt; do
		case $opt in
		k) kver=$OPTARG ;;
		o) out=$OPTARG ;;
		*) return 2 ;;
		esac
	done
	[ -n "$kver" ] || kver=$("$repo/tests/qemu/kver.sh" "$series")
}

# host_out NAME: $out, by default build/NAME-KVER, emptied and created.
host_out() {
	out=${out:-$repo/build/$1-$kver}
	rm -rf "$out"
	mkdir -p "$out"
}

# check DESCRIPTION COMMAND: one TAP line for COMMAND, run with eval. Its
# output goes to $out/check-N.log; a failure shows the command and the
# end of that log.
pass=0
fail=0
n=0
check() {
	n=$((n + 1))
	if eval "$2" > "$out/check-$n.log" 2>&1; then
		pass=$((pass + 1)); echo "ok $n $1"
	else
		fail=$((fail + 1)); echo "not ok $n $1"; echo "#   $2"
		sed 's/^/#   /' "$out/check-$n.log" | tail -n 40
	fi
}

# tap_end: the plan and the "# Totals:" line; fails if any check did.
tap_end() {
	echo "1..$n"
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" -eq 0 ]
}

# vm_job: boot $kver with $out/job.sh as its job (this machine's root
# shared read-only), its console in $out/vm.log and vm.sh's exit status in
# $vmrc (0 only if the job ran and the kernel log has no warning).
vm_job() {
	tests/qemu/vm.sh -k "$kver" -o "$out/vm" "$out/job.sh" > "$out/vm.log" 2>&1
	vmrc=$?
}

# vm_ok: the check that the VM finished and its kernel log is clean; on
# failure it shows vm.sh's exit status and the end of what it printed
# (the job's output, the kernel's problems, the console of a guest that
# died), which is all a CI log keeps.
vm_ok() {
	[ "$vmrc" -eq 0 ] && return
	tail -n 38 "$out/vm.log"
	echo "(the end of $out/vm.log) vm.sh exited $vmrc (124: no finish, 125: kernel log problems)"
	return 1
}

# get NAME: what the job printed on its "RESULT NAME ..." lines.
get() { sed -n "s/^RESULT $1 //p" "$out/vm.log" | tr -d '\r'; }
