#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# uidgen-lease and uidgen-cluster where no etcd and no device are needed
# (make check's host suite lease-tools): lease.conf read and checked at
# start (each bad setting: exit 2, "FILE:LINE: what is wrong: what to
# do"; trailing # comments); options (a bad one: one line and a pointer
# to --help, exit 2; -V); a missing device (the CLI's hints). Exact
# messages and exit statuses.
#   tests/lease/tools.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/shell/lib.sh
make -s -C lease > /dev/null || { echo "Bail out! make -C lease failed"; exit 1; }
L=lease/uidgen-lease
C=lease/uidgen-cluster
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$tmp/lease.conf
echo "TAP version 13"

# run PROG ARGS...: $out (standard output), $err (standard error) and $rc;
# 10 s at most (an agent that starts loops until stopped: 124).
run() {
	timeout 10 "$@" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	out=$(cat "$tmp/stdout")
	err=$(cat "$tmp/stderr")
}

# conf_fails DESC MESSAGE LINE...: lease.conf of the LINEs; uidgen-lease
# with it exits 2, and standard error's first line is MESSAGE (@F@: the
# file's path).
conf_fails() {
	local d=$1 m=$2
	shift 2
	printf '%s\n' "$@" > "$f"
	run $L -c "$f" -o machine_id=x -o device="$tmp/no-device"
	is "$d: exits 2" "$rc" 2
	is "$d: says where and what" "$(printf '%s\n' "$err" | head -n 1)" "uidgen-lease: ${m//@F@/$f}"
}

# --- lease.conf: every setting checked at start --------------------------
conf_fails "endpoints = ftp://x" \
	"@F@:2: endpoints: 'ftp://x' is not an http:// or https:// URL: give etcd's client URLs, comma-separated (http://HOST:2379)" \
	"cluster = c" "endpoints = ftp://x"
conf_fails "one good URL, one without a scheme" \
	"@F@:1: endpoints: '127.0.0.1:2379' is not an http:// or https:// URL: give etcd's client URLs, comma-separated (http://HOST:2379)" \
	"endpoints = http://127.0.0.1:2379,127.0.0.1:2379"
conf_fails "a URL with no host" \
	"@F@:1: endpoints: 'http://' is not an http:// or https:// URL: give etcd's client URLs, comma-separated (http://HOST:2379)" \
	"endpoints = http://"
conf_fails "endpoints with no URL in them" \
	"@F@:1: endpoints ', ,': no URL: give etcd's client URLs, comma-separated (http://HOST:2379)" \
	"endpoints = , ,"
conf_fails "a quoted URL" \
	"@F@:1: endpoints: a value takes no quotes: write endpoints = http://127.0.0.1:2379" \
	'endpoints = "http://127.0.0.1:2379"'
conf_fails "a quoted number, in single quotes" \
	"@F@:2: ttl: a value takes no quotes: write ttl = 10" \
	"endpoints = http://127.0.0.1:1" "ttl = '10'"
conf_fails "cacert that does not exist" \
	"@F@:2: cacert /nonexistent: No such file or directory: give the PEM file of the CA that signed etcd's server certificates" \
	"endpoints = https://127.0.0.1:1" "cacert = /nonexistent"
conf_fails "cert without key" \
	"@F@:2: cert is set but key is not: give the client certificate's private key too (key = FILE)" \
	"endpoints = https://127.0.0.1:1" "cert = /etc/hostname"
conf_fails "key without cert" \
	"@F@:3: key is set but cert is not: give the client certificate too (cert = FILE)" \
	"endpoints = https://127.0.0.1:1" "" "key = /etc/hostname"
conf_fails "cert that does not exist" \
	"@F@:2: cert /nonexistent/c.pem: No such file or directory: give this machine's client certificate (PEM)" \
	"endpoints = https://127.0.0.1:1" "cert = /nonexistent/c.pem" "key = /etc/hostname"
conf_fails "password_file without user" \
	"@F@:2: password_file is set but user is not: give the etcd user too (user = NAME)" \
	"endpoints = http://127.0.0.1:1" "password_file = /etc/hostname"
