#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# uidgen-lease and uidgen-cluster where no etcd and no device are needed
# (make check's host suite lease-tools): lease.conf read and checked at
# start (each bad setting: exit 2, "FILE:LINE: what is wrong: what to
# do"; trailing # comments). Exact messages and exit statuses.
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

done_testing