conf_fails "user without password_file" \
	"@F@:2: user is set but password_file is not: give the file holding its password (password_file = FILE)" \
	"endpoints = http://127.0.0.1:1" "user = u"
conf_fails "a key given twice" \
	"@F@:4: ttl given twice (first on line 2): give it once" \
	"endpoints = http://127.0.0.1:1" "ttl = 5" "# a comment" "ttl = 6"
conf_fails "a TTL below 2 s" \
	"@F@:2: ttl = 1: not a number from 2 to 3600" \
	"endpoints = http://127.0.0.1:1" "ttl = 1"
conf_fails "an unknown key" \
	"@F@:1: unknown setting 'endpoint': the keys are uidgen-lease(8)'s (CONFIGURATION)" \
	"endpoint = x"
conf_fails "a line that is not key = value" \
	"@F@:2: not 'key = value'" \
	"endpoints = http://127.0.0.1:1" "ttl 10"
# A trailing comment: '#' after a blank ends the value. Both values are
# read: the margin is named at its line with the TTL it was checked with.
conf_fails "ttl = 2 # comment: the number is read, the comment is not" \
	"@F@:3: margin_ms 1500 leaves no time to renew in a 2 s TTL (keep it below 2/3 of it)" \
	"endpoints = http://127.0.0.1:1   # the local member" "ttl = 2 # short" "margin_ms = 1500	# too long"
conf_fails "a margin not below TTL x (1 - rate), named where the margin is set" \
	"@F@:3: margin_ms 1000 is not below TTL x (1 - rate_ppm) = 1000 ms (ttl 2 s, rate_ppm 500000): the deadline would come before the keepalive" \
	"endpoints = http://127.0.0.1:1" "ttl = 2" "margin_ms = 1000" "rate_ppm = 500000"
printf 'endpoints = http://127.0.0.1:1 # here\nttl = 10 # seconds\ncacert = %s # a CA\n' /etc/hostname > "$f"
run $L -c "$f" -o machine_id=x -o device="$tmp/no-device"
is "ttl = 10 # comment, and a cacert that exists: past the configuration (exit 1 at the device)" \
	"$rc $(printf '%s\n' "$err" | head -n 1)" "1 uidgen-lease: $tmp/no-device: No such file or directory"
run $L -c /dev/null -o endpoints=ftp://x -o machine_id=x -o device="$tmp/no-device"
is "-o endpoints=ftp://x: exit 2, named as -o" "$rc $(printf '%s\n' "$err" | head -n 1)" \
	"2 uidgen-lease: -o: endpoints: 'ftp://x' is not an http:// or https:// URL: give etcd's client URLs, comma-separated (http://HOST:2379)"
run $L -c /dev/null -o endpoints=http://127.0.0.1:1 -o machine_id=x -o ttl=5 -o ttl=6 -o device="$tmp/no-device"
is "-o given twice: the last one counts (over the file's, as over each other)" "$rc" 1
run $C -c /dev/null -o endpoints=ftp://x
is "uidgen-cluster checks endpoints too: exit 2, in its own name" "$rc $(printf '%s\n' "$err" | head -n 1)" \
	"2 uidgen-cluster: -o: endpoints: 'ftp://x' is not an http:// or https:// URL: give etcd's client URLs, comma-separated (http://HOST:2379)"

# --- The shipped example --------------------------------------------------
run $L -c etc/lease.conf.example -o machine_id=x -o device="$tmp/no-device"
is "etc/lease.conf.example: every setting passes (exit 1 at the device)" \
	"$rc $(printf '%s\n' "$err" | head -n 1)" "1 uidgen-lease: $tmp/no-device: No such file or directory"
grep -v '^endpoints' etc/lease.conf.example > "$f"
run $L -c "$f" -o machine_id=x
is "etc/lease.conf.example without its endpoints line: no default, exit 2" \
	"$rc $(printf '%s\n' "$err" | head -n 1)" \
	"2 uidgen-lease: no etcd endpoints: set endpoints = URL[,URL...] in /etc/uidgen/lease.conf (see lease.conf.example in the package's docs) or give -o endpoints=URL"

# --- Options: one line and a pointer to --help; -V ------------------------
v=$(make -s --no-print-directory version)
for p in uidgen-lease uidgen-cluster; do
	run lease/$p --x
	is "$p --x: exit 2, one line and where help is, nothing on standard output" \
		"$rc|$out|$err" "2||$p: unknown option '--x'
Try '$p --help'."
	run lease/$p -z
	is "$p -z: exit 2, unknown option '-z'" "$rc|$err" "2|$p: unknown option '-z'
Try '$p --help'."
	run lease/$p -c
	is "$p -c (no value): exit 2, says it needs one" "$rc|$err" "2|$p: option '-c' needs a value
Try '$p --help'."
	run lease/$p --config
	is "$p --config (no value): exit 2, says it needs one" "$rc|$err" "2|$p: option '--config' needs a value
Try '$p --help'."
	run lease/$p --help=x
	is "$p --help=x: exit 2, it takes no value" "$rc|$err" "2|$p: option '--help' takes no value
Try '$p --help'."
	run lease/$p -c /dev/null -o endpoints=http://127.0.0.1:1 stray
	is "$p with a stray argument: exit 2, naming it" "$rc|$err" "2|$p: unexpected argument 'stray'
Try '$p --help'."
	run lease/$p -V
	is "$p -V: exit 0, the version from version.mk" "$rc|$out|$err" "0|$p $v|"
	run lease/$p --version
	is "$p --version: the same" "$rc|$out" "0|$p $v"
	run lease/$p --help
	like "$p --help: exit 0, the usage on standard output" "$rc|$(printf '%s\n' "$out" | head -n 1)" "^0[|]Usage: $p "
	like "$p --help names -V, --version" "$out" "-V, --version"
done

# --- The device: the CLI's hints --------------------------------------------
printf 'endpoints = http://127.0.0.1:1\n' > "$f"
run $L -c "$f" -o machine_id=x -o device="$tmp/no-device"
if [ -e /sys/module/uidgen ]; then
	hint="uidgen-lease: the uidgen module is loaded, but $tmp/no-device is not its device: give its device with device = PATH (default /dev/uid)"
else
	hint="uidgen-lease: the uidgen module is not loaded: as root, 'modprobe uidgen'; uidgen-lease then assigns the node ID itself
uidgen-lease: modprobe finds the module once 'make install' (or a package) has put it in place; from the source tree without that, 'insmod module/uidgen.ko'"
fi
is "a missing device: exit 1, what is missing and how to load the module" "$rc|$err" "1|uidgen-lease: $tmp/no-device: No such file or directory
$hint"
run $L -c "$f" -o machine_id=x -o device=/dev/null
is "a file that is not the device (or a module older than 2.0): exit 1, one message saying which to give" "$rc|$err" \
	"1|uidgen-lease: /dev/null: not a uidgen 2.0 device (UIDGEN_IOC_INFO: Inappropriate ioctl for device): give the device with device = PATH (default /dev/uid); a uidgen module older than 2.0 needs upgrading ('uidgen info' says which is loaded)"
: > "$tmp/closed"
chmod 000 "$tmp/closed"
chmod 755 "$tmp"
chmod 644 "$f"
if [ "$(id -u)" -eq 0 ]; then
	run setpriv --reuid=65534 --regid=65534 --clear-groups $L -c "$f" -o machine_id=x -o device="$tmp/closed"
else
	run $L -c "$f" -o machine_id=x -o device="$tmp/closed"
fi
is "a device this user may not open: exit 1, the device's mode and who may" "$rc|$err" "1|uidgen-lease: $tmp/closed: Permission denied
uidgen-lease: the device's mode and group leave this user out: udev sets them, from 60-uidgen.rules (see uid(4)): run uidgen-lease as root, as uidgen-lease.service does"

done_testing
